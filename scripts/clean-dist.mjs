// Empties dist/ before a build, so no file of an older layout is packed or tested.
import { rmSync } from 'node:fs';
rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
