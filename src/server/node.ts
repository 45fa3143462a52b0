// The public API of `pollite/server/node`: serves any web-standard handler of
// `pollite/server` (or your own) from Node's `node:http`, Express, Koa or Fastify.
// Its own entry, so the web-standard helpers cost a worker or an edge function
// nothing of it.

export { toNodeHandler } from './node-adapter.js';
export type { NodeHandlerOptions, NodeRequestLike, NodeResponseLike } from './node-handler-options.js';
