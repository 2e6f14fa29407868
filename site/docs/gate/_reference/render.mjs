// Rewrites the option tables of every Gate page from options.yaml.
// usage: node site/docs/gate/_reference/render.mjs   (the test fails when a page is out of date)
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadReference, renderPage } from './gate-config.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ref = loadReference();
const pages = fs.readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) => /\.mdx?$/.test(f) && !f.split(path.sep).some((p) => p.startsWith('_')));
let changed = 0;
for (const rel of pages) {
  const file = path.join(root, rel);
  const before = fs.readFileSync(file, 'utf8');
  const after = renderPage(ref, before);
  if (after !== before) {
    fs.writeFileSync(file, after);
    changed++;
    console.log(`rendered ${rel}`);
  }
}
console.log(`${changed} page(s) updated, ${pages.length} checked`);
