// The leak scan's reference: distinctive sentences of the gated pages, which no answer given without a session may hold
// (e2e/gate.e2e.ts scans every file and link of the build; site/test/agents-markdown.test.ts scans llms-full.txt).
import fs from 'node:fs';
import path from 'node:path';
import { repoRoot } from './paths';

const gatedDirs = ['identity-protection/detections', 'identity-protection/queries'];
const publicSource = (): string => {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const abs = path.join(dir, e.name);
      const rel = path.relative(path.join(repoRoot, 'site/docs'), abs).split(path.sep).join('/');
      if (gatedDirs.some((g) => rel === g || rel.startsWith(`${g}/`))) continue;
      if (e.isDirectory()) walk(abs);
      else if (/\.mdx?$/.test(e.name)) out.push(fs.readFileSync(abs, 'utf8'));
    }
  };
  walk(path.join(repoRoot, 'site/docs'));
  return out.join('\n');
};

/** Sentences of the gated pages (from the built HTML) that no public page of the docs also says. */
export function gatedSentences(siteDir: string): Set<string> {
  const manifest = JSON.parse(fs.readFileSync(path.join(siteDir, '.gate-manifest.json'), 'utf8')) as { pages: string[] };
  const shared = publicSource();
  const sentences = new Set<string>();
  for (const rel of manifest.pages) {
    const html = fs.readFileSync(path.join(siteDir, rel), 'utf8');
    const article = html.match(/<article[\s\S]*<\/article>/)?.[0] ?? '';
    for (const text of article.split(/<[^>]+>/)) {
      const s = text.trim();
      if (s.length >= 40 && /^[A-Za-z0-9 ,.()-]+$/.test(s) && !shared.includes(s)) sentences.add(s);
    }
    const title = html.match(/<h1[^>]*>([^<]+)<\/h1>/)?.[1];
    if (title && title.length > 12 && !shared.includes(title)) sentences.add(title);
  }
  return sentences;
}
