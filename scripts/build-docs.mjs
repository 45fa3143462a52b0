// npm run docs: the documentation site, static HTML in docs/site/ (git-ignored), built by TypeDoc
// from the TSDoc on the public types (the API reference) and the markdown under docs/ (the guides
// and reference pages), with README.md as its home page. It opens from disk (file://) and from any
// static server: every link is relative.
//
// The build fails (exit 1) on any TypeDoc warning: an export, an option or a member without TSDoc
// (`validation.notDocumented`), a link that leads nowhere, a type referenced but not exported.
//
// The markdown is staged in .tmp/docs-src/ first, where each page gets the front matter TypeDoc
// reads (its title, and its group in the navigation: Guides or Reference), so that the files
// under docs/ stay plain markdown that reads the same on GitHub.
//
//   node scripts/build-docs.mjs [--out DIR]
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Application, Comment, Converter, ReflectionKind } from 'typedoc';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const docs = join(root, 'docs');
const stage = join(root, '.tmp', 'docs-src');
const at = process.argv.indexOf('--out');
const out = at >= 0 ? resolve(process.argv[at + 1] ?? '') : join(docs, 'site');

/** The guides, in reading order; then the reference pages. A page under docs/ in neither list is a guide, after these. */
const GUIDES = [
  'polling.md',
  'retrying.md',
  'writes.md',
  'cooperation.md',
  'server.md',
  'operations.md',
  'resume.md',
  'frameworks.md',
  'tanstack.md',
  'cluster.md',
  'cli.md',
  'simulator.md',
  'testing.md',
];
const REFERENCE = ['architecture.md', 'kit.md', 'security.md', 'benchmarks.md', 'servers.md', 'mutation.md', 'development.md'];
/** Shorter titles for the navigation, where a page's own heading is long; the others use their `# ` heading. */
const TITLES = {
  'frameworks.md': 'Front-end frameworks',
  'cluster.md': 'Cluster',
  'servers.md': 'The servers pollite speaks',
};

/**
 * Every entry point of the package, from package.json's exports (so a new entry is documented, and
 * must be, from the day it is added): its name (`pollite/react`) and its source (`src/react/index.ts`).
 */
function entryPoints() {
  const { name, exports } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  return Object.entries(exports)
    .filter(([, target]) => typeof target === 'object' && target.types)
    .map(([subpath, target]) => ({
      name: subpath === '.' ? name : `${name}/${subpath.slice(2)}`,
      source: target.types.replace(/^\.\/dist\//, 'src/').replace(/\.d\.ts$/, '.ts'),
    }));
}

const fail = (message) => {
  console.error(`docs: FAILED: ${message}`);
  process.exit(1);
};

/** The page's title: its first `# ` heading. */
function titleOf(file, text) {
  const heading = /^# (.+)$/m.exec(text);
  if (!heading) fail(`${relative(root, file)} has no "# Title" line`);
  return heading[1].replace(/`/g, '').trim();
}

/**
 * Links into the API reference, written `[label](api:pollite/operation#OperationOptions)` in the markdown (on GitHub
 * the label reads as text), become TypeDoc links, which TypeDoc checks: a name that is not exported fails the build.
 */
const apiLinks = (text) =>
  text.replace(/\[([^\]]+)\]\(api:([^#)]+)#([^)]+)\)/g, (_, label, module, name) => `{@link "${module}"!${name} | ${label.replace(/`/g, '')}}`);

/**
 * The README links the guides by their address in the repository (`https://github.com/pollite/pollite/blob/main/docs/polling.md`),
 * so that they work where the README is read without the docs beside it: on npm, from the installed package. The site
 * has the pages beside it: those links become relative again (`docs/polling.md`), which TypeDoc follows and checks.
 */
const { repository } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const repositoryFiles = `${repository.url.replace(/^git\+/, '').replace(/\.git$/, '')}/blob/main/`;
const siteLinks = (text) => text.replaceAll(`](${repositoryFiles}docs/`, '](docs/');

const frontMatter = (title, group) => `---\ntitle: ${JSON.stringify(title)}\ngroup: ${group}\n---\n\n`;

/** Copies README.md and docs/ (less the site) into the stage, each page with its front matter; returns the pages in order. */
function stageMarkdown() {
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(join(stage, 'docs'), { recursive: true });
  // The site's header already says "pollite": the README's own title would say it twice.
  writeFileSync(join(stage, 'README.md'), apiLinks(siteLinks(readFileSync(join(root, 'README.md'), 'utf8').replace(/^# pollite\n+/, ''))));
  const pages = [];
  const present = readdirSync(docs, { withFileTypes: true });
  for (const entry of present) {
    if (entry.name === 'site' || entry.name === 'site.css') continue;
    cpSync(join(docs, entry.name), join(stage, 'docs', entry.name), { recursive: true });
  }
  const markdown = present.filter((e) => e.isFile() && e.name.endsWith('.md')).map((e) => e.name);
  const ordered = [...GUIDES.filter((n) => markdown.includes(n)), ...markdown.filter((n) => !GUIDES.includes(n) && !REFERENCE.includes(n)).sort(), ...REFERENCE.filter((n) => markdown.includes(n))];
  for (const name of ordered) {
    const source = join(docs, name);
    const text = readFileSync(source, 'utf8');
    if (text.startsWith('---\n')) fail(`${relative(root, source)} has front matter of its own: build-docs.mjs gives each page its title and group`);
    const group = REFERENCE.includes(name) ? 'Reference' : 'Guides';
    writeFileSync(join(stage, 'docs', name), frontMatter(TITLES[name] ?? titleOf(source, text), group) + apiLinks(text));
    pages.push(join(stage, 'docs', name));
  }
  return pages;
}

/** The first run of `//` comment lines of an entry's index.ts: what the entry is, as the module's summary. */
function leadComment(indexFile) {
  const lines = [];
  for (const line of readFileSync(indexFile, 'utf8').split('\n')) {
    if (!line.startsWith('//')) break;
    lines.push(line.replace(/^\/\/ ?/, ''));
  }
  return lines.join(' ').trim();
}

/**
 * TypeDoc lists a page's headings in its contents ("On This Page") by their text tokens alone, so the code in a
 * heading fell out of it: "When pollite waits longer than your `interval`" was listed as "...than your ". Each code
 * span of a heading gets its text as a child token, which TypeDoc's contents and slugs read (the anchor becomes
 * GitHub's: `#when-pollite-waits-longer-than-your-interval`) and markdown-it's renderer ignores (it prints the code).
 */
function headingCodeAsText(markdown) {
  markdown.core.ruler.push('pollite_heading_code', (state) => {
    state.tokens.forEach((token, index) => {
      if (token.type !== 'heading_open') return;
      for (const child of state.tokens[index + 1]?.children ?? []) {
        if (child.type !== 'code_inline') continue;
        const text = new state.Token('text', '', 0);
        text.content = child.content;
        child.children = [text];
      }
    });
  });
}

const pages = stageMarkdown();
const entries = entryPoints();
for (const entry of entries) if (!existsSync(join(root, entry.source))) fail(`${entry.name}: ${entry.source} does not exist`);
const app = await Application.bootstrapWithPlugins({
  options: join(root, 'typedoc.json'),
  entryPoints: entries.map((entry) => entry.source),
  projectDocuments: pages,
  out,
  markdownItLoader: headingCodeAsText,
});

// Modules are named after the package's subpaths (`pollite/react`, not `react`), and described by the comment that
// opens their source, which says what the entry is for.
app.converter.on(Converter.EVENT_RESOLVE_BEGIN, (context) => {
  const modules = context.project.getChildrenByKind(ReflectionKind.Module);
  if (modules.length !== entries.length) fail(`${entries.length} entry points but ${modules.length} modules`);
  for (const module of modules) {
    // TypeDoc names each module after its path under src/, less a trailing /index.
    const entry = entries.find(({ source }) => source.replace(/^src\//, '').replace(/(^|\/)index\.ts$/, '').replace(/\.ts$/, '') === (module.name === 'index' ? '' : module.name));
    if (!entry) fail(`module ${module.name} matches no entry point of package.json`);
    const summary = leadComment(join(root, entry.source));
    if (!summary) fail(`${entry.source} does not open with a // comment saying what the entry is`);
    module.name = entry.name;
    module.comment ??= new Comment([{ kind: 'text', text: summary }]);
  }
});

const project = await app.convert();
if (!project) fail('TypeDoc could not convert the project (a type error above?)');
const warnings = app.logger.warningCount;
app.validate(project);
if (app.logger.hasErrors() || app.logger.warningCount > 0) {
  fail(`${app.logger.errorCount} errors and ${app.logger.warningCount} warnings (${app.logger.warningCount - warnings} from validation), listed above`);
}
await app.generateDocs(project, out);
if (app.logger.hasErrors() || app.logger.warningCount > 0) fail('rendering the site raised the warnings above');

// The site is generated (and ignored by git and by `eslint .`, see eslint.config.js).

// What a reader opens: the home page, one page per guide, the API of every entry.
for (const page of ['index.html', 'modules.html']) if (!existsSync(join(out, page))) fail(`${page} is missing from ${relative(root, out)}`);
const documents = readdirSync(join(out, 'documents')).filter((name) => name.endsWith('.html'));
if (documents.length !== pages.length) fail(`${pages.length} markdown pages but ${documents.length} pages under documents/`);
// Each page's contents list every heading whole: the text of its link is the heading's text (issue 35).
const textOf = (html) =>
  html
    .replace(/<[^>]+>/g, '')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .trim();
let headings = 0;
for (const file of ['index.html', ...documents.map((name) => join('documents', name))]) {
  const html = readFileSync(join(out, file), 'utf8');
  for (const [, slug, inner] of html.matchAll(/<h[1-6] id="([^"]+)" class="tsd-anchor-link">(.*?)<a href="#[^"]*" aria-label="Permalink"/g)) {
    headings += 1;
    const listed = new RegExp(`<a href="#${slug.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"[^>]*>(.*?)</a>`).exec(html.slice(html.indexOf('tsd-page-navigation')));
    if (!listed) fail(`${file}: the heading "${textOf(inner)}" is missing from the page's contents`);
    if (textOf(listed[1]) !== textOf(inner)) fail(`${file}: the contents list the heading "${textOf(inner)}" as "${textOf(listed[1])}"`);
  }
}
if (headings === 0) fail('no heading found in the pages: has TypeDoc changed its markup? (see the contents check in build-docs.mjs)');

console.log(`docs: ${relative(root, out) || out}/index.html: ${pages.length} pages and the API of ${project.getChildrenByKind(ReflectionKind.Module).length} entry points`);
