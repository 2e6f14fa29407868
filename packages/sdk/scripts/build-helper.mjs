// Bundles src/helper-page.ts into a self-contained dist/helper.html (the cross-origin helper page).
import { build } from 'esbuild';
import { mkdir, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = await build({
  stdin: { contents: "import { listen } from './src/helper-page.ts'; listen();", resolveDir: root, loader: 'ts' },
  bundle: true,
  minify: true,
  format: 'iife',
  target: 'es2020',
  write: false,
});
const script = out.outputFiles[0].text.replace(/<\/script/gi, '<\\/script');
const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Keyway</title>
<meta name="robots" content="noindex">
<!-- Space-separated origins allowed to read and write this origin's Keyway storage, e.g. "https://app.example.com". -->
<meta name="keyway-allowed-origins" content="">
</head>
<body>
<script>${script}</script>
</body>
</html>
`;
await mkdir(`${root}dist`, { recursive: true });
await writeFile(`${root}dist/helper.html`, html);
console.log(`dist/helper.html (${html.length} bytes)`);
