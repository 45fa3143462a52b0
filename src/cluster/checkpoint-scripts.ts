// The Lua scripts of the Redis checkpoint store (./checkpoint-store.ts): each read-and-write of a
// checkpoint and its lease is one atomic step on the server, timed by Redis's clock (TIME), never a
// process's. A checkpoint is a hash, KEYS[1]: `v` its JSON, `k` its key, `h` the token of the store
// that holds its lease, `u` when that lease ends (Redis ms). KEYS[2], a sorted set of the store's
// name, scores each key by when its lease ends: the orphans are those whose score has passed.
/** A script of the checkpoint store: sent whole with EVAL (Redis caches it by its SHA-1), a few times a minute per call. */
export interface CheckpointScript {
  source: string;
}

const lua = (source: string): CheckpointScript => ({ source: source.trim() });

/** Redis's time, ms. */
const NOW = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/** Takes or renews the lease for this store (ARGV token, lease ms, ttl ms, key): the checkpoint and the index live `ttl` from now. */
const TAKE = `local u = now + tonumber(ARGV[2])
redis.call('HSET', KEYS[1], 'h', ARGV[1], 'u', string.format('%d', u))
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('ZADD', KEYS[2], string.format('%d', u), ARGV[4])
if redis.call('PTTL', KEYS[2]) < tonumber(ARGV[3]) then redis.call('PEXPIRE', KEYS[2], ARGV[3]) end`;

/** The ms left on a lease held by another store, or nothing when it is ours or has ended (v: HMGET's h, u). */
const HELD_BY_OTHER = `local function other(h, u)
  if h and h ~= ARGV[1] and (tonumber(u) or 0) > now then return (tonumber(u) or 0) - now end
  return nil
end`;

/**
 * Reads a checkpoint for a call that opens it (ARGV token, lease, ttl,
 * key): its lease taken when free or ours. Replies { 1, JSON } (taken),
 * { 0, '' } (none), or { 2, ms left } (held by another store).
 */
export const OPEN = lua(`
local v = redis.call('HMGET', KEYS[1], 'v', 'h', 'u')
if not v[1] then
  redis.call('ZREM', KEYS[2], ARGV[4])
  return { 0, '' }
end
${NOW}
${HELD_BY_OTHER}
local left = other(v[2], v[3])
if left then return { 2, string.format('%d', left) } end
${TAKE}
return { 1, v[1] }
`);

/**
 * Writes a checkpoint (ARGV token, lease, ttl, key, JSON, '1' when this
 * store holds it already), renewing its lease. Replies 1 (written), 0 and
 * the ms left (held by another store), -1 (this store held it and does no
 * longer: another took it over, or it is gone), -2 (none held it here, and
 * another store wrote it since: taken by a call that is not this one).
 */
export const SAVE = lua(`
local v = redis.call('HMGET', KEYS[1], 'h', 'u')
${NOW}
${HELD_BY_OTHER}
if v[1] and v[1] ~= ARGV[1] then
  local left = other(v[1], v[2])
  if left then return { 0, string.format('%d', left) } end
  if ARGV[6] == '1' then return { -1, '0' } end
  return { -2, '0' }
end
if not v[1] and ARGV[6] == '1' then return { -1, '0' } end
redis.call('HSET', KEYS[1], 'v', ARGV[5], 'k', ARGV[4])
${TAKE}
return { 1, '0' }
`);

/** Renews this store's lease (ARGV token, lease, ttl, key). Replies 1, or 0 when the lease is not ours (any more). */
export const RENEW = lua(`
if redis.call('HGET', KEYS[1], 'h') ~= ARGV[1] then return 0 end
${NOW}
${TAKE}
return 1
`);

/** Takes a checkpoint whose lease has ended, or is ours (ARGV token, lease, ttl, key). Replies 1 (ours now), 0 (held by another, or none). */
export const CLAIM = lua(`
local v = redis.call('HMGET', KEYS[1], 'h', 'u')
if not v[1] then
  redis.call('ZREM', KEYS[2], ARGV[4])
  return 0
end
${NOW}
${HELD_BY_OTHER}
if other(v[1], v[2]) then return 0 end
${TAKE}
return 1
`);

/** Ends this store's lease now, so another may claim the checkpoint at once (ARGV token, key). Replies 1, or 0 when it was not ours. */
export const RELEASE = lua(`
if redis.call('HGET', KEYS[1], 'h') ~= ARGV[1] then return 0 end
${NOW}
redis.call('HSET', KEYS[1], 'u', string.format('%d', now))
redis.call('ZADD', KEYS[2], string.format('%d', now), ARGV[2])
return 1
`);

/**
 * Deletes a checkpoint (ARGV token, key, '1' when this store held it).
 * Replies 1 (deleted, or none), 0 and the ms left (held by another store),
 * -1 (this store held it, and another took it over since: not deleted).
 */
export const DROP = lua(`
local v = redis.call('HMGET', KEYS[1], 'h', 'u')
if v[1] and v[1] ~= ARGV[1] then
  ${NOW}
  ${HELD_BY_OTHER}
  local left = other(v[1], v[2])
  if left then return { 0, string.format('%d', left) } end
  if ARGV[3] == '1' then return { -1, '0' } end
end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[2])
return { 1, '0' }
`);

/**
 * The keys of a store's name whose lease has ended, oldest first: KEYS
 * index; ARGV ttl, lease, limit. Forgets first the keys whose checkpoint
 * has surely expired (its last lease ended more than ttl - lease ago).
 */
export const ORPHANS = lua(`
${NOW}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. string.format('%d', now - tonumber(ARGV[1]) + tonumber(ARGV[2])))
return redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', string.format('%d', now), 'LIMIT', '0', ARGV[3])
`);
