import { useEffect, useState } from 'react';
import type { DemoApiClient, GlobalControls } from '../demo-api.js';

interface Choice {
  id: string;
  label: string;
  apply(controls: GlobalControls): GlobalControls;
  active(controls: GlobalControls): boolean;
}

interface Group {
  title: string;
  choices: Choice[];
}

const GROUPS: Group[] = [
  {
    title: 'Outage (503)',
    choices: [
      { id: 'outage-off', label: 'off', apply: (c) => ({ ...c, outage: undefined }), active: (c) => !c.outage },
      {
        id: 'outage-retry-after',
        label: 'Retry-After: 2 s',
        apply: (c) => ({ ...c, outage: { retryAfter: 2 } }),
        active: (c) => c.outage?.retryAfter !== undefined,
      },
      {
        id: 'outage-plain',
        label: 'no Retry-After',
        apply: (c) => ({ ...c, outage: {} }),
        active: (c) => !!c.outage && c.outage.retryAfter === undefined,
      },
    ],
  },
  {
    title: 'Server errors (500)',
    choices: [
      { id: 'errors-off', label: 'off', apply: (c) => ({ ...c, errors: false }), active: (c) => !c.errors },
      { id: 'errors-on', label: 'on', apply: (c) => ({ ...c, errors: true }), active: (c) => !!c.errors },
    ],
  },
  {
    title: 'Rate limit (429)',
    choices: [
      { id: 'rate-off', label: 'off', apply: (c) => ({ ...c, rateLimit: undefined }), active: (c) => !c.rateLimit },
      {
        // Below what the default jobs ask for (about one request a second each), so 429s come at once.
        id: 'rate-1',
        label: '1 req/s for all jobs',
        apply: (c) => ({ ...c, rateLimit: { perSecond: 1, retryAfter: 1 } }),
        active: (c) => !!c.rateLimit,
      },
    ],
  },
  {
    title: 'Slow answers',
    choices: [
      { id: 'slow-off', label: 'off', apply: (c) => ({ ...c, slow: undefined }), active: (c) => !c.slow },
      { id: 'slow-on', label: '1.5 s each', apply: (c) => ({ ...c, slow: { delay: 1500 } }), active: (c) => !!c.slow },
    ],
  },
];

const healthy = (c: GlobalControls): boolean => !c.outage && !c.errors && !c.rateLimit && !c.slow;

/** Switches that make the demo API misbehave for every job at once. */
export function ControlsPanel({ api }: { api: DemoApiClient }) {
  const [controls, setControls] = useState<GlobalControls>({});
  const [problem, setProblem] = useState<string | undefined>();

  useEffect(() => {
    api.controls().then(setControls, (error: unknown) => setProblem(String(error)));
  }, [api]);

  const choose = (choice: Choice): void => {
    api.setControls(choice.apply(controls)).then(setControls, (error: unknown) => setProblem(String(error)));
  };

  return (
    <section className="panel controls" aria-labelledby="controls-title">
      <div className="panel-head">
        <div>
          <h2 id="controls-title">Make the API misbehave</h2>
          <p className="hint">Applies to every job request of the demo API on 127.0.0.1.</p>
        </div>
        <span className={`badge ${healthy(controls) ? 'badge-done' : 'badge-error'}`} data-testid="api-health">
          {healthy(controls) ? 'API healthy' : 'API misbehaving'}
        </span>
      </div>
      <div className="groups">
        {GROUPS.map((group) => (
          <fieldset key={group.title} className="group">
            <legend>{group.title}</legend>
            <div className="segmented">
              {group.choices.map((choice) => (
                <button
                  key={choice.id}
                  className={choice.active(controls) ? 'on' : ''}
                  aria-pressed={choice.active(controls)}
                  data-testid={choice.id}
                  onClick={() => choose(choice)}
                >
                  {choice.label}
                </button>
              ))}
            </div>
          </fieldset>
        ))}
      </div>
      {problem && <p className="error-text">{problem}</p>}
    </section>
  );
}
