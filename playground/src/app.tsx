import { useMemo } from 'react';
import { demoApi } from './demo-api.js';
import { ControlsPanel } from './panels/controls-panel.js';
import { CooperatePanel } from './panels/cooperate-panel.js';
import { JobsPanel } from './panels/jobs-panel.js';
import { RetryPanel } from './panels/retry-panel.js';
import type { Settings } from './settings.js';

/** The playground: one panel per file under panels/; add a panel by adding a file and a line here. */
export function App({ settings }: { settings: Settings }) {
  const api = useMemo(() => demoApi(settings.api), [settings.api]);
  return (
    <>
      <header className="top">
        <div>
          <h1>
            pollite <span>playground</span>
          </h1>
          <p>Polling and retrying, politely: watch every request, then make the API misbehave.</p>
        </div>
        <p className="origin">
          demo API <code>{settings.api}</code>
        </p>
      </header>
      <main>
        <ControlsPanel api={api} />
        <JobsPanel api={api} settings={settings} />
        <RetryPanel api={api} settings={settings} />
        <CooperatePanel api={api} settings={settings} />
      </main>
    </>
  );
}
