// npm run test:examples: every code block of README.md and docs/*.md is checked against the BUILT
// package (run `npm run build` first), as a user's code would meet it.
//
// - ```ts and ```tsx blocks: each is written as a file of its own in .tmp/examples/, a project
//   whose node_modules/pollite is a symlink to this repository (so `pollite/react` resolves
//   through package.json's exports to dist/, as in a user's app), and type-checked with
//   `tsc --strict --noEmit` (jsx react-jsx; a block may name its own JSX runtime, as Solid's
//   does with `@jsxImportSource`). A block is complete: it imports what it uses and declares the
//   names of the reader's app it needs (`declare function render(job: Job): void`). Nothing is
//   added to it; a block that is not a module is checked as one (its names stay its own).
// - ```ts runnable blocks are then run with Node against the demo job API (dist/demo), whose
//   origin they read from `process.env.DEMO_API`; a block that throws or exits non-zero fails.
// - ```svelte blocks are compiled with the Svelte compiler (syntax, runes, markup).
// - ```sh blocks: each `npm run <script>` must name a script of package.json, and each option
//   given to `pollite` must be one its --help lists.
//
// A failure names the markdown file and line, and the compiler's message.
//
//   node scripts/check-examples.mjs [--keep]   (--keep leaves .tmp/examples for a look)
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const work = join(root, '.tmp', 'examples');
const keep = process.argv.includes('--keep');
const failures = [];
const fail = (where, message) => failures.push(`${where}: ${message}`);

/** The markdown that a reader meets: the README and every page of the docs site. */
function markdownFiles() {
  const docs = join(root, 'docs');
  const pages = readdirSync(docs)
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => join(docs, name));
  return [join(root, 'README.md'), ...pages];
}

/** The fenced blocks of one markdown file: language, the words after it, the code and the line its code starts on. */
function blocksOf(file) {
  const lines = readFileSync(file, 'utf8').split('\n');
  const blocks = [];
  for (let i = 0; i < lines.length; i += 1) {
    const open = /^(\s*)(`{3,}|~{3,})(\S*)\s*(.*)$/.exec(lines[i]);
    if (!open) continue;
    const [, indent, fence, lang, info] = open;
    const start = i + 1;
    let end = start;
    while (end < lines.length && !lines[end].startsWith(`${indent}${fence}`)) end += 1;
    if (end === lines.length) fail(`${relative(root, file)}:${i + 1}`, 'a code block that is never closed');
    const code = lines.slice(start, end).map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line));
    blocks.push({ file, lang, words: info.split(/\s+/).filter(Boolean), code: code.join('\n'), line: start + 1 });
    i = end;
  }
  return blocks;
}

const where = (block, offset = 0) => `${relative(root, block.file)}:${block.line + offset}`;

// ---------------------------------------------------------------- TypeScript

/** The project the blocks are checked in: pollite as a dependency, resolved through its exports to dist/. */
function writeProject(files) {
  rmSync(work, { recursive: true, force: true });
  mkdirSync(join(work, 'src'), { recursive: true });
  mkdirSync(join(work, 'node_modules'), { recursive: true });
  symlinkSync(root, join(work, 'node_modules', 'pollite'), 'dir');
  writeFileSync(join(work, 'package.json'), JSON.stringify({ name: 'pollite-examples', private: true, type: 'module' }, null, 2));
  const compilerOptions = {
    strict: true,
    noEmit: true,
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    lib: ['ES2022', 'DOM', 'DOM.Iterable'],
    jsx: 'react-jsx',
    types: ['node'],
    // The app's own copies of React, Vue, Solid and TanStack Query: the repository's devDependencies.
    typeRoots: [join(root, 'node_modules', '@types')],
    skipLibCheck: true,
    moduleDetection: 'force',
    noErrorTruncation: true,
  };
  writeFileSync(join(work, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: files.map((f) => `src/${f}`) }, null, 2));
}

const slug = (block) => `${relative(root, block.file).replace(/[^a-z0-9]+/gi, '-').replace(/-md$/, '')}-L${block.line}`;

function checkTypeScript(blocks) {
  const files = blocks.map((block) => {
    block.name = `${slug(block)}.${block.lang === 'tsx' ? 'tsx' : 'ts'}`;
    return block.name;
  });
  writeProject(files);
  for (const block of blocks) writeFileSync(join(work, 'src', block.name), `${block.code}\n`);
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', join(work, 'tsconfig.json'), '--pretty', 'false'], { cwd: work, encoding: 'utf8' });
  const byName = new Map(blocks.map((block) => [block.name, block]));
  let reported = 0;
  for (const line of `${result.stdout}${result.stderr}`.split('\n')) {
    const diagnostic = /^src\/([^(]+)\((\d+),(\d+)\): error (TS\d+: .*)$/.exec(line.trim());
    if (diagnostic) {
      const block = byName.get(diagnostic[1]);
      fail(block ? where(block, Number(diagnostic[2]) - 1) : diagnostic[1], diagnostic[4]);
      reported += 1;
    } else if (/error TS\d+/.test(line)) {
      fail('tsc', line.trim());
      reported += 1;
    }
  }
  if (result.status !== 0 && reported === 0) fail('tsc', `exited ${result.status}: ${result.stdout}${result.stderr}`);
}

// ---------------------------------------------------------------- running

async function runRunnable(blocks) {
  if (blocks.length === 0) return;
  const { build } = await import('esbuild');
  const { startDemoServer } = await import(pathToFileURL(join(root, 'dist', 'demo', 'index.js')).href);
  const demo = await startDemoServer();
  const runDir = join(work, 'run');
  mkdirSync(runDir, { recursive: true });
  try {
    for (const block of blocks) {
      const out = join(runDir, block.name.replace(/\.tsx?$/, '.mjs'));
      await build({ entryPoints: [join(work, 'src', block.name)], outfile: out, format: 'esm', platform: 'node', target: 'node20', bundle: false, logLevel: 'silent' });
      const { code, output } = await runNode(out, { DEMO_API: demo.url.replace(/\/$/, '') });
      if (code !== 0) fail(where(block), `the runnable block exited ${code}:\n${output.trim().split('\n').map((l) => `    ${l}`).join('\n')}`);
      block.ran = true;
    }
  } finally {
    await demo.close();
  }
}

/** Runs one file with Node; resolves with its exit code and what it printed, killing it after 60 s. */
function runNode(file, env) {
  return new Promise((done) => {
    const child = spawn(process.execPath, [file], { cwd: work, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const timer = setTimeout(() => {
      output += '\n(killed after 60 s)';
      child.kill('SIGKILL');
    }, 60_000);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      done({ code: code ?? signal, output });
    });
  });
}

// ---------------------------------------------------------------- Svelte

async function checkSvelte(blocks) {
  if (blocks.length === 0) return;
  const { compile } = await import('svelte/compiler');
  for (const block of blocks) {
    try {
      const { warnings } = compile(block.code, { filename: `${slug(block)}.svelte`, generate: 'client' });
      for (const warning of warnings) fail(where(block, (warning.start?.line ?? 1) - 1), `svelte: ${warning.message}`);
    } catch (error) {
      fail(where(block, (error.start?.line ?? 1) - 1), `svelte: ${error.message}`);
    }
  }
}

// ---------------------------------------------------------------- shell

/** The options `pollite [subcommand] --help` lists. */
function cliOptions(subcommand) {
  const args = [join(root, 'dist', 'cli.js'), ...(subcommand ? [subcommand] : []), '--help'];
  const help = spawnSync(process.execPath, args, { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } }).stdout;
  if (!help) fail('pollite', `\`pollite ${subcommand ?? ''} --help\` printed nothing: is dist/cli.js built?`);
  return new Set([...help.matchAll(/(?:^|[\s,])(--?[a-zA-Z][\w-]*)/gm)].map((m) => m[1]));
}

const NPM_COMMANDS = new Set(['install', 'i', 'ci', 'test', 't', 'start', 'run', 'pack', 'view']);

function checkShell(blocks) {
  const scripts = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts;
  const options = new Map();
  const optionsOf = (sub) => {
    if (!options.has(sub)) options.set(sub, cliOptions(sub));
    return options.get(sub);
  };
  for (const block of blocks) {
    block.code.split('\n').forEach((text, offset) => {
      const line = text.replace(/\s+#.*$/, '').replace(/^\s*#.*$/, '').trim();
      for (const command of line.split(/&&|\|\||;|\|/).map((c) => c.trim()).filter(Boolean)) {
        const words = command.match(/"[^"]*"|'[^']*'|\S+/g) ?? [];
        const at = where(block, offset);
        if (words[0] === 'npm') {
          if (!NPM_COMMANDS.has(words[1])) fail(at, `npm ${words[1]}: not a command the docs should need`);
          if (words[1] === 'run' && !scripts[words[2]]) fail(at, `npm run ${words[2]}: no such script in package.json`);
        }
        const bin = words[0] === 'npx' ? words.slice(1) : words;
        if (bin[0] !== 'pollite') continue;
        const sub = ['simulate', 'demo'].includes(bin[1]) ? bin[1] : undefined;
        const known = optionsOf(sub);
        for (const word of bin.slice(1)) {
          const option = /^(--?[a-zA-Z][\w-]*)/.exec(word)?.[1];
          if (option && !known.has(option)) fail(at, `pollite${sub ? ` ${sub}` : ''} has no option ${option} (see its --help)`);
        }
      }
    });
  }
}

// ---------------------------------------------------------------- main

if (!existsSync(join(root, 'dist', 'index.d.ts')) || !existsSync(join(root, 'dist', 'cli.js'))) {
  console.error('examples: FAILED: dist/ is not built: run `npm run build` first');
  process.exit(1);
}
const blocks = markdownFiles().flatMap(blocksOf);
const typescript = blocks.filter((b) => b.lang === 'ts' || b.lang === 'tsx');
const runnable = typescript.filter((b) => b.words.includes('runnable'));
const svelte = blocks.filter((b) => b.lang === 'svelte');
const shell = blocks.filter((b) => b.lang === 'sh' || b.lang === 'bash');
const unknown = blocks.filter((b) => b.lang && !['ts', 'tsx', 'svelte', 'sh', 'bash', 'json', 'text', 'http'].includes(b.lang));
for (const block of unknown) fail(where(block), `a \`\`\`${block.lang} block: the checker knows ts, tsx, svelte, sh, json, text and http`);

checkTypeScript(typescript);
await checkSvelte(svelte);
checkShell(shell);
if (failures.length === 0) await runRunnable(runnable);
if (!keep) rmSync(work, { recursive: true, force: true });

const files = new Set(blocks.map((b) => b.file)).size;
const summary = `${typescript.length} TypeScript blocks (${runnable.length} run against the demo API), ${svelte.length} Svelte, ${shell.length} shell, in ${files} files`;
if (failures.length > 0) {
  console.error(failures.map((f) => `  ${f}`).join('\n'));
  console.error(`examples: FAILED: ${failures.length} problems in ${summary}`);
  process.exit(1);
}
console.log(`examples: ${summary}: all compile${runnable.length ? ', and the runnable ones ran' : ''}`);
