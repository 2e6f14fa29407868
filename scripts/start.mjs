// `npm start`: install what is missing, build what is stale, then run the identity server (with its dev mailbox)
// and the docs server, and print their URLs. Ctrl+C stops both.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { buildAll, ensureInstalled, log, root } from './lib.mjs';

const port = process.env.PORT ?? '3000';
const apiPort = process.env.KEYWAY_API_PORT ?? '8787';
const dataDir = path.resolve(root, process.env.DATA_DIR ?? '.data');
const apiUrl = process.env.KEYWAY_API_URL ?? `http://localhost:${apiPort}`;
for (const [name, value] of [['PORT', port], ['KEYWAY_API_PORT', apiPort]]) {
  if (!/^\d+$/.test(value) || Number(value) > 65535) {
    console.error(`${name} must be a port number, got ${JSON.stringify(value)}`);
    process.exit(2);
  }
}

try {
  ensureInstalled();
  buildAll();
} catch (error) {
  console.error(`\n${error instanceof Error ? error.message : error}`);
  process.exit(1);
}
fs.mkdirSync(dataDir, { recursive: true });

const children = [];
function launch(name, script, env) {
  const child = spawn(process.execPath, [script], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const prefix = `[${name}] `;
  for (const stream of [child.stdout, child.stderr]) {
    stream.setEncoding('utf8');
    stream.on('data', (chunk) => process.stdout.write(chunk.replace(/^(?=.)/gm, prefix)));
  }
  child.on('exit', (code, signal) => {
    if (stopping) return;
    console.error(`${name} stopped (${signal ?? `exit code ${code}`}); stopping the rest.`);
    stop(1);
  });
  children.push(child);
  return child;
}

let stopping = false;
function stop(code = 0) {
  stopping = true;
  for (const child of children) child.kill('SIGTERM');
  setTimeout(() => process.exit(code), 300).unref();
}
process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => stop(0));

async function waitFor(url, name) {
  for (let i = 0; i < 100; i++) {
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`${name} did not answer at ${url}`);
}

const identityCli = path.join(root, 'packages/identity-server/dist/cli.js');
const hasIdentityServer = fs.existsSync(identityCli);
if (hasIdentityServer) {
  launch('identity', identityCli, {
    KEYWAY_API_PORT: apiPort,
    DATA_DIR: dataDir,
    NODE_ENV: process.env.NODE_ENV ?? 'development',
    KEYWAY_CORS_ORIGINS: process.env.KEYWAY_CORS_ORIGINS ?? `http://localhost:${port},http://127.0.0.1:${port}`,
    // Token issuer and links in emails use the same URL the site talks to.
    KEYWAY_PUBLIC_URL: process.env.KEYWAY_PUBLIC_URL ?? apiUrl,
  });
}
launch('docs', path.join(root, 'packages/docs-server/dist/cli.js'), {
  PORT: port,
  KEYWAY_ASSISTANT_FEEDBACK_FILE: process.env.KEYWAY_ASSISTANT_FEEDBACK_FILE ?? path.join(dataDir, 'assistant-feedback.jsonl'),
  // With the identity server running, the docs server opens sign-in and the gated pages for its organization.
  ...(hasIdentityServer ? { KEYWAY_API_URL: apiUrl } : {}),
  ...(process.env.KEYWAY_ORG_ID && !process.env.KEYWAY_DOCS_ORG_ID ? { KEYWAY_DOCS_ORG_ID: process.env.KEYWAY_ORG_ID } : {}),
});

try {
  await waitFor(`http://127.0.0.1:${port}/healthz`, 'the docs server');
  if (hasIdentityServer) await waitFor(`http://127.0.0.1:${apiPort}/.well-known/jwks.json`, 'the identity server');
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  stop(1);
}
if (!stopping) {
  log('ready');
  console.log(`\n  Docs          http://localhost:${port}`);
  if (hasIdentityServer) {
    console.log(`  Keyway API    ${apiUrl}`);
    console.log(`  Dev mailbox   ${apiUrl}/dev/mailbox`);
  }
  console.log(`  Data          ${dataDir}\n\n  Press Ctrl+C to stop.\n`);
}
