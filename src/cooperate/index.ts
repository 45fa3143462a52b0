// The public API of `pollite/cooperate`: opt-in features of `poll`, each
// imported and passed in `use`. A feature that is not imported costs nothing.

export { share } from './share.js';
export { shareTabs } from './share-tabs.js';
export type { ShareOptions } from './share-options.js';
export type { ShareKeyOption } from '../kit/index.js';
export type { LocalReason } from '../engine/events.js';
export { paceByData } from './pace-by-data.js';
export type { PaceByDataOptions } from './pace-by-data.js';
export { paceByCacheControl } from './pace-by-cache-control.js';
export type { PaceByCacheControlOptions } from './pace-by-cache-control.js';
export { pauseWhenBlurred } from './pause-when-blurred.js';
export type { FocusSource } from '../env/focus.js';
export { clearCooldowns } from '../cooldown/origin-cooldown.js';
