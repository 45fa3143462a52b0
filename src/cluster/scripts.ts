// The Lua scripts: each read-and-write is one atomic step on the server.
// Every reply is an integer, a string or an array of them (never a nil
// inside an array, which would cut it short).

/** A Lua script, sent by its SHA-1 once Redis knows it. */
export interface LuaScript {
  source: string;
  /**
   * Whether a reply shows that Redis took a write that needs memory (a SET,
   * an HSET; absent: never). After Redis refused a write (OOM at
   * `maxmemory` under `noeviction`, READONLY, MISCONF...), only such a
   * reply brings the process back to `connected`: Redis still serves reads,
   * and commands that only delete or expire.
   */
  writes?: (reply: unknown) => boolean;
  /** The SHA-1 EVALSHA names it by, computed on first use. */
  sha?: Promise<string>;
}

const lua = (source: string, writes?: (reply: unknown) => boolean): LuaScript => ({ source: source.trim(), writes });

/** Redis's time, µs, as the stamps are written: seconds and six digits of µs. */
const NOW = `local t = redis.call('TIME')
local now = t[1] .. string.format('%06d', tonumber(t[2]))`;

/**
 * Takes or keeps the lease: KEYS lease, next, last; ARGV token, lease ms.
 * A lease that is ours or free (expired, flushed) is set to ours. A free
 * one means the loop that kept the latest body has ended (its leader
 * released the lease, or died): the body is marked ended (`e`, Redis's
 * time), unless it was already, and no longer kept alive; a body of a live
 * loop is kept as long as the lease. Replies { got (1|0), ms until the
 * leader's next request (-2: none), stamp of the latest body ('0': none),
 * ms left on the lease, when the body's loop ended ('0': it runs), Redis's
 * time now }.
 */
export const ACQUIRE = lua(
  `
${NOW}
local held = redis.call('GET', KEYS[1])
local got = 0
if held == ARGV[1] or not held then
  if not held and redis.call('EXISTS', KEYS[3]) == 1 then redis.call('HSETNX', KEYS[3], 'e', now) end
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  if redis.call('HEXISTS', KEYS[3], 'e') == 0 then redis.call('PEXPIRE', KEYS[3], tonumber(ARGV[2]) * 2) end
  got = 1
end
local v = redis.call('HMGET', KEYS[3], 's', 'e')
return { got, redis.call('PTTL', KEYS[2]), v[1] or '0', redis.call('PTTL', KEYS[1]), v[2] or '0', now }
`,
  (reply) => Array.isArray(reply) && Number(reply[0]) === 1,
);

/**
 * The leader publishes a body: KEYS last, lease; ARGV token, JSON, lease
 * ms, channel. Kept as the latest, for processes that join, as a body of a
 * live loop (no `e`). Stamped with the server's TIME (µs), so stamps grow
 * across leaders, flushes and restarts. Replies the stamp, or 0 when
 * another process holds the lease.
 */
export const PUBLISH = lua(
  `
local held = redis.call('GET', KEYS[2])
if held and held ~= ARGV[1] then return 0 end
if not held then redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[3]) end
${NOW}
redis.call('HSET', KEYS[1], 's', now, 'b', ARGV[2])
redis.call('HDEL', KEYS[1], 'e')
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]) * 2)
redis.call('PUBLISH', ARGV[4], 'b' .. now .. '\\n' .. ARGV[2])
return now
`,
  (reply) => Number(reply) > 0,
);

/**
 * The leader starts a wait: KEYS next, lease; ARGV token, ms until its next
 * request, channel. Kept as a key that expires when the request is due, and
 * published. Replies 1 (2: no wait, the key deleted), or 0 when the lease
 * is not ours.
 */
export const WAITING = lua(
  `
if redis.call('GET', KEYS[2]) ~= ARGV[1] then return 0 end
redis.call('PUBLISH', ARGV[3], 'w' .. ARGV[2])
if tonumber(ARGV[2]) > 0 then
  redis.call('SET', KEYS[1], '1', 'PX', ARGV[2])
  return 1
end
redis.call('DEL', KEYS[1])
return 2
`,
  (reply) => Number(reply) === 1,
);

/**
 * The leader's loop ended: KEYS lease, next, last; ARGV token, ms until a
 * next request is due at the earliest, channel. Frees the lease, marks the
 * latest body as its loop's last (`e`, Redis's time: a poll that starts
 * after this never takes it), and says so. Replies 1, or 0 when the lease
 * was not ours.
 */
export const RELEASE = lua(
  `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
local ms = tonumber(ARGV[2])
if ms > 0 and redis.call('PTTL', KEYS[2]) < ms then redis.call('SET', KEYS[2], '1', 'PX', ms) end
if redis.call('EXISTS', KEYS[3]) == 1 then
  ${NOW}
  redis.call('HSETNX', KEYS[3], 'e', now)
end
redis.call('PUBLISH', ARGV[3], 'r')
return 1
`,
);

/** The latest body: KEYS last. Replies { stamp ('0': none), JSON, when its loop ended ('0': it runs), Redis's time now }. */
export const LATEST = lua(
  `
local v = redis.call('HMGET', KEYS[1], 's', 'b', 'e')
${NOW}
return { v[1] or '0', v[2] or '', v[3] or '0', now }
`,
);

/** The cooldowns of a URL: KEYS origin's, route's. Replies { ms left, id } for each (ms -2 and id '' when clear). */
export const COOLDOWNS = lua(
  `
return { redis.call('PTTL', KEYS[1]), redis.call('GET', KEYS[1]) or '', redis.call('PTTL', KEYS[2]), redis.call('GET', KEYS[2]) or '' }
`,
);

/** Announces a cooldown: KEYS scope; ARGV ms, id. Kept only if it ends later than the one on record. Replies 1 if kept. */
export const COOL = lua(
  `
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[1]) then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[1])
  return 1
end
return 0
`,
  (reply) => Number(reply) === 1,
);

/**
 * Notes that this process uses the bucket (KEYS[2], a sorted set of the
 * processes that did within ARGV[5] ms, by Redis's time) and counts them:
 * `live`, the processes a fault's remainder is shared among.
 */
const LIVE = `
local t = redis.call('TIME')
local ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[2], ms, ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ms - tonumber(ARGV[5]))
redis.call('PEXPIRE', KEYS[2], ARGV[5])
local live = redis.call('ZCARD', KEYS[2])`;

/**
 * Withdraws from a token bucket: KEYS bucket, live; ARGV capacity, cost,
 * tokens to assume when there is no key (a full bucket, unless a process
 * back from a Redis fault knows it was spent: a restarted Redis must not
 * hand every process a full budget), process id, live window ms. A full
 * bucket is no key, so it costs nothing to keep. Replies { tokens left, or
 * -1 - the tokens left (and takes nothing) when fewer than `cost` are
 * left; the processes that used the bucket within the window }.
 */
export const WITHDRAW = lua(
  `
${LIVE}
local cap = tonumber(ARGV[1])
local left = tonumber(redis.call('GET', KEYS[1]) or math.min(cap, tonumber(ARGV[3])))
local cost = tonumber(ARGV[2])
if cost > left then
  if left < cap then redis.call('SET', KEYS[1], left) end
  return { -1 - left, live }
end
left = left - cost
if left >= cap then redis.call('DEL', KEYS[1]) else redis.call('SET', KEYS[1], left) end
return { left, live }
`,
  () => true,
);

/** Refunds a token bucket: KEYS bucket, live; ARGV capacity, refund, tokens to assume when there is no key, process id, live window ms (as WITHDRAW). Replies { tokens left, live }. */
export const REFUND = lua(
  `
${LIVE}
local cap = tonumber(ARGV[1])
local left = math.min(cap, tonumber(redis.call('GET', KEYS[1]) or math.min(cap, tonumber(ARGV[3]))) + tonumber(ARGV[2]))
if left >= cap then redis.call('DEL', KEYS[1]) else redis.call('SET', KEYS[1], left) end
return { left, live }
`,
  () => true,
);
