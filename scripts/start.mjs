// `npm start`: install what is missing, build what is stale, then run the identity server (with its dev mailbox)
// and the docs server, and print their URLs. Ctrl+C stops both.
import fs from 'node:fs';
import path from 'node:path';
import { buildAll, ensureInstalled, root } from './lib.mjs';
import { createSupervisor, docsOrigins, identityCli, launchDocs, portFromEnv, printReady, waitFor } from './processes.mjs';

const port = portFromEnv('PORT', '3000');
const apiPort = portFromEnv('KEYWAY_API_PORT', '8787');
const dataDir = path.resolve(root, process.env.DATA_DIR ?? '.data');
const apiUrl = process.env.KEYWAY_API_URL ?? `http://localhost:${apiPort}`;

try {
  ensureInstalled();
  buildAll();
} catch (error) {
  console.error(`\n${error instanceof Error ? error.message : error}`);
  process.exit(1);
}
fs.mkdirSync(dataDir, { recursive: true });

const supervisor = createSupervisor();
const hasIdentityServer = fs.existsSync(identityCli);
if (hasIdentityServer) {
  supervisor.launch('identity', identityCli, {
    KEYWAY_API_PORT: apiPort,
    DATA_DIR: dataDir,
    NODE_ENV: process.env.NODE_ENV ?? 'development',
    KEYWAY_CORS_ORIGINS: process.env.KEYWAY_CORS_ORIGINS ?? docsOrigins(port),
    // Token issuer and links in emails use the same URL the site talks to.
    KEYWAY_PUBLIC_URL: process.env.KEYWAY_PUBLIC_URL ?? apiUrl,
  });
}
// With the identity server running, the docs server opens sign-in and the gated pages for its organization.
launchDocs(supervisor, { port, dataDir, apiUrl: hasIdentityServer ? apiUrl : undefined });

const running = await supervisor.startup(async () => {
  await waitFor(`http://127.0.0.1:${port}/healthz`, 'the docs server');
  if (hasIdentityServer) await waitFor(`http://127.0.0.1:${apiPort}/.well-known/jwks.json`, 'the identity server');
});
if (running) {
  printReady([
    ['Docs', `http://localhost:${port}`],
    ...(hasIdentityServer ? [['Keyway API', apiUrl], ['Dev mailbox', `${apiUrl}/dev/mailbox`]] : []),
    ['Data', dataDir],
  ]);
}
