// Generates the SDK reference (Markdown) into site/docs/access/sdk with TypeDoc + typedoc-plugin-markdown.
// TypeDoc warnings fail the run (treatWarningsAsErrors in typedoc.json).
import { execFileSync } from 'node:child_process';
import { mkdir, readFile, rm, writeFile, readdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = fileURLToPath(new URL('..', import.meta.url));
const outArg = process.argv.indexOf('--out');
const OUT = outArg > 0 ? path.resolve(process.argv[outArg + 1]) : path.resolve(root, '../../site/docs/access/sdk');

const CATEGORIES = {
  modules: ['Modules', 2],
  classes: ['Classes', 3],
  interfaces: ['Interfaces', 4],
  enums: ['Enumerations', 5],
  namespaces: ['Namespaces', 6],
};

await rm(OUT, { recursive: true, force: true });
await mkdir(OUT, { recursive: true });
const typedoc = createRequire(import.meta.url).resolve('typedoc/package.json').replace(/package\.json$/, 'bin/typedoc');
execFileSync(process.execPath, [typedoc, '--options', 'typedoc.json', '--out', OUT], { cwd: root, stdio: 'inherit' });
for (const dir of await readdir(OUT, { withFileTypes: true })) {
  const cat = CATEGORIES[dir.name];
  if (!dir.isDirectory() || !cat) continue;
  await writeFile(
    path.join(OUT, dir.name, '_category_.json'),
    JSON.stringify({ label: cat[0], position: cat[1], collapsed: true }, null, 2) + '\n',
  );
}
// The project index (modules.md) opens with a hand-written orientation (docs/reference-overview.md), after its front matter.
const index = path.join(OUT, 'modules.md');
const overview = (await readFile(path.join(root, 'docs', 'reference-overview.md'), 'utf8')).replace(/^<!--[\s\S]*?-->\n/, '');
const generated = await readFile(index, 'utf8');
const end = generated.indexOf('\n---\n', 4);
if (!generated.startsWith('---\n') || end < 0) throw new Error('SDK reference: modules.md has no front matter to keep');
const body = generated.slice(end + 5).trimStart().replace(/^# .*\n+/, '');
await writeFile(index, `${generated.slice(0, end + 5)}\n# @keyway/sdk reference\n\n${overview.trim()}\n\n## Modules of the package\n${body.replace(/^## Modules\n/m, '')}`);
console.log(`SDK reference written to ${path.relative(process.cwd(), OUT) || OUT}`);
