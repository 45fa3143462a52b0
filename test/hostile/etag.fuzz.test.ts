import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { poll, type PollEvent } from '../../src/index.js';
import { jsonWithETag } from '../../src/server/index.js';
import { recordingEnv } from '../helpers/env.js';
import { startServer } from '../helpers/server.js';
import { FC_RUNS } from '../property/runs.js';

// ETag handling reads text any client (or anything between) can write, on
// both sides. The server's If-None-Match evaluation must agree with a small
// model of RFC 9110 §13.1.2 for any value a Headers object accepts (a
// malformed one is a plain 200, never a throw), and the client must echo the
// last 2xx ETag verbatim, whatever bytes it holds, over real HTTP. Fields
// run up to 100 KB, on both sides of the 64 KiB the server reads at most.

// ---- A reference model of RFC 9110: If-None-Match = "*" / #entity-tag, weak comparison. ----
const OWS = /^[ \t]+|[ \t]+$/g;
const trimOWS = (text: string): string => text.replace(OWS, '');
// entity-tag = [ "W/" ] DQUOTE *etagc DQUOTE; etagc = %x21 / %x23-7E / obs-text (§8.8.3).
const ENTITY_TAG = /^(?:W\/)?"[\x21\x23-\x7e\x80-\xff]*"$/;
/** A field String#trim would shorten more than OWS trimming does (the bug pinned below). */
const trimsTooMuch = (field: string): boolean => field.trim() !== trimOWS(field);
const opaque = (tag: string): string => (tag.startsWith('W/') ? tag.slice(2) : tag);

/** Past this length a field is malformed unread (RFC 9110 §5.4 lets a server refuse what it will not process). */
const MAX_FIELD_LENGTH = 65_536;

/** Whether `field` matches `etag`: `*` alone, or a well-formed list (empty elements allowed) naming it, of at most 64 KiB. */
function modelMatches(field: string | null, etag: string): boolean {
  if (field === null || field.length > MAX_FIELD_LENGTH) return false;
  const value = trimOWS(field);
  if (value === '*') return true;
  const elements: string[] = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i < value.length; i += 1) {
    if (value[i] === '"') quoted = !quoted;
    else if (value[i] === ',' && !quoted) {
      elements.push(value.slice(start, i));
      start = i + 1;
    }
  }
  if (quoted) return false;
  elements.push(value.slice(start));
  const tags = elements.map(trimOWS).filter((element) => element !== '');
  if (tags.length === 0 || !tags.every((tag) => ENTITY_TAG.test(tag))) return false;
  return tags.some((tag) => opaque(tag) === opaque(etag));
}

/** What jsonWithETag must compute, independently: SHA-256 of the UTF-8 body, base64url, quoted. */
const etagOf = (text: string): string => `"${createHash('sha256').update(text, 'utf8').digest('base64url')}"`;

// ---- Generators. ----
const char = (min: number, max: number): fc.Arbitrary<string> => fc.integer({ min, max }).map((code) => String.fromCharCode(code));
const latin1 = fc.string({ unit: char(0, 0xff), maxLength: 64 });
const etagc = fc.oneof(fc.constantFrom(...'!#$%&\'()*+,-./:;<=>?@[]^_`{|}~'), char(0x21, 0x7e).filter((c) => c !== '"'), char(0x80, 0xff));
const opaqueTag = fc.string({ unit: etagc, maxLength: 16 }).map((inner) => `"${inner}"`);
const entityTag = fc.tuple(fc.boolean(), opaqueTag).map(([weak, tag]) => (weak ? `W/${tag}` : tag));
const ows = fc.stringMatching(/^[ \t]{0,3}$/);

/** A well-formed If-None-Match list holding the real ETag (weak or strong) among junk, with OWS and empty elements. */
const separator = fc.record({ text: fc.tuple(ows, fc.array(ows, { minLength: 1, maxLength: 3 })).map(([lead, rest]) => lead + rest.map((s) => `,${s}`).join('')), newLine: fc.boolean() });
const list = fc.record({ junk: fc.array(entityTag, { maxLength: 8 }), at: fc.nat(), weak: fc.boolean(), separators: fc.array(separator, { minLength: 9, maxLength: 9 }), lead: ows, trail: ows });
/** The list's field lines: a separator marked `newLine` ends one (Headers joins lines with ", ", the same list). */
function listLines({ junk, at, weak, separators, lead, trail }: typeof list extends fc.Arbitrary<infer L> ? L : never, etag: string): string[] {
  const elements = [...junk];
  elements.splice(at % (junk.length + 1), 0, weak ? `W/${etag}` : etag);
  const lines = [lead];
  elements.forEach((element, i) => {
    lines[lines.length - 1] += element;
    if (i === elements.length - 1) return;
    if (separators[i]!.newLine) lines.push('');
    else lines[lines.length - 1] += separators[i]!.text;
  });
  lines[lines.length - 1] += trail;
  return lines;
}

/** A piece of a header template: literal text, or a form of the real ETag (known only once the body is). */
type Piece = string | { real: 'tag' | 'weak' | 'inner' | 'near' };
const piece: fc.Arbitrary<Piece> = fc.oneof(
  fc.constantFrom<Piece>({ real: 'tag' }, { real: 'weak' }, { real: 'inner' }, { real: 'near' }),
  fc.constantFrom('W/', 'w/', '"', ',', ', ', '*', ' ', '\t', '\v', '\f', '\u00a0', '\x7f', '\x85', '\xff', '\x00', '\r\n', '"x"', 'W/"y"', '""'),
  latin1,
  entityTag,
);
const template = fc.array(piece, { maxLength: 12 });
const render = (pieces: Piece[], etag: string): string =>
  pieces
    .map((p) => {
      if (typeof p === 'string') return p;
      if (p.real === 'tag') return etag;
      if (p.real === 'weak') return `W/${etag}`;
      return p.real === 'inner' ? etag.slice(1, -1) : etag.slice(0, -2) + '"';
    })
    .join('');

/** Header values, some of them beyond what Headers accepts; `etag` is the real one for this body. */
const headerValues: Array<{ name: string; runs: number; value: fc.Arbitrary<(etag: string) => string> }> = [
  { name: 'unicode strings', runs: FC_RUNS, value: fc.oneof(fc.string({ unit: 'binary', maxLength: 64 }), fc.string({ unit: 'grapheme', maxLength: 32 })).map((s) => () => s) },
  { name: 'latin1 strings', runs: FC_RUNS, value: latin1.map((s) => () => s) },
  {
    name: 'list-like strings',
    runs: FC_RUNS,
    value: fc.stringMatching(/^[ \t,]*(?:\*|(?:W\/|w\/)?"[!#-~\x80-\xff ]{0,8}"?)?(?:[ \t]*,[ \t,]*(?:W\/)?"[!#-~\x80-\xff]{0,8}"?)*[ \t,*]*$/).map((s) => () => s),
  },
  { name: 'templates around the real ETag', runs: FC_RUNS, value: template.map((pieces) => (etag: string) => render(pieces, etag)) },
  {
    name: 'well-formed lists or * with stray bytes',
    runs: FC_RUNS,
    value: fc
      .tuple(list, fc.boolean(), fc.array(fc.tuple(fc.oneof(fc.constant(0), fc.constant(Infinity), fc.nat()), fc.oneof(char(0, 0xff), fc.constantFrom('\v', '\f', '\u00a0', '\x85', ',', ' ', '\t', '"', 'W/', '*'))), { minLength: 1, maxLength: 2 }))
      .map(([spec, star, strays]) => (etag: string) => {
        let text = star ? `${spec.lead}*${spec.trail}` : listLines(spec, etag).join(', ');
        for (const [at, stray] of strays) {
          const i = Math.min(at, text.length);
          text = text.slice(0, i) + stray + text.slice(i);
        }
        return text;
      }),
  },
  {
    name: 'strings up to 100 KB',
    runs: Math.max(20, Math.ceil(FC_RUNS / 10)),
    value: fc.oneof(
      // Any text repeated and cut anywhere (a quote may be left open), then more.
      fc.tuple(template, fc.integer({ min: 1_000, max: 100_000 }), template).map(([unit, length, tail]) => (etag: string) => {
        const text = render(unit, etag);
        return (text === '' ? '' : text.repeat(Math.ceil(length / text.length)).slice(0, length)) + render(tail, etag);
      }),
      // A well-formed list whose junk repeats for up to 100 KB before the rest of the list.
      fc.tuple(list, fc.integer({ min: 1_000, max: 100_000 })).map(([spec, length]) => (etag: string) => {
        const filler = `${[...spec.junk, '"pad"'].join(', ')}, `;
        return filler.repeat(Math.ceil(length / filler.length)) + listLines(spec, etag).join(', ');
      }),
    ),
  },
];

const bodyData = fc.jsonValue({ maxDepth: 2 });
const method = fc.constantFrom('GET', 'HEAD', 'POST');

/** Headers with `lines` as If-None-Match field lines (appended one by one), or null when Headers refuses them. */
function headersWith(lines: string[]): Headers | null {
  const headers = new Headers();
  try {
    for (const line of lines) headers.append('if-none-match', line);
  } catch (error) {
    // Headers may refuse only NUL, CR, LF and characters beyond a byte; anything else must reach the server.
    expect(lines.some((line) => /[\0\r\n\u0100-\uffff]/.test(line)), JSON.stringify(lines)).toBe(true);
    expect(error).toBeInstanceOf(TypeError);
    return null;
  }
  return headers;
}

/** Asserts the full answer of jsonWithETag: 304 with no body exactly when `expect304`, else 200 with the exact body. */
async function checkAnswer(request: Request, data: unknown, expect304: boolean): Promise<void> {
  const text = JSON.stringify(data);
  const etag = etagOf(text);
  const response = await jsonWithETag(request, data);
  const label = `${request.method} If-None-Match ${JSON.stringify(request.headers.get('if-none-match')?.slice(0, 200))}`;
  expect(response.status, label).toBe(expect304 ? 304 : 200);
  expect(response.headers.get('etag'), label).toBe(etag);
  const body = Buffer.from(await response.arrayBuffer());
  if (expect304 || request.method === 'HEAD') {
    expect(response.body, label).toBeNull();
    expect(body.length, label).toBe(0);
  } else {
    expect(body.equals(Buffer.from(text, 'utf8')), label).toBe(true);
    expect(response.headers.get('content-type'), label).toBe('application/json');
  }
}

describe('jsonWithETag under hostile If-None-Match', () => {
  for (const { name, runs, value } of headerValues) {
    it(`never throws and answers 304 exactly when RFC 9110 says the field matches: ${name} (${runs} runs)`, async () => {
      await fc.assert(
        fc.asyncProperty(bodyData, value, method, async (data, makeValue, verb) => {
          const etag = etagOf(JSON.stringify(data));
          const field = makeValue(etag);
          const headers = headersWith([field]);
          if (headers === null) return;
          const request = new Request('http://127.0.0.1/jobs/1', { method: verb, headers });
          const received = request.headers.get('if-none-match')!;
          const readOnly = verb === 'GET' || verb === 'HEAD';
          await checkAnswer(request, data, readOnly && modelMatches(received, etag));
        }),
        { numRuns: runs },
      );
    });
  }

  // Found by the properties above (shrunk counterexamples): the field was trimmed with String#trim, which also
  // strips \v, \f and NBSP (0xA0, obs-text). None of them is OWS, so such a field is malformed and must get a 200.
  it('answers 200 to a field with VT, FF or NBSP at an end (it was a 304)', async () => {
    const etag = etagOf('[]');
    for (const field of [`\v${etag}`, '\f*', `${etag}\u00a0`, `\u00a0W/"x", ${etag}`]) {
      expect(modelMatches(field, etag) || !trimsTooMuch(field), JSON.stringify(field)).toBe(false);
      await checkAnswer(new Request('http://127.0.0.1/jobs/1', { headers: { 'if-none-match': field } }), [], false);
    }
  });

  it(`answers 304 to any well-formed list naming the ETag, weak or strong, among junk, over several field lines (${FC_RUNS} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(bodyData, list, fc.constantFrom('GET', 'HEAD'), async (data, spec, verb) => {
        const etag = etagOf(JSON.stringify(data));
        const lines = listLines(spec, etag);
        const headers = headersWith(lines)!;
        expect(modelMatches(headers.get('if-none-match'), etag), JSON.stringify(lines)).toBe(true);
        await checkAnswer(new Request('http://127.0.0.1/jobs/1', { method: verb, headers }), data, true);
      }),
      { numRuns: FC_RUNS },
    );
  });
});

type Step = { status: 200 | 304 | 503; etag: string | null };

describe('poll echoes ETags over real HTTP', () => {
  const httpRuns = Math.max(20, Math.ceil(FC_RUNS / 10));
  it(`sends back exactly the last 2xx ETag, none after a 2xx without one, unchanged across 304 and 503 (${httpRuns} runs)`, async () => {
    const step: fc.Arbitrary<Step> = fc.record({ status: fc.constantFrom(200, 200, 304, 503), etag: fc.option(entityTag, { freq: 3 }) });
    // One server for every run (a run starts at request `base`), so keep-alive connections are reused.
    let script: Step[] = [];
    let base = 0;
    const server = await startServer((_req, res, _seen, index) => {
      const at = index - base;
      const { status, etag } = script[Math.min(at, script.length - 1)]!;
      const headers: Record<string, string> = etag === null ? {} : { etag };
      // Bodies go as Buffers: a string body is sent in one write with the head, as UTF-8, which
      // would put obs-text ETags on the wire as two bytes each (Node's, not pollite's, doing).
      const json = (body: unknown): Buffer => Buffer.from(JSON.stringify(body));
      if (status === 304) res.writeHead(304, headers).end();
      else if (status === 503) res.writeHead(503, { ...headers, 'retry-after': '0', 'content-type': 'application/json' }).end(json({ error: 'busy' }));
      else res.writeHead(200, { ...headers, 'content-type': 'application/json' }).end(json({ at, done: at >= script.length - 1 }));
    });
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(step, { maxLength: 12 }), async (steps) => {
          script = [...steps, { status: 200, etag: null }];
          base = server.requests.length;
          const events: PollEvent[] = [];
          const result = await poll<{ at: number; done: boolean }>(`${server.url}/jobs/1`, {
            isDone: (body) => body.done,
            interval: 0,
            env: recordingEnv().env,
            onEvent: (event) => events.push(event),
          });
          expect(result).toEqual({ at: script.length - 1, done: true });
          let last: string | undefined;
          const expected = script.map(({ status, etag }) => {
            const sent = last;
            if (status === 200) last = etag ?? undefined;
            return sent;
          });
          expect(server.requests.slice(base).map((r) => r.headers['if-none-match'])).toEqual(expected);
          const conditional = events.flatMap((event) => (event.type === 'request' ? [event.conditional] : []));
          expect(conditional).toEqual(expected.map((sent) => sent !== undefined));
        }),
        { numRuns: httpRuns },
      );
    } finally {
      await server.close();
    }
  });
});
