import { createSSRApp, defineComponent, effectScope, h } from 'vue';
import { renderToString } from 'vue/server-renderer';
import { afterEach, describe, expect, it } from 'vitest';
import { usePollOperation } from '../../src/vue/index.js';
import type { TestServer } from '../helpers/server.js';
import { operationServer, settle, until } from '../observe/helpers.js';

// Vue's usePollOperation in Node, against a real node:http server: a start answered 202 with an
// Operation-Location, a monitor Running then Succeeded, the result.

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});


/** The start's 202 names its monitor (no Retry-After); the monitor answers Running at 40 %, then Succeeded; then the result. */
const reportServer = (): Promise<TestServer> => operationServer(undefined, [{ status: 'Running', percent: 40 }, { status: 'Succeeded', resourceLocation: '/reports/1' }]);

describe('pollite/vue usePollOperation in Node', () => {
  it('server-rendered: idle, nothing sent', async () => {
    server = await reportServer();
    const url = `${server.url}/reports`;
    const App = defineComponent({
      setup() {
        const report = usePollOperation(url, { method: 'POST' });
        return () => h('p', `${report.status} ${String(report.progress)}`);
      },
    });
    expect(await renderToString(createSSRApp(App))).toBe('<p>idle undefined</p>');
    await settle();
    expect(server.requests).toHaveLength(0);
  });

  it('in a scope: one start, the progress, then the result; stopping the scope stops it', async () => {
    server = await reportServer();
    const scope = effectScope();
    const progress: unknown[] = [];
    const report = scope.run(() =>
      usePollOperation<{ rows: number }, { status: string; percent?: number }>(`${server!.url}/reports`, {
        method: 'POST',
        operation: { interval: 30, onUpdate: (status) => void progress.push(status.percent) },
      }),
    )!;
    expect(report.status).toBe('polling');
    await until(() => report.status === 'done', 'done');
    expect(report.data).toEqual({ rows: 42 });
    expect(report.progress).toEqual({ status: 'Succeeded', resourceLocation: '/reports/1' });
    expect(progress).toEqual([40, undefined]);
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /reports', 'GET /ops/1', 'GET /ops/1', 'GET /reports/1']);
    scope.stop();
    expect(report.status).toBe('done');
  });
});
