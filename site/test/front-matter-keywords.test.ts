// Every written docs page names its subject as readers do in its front-matter `keywords`: the search index reads them
// (<meta name="keywords">) into the page's introduction and whole-page document, so paraphrases find the page.
// Generated pages (the SDK's TypeDoc reference, the REST operations) get theirs from their generator.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import matter from 'gray-matter';
import { describe, expect, it } from 'vitest';

const docsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'docs');
const GENERATED = /^(access\/sdk\/|api\/)|(^|\/)_/;

function writtenPages(dir: string, rel = ''): string[] {
  return fs.readdirSync(path.join(dir, rel), { withFileTypes: true }).flatMap((e) => {
    const file = path.posix.join(rel, e.name);
    if (e.isDirectory()) return writtenPages(dir, file);
    return /\.mdx?$/.test(e.name) && !GENERATED.test(file) ? [file] : [];
  });
}

describe('front-matter keywords', () => {
  it('every written page has some', () => {
    const pages = writtenPages(docsDir);
    expect(pages.length).toBeGreaterThan(100);
    const without = pages.filter((file) => {
      const { keywords } = matter(fs.readFileSync(path.join(docsDir, file), 'utf8')).data as { keywords?: unknown };
      return !Array.isArray(keywords) || keywords.length === 0;
    });
    expect(without).toEqual([]);
  });
});
