import { describe, expect, it } from 'vitest';
import { headingSlugs, linkProblems, linksOf } from '../../scripts/package-links.mjs';

const repository = 'https://github.com/pollite/pollite';
const files: Record<string, string> = {
  'docs/polling.md': '# Polling a job\n\n## Option checking\n\n## What `poll` does with each answer\n',
  'CHANGELOG.md': '# Changelog\n',
  docs: '',
};
const problems = (markdown: string) => linkProblems(markdown, { repository, read: (path) => files[path] });

describe('the links of the markdown that ships in the package', () => {
  it('finds inline links, images, reference definitions and HTML attributes, never those in code', () => {
    const markdown = [
      '[a](docs/a.md) ![b](b.png "title") <a href="c.html">c</a> <img src="d.svg">',
      '`[e](e.md)` and ``[f](f.md)``',
      '```ts',
      'const g = list[0](h);',
      '```',
      '[i]: i.md',
    ].join('\n');
    expect(linksOf(markdown)).toEqual(['docs/a.md', 'b.png', 'i.md', 'c.html', 'd.svg']);
  });

  it("slugs headings as GitHub does: code kept as text, punctuation out, repeats numbered, not a code block's # lines", () => {
    const markdown = '# pollite\n## When pollite waits longer than your `interval`\n## Soak: 1,000,000 polls (`npm run bench:soak`)\n## Options\n## Options\n```sh\n# a comment\n```\n';
    expect([...headingSlugs(markdown)]).toEqual(['pollite', 'when-pollite-waits-longer-than-your-interval', 'soak-1000000-polls-npm-run-benchsoak', 'options', 'options-1']);
  });

  it('refuses a relative link, a file the repository lacks and an anchor no heading has; passes the rest', () => {
    expect(
      problems(
        [
          `[ok](${repository}/blob/main/docs/polling.md#option-checking) [ok](${repository}/blob/main/docs/polling.md#what-poll-does-with-each-answer)`,
          `[ok](${repository}/blob/main/CHANGELOG.md) [ok](${repository}/tree/main/docs) [ok](${repository}/issues) [ok](https://semver.org/) [ok](#heading)`,
          '## Heading',
          `[relative](docs/polling.md) [missing](${repository}/blob/main/docs/nope.md) [anchor](${repository}/blob/main/docs/polling.md#nope) [own](#nope)`,
        ].join('\n'),
      ),
    ).toEqual([
      `docs/polling.md: a relative link, which leads nowhere on npm (link ${repository}/blob/main/...)`,
      `${repository}/blob/main/docs/nope.md: docs/nope.md is not in the repository`,
      `${repository}/blob/main/docs/polling.md#nope: docs/polling.md has no heading with this anchor`,
      '#nope: no heading of its own has this anchor',
    ]);
  });
});
