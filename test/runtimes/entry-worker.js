// workerd (through miniflare): bundled with the built package into one
// module worker. The driver sends `?base=&dead=` and reads JSON back.
import * as pollite from '../../dist/index.js';
import * as kit from '../../dist/kit/index.js';
import { runSmoke } from './smoke.js';

export default {
  async fetch(request) {
    const params = new URL(request.url).searchParams;
    const report = await runSmoke({ ...pollite, ...kit }, { runtime: 'workerd', base: params.get('base'), deadUrl: params.get('dead') });
    return Response.json(report);
  },
};
