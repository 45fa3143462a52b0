import { afterEach, describe, expect, it } from 'vitest';
import { jsonWithETag, pollingCors, retryLater } from '../../src/server/index.js';
import { serveWeb } from './serve.js';
import { thrown } from './thrown.js';

const APP = 'http://app.test:5173';
/** What pollingCors allows and exposes by default: what a poller sends and reads. */
const ALLOW = 'If-None-Match, If-Modified-Since, Idempotency-Key, Authorization, Content-Type, Prefer';
const EXPOSE = 'ETag, Last-Modified, Retry-After, Retry-After-Ms, X-Ms-Retry-After-Ms, X-Poll-Interval, RateLimit, RateLimit-Policy, RateLimit-Reset, RateLimit-Remaining, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, X-RateLimit-Retry-After, Grpc-Retry-Pushback-Ms, Location, Operation-Location, Preference-Applied';
const job = (request: Request): Promise<Response> => jsonWithETag(request, { id: '1', status: 'running' });

const preflight = (origin: string, headers: Record<string, string> = {}): Request =>
  new Request('http://api.test/jobs/1', {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'if-none-match', ...headers },
  });

describe('pollingCors', () => {
  it("keeps the handler's own exposed headers, adding each default once", async () => {
    const handle = pollingCors({ origin: '*' })(() => new Response('{}', { headers: { 'access-control-expose-headers': 'X-Total, etag,location' } }));
    const response = await handle(new Request('http://api.test/jobs', { headers: { origin: APP } }));
    expect(response.headers.get('access-control-expose-headers')).toBe(
      'X-Total, etag, location, Last-Modified, Retry-After, Retry-After-Ms, X-Ms-Retry-After-Ms, X-Poll-Interval, RateLimit, RateLimit-Policy, RateLimit-Reset, RateLimit-Remaining, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, X-RateLimit-Retry-After, Grpc-Retry-Pushback-Ms, Operation-Location, Preference-Applied',
    );
  });

  it("with origin '*': exposes what a poller reads, and answers preflights allowing what it sends", async () => {
    const handle = pollingCors({ origin: '*' })(job);
    const response = await handle(new Request('http://api.test/jobs/1', { headers: { origin: APP } }));
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-expose-headers')).toBe(EXPOSE);
    expect(response.headers.get('vary')).toBeNull();
    expect(response.headers.get('etag')).toMatch(/^"/);

    const answer = await handle(preflight(APP));
    expect(answer.status).toBe(204);
    expect(Object.fromEntries(answer.headers)).toEqual({
      'access-control-allow-origin': '*',
      'access-control-allow-methods': 'GET, HEAD, POST',
      'access-control-allow-headers': ALLOW,
      'access-control-max-age': '7200',
    });
  });

  it('reflects a listed origin with Vary: Origin, and gives other origins nothing', async () => {
    const handle = pollingCors({ origin: [APP, 'https://other.test'] })(job);
    const allowed = await handle(new Request('http://api.test/jobs/1', { headers: { origin: APP } }));
    expect(allowed.headers.get('access-control-allow-origin')).toBe(APP);
    expect(allowed.headers.get('vary')).toBe('Origin');

    const stranger = await handle(new Request('http://api.test/jobs/1', { headers: { origin: 'https://evil.test' } }));
    expect(stranger.status).toBe(200);
    expect(stranger.headers.get('access-control-allow-origin')).toBeNull();
    expect(stranger.headers.get('access-control-expose-headers')).toBeNull();
    expect(stranger.headers.get('vary')).toBe('Origin');

    const strangerPreflight = await handle(preflight('https://evil.test'));
    expect(strangerPreflight.status).toBe(204);
    expect(Object.fromEntries(strangerPreflight.headers)).toEqual({ vary: 'Origin' });

    // Same-origin and non-browser requests carry no Origin: untouched but for Vary.
    const plain = await handle(new Request('http://api.test/jobs/1'));
    expect(plain.headers.get('access-control-allow-origin')).toBeNull();
    expect(plain.headers.get('vary')).toBe('Origin');
  });

  it('adds the app’s headers and methods, credentials and maxAge; keeps an existing Vary', async () => {
    const handle = pollingCors({
      origin: (origin) => origin.endsWith('.app.test'),
      allowHeaders: ['content-type', 'X-Request-Id'],
      exposeHeaders: ['X-Progress', 'retry-after'],
      allowMethods: ['GET', 'DELETE'],
      credentials: true,
      maxAge: 60,
    })(() => new Response('ok', { headers: { vary: 'Accept-Encoding' } }));
    const answer = await handle(preflight('https://a.app.test'));
    expect(Object.fromEntries(answer.headers)).toEqual({
      'access-control-allow-origin': 'https://a.app.test',
      'access-control-allow-credentials': 'true',
      'access-control-allow-methods': 'GET, DELETE',
      'access-control-allow-headers': `${ALLOW}, X-Request-Id`,
      'access-control-max-age': '60',
      vary: 'Origin',
    });
    const response = await handle(new Request('http://api.test/', { headers: { origin: 'https://a.app.test' } }));
    expect(response.headers.get('access-control-expose-headers')).toBe(`${EXPOSE}, X-Progress`);
    expect(response.headers.get('access-control-allow-credentials')).toBe('true');
    expect(response.headers.get('vary')).toBe('Accept-Encoding, Origin');
  });

  it('passes OPTIONS requests that are not preflights, and extra handler arguments, to the handler', async () => {
    const seen: unknown[] = [];
    const handle = pollingCors({ origin: '*' })((request: Request, env: { name: string }) => {
      seen.push([request.method, env.name]);
      return new Response(null, { status: 204, headers: { allow: 'GET, OPTIONS' } });
    });
    const response = await handle(new Request('http://api.test/', { method: 'OPTIONS', headers: { origin: APP } }), {
      name: 'worker-env',
    });
    expect(response.headers.get('allow')).toBe('GET, OPTIONS');
    expect(seen).toEqual([['OPTIONS', 'worker-env']]);
  });

  it('adds headers to responses whose headers are immutable (from fetch) and to Retry-After answers', async () => {
    const immutable = Response.redirect('http://api.test/elsewhere', 302);
    const handle = pollingCors({ origin: '*' })(() => immutable);
    const response = await handle(new Request('http://api.test/', { headers: { origin: APP } }));
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('http://api.test/elsewhere');
    expect(response.headers.get('access-control-allow-origin')).toBe('*');

    const busy = await pollingCors({ origin: APP })(() => retryLater(503, 3))(
      new Request('http://api.test/', { headers: { origin: APP } }),
    );
    expect(busy.status).toBe(503);
    expect(busy.headers.get('retry-after')).toBe('3');
    expect(busy.headers.get('access-control-expose-headers')).toBe(EXPOSE);
  });

  it.each([
    [{ origin: 'https://app.test/' }, "Expected `origin` to hold origins such as 'https://app.example.com', got 'https://app.test/'"],
    [{ origin: ['https://app.test', 'app.test'] }, "Expected `origin` to hold origins such as 'https://app.example.com', got 'app.test'"],
    [{ origin: [] }, "Expected `origin` to be '*', an origin, a non-empty array of origins or a function"],
    [{ origin: 42 }, "Expected `origin` to be '*', an origin, a non-empty array of origins or a function"],
    [{ origin: '*', credentials: true }, "Expected `origin` to name origins when `credentials` is true, not '*'"],
    [{ origin: '*', credentials: 'yes' }, 'Expected `credentials` to be a boolean'],
    [{ origin: '*', maxAge: -1 }, 'Expected `maxAge` to be a non-negative integer'],
    [{ origin: '*', allowHeaders: 'Content-Type' }, 'Expected `allowHeaders` to be an array of header or method names'],
    [{ origin: '*', exposeHeaders: ['X Bad'] }, 'Expected `exposeHeaders` to be an array of header or method names'],
    [{ origin: '*', allowMethods: [1] }, 'Expected `allowMethods` to be an array of header or method names'],
    [null, 'Expected `options` to be an object'],
  ])('refuses bad options with a TypeError naming the option (%#)', async (options, message) => {
    const error = await thrown(() => pollingCors(options as never));
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toBe(message);
  });

  it('refuses a handler that is not a function', async () => {
    const error = await thrown(() => pollingCors({ origin: '*' })('nope' as never));
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toBe('Expected `handler` to be a function');
  });
});

describe('pollingCors over real HTTP', () => {
  let server: Awaited<ReturnType<typeof serveWeb>> | undefined;
  afterEach(() => server?.close());

  it('answers the preflight without calling the handler, then the GET with exposed headers', async () => {
    const calls: string[] = [];
    server = await serveWeb(
      pollingCors({ origin: APP, allowHeaders: ['Content-Type'] })((request) => {
        calls.push(request.method);
        return jsonWithETag(request, { ok: true });
      }),
    );
    const answer = await fetch(`${server.url}/jobs/1`, {
      method: 'OPTIONS',
      headers: { origin: APP, 'access-control-request-method': 'GET', 'access-control-request-headers': 'if-none-match' },
    });
    expect(answer.status).toBe(204);
    expect(answer.headers.get('access-control-allow-headers')).toBe(ALLOW);
    const response = await fetch(`${server.url}/jobs/1`, { headers: { origin: APP } });
    expect(response.headers.get('access-control-allow-origin')).toBe(APP);
    expect(response.headers.get('access-control-expose-headers')).toBe(EXPOSE);
    expect(calls).toEqual(['GET']);
    expect(server.exchanges.map((e) => [e.method, e.status])).toEqual([
      ['OPTIONS', 204],
      ['GET', 200],
    ]);
  });
});

describe('pollingCors with a broken handler', () => {
  it('names the handler when it returns something other than a Response', async () => {
    const error = await thrown(() => pollingCors({ origin: '*' })((() => undefined) as never)(new Request('http://api.test/')));
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toBe('Expected `handler` to return a Response, got undefined');
  });
});
