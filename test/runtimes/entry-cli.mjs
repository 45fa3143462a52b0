// Node, Bun and Deno: runs the smoke suite against the built package and
// prints one JSON line. Usage: <runtime> entry-cli.mjs <runtime-name> <base> <deadUrl>
import * as pollite from '../../dist/index.js';
import * as kit from '../../dist/kit/index.js';
import { runSmoke } from './smoke.js';

const args = globalThis.Deno ? globalThis.Deno.args : process.argv.slice(2);
const [runtime, base, deadUrl] = args;
const report = await runSmoke({ ...pollite, ...kit }, { runtime, base, deadUrl });
console.log(`SMOKE-RESULT ${JSON.stringify(report)}`);
