/**
 * Reads gRPC's `grpc-retry-pushback-ms` (gRFC A6, which Connect servers
 * send as a header of a unary answer): the ms to wait before a retry, or a
 * negative integer, which asks the client not to retry at all (`-1`
 * returned). Unlike a gRPC client, pollite ignores an unparseable value
 * (`null`) rather than reading it as a refusal: a value any proxy could
 * mangle must not end a poll. Integers only (`1e3`, `1.5` and garbage are
 * `null`); a figure past 2^1024 is `Infinity`, capped by the caller.
 *
 * @example
 * parseGrpcPushback('250'); // 250
 * parseGrpcPushback('-1');  // -1: do not retry
 */
export const parseGrpcPushback = (value: string | null | undefined): number | null =>
  // -0 is 0; any other negative, -1.
  value && /^\s*-?\d+\s*$/.test(value) ? Math.max(-1, Number(value)) || 0 : null;
