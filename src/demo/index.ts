// The demo job API, shared by `pollite demo`, the playground and the tests.
// Not a package entry: the CLI bundle and the playground import it from here.

export { createDemoApi } from './job-api.js';
export type { DemoApi, DemoApiOptions, DemoStats, GlobalControls } from './job-api.js';
export { startDemoServer, toNodeListener } from './node-server.js';
export type { DemoServer } from './node-server.js';
export { viewJob, activeMisbehaviour } from './job-model.js';
export type { Job, JobScript, JobView, Misbehaviour } from './job-model.js';
export { ROUGH_PATCH, outageWindow } from './rough-patch.js';
