// Child processes of `npm start` and `npm run start:cluster`: launch with prefixed output, stop them all together
// (Ctrl+C, or when one of them stops), wait until a URL answers. Only Node built-ins here.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { log, root } from './lib.mjs';

/** The port in `process.env[name]` (or `fallback`); exits with a message when it is not a port number. */
export function portFromEnv(name, fallback) {
  const value = process.env[name] ?? fallback;
  if (!/^\d+$/.test(value) || Number(value) > 65535) {
    console.error(`${name} must be a port number, got ${JSON.stringify(value)}`);
    process.exit(2);
  }
  return value;
}

/**
 * Runs Node scripts as children whose output is prefixed with their name. When one stops on its own, the others are
 * stopped too; SIGINT/SIGTERM stop all of them, run `onStop` (e.g. close a server of this process) and exit.
 */
export function createSupervisor({ onStop = () => {} } = {}) {
  const children = [];
  let stopping = false;
  function stop(code = 0) {
    if (stopping) return;
    stopping = true;
    for (const child of children) child.kill('SIGTERM');
    Promise.resolve()
      .then(onStop)
      .catch(() => undefined)
      .finally(() => setTimeout(() => process.exit(code), 300).unref());
  }
  process.on('SIGINT', () => stop(0));
  process.on('SIGTERM', () => stop(0));
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
  /** Runs the start-up steps; on an error prints it and stops everything. Answers whether all is running. */
  async function startup(steps) {
    try {
      await steps();
    } catch (error) {
      console.error(error instanceof Error ? error.message : error);
      stop(1);
    }
    return !stopping;
  }
  return { launch, stop, startup, get stopping() { return stopping; } };
}

/** Resolves once `url` answers 2xx (polls for about 15 s), else throws naming `name`. */
export async function waitFor(url, name, attempts = 100) {
  for (let i = 0; i < attempts; i++) {
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

export const identityCli = path.join(root, 'packages/identity-server/dist/cli.js');
export const docsCli = path.join(root, 'packages/docs-server/dist/cli.js');

/** The browser origins of the docs server on `port` (what the identity server lets through CORS). */
export const docsOrigins = (port) => `http://localhost:${port},http://127.0.0.1:${port}`;

/** Starts the docs server on `port`; with `apiUrl` it opens sign-in and the gated pages through that identity server. */
export function launchDocs(supervisor, { port, dataDir, apiUrl }) {
  return supervisor.launch('docs', docsCli, {
    PORT: port,
    KEYWAY_ASSISTANT_FEEDBACK_FILE: process.env.KEYWAY_ASSISTANT_FEEDBACK_FILE ?? path.join(dataDir, 'assistant-feedback.jsonl'),
    ...(apiUrl ? { KEYWAY_API_URL: apiUrl } : {}),
    ...(process.env.KEYWAY_ORG_ID && !process.env.KEYWAY_DOCS_ORG_ID ? { KEYWAY_DOCS_ORG_ID: process.env.KEYWAY_ORG_ID } : {}),
  });
}

/** Prints the ready banner: one `label  value` line per row, then how to stop. */
export function printReady(rows) {
  log('ready');
  console.log(`\n${rows.map(([label, value]) => `  ${label.padEnd(13)} ${value}`).join('\n')}\n\n  Press Ctrl+C to stop.\n`);
}
