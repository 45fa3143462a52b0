import type { JobScript, JobView } from '../../src/demo/job-model.js';
import type { GlobalControls } from '../../src/demo/job-api.js';

export type { GlobalControls, JobView };

/** The demo job API's few calls that are not polling. */
export function demoApi(origin: string) {
  const send = async <T,>(path: string, init?: RequestInit): Promise<T> => {
    const response = await fetch(`${origin}${path}`, init);
    if (!response.ok) throw new Error(`HTTP ${response.status} from ${path}`);
    return (await response.json()) as T;
  };
  const post = <T,>(path: string, body: unknown): Promise<T> =>
    send<T>(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return {
    jobUrl: (id: string): string => `${origin}/jobs/${id}`,
    createJob: (script: JobScript): Promise<{ id: string; url: string }> => post('/jobs', script),
    controls: (): Promise<GlobalControls> => send('/control'),
    setControls: (controls: GlobalControls): Promise<GlobalControls> => post('/control', controls),
  };
}

export type DemoApiClient = ReturnType<typeof demoApi>;
