import type { WaitSource } from '../http/server-wait.js';
import type { LoopHooks } from '../engine/hooks.js';
import type { ResumeRequest } from '../engine/resume-point.js';
import { timeoutError } from '../errors/timeout-error.js';
import { CheckpointRefusedError } from './checkpoint-refused-error.js';
import { CHECKPOINT_VERSION, MAX_CHECKPOINT_CHARS, readCheckpoint, type Checkpoint } from './checkpoint.js';
import type { CheckpointStore } from './store.js';

/** Methods that change state: sent again after a lost answer only with their key. */
const WRITES: ReadonlySet<string> = new Set(['POST', 'PATCH']);

/** What one `checkpoint()` gives each of its calls. */
export interface SessionSettings {
  store: CheckpointStore;
  key: string;
  /** SHA-256 hex of the owner, or undefined. */
  owner: () => Promise<string | undefined>;
  /** Keep the last 2xx body (and with it its validators). */
  data: boolean;
}

/**
 * One call's life under a checkpoint: the record it keeps (the saved one
 * when it resumes), written in order to the store at every wait, deleted
 * when the call ends. One owner of the record: the hooks and `polling`
 * change it, `save` writes what it is.
 */
export class Session {
  readonly record: Checkpoint;
  /** The checkpoint this call resumed, if any. */
  readonly resumed: Checkpoint | undefined;
  /** A wait to hold before the next attempt (the saved one, or the operation's first poll), epoch ms. */
  #hold: number | undefined;
  /** The server's signal that asked for `#hold`, when this run was told it (the operation's start answer). */
  #source: WaitSource | undefined;
  #writes: Promise<void> = Promise.resolve();
  #outstanding = 0;
  #failed: unknown;
  #ended = false;
  readonly #settings: SessionSettings;
  readonly #now: () => number;

  constructor(settings: SessionSettings, record: Checkpoint, resumed: Checkpoint | undefined, now: () => number) {
    this.#settings = settings;
    this.record = record;
    this.resumed = resumed;
    this.#hold = resumed?.notBefore;
    this.#now = now;
  }

  /** The time left of the deadline, ms; `undefined` without one. */
  timeout(): number | undefined {
    return this.record.deadline === undefined ? undefined : this.record.deadline - this.#now();
  }

  /** Holds the next attempt until `at` (epoch ms), a wait the server's `source` asked for, if it did. */
  holdUntil(at: number, source?: WaitSource): void {
    this.#hold = at;
    this.#source = source;
  }

  /** Writes the record as it is now, after every write before it. */
  save(): void {
    if (this.#ended) return;
    this.record.savedAt = this.#now();
    let text: string;
    try {
      text = JSON.stringify(this.record);
    } catch {
      // A body JSON cannot write (a BigInt, a cycle) is not kept: the rest of the checkpoint is.
      text = '';
    }
    if (text === '' || text.length > MAX_CHECKPOINT_CHARS) {
      // A body too large to keep is not kept, nor the validators that would make the next answer a 304 without it.
      delete this.record.data;
      delete this.record.etag;
      delete this.record.lastModified;
      text = JSON.stringify(this.record);
    }
    const { store, key } = this.#settings;
    this.#outstanding += 1;
    this.#writes = this.#writes
      .then(() => store.set(key, text))
      .catch((error: unknown) => void (this.#failed ??= error))
      .finally(() => void (this.#outstanding -= 1));
  }

  /**
   * A body this call's caller got, from its own loop or from another tab's:
   * the last one, kept (with `data`) whoever polled it. Its validators are
   * kept only when this session's loop answered it (the same body): one that
   * came from elsewhere makes the next request after a resume unconditional.
   */
  got(data: unknown): void {
    if (!this.#settings.data || data === this.record.data) return;
    this.record.data = data;
    delete this.record.etag;
    delete this.record.lastModified;
  }

  /** Every write so far is done; rejects with the first that failed. */
  async flush(): Promise<void> {
    await this.#writes;
    if (this.#failed !== undefined) throw this.#failed;
  }

  /** The loop's hooks: the saved wait held once, every write done before the next attempt, the record kept at every answer and wait. */
  hooks(conditional: boolean): LoopHooks {
    return {
      hold: () => {
        const at = this.#hold;
        this.#hold = undefined;
        const ms = at === undefined ? 0 : Math.ceil(at - this.#now());
        const source = this.#source;
        this.#source = undefined;
        if (ms > 0) return { event: { type: 'wait', delay: ms, at: this.#now() + ms, ...(source && { source }) }, ms };
        // No attempt goes out before the checkpoint of the wait before it is in the store: a crash during it resumes from there.
        return this.#outstanding > 0 || this.#failed !== undefined ? this.flush().then(() => undefined) : undefined;
      },
      answer: ({ status, headers, data }) => {
        if (!this.#settings.data || status < 200 || status >= 300) return;
        this.record.data = data;
        const etag = conditional ? headers.get('etag') : null;
        const lastModified = conditional ? headers.get('last-modified') : null;
        if (etag) this.record.etag = etag;
        else delete this.record.etag;
        if (lastModified) this.record.lastModified = lastModified;
        else delete this.record.lastModified;
      },
      waiting: (at, failures) => {
        this.record.notBefore = at;
        this.record.failures = failures;
        this.save();
      },
    };
  }

  /** Settles as `call` does, the checkpoint first: deleted (after every write, so none brings it back), or kept when one of `signals` aborted the call. */
  async settle<R>(call: Promise<R>, signals: ReadonlyArray<AbortSignal | undefined>): Promise<R> {
    let value: R;
    try {
      value = await call;
    } catch (error) {
      await this.#end(signals.some((s) => s?.aborted === true));
      throw error;
    }
    await this.#end(false);
    return value;
  }

  async #end(aborted: boolean): Promise<void> {
    if (this.#ended) return;
    this.#ended = true;
    if (!aborted) {
      const { store, key } = this.#settings;
      this.#writes = this.#writes.then(() => store.delete(key));
    }
    // The call's own outcome stands: a store that cannot delete now leaves a checkpoint its next run will find.
    await this.#writes.catch(() => undefined);
  }
}

/** The origin of an absolute http(s) URL. */
const originOf = (url: string): string => new URL(url).origin;

/**
 * Opens a call's session: reads the saved checkpoint (untrusted: checked
 * whole, refused if it belongs to another call, origin or owner, or if its
 * write was sent without a key), or starts a fresh record, saved before
 * anything is sent. A checkpoint past its deadline is deleted and the call
 * rejects with a `TimeoutError`.
 */
export async function openSession(settings: SessionSettings, kind: Checkpoint['kind'], request: ResumeRequest): Promise<Session> {
  const { store, key } = settings;
  const now = request.now;
  const owner = await settings.owner();
  const text = await store.get(key);
  const saved = text == null ? undefined : readCheckpoint(text, key);
  if (saved) {
    const refuse = (reason: 'origin' | 'owner' | 'request' | 'sent-without-key', detail: string): never => {
      throw new CheckpointRefusedError(reason, key, detail);
    };
    if (saved.origin !== originOf(request.url)) refuse('origin', 'it was saved for a request to another origin');
    if (saved.owner !== owner) refuse('owner', saved.owner === undefined || owner === undefined ? 'it was saved with another `owner` (or none)' : 'it was saved for another `owner`');
    if (saved.kind !== kind || saved.request.method !== request.method || saved.request.url !== request.url || (kind === 'poll' && saved.url !== request.url)) {
      refuse('request', `it was saved by another call (${saved.kind} ${saved.request.method}), not this ${kind} ${request.method} of the same origin`);
    }
    const unanswered = kind === 'fetch' || (kind === 'operation' && saved.url === undefined);
    if (unanswered && saved.sent && WRITES.has(saved.request.method) && saved.idempotencyKey === undefined) {
      refuse('sent-without-key', `its ${saved.request.method} was sent without an Idempotency-Key and its answer was lost`);
    }
    if (saved.deadline !== undefined && saved.deadline <= now()) {
      await store.delete(key);
      throw timeoutError(`The checkpoint \`${key}\` is past its deadline: the call it continues timed out`);
    }
    const record: Checkpoint = { ...saved };
    // A saved body and its validators are used only when this call keeps bodies: a 304 means nothing without the body.
    if (!settings.data) {
      delete record.data;
      delete record.etag;
      delete record.lastModified;
    }
    if (record.deadline === undefined && request.timeout !== undefined) record.deadline = now() + request.timeout;
    return new Session(settings, record, saved, now);
  }
  const record: Checkpoint = {
    v: CHECKPOINT_VERSION,
    kind,
    origin: originOf(request.url),
    ...(owner !== undefined && { owner }),
    request: { method: request.method, url: request.url },
    ...(kind === 'poll' && { url: request.url }),
    failures: 0,
    ...(request.timeout !== undefined && { deadline: now() + request.timeout }),
    ...(request.idempotencyKey !== null && { idempotencyKey: request.idempotencyKey }),
    ...(kind !== 'poll' && { sent: true }),
    savedAt: now(),
  };
  const session = new Session(settings, record, undefined, now);
  // The write's key is in the store before the write is sent, or nothing is sent.
  session.save();
  await session.flush();
  return session;
}
