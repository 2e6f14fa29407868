import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './net';
import { repoRoot } from './paths';

/** `npm start` (scripts/start.mjs) running on free ports with a data folder of its own, as a reader runs it. */
export interface NpmStart {
  docsPort: number;
  apiPort: number;
  /** The docs origin as `npm start` prints it (`http://localhost:<PORT>`). */
  docs: string;
  /** The Keyway API as `npm start` prints it (`http://localhost:<KEYWAY_API_PORT>`). */
  api: string;
  dataDir: string;
  /** Everything it printed so far. */
  output(): string;
  stop(): Promise<void>;
}

/**
 * Starts `npm start` on free ports (PORT, KEYWAY_API_PORT) with a fresh DATA_DIR and waits for its ready banner.
 * Variables a test environment may hold that `npm start` reads are cleared, then `env` is applied (which may use the
 * ports it is given, e.g. for KEYWAY_CORS_ORIGINS).
 */
export async function npmStart(env: (ports: { docsPort: number; apiPort: number }) => NodeJS.ProcessEnv = () => ({})): Promise<NpmStart> {
  const [docsPort, apiPort] = await Promise.all([freePort(), freePort()]);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'keyway-e2e-start-'));
  const childEnv: NodeJS.ProcessEnv = { ...process.env, PORT: String(docsPort), KEYWAY_API_PORT: String(apiPort), DATA_DIR: dataDir };
  for (const name of ['KEYWAY_API_URL', 'KEYWAY_CORS_ORIGINS', 'KEYWAY_PUBLIC_URL', 'NODE_ENV', 'DATABASE_URL', 'KEYWAY_CSP_CONNECT_SRC']) delete childEnv[name];
  Object.assign(childEnv, env({ docsPort, apiPort }));
  const child: ChildProcess = spawn(process.execPath, [path.join(repoRoot, 'scripts/start.mjs')], { cwd: repoRoot, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start was not ready in time:\n${output}`)), 110_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Press Ctrl+C to stop.')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`npm start exited (${code}):\n${output}`)));
  });
  return {
    docsPort,
    apiPort,
    docs: `http://localhost:${docsPort}`,
    api: `http://localhost:${apiPort}`,
    dataDir,
    output: () => output,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
