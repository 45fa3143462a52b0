import type { PollEvent } from '../index.js';
import { realClock, startTimer, type PollCall, type PollFeature, type PollRunner, type PollSink, type SharedLoop } from '../kit/index.js';
import type { JobKeys } from './keys.js';
import { ACQUIRE, LATEST, PUBLISH, RELEASE, WAITING } from './scripts.js';
import { FAULT, type ClusterStore } from './store.js';

/** This process's part in a job: it polls for all (`leader`), listens (`follower`), or polls alone because Redis fails (`local`). */
type Role = 'leader' | 'follower' | 'local';

/** What one process's share of one job runs with. */
export interface JobSpec {
  store: ClusterStore;
  keys: JobKeys;
  /** The lease's length, ms. */
  lease: number;
  /** This process's lease token for the job. */
  token: string;
  /** The JSON to publish of a body, or undefined: it is not published. */
  encode(data: unknown): string | undefined;
  /** How old (ms) a body of a loop that ended before this share started may be, and still be delivered; undefined: never. */
  maxAge?: number | undefined;
}

const NOTHING = Symbol('no body');
const parsed = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return NOTHING;
  }
};

/**
 * One process's share of one job, the server-side twin of the tab
 * election. Every check (at once, then every third of the lease, or when
 * the lease is due to expire, or when Redis goes or comes back) runs one
 * script: a lease that is free, expired or ours becomes ours. The holder
 * polls with the first caller's options and publishes each body (stamped,
 * and kept for joiners) and each wait it starts; the others deliver what
 * they hear, and catch up from the kept body when they missed a message.
 * A new leader's first request goes out when the last one's next was due
 * (its interval, Retry-After or backoff wait). When Redis fails, the
 * process polls alone (`local`) until a check reaches Redis again; then it
 * leads, or stops and follows whoever does.
 */
export class JobShare {
  #spec: JobSpec;
  /** This process's callers of the job. */
  #callers: SharedLoop;
  #call: PollCall<unknown>;
  #next: PollRunner;
  #role: Role | undefined;
  /** The loop this process runs (leading or alone); aborted to step down. */
  #loop: AbortController | undefined;
  /** Stamp of the newest body this process delivered or published. */
  #delivered = 0;
  /** When a body was last heard, and when the leader said its next request is due (this process's clock). */
  #heardAt: number | undefined;
  #nextAt: number | undefined;
  /** When this process's loop last sent a request. */
  #sentAt: number | undefined;
  /** When this share first reached Redis, by Redis's clock (µs): a loop that ended before then is not its loop. */
  #startedAt: number | undefined;
  #checking = false;
  #again = false;
  #cancelCheck = (): void => undefined;
  #stops: Array<() => void> = [];

  constructor(spec: JobSpec, callers: SharedLoop, call: PollCall<unknown>, next: PollRunner) {
    this.#spec = spec;
    this.#callers = callers;
    this.#call = call;
    this.#next = next;
  }

  /** What the callers are told of this process's part: `share` events say `leader` (alone too) or `follower`. */
  get shown(): 'leader' | 'follower' | undefined {
    return this.#role === undefined ? undefined : this.#role === 'follower' ? 'follower' : 'leader';
  }

  start(): void {
    const { store, keys } = this.#spec;
    this.#stops.push(store.subscribe(keys.channel, (message) => this.#heard(message)));
    this.#stops.push(store.onChange(() => void this.#check()));
    this.#callers.signal.addEventListener('abort', () => this.#leave(), { once: true });
    void this.#check();
  }

  get #stopped(): boolean {
    return this.#callers.signal.aborted;
  }

  get #now(): number {
    return this.#call.settings.env.now();
  }

  /** Runs one check now (or right after the one running), then schedules the next. */
  async #check(): Promise<void> {
    if (this.#stopped) return;
    if (this.#checking) {
      this.#again = true;
      return;
    }
    this.#checking = true;
    this.#cancelCheck();
    let wait = this.#spec.lease / 3;
    try {
      do {
        this.#again = false;
        wait = await this.#contend();
      } while (this.#again && !this.#stopped);
    } finally {
      this.#checking = false;
      if (!this.#stopped) this.#cancelCheck = startTimer(realClock, wait, () => void this.#check());
    }
  }

  /** Takes, keeps or learns who holds the lease, and acts on it; resolves with the ms until the next check. */
  async #contend(): Promise<number> {
    const { store, keys, lease, token } = this.#spec;
    const every = lease / 3;
    const reply = await store.run(ACQUIRE, [keys.lease, keys.next, keys.last], [token, lease]);
    const got = Array.isArray(reply) ? reply.map(Number) : undefined;
    if (this.#stopped) {
      if (got?.[0] === 1) this.#release();
      return every;
    }
    if (reply === FAULT || !got) {
      if (!this.#loop) this.#startLoop(this.#dueIn(-2));
      this.#setRole('local');
      return every;
    }
    const [held, nextMs = -2, stamp = 0, leaseLeft = -2, ended = 0, now = 0] = got;
    this.#startedAt ??= now;
    // Back from polling alone: what it polled is newer than what Redis kept.
    if (this.#role === 'local') this.#delivered = Math.max(this.#delivered, stamp);
    const fresh = stamp > this.#delivered && this.#usable(stamp, ended, now);
    if (held === 1) {
      if (!this.#loop) {
        // A joiner that leads at once still gets the latest body first, as a follower would.
        if (fresh) await this.#catchUp();
        // The last caller left during the catch-up: the lease is ours, free it.
        if (this.#stopped) {
          this.#release();
          return every;
        }
        this.#startLoop(this.#dueIn(nextMs));
      }
      this.#setRole('leader');
      return every;
    }
    this.#stopLoop();
    this.#setRole('follower');
    if (fresh) await this.#catchUp();
    return leaseLeft > 0 ? Math.min(every, leaseLeft + 5) : every;
  }

  /**
   * Whether the kept body (stamped `stamp`; its loop ended at `ended`, 0:
   * it runs; Redis's time `now`, all µs) may answer this share's callers:
   * its loop runs, or ended after this share started (this share followed
   * it), or it is within `maxAge`. Never a body of a loop that ended before
   * this share started: the job may have changed since.
   */
  #usable(stamp: number, ended: number, now: number): boolean {
    const { maxAge } = this.#spec;
    return ended === 0 || ended > this.#startedAt! || (maxAge !== undefined && now - stamp <= maxAge * 1000);
  }

  /** Delivers the body Redis kept, when it is newer than the last one delivered here (a missed message, or a joiner) and usable. */
  async #catchUp(): Promise<void> {
    const reply = await this.#spec.store.run(LATEST, [this.#spec.keys.last], []);
    if (!Array.isArray(reply) || this.#stopped || this.#loop) return;
    const [stamp = 0, , ended = 0, now = 0] = reply.map(Number);
    const data = parsed(String(reply[1]));
    if (!(stamp > this.#delivered) || !this.#usable(stamp, ended, now) || data === NOTHING) return;
    this.#delivered = stamp;
    this.#heardAt = this.#now;
    void this.#callers.sink.update(data);
  }

  /** A message on the job's channel: a body (`b<stamp>\n<json>`), a wait (`w<ms>`), or a release (`r`). */
  #heard(message: string): void {
    if (this.#stopped) return;
    if (message === 'r') return void this.#check();
    // Polling here (leading or alone): its own bodies and waits are the ones that count.
    if (this.#loop) return;
    if (message[0] === 'w') {
      const ms = Number(message.slice(1));
      if (ms >= 0 && ms < Infinity) this.#nextAt = this.#now + ms;
      return;
    }
    const cut = message.indexOf('\n');
    if (message[0] !== 'b' || cut < 0) return;
    const stamp = Number(message.slice(1, cut));
    const data = parsed(message.slice(cut + 1));
    if (!(stamp > this.#delivered) || data === NOTHING) return;
    this.#delivered = stamp;
    this.#heardAt = this.#now;
    this.#nextAt = undefined;
    if (this.#role === undefined) this.#setRole('follower');
    void this.#callers.sink.update(data);
  }

  /**
   * ms until this process's first request as the new poller: the old
   * leader's next, as Redis or its messages tell, but never longer than
   * this process would wait of its own (its `maxRetryAfter`, or its interval
   * if longer): whatever is written into Redis cannot stop the fleet.
   */
  #dueIn(nextMs: number): number {
    const { interval, maxRetryAfter } = this.#call.settings;
    const longest = Math.max(maxRetryAfter, interval);
    if (nextMs > 0) return Math.min(nextMs, longest);
    const now = this.#now;
    if (this.#nextAt !== undefined) return Math.max(0, Math.min(longest, this.#nextAt - now));
    if (this.#heardAt !== undefined) return Math.max(0, Math.min(interval, this.#heardAt + interval - now));
    return 0;
  }

  #startLoop(delay: number): void {
    const call = this.#call;
    const { settings } = call;
    const { env } = settings;
    const controller = new AbortController();
    this.#loop = controller;
    let first = delay > 0;
    const handover: PollFeature = {
      attach: () => ({
        // The handover's wait, before the first request: the old leader's pending one.
        hold: () => (first ? ((first = false), { event: { type: 'wait', delay, at: env.now() + delay } as PollEvent, ms: delay }) : undefined),
        waiting: (at) => this.#waiting(at),
      }),
    };
    const sink: PollSink<unknown> = {
      update: async (data) => {
        if (this.#loop === controller) await this.#publish(data);
        return this.#callers.sink.update(data);
      },
      event: (event) => {
        if (event.type === 'request') this.#sentAt = env.now();
        this.#callers.sink.event(event);
      },
    };
    // In a promise: a feature after this one whose `run` throws at once fails the callers, as a rejection would.
    new Promise<unknown>((run) => run(this.#next({ ...call, settings: { ...settings, use: [...settings.use, handover] }, sink, signal: controller.signal, timeout: undefined }))).catch(
      (error: unknown) => {
        if (this.#loop === controller && !controller.signal.aborted) this.#callers.fail(error);
      },
    );
  }

  #stopLoop(): void {
    const loop = this.#loop;
    this.#loop = undefined;
    loop?.abort();
  }

  /** Publishes a body the leader polled; a lease found lost means another process leads: check at once. */
  async #publish(data: unknown): Promise<void> {
    if (this.#role !== 'leader') return;
    const { store, keys, lease, token } = this.#spec;
    const text = this.#spec.encode(data);
    if (text === undefined) return;
    const reply = await store.run(PUBLISH, [keys.last, keys.lease], [token, text, lease, keys.channel]);
    if (reply === FAULT) return;
    const stamp = Number(reply);
    if (stamp > 0) this.#delivered = Math.max(this.#delivered, stamp);
    else void this.#check();
  }

  /** The loop starts a wait: the leader tells Redis when its next request is due, for whoever takes over. */
  #waiting(at: number): void {
    if (this.#role !== 'leader') return;
    const { store, keys, token } = this.#spec;
    void store.run(WAITING, [keys.next, keys.lease], [token, Math.max(0, Math.round(at - this.#now)), keys.channel]);
  }

  #setRole(role: Role): void {
    const before = this.shown;
    this.#role = role;
    const now = this.shown!;
    if (before !== now) this.#callers.sink.event({ type: 'share', role: now });
  }

  /** The last caller here left: stop checking, stop the loop, and free the lease for another process. */
  #leave(): void {
    this.#cancelCheck();
    for (const stop of this.#stops) stop();
    const polled = this.#loop !== undefined || this.#role === 'leader';
    this.#stopLoop();
    if (polled) this.#release();
  }

  /** Frees the lease (if ours), keeping the next request at least one interval after this process's last. */
  #release(): void {
    const { store, keys, token } = this.#spec;
    const { interval } = this.#call.settings;
    const minNext = this.#sentAt === undefined ? 0 : Math.max(0, Math.round(this.#sentAt + interval - this.#now));
    void store.run(RELEASE, [keys.lease, keys.next, keys.last], [token, minNext, keys.channel]);
  }
}
