// Types of package-links.mjs, for its tests (test/package/package-links.test.ts).
export function linksOf(markdown: string): string[];
export function headingSlugs(markdown: string): Set<string>;
export function linkProblems(markdown: string, options: { repository: string; read: (path: string) => string | undefined }): string[];
