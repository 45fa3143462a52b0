// Chromium: bundled with the built package and served from the loopback
// server as a module script; the driver reads `window.__smoke`.
import * as pollite from '../../dist/index.js';
import * as kit from '../../dist/kit/index.js';
import { runSmoke } from './smoke.js';

const params = new URL(location.href).searchParams;
window.__smoke = runSmoke({ ...pollite, ...kit }, { runtime: 'chromium', base: location.origin, deadUrl: params.get('dead') });
