import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The identity-server package (dist/cli.js is run from here). */
export const pkg = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Starts dist/cli.js with `env`. `ready` resolves with the banner once it listens (and rejects if the process exits
 * first, unless it was asked to stop); `exited` with its exit code; `output()` is everything it printed. `stop()` is
 * SIGTERM, `kill()` SIGKILL (no shutdown at all); `child` is there for other signals and its pid.
 */
export function startCli(env: Record<string, string>) {
  const child = spawn(process.execPath, ['dist/cli.js'], { cwd: pkg, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let stopping = false;
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const ready = new Promise<{ banner: string; url: string }>((resolve, reject) => {
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m && out.includes('storage:')) setTimeout(() => resolve({ banner: out, url: m[1]! }), 50);
    });
    void exited.then((code) => !stopping && reject(new Error(`exited with ${code}: ${out}`)));
  });
  const end = async (signal: NodeJS.Signals) => {
    stopping = true;
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  return { child, ready, exited, output: () => out, stop: () => end('SIGTERM'), kill: () => end('SIGKILL') };
}
