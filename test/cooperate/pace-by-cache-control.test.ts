import { afterEach, describe, expect, it } from 'vitest';
import { paceByCacheControl } from '../../src/cooperate/index.js';
import { poll } from '../../src/index.js';
import { recordingEnv } from '../helpers/env.js';
import { json, scripted, startServer, type TestServer } from '../helpers/server.js';

// Cache-Control: max-age on a status answer is opt-in (docs/servers.md says
// why): the default poll ignores it, paceByCacheControl() waits it out,
// capped at a minute by default so that a max-age=3600 set by mistake on a
// job's status holds a poll a minute, not an hour.

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const isDone = (job: { status: string }): boolean => job.status === 'done';
const pending = { status: 'pending' };
const done = { status: 'done' };

describe('Cache-Control: max-age', () => {
  it('the default poll ignores it: a max-age=60 status is polled at its interval', async () => {
    server = await startServer(scripted([json(200, pending, { 'cache-control': 'private, max-age=60' }), json(200, done)]));
    const { env, delays } = recordingEnv({ random: 0.5 });
    await poll(server.url, { isDone, interval: 100, env });
    expect(delays).toEqual([100]);
  });

  it('paceByCacheControl(): max-age minus Age, spread like a Retry-After (45 s + 10 %)', async () => {
    server = await startServer(scripted([json(200, pending, { 'cache-control': 'public, max-age=60', age: '15' }), json(200, done)]));
    const { env, delays } = recordingEnv({ random: 0.5 });
    await poll(server.url, { isDone, interval: 100, env, use: [paceByCacheControl()] });
    expect(delays).toEqual([49_500]);
  });

  it('a max-age=3600 set by mistake holds a poll at most a minute (spread below the cap), or `max`', async () => {
    server = await startServer(scripted([json(200, pending, { 'cache-control': 'max-age=3600' }), json(200, pending, { 'cache-control': 'max-age=3600' }), json(200, done)]));
    const { env, delays } = recordingEnv({ random: 0.5 });
    await poll(server.url, { isDone, interval: 100, env, use: [paceByCacheControl()] });
    expect(delays).toEqual([55_000, 55_000]);
    await server.close();
    server = await startServer(scripted([json(200, pending, { 'cache-control': 'max-age=3600' }), json(200, done)]));
    const second = recordingEnv({ random: 0.5 });
    await poll(server.url, { isDone, interval: 100, env: second.env, use: [paceByCacheControl({ max: 12_000 })] });
    expect(second.delays).toEqual([11_000]);
  });

  it('no-cache, an expired answer or none at all: the interval', async () => {
    server = await startServer(
      scripted([
        json(200, pending, { 'cache-control': 'max-age=60, no-cache' }),
        json(200, pending, { 'cache-control': 'max-age=10', age: '20' }),
        json(200, pending),
        json(200, done),
      ]),
    );
    const { env, delays } = recordingEnv({ random: 0.5 });
    await poll(server.url, { isDone, interval: 100, env, use: [paceByCacheControl()] });
    expect(delays).toEqual([100, 100, 100]);
  });

  it('refuses a bad option with a TypeError naming it', () => {
    expect(() => paceByCacheControl({ max: -1 })).toThrow(new TypeError('Expected `max` to be a finite number >= 0'));
    expect(() => paceByCacheControl({ max: Infinity })).toThrow(/`max`/);
    expect(() => paceByCacheControl({ maxAge: 5 } as never)).toThrow(/maxAge/);
    expect(() => paceByCacheControl(5 as never)).toThrow(new TypeError('Expected `options` to be an object'));
  });
});
