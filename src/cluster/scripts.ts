// The Lua scripts: each read-and-write is one atomic step on the server.
// Every reply is an integer, a string or an array of them (never a nil
// inside an array, which would cut it short).

/** A Lua script, sent by its SHA-1 once Redis knows it. */
export interface LuaScript {
  source: string;
  /** The SHA-1 EVALSHA names it by, computed on first use. */
  sha?: Promise<string>;
}

const lua = (source: string): LuaScript => ({ source: source.trim() });

/**
 * Takes or keeps the lease: KEYS lease, next, last; ARGV token, lease ms.
 * A lease that is ours or free (expired, flushed) is set to ours, and the
 * latest body kept as long as it. Replies { got (1|0), ms until the
 * leader's next request (-2: none), stamp of the latest body ('0': none),
 * ms left on the lease }.
 */
export const ACQUIRE = lua(`
local held = redis.call('GET', KEYS[1])
local got = 0
if held == ARGV[1] or not held then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  redis.call('PEXPIRE', KEYS[3], tonumber(ARGV[2]) * 2)
  got = 1
end
local stamp = redis.call('HGET', KEYS[3], 's') or '0'
return { got, redis.call('PTTL', KEYS[2]), stamp, redis.call('PTTL', KEYS[1]) }
`);

/**
 * The leader publishes a body: KEYS last, lease; ARGV token, JSON, lease
 * ms, channel. Kept as the latest, for processes that join. Stamped with
 * the server's TIME (µs), so stamps grow across leaders, flushes and
 * restarts. Replies the stamp, or 0 when another process holds the lease.
 */
export const PUBLISH = lua(`
local held = redis.call('GET', KEYS[2])
if held and held ~= ARGV[1] then return 0 end
if not held then redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[3]) end
local t = redis.call('TIME')
local stamp = t[1] .. string.format('%06d', tonumber(t[2]))
redis.call('HSET', KEYS[1], 's', stamp, 'b', ARGV[2])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]) * 2)
redis.call('PUBLISH', ARGV[4], 'b' .. stamp .. '\\n' .. ARGV[2])
return stamp
`);

/**
 * The leader starts a wait: KEYS next, lease; ARGV token, ms until its next
 * request, channel. Kept as a key that expires when the request is due, and
 * published. Replies 1, or 0 when the lease is not ours.
 */
export const WAITING = lua(`
if redis.call('GET', KEYS[2]) ~= ARGV[1] then return 0 end
if tonumber(ARGV[2]) > 0 then redis.call('SET', KEYS[1], '1', 'PX', ARGV[2]) else redis.call('DEL', KEYS[1]) end
redis.call('PUBLISH', ARGV[3], 'w' .. ARGV[2])
return 1
`);

/**
 * The leader leaves: KEYS lease, next; ARGV token, ms until a next request
 * is due at the earliest, channel. Frees the lease and says so. Replies 1,
 * or 0 when the lease was not ours.
 */
export const RELEASE = lua(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
local ms = tonumber(ARGV[2])
if ms > 0 and redis.call('PTTL', KEYS[2]) < ms then redis.call('SET', KEYS[2], '1', 'PX', ms) end
redis.call('PUBLISH', ARGV[3], 'r')
return 1
`);

/** The latest body: KEYS last. Replies { stamp ('0': none), JSON }. */
export const LATEST = lua(`
local v = redis.call('HMGET', KEYS[1], 's', 'b')
return { v[1] or '0', v[2] or '' }
`);

/** The cooldowns of a URL: KEYS origin's, route's. Replies { ms left, id } for each (ms -2 and id '' when clear). */
export const COOLDOWNS = lua(`
return { redis.call('PTTL', KEYS[1]), redis.call('GET', KEYS[1]) or '', redis.call('PTTL', KEYS[2]), redis.call('GET', KEYS[2]) or '' }
`);

/** Announces a cooldown: KEYS scope; ARGV ms, id. Kept only if it ends later than the one on record. Replies 1 if kept. */
export const COOL = lua(`
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[1]) then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[1])
  return 1
end
return 0
`);

/**
 * Withdraws from a token bucket: KEYS bucket; ARGV capacity, cost, tokens
 * to assume when there is no key (a full bucket, unless a process back
 * from a Redis fault knows it was spent: a restarted Redis must not hand
 * every process a full budget). A full bucket is no key, so it costs
 * nothing to keep. Replies the tokens left, or -1 - the tokens left (and
 * takes nothing) when fewer than `cost` are left.
 */
export const WITHDRAW = lua(`
local cap = tonumber(ARGV[1])
local left = tonumber(redis.call('GET', KEYS[1]) or math.min(cap, tonumber(ARGV[3])))
local cost = tonumber(ARGV[2])
if cost > left then
  if left < cap then redis.call('SET', KEYS[1], left) end
  return -1 - left
end
left = left - cost
if left >= cap then redis.call('DEL', KEYS[1]) else redis.call('SET', KEYS[1], left) end
return left
`);

/** Refunds a token bucket: KEYS bucket; ARGV capacity, refund, tokens to assume when there is no key (as WITHDRAW). Replies the tokens left. */
export const REFUND = lua(`
local cap = tonumber(ARGV[1])
local left = math.min(cap, tonumber(redis.call('GET', KEYS[1]) or math.min(cap, tonumber(ARGV[3]))) + tonumber(ARGV[2]))
if left >= cap then redis.call('DEL', KEYS[1]) else redis.call('SET', KEYS[1], left) end
return left
`);
