// The import direction of pollite, checked by `npm run test:layers` (part of
// `npm test`). Layers, bottom to top; a file may import its own folder and the
// layers below it, never a layer above, never a sibling of its own rank, and
// no import may close a cycle. Adapters (top) import only public entry points.
const LAYERS = [
  ['errors', 'options'], // what pollite throws, and the TypeErrors that name a bad option
  ['env'], // the outside world: clock, timers, the one abortable wait, visibility, online
  ['http'], // HTTP itself: Retry-After, dates, bodies, requests
  ['backoff'], // backoff strategies
  ['policy'], // the one pure retry decision and what feeds it: classification, spread
  ['cooldown'], // what the realm remembers of each origin
  ['engine'], // the one attempt loop every surface runs, and its extension contract (hooks, pauses, cooldown hooks)
  ['poll', 'retry'], // the surfaces that configure the engine (siblings: neither knows the other)
  ['operation'], // above both loops: long-running operations (start, poll the monitor, fetch the result)
  ['observe'], // the loops and operations as UI state (one subscribable poll, fetch and operation state, the countdown)
  ['index.ts', 'kit'], // the public entries below the opt-in features: `pollite` (what an application calls) and `pollite/kit` (the building blocks of features and adapters: the shared loop, the share identity, and the contract and policy of the layers below); neither imports the other
  ['cooperate', 'testing', 'resume'], // opt-in features, the virtual clock and checkpoints (pollite/resume), each its own entry
];
const ADAPTERS = ['react', 'vue', 'svelte', 'solid', 'tanstack', 'server', 'simulator', 'cluster', 'demo', 'cli'];
const ENTRIES = ['index.ts', 'kit/index.ts', 'cooperate/index.ts', 'observe/index.ts', 'operation/index.ts', 'testing/index.ts', 'resume/index.ts', 'resume/node.ts', 'server/index.ts', 'server/node.ts', 'simulator/index.ts', 'cluster/index.ts', 'tanstack/index.ts', 'demo/index.ts'];

const path = (name) => (name.endsWith('.ts') ? `^src/${name.replace('.', '\\.')}$` : `^src/${name}/`);
const any = (names) => names.map(path).join('|');

const forbidden = [
  { name: 'no-cycle', severity: 'error', comment: 'Two modules that import each other, however far apart.', from: {}, to: { circular: true } },
  {
    name: 'adapters-use-entries',
    severity: 'error',
    comment: 'An adapter imports pollite only through public entry points, as a user would; and src/options/, so that its TypeErrors name a bad or unknown option in the same words as the core (no behaviour lives there).',
    from: { path: `^src/(${ADAPTERS.join('|')})/` },
    to: { path: '^src/', pathNot: [`^src/$1/`, '^src/options/', ...ENTRIES.map((entry) => path(entry))] },
  },
];
LAYERS.forEach((layer, rank) => {
  const above = LAYERS.slice(rank + 1).flat().concat(ADAPTERS);
  for (const name of layer) {
    const siblings = layer.filter((other) => other !== name);
    forbidden.push({
      name: `no-upward-import-from-${name.replace('.ts', '')}`,
      severity: 'error',
      comment: `${name} is layer ${rank}: it may import layers 0-${rank} only, and not ${siblings.join(', ') || 'its own siblings'}.`,
      from: { path: path(name) },
      to: { path: any([...above, ...siblings]) || '^$' },
    });
  }
});

module.exports = {
  forbidden,
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.test\\.' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js'] },
  },
};
