import type { ServerResponse } from 'node:http';
import { createSSRApp, defineComponent, effectScope, h, nextTick, ref } from 'vue';
import { renderToString } from 'vue/server-renderer';
import { afterEach, describe, expect, it } from 'vitest';
import { useFetchWithRetry, usePoll } from '../../src/vue/index.js';
import { scripted, sendJson, startServer, type SeenRequest, type TestServer } from '../helpers/server.js';
import { settle, until } from '../observe/helpers.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});
const json = (status: number, body: unknown) => (res: ServerResponse) => sendJson(res, status, body);

describe('pollite/vue in Node', () => {
  it('server-rendered: poll idle, fetch loading, nothing sent', async () => {
    server = await startServer(scripted([json(200, { status: 'done' })]));
    const url = server.url;
    const App = defineComponent({
      setup() {
        const poll = usePoll<{ status: string }>(url, { isDone: () => true });
        const report = useFetchWithRetry(`${url}/report`);
        return () => h('p', `${poll.status} ${poll.attempt} of ${poll.limit} ${report.status} ${report.attempt} of ${report.limit}`);
      },
    });
    expect(await renderToString(createSSRApp(App))).toBe('<p>idle 0 of 9 loading 1 of 4</p>');
    await settle();
    expect(server.requests).toHaveLength(0);
  });

  it('outside a component: starts at once, follows a url ref (aborting the old request), and stops with its scope', async () => {
    const aborted: SeenRequest[] = [];
    server = await startServer((req, res, seen) =>
      req.url === '/1' ? void res.on('close', () => res.writableEnded || aborted.push(seen)) : json(200, { status: 'running', id: req.url })(res),
    );
    const path = ref('/1');
    const scope = effectScope();
    const poll = scope.run(() => usePoll<{ status: string; id: string }>(() => `${server!.url}${path.value}`, { interval: 50 }))!;
    expect(poll.status).toBe('polling');
    await until(() => server!.requests.length === 1);
    path.value = '/2';
    await nextTick();
    expect(poll).toMatchObject({ status: 'polling', data: undefined, attempt: 1 });
    await until(() => poll.data?.id === '/2' && aborted.length === 1);
    scope.stop();
    expect(poll.status).toBe('idle');
    const sent = server.requests.length;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(server.requests).toHaveLength(sent);
  });
});
