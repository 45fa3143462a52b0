// The links of the markdown that ships in the package (README.md, CHANGELOG.md), for the package
// check (npm run test:package). On npm and in node_modules the docs are not beside the README, so
// every link must be absolute; a link into the repository (`<repository>/blob/main/docs/polling.md`)
// must name a file of this checkout, and its `#anchor` a heading of that file, as GitHub slugs it.

/** The markdown without its fenced code blocks, whose `#` lines are no headings. */
const withoutFences = (markdown) => markdown.replace(/^([ \t]*)(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1\2[^\n]*$/gm, '');
/** The markdown without its code: fenced blocks and code spans hold brackets that are no links. */
const prose = (markdown) => withoutFences(markdown).replace(/(`+)[\s\S]*?\1/g, '');

/** Every link target of `markdown`: inline links and images, reference definitions, HTML `href` and `src`. */
export function linksOf(markdown) {
  const text = prose(markdown);
  return [
    ...[...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+["'(][^)]*)?\)/g)].map((m) => m[1]),
    ...[...text.matchAll(/^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)].map((m) => m[1]),
    ...[...text.matchAll(/\s(?:href|src)=["']([^"']+)["']/g)].map((m) => m[1]),
  ];
}

/** The anchors GitHub gives the headings of `markdown` (github-slugger: lower case, punctuation out, spaces to hyphens, repeats numbered). */
export function headingSlugs(markdown) {
  const seen = new Map();
  const slugs = new Set();
  for (const [, heading] of withoutFences(markdown).matchAll(/^#{1,6}[ \t]+(.+?)[ \t]*#*$/gm)) {
    const text = heading.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[*`]/g, '');
    const base = text.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '').replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    slugs.add(n === 0 ? base : `${base}-${n}`);
  }
  return slugs;
}

/**
 * What is wrong with the links of `markdown` as it ships: a relative link (it leads nowhere on npm),
 * a link into `repository` (`https://github.com/owner/name`) to a file `read` cannot find (it returns
 * the file's text, or undefined), or to an anchor no heading of it has. Each problem is one sentence.
 */
export function linkProblems(markdown, { repository, read }) {
  const problems = [];
  const own = headingSlugs(markdown);
  for (const link of linksOf(markdown)) {
    if (link.startsWith('#')) {
      if (!own.has(decodeURIComponent(link.slice(1)))) problems.push(`${link}: no heading of its own has this anchor`);
      continue;
    }
    if (!/^(https?:|mailto:)/.test(link)) {
      problems.push(`${link}: a relative link, which leads nowhere on npm (link ${repository}/blob/main/...)`);
      continue;
    }
    const inRepository = new RegExp(`^${repository.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/(?:blob|tree)/main/([^#?]+)(?:#(.*))?$`).exec(link);
    if (!inRepository) continue;
    const [, path, anchor] = inRepository;
    const text = read(decodeURIComponent(path));
    if (text === undefined) problems.push(`${link}: ${path} is not in the repository`);
    else if (anchor !== undefined && !headingSlugs(text).has(decodeURIComponent(anchor))) problems.push(`${link}: ${path} has no heading with this anchor`);
  }
  return problems;
}
