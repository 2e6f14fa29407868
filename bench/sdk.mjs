// Bundle-size benchmark of @keyway/sdk (npm run bench:sdk).
// Bundles, with esbuild (ESM, browser, minified, tree-shaken, in memory):
//   - the whole SDK (every export),
//   - a consumer that only signs in with an email OTP,
//   - @supabase/auth-js, oidc-client-ts and @auth0/auth0-spa-js the same way (every export),
// then prints minified and gzip sizes and the ratios against the whole SDK. Not a test: it only reports,
// but it marks the targets (whole SDK <= 16 KB gzip, email-OTP consumer <= 8 KB gzip).
import { build } from 'esbuild';
import { mkdir, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const sdkDir = fileURLToPath(new URL('../packages/sdk/', import.meta.url));
const KB = 1024;

const cases = [
  { name: '@keyway/sdk (whole SDK)', entry: "export * from './src/index.ts';", target: 16 * KB },
  {
    name: '@keyway/sdk (email OTP only)',
    entry: `
      import { KeywayClient, authenticate, nonce, otp, User } from './src/index.ts';
      export async function signIn(email, askCode) {
        const client = new KeywayClient({ oid: 'org', environment: 'production' });
        client.events.on('codeRequested', async (e) => e.submit(await askCode()));
        const token = await authenticate(client, { handle: email, factor: { method: 'otp_via_email' } }, { nonce, otp }).result;
        return new User(client, token);
      }`,
    target: 8 * KB,
  },
  { name: '@supabase/auth-js', entry: "export * from '@supabase/auth-js';" },
  { name: 'oidc-client-ts', entry: "export * from 'oidc-client-ts';" },
  { name: '@auth0/auth0-spa-js', entry: "export * from '@auth0/auth0-spa-js';" },
];

async function size(entry) {
  const out = await build({
    stdin: { contents: entry, resolveDir: sdkDir, loader: 'ts', sourcefile: 'bench-entry.ts' },
    bundle: true,
    minify: true,
    treeShaking: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2020',
    write: false,
    logLevel: 'silent',
    define: { 'process.env.NODE_ENV': '"production"' },
  });
  const code = out.outputFiles[0].contents;
  return { min: code.length, gzip: gzipSync(code, { level: 9 }).length };
}

const rows = [];
for (const c of cases) rows.push({ ...c, ...(await size(c.entry)) });
const base = rows[0].gzip;
const fmt = (n) => `${(n / KB).toFixed(1)} KB`.padStart(9);
console.log(`${'bundle'.padEnd(32)}${'minified'.padStart(9)}${'gzip'.padStart(9)}  gzip vs whole SDK  target`);
for (const r of rows) {
  const target = r.target ? `${r.gzip <= r.target ? 'ok' : 'OVER'} (<= ${r.target / KB} KB)` : '';
  console.log(`${r.name.padEnd(32)}${fmt(r.min)}${fmt(r.gzip)}  ${(r.gzip / base).toFixed(2).padStart(6)}x            ${target}`);
}
await mkdir(new URL('./results/', import.meta.url), { recursive: true });
await writeFile(
  new URL('./results/sdk.json', import.meta.url),
  JSON.stringify({ at: new Date().toISOString(), rows: rows.map(({ entry, ...r }) => r) }, null, 2) + '\n',
);
