import type { ResumedRun, ResumeRequest, RunCheckpoint } from '../engine/resume-point.js';
import { sha256Hex, type LoopStart, type PollCall, type PollFeature, type PollRunner } from '../kit/index.js';
import type { OperationCheckpoint, ResumedOperation } from '../operation/operation-resume.js';
import { boolean, refuse, validateOptions, type Check } from '../options/check.js';
import { openSession, type Session, type SessionSettings } from './session.js';
import type { CheckpointStore } from './store.js';

/** Options of {@link checkpoint}. */
export interface CheckpointOptions {
  /** Where the checkpoint lives: `webStorage(localStorage)`, `fileStore(dir)` of `pollite/resume/node`, `memoryStore()`, or your own. */
  store: CheckpointStore;
  /**
   * Names the call in the store: the same key in the next run continues
   * it. One call at a time per key; put what tells calls apart in it (the
   * job, the user): `report:${userId}:${month}`. At most 200 characters.
   * @example key: `export:${userId}`
   */
  key: string;
  /**
   * Who the call is made for (a user id, an account): a checkpoint saved
   * for another owner, or with none, is refused (`CheckpointRefusedError`,
   * reason `owner`). Saved as its SHA-256, never as given (Web Crypto: a
   * secure context in a browser).
   * @default none: any run of the same origin and request may resume it
   */
  owner?: string;
  /**
   * `poll` only: keeps the last 2xx body in the checkpoint (it must be
   * JSON, and the checkpoint at most 1 MiB, else it is not kept), and with
   * it the answer's `ETag` or `Last-Modified`. A resumed poll hands that
   * body to `onUpdate` (and `isDone`) before its first request, which is
   * conditional on those validators: an unchanged job costs a 304 and the
   * page shows it at once. Without it nothing of the body is kept, and the
   * first request after a resume is not conditional (a 304 would leave the
   * caller without the body).
   * @default false
   */
  data?: boolean;
}

/**
 * A call's checkpoint: passed in `use` of `poll`, as `operation.resume` of
 * `pollOperation` or `retry.resume` of `fetchWithRetry` (see
 * {@link checkpoint}), in one of these places only (an operation's polls
 * get it from `operation.resume`, not from `operation.use`). One object may
 * serve one call at a time.
 */
export interface Checkpointed extends PollFeature, RunCheckpoint, OperationCheckpoint {
  /** Deletes the saved checkpoint, whatever it holds (one that was refused included): the next call starts afresh. */
  forget(): Promise<void>;
}

const SPEC = {
  store: [(v) => ['get', 'set', 'delete'].every((name) => typeof (v as Record<string, unknown> | null)?.[name] === 'function'), 'a store ({ get, set, delete })'] as Check,
  key: [(v) => typeof v === 'string' && v !== '' && v.length <= 200, 'a non-empty string of at most 200 characters'] as Check,
  owner: [(v) => typeof v === 'string' && v !== '', 'a non-empty string'] as Check,
  data: boolean,
};

/**
 * Saves a call's progress in `store` under `key`, so that the same call
 * made again after a reload, a crash or a deploy continues it instead of
 * starting over:
 *
 * - **`poll`** (`use: [checkpoint(...)]`): the next request no sooner than
 *   the stopped run had scheduled it (never before the server's
 *   Retry-After, rate-limit reset or cooldown), with the failures in a row
 *   counted and the deadline kept; with `data: true`, conditional on the
 *   kept body's validators, which `onUpdate` gets first. Before
 *   `shareTabs()` (`use: [checkpoint(...), shareTabs()]`, the other order
 *   is refused), the tabs that resume it poll once for all, and only the
 *   tab that polls writes it.
 * - **`pollOperation`** (`operation: { resume: checkpoint(...) }`): at the
 *   monitor, with no second start request; a start whose answer was lost is
 *   sent again only with its saved `Idempotency-Key` (else the call is
 *   refused).
 * - **`fetchWithRetry`** (`retry: { resume: checkpoint(...) }`): a write
 *   sent again only with the key it was first sent with, never a new one.
 *
 * The checkpoint is written before a write is sent and at every wait, and
 * deleted when the call ends (resolves, or rejects for any reason but the
 * caller's abort: an aborted call keeps it, to resume later). One past its
 * deadline is deleted and the call rejects with a `TimeoutError`; one from
 * another origin, owner, request or release is refused with a
 * {@link CheckpointRefusedError}, nothing sent. See docs/resume.md.
 *
 * @example
 * const job = checkpoint({ store: webStorage(localStorage), key: `report:${userId}` });
 * const report = await pollOperation('/api/reports', { method: 'POST', body, operation: { idempotencyKey: true, resume: job } });
 */
export function checkpoint(options: CheckpointOptions): Checkpointed {
  if (typeof options !== 'object' || options === null) refuse('options', 'an object ({ store, key })');
  if (typeof __DEV__ === 'undefined' || __DEV__) validateOptions(options, SPEC);
  // What would fail later, and far from here, is refused in production too.
  for (const name of ['store', 'key'] as const) if (!SPEC[name][0](options[name])) refuse(name, SPEC[name][1]);
  const { store, key, owner, data = false } = options;
  let hashed: Promise<string> | undefined;
  const settings: SessionSettings = {
    store,
    key,
    owner: async () => (owner === undefined ? undefined : (hashed ??= sha256Hex(`pollite owner\n${owner}`))),
    data,
  };
  /** The session of each loop this checkpoint runs, by the start it gave the loop. */
  const loops = new WeakMap<LoopStart, Session>();

  /** A run of `fetchWithRetry` (or an operation's start) under `session`. */
  const runOf = (session: Session): ResumedRun => ({
    failures: session.record.failures,
    timeout: session.timeout(),
    idempotencyKey: session.record.idempotencyKey ?? null,
    hooks: session.hooks(false),
    settle: (call, signals) => session.settle(call, signals),
  });

  /** The feature that joins `session`'s loops (a poll, an operation's monitor polls): the start it gives each, and its hooks. */
  const joining = (session: Session): PollFeature => ({
    run<T>(call: PollCall<T>, next: PollRunner): Promise<T> {
      const { record } = session;
      const from: LoopStart = {
        // Read when the loop starts, which may be long after this call began: in a tab that takes over from
        // another, the last body it got came from there, and its validators are not known here (see `got`).
        get validators() {
          return record.etag || record.lastModified ? { etag: record.etag ?? null, lastModified: record.lastModified ?? null } : null;
        },
        failures: record.failures,
      };
      loops.set(from, session);
      return next({ ...call, from });
    },
  });

  const feature: Checkpointed = {
    attach(loop) {
      const session = loop.from && loops.get(loop.from);
      return session?.hooks(loop.settings.conditional);
    },
    async run<T>(call: PollCall<T>, next: PollRunner): Promise<T> {
      const { request, settings: s } = call;
      // The session's clock is the loop's, so that a virtual one in tests moves saved times too.
      const session = await openSession(settings, 'poll', { method: request.method, url: request.url, idempotencyKey: null, timeout: call.timeout, now: () => s.env.now() });
      const run = async (): Promise<T> => {
        const kept = session.record.data;
        // The body kept before the restart, first: the page shows the job as it was; a body that is terminal ends the poll here.
        if (kept !== undefined && session.resumed && (await call.sink.update(kept as T))) return kept as T;
        // Every body this caller gets is the last one it has, whichever tab polled it: a tab that takes over saves that one.
        const sink = { update: (data: T) => (session.got(data), call.sink.update(data)), event: call.sink.event };
        return joining(session).run!({ ...call, sink, timeout: session.timeout() }, next);
      };
      return session.settle(run(), [call.signal]);
    },
    async begin(request: ResumeRequest): Promise<ResumedRun> {
      return runOf(await openSession({ ...settings, data: false }, 'fetch', request));
    },
    async beginOperation(request: ResumeRequest): Promise<ResumedOperation> {
      const session = await openSession({ ...settings, data: false }, 'operation', request);
      const { record } = session;
      return {
        ...runOf(session),
        monitor: record.url === undefined || record.monitor === undefined ? undefined : { url: record.url, via: record.monitor.via, location: record.monitor.location },
        async polling(monitor, notBefore, source) {
          record.url = monitor.url;
          record.monitor = monitor.location === undefined ? { via: monitor.via } : { via: monitor.via, location: monitor.location };
          record.sent = false;
          record.failures = 0;
          record.notBefore = notBefore;
          session.holdUntil(notBefore, source);
          session.save();
          await session.flush();
        },
        feature: {
          ...joining(session),
          attach: (loop) => (loop.from && loops.get(loop.from) === session ? session.hooks(loop.settings.conditional) : undefined),
        },
      };
    },
    async forget() {
      await store.delete(key);
    },
  };
  return feature;
}
