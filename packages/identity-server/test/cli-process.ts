import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The identity-server package (dist/cli.js is run from here). */
export const pkg = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Starts dist/cli.js with `env`; `ready` resolves with the banner once it listens. `kill()` is SIGKILL: no shutdown at all. */
export function startCli(env: Record<string, string>) {
  const child = spawn(process.execPath, ['dist/cli.js'], { cwd: pkg, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const ready = new Promise<{ banner: string; url: string }>((resolve, reject) => {
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m && out.includes('storage:')) setTimeout(() => resolve({ banner: out, url: m[1]! }), 50);
    });
    child.stderr.on('data', (d) => (out += d));
    child.on('exit', (code) => reject(new Error(`exited with ${code}: ${out}`)));
  });
  const end = (signal: NodeJS.Signals) =>
    new Promise<void>((r) => {
      child.removeAllListeners('exit');
      if (child.exitCode !== null || child.signalCode !== null) return r();
      child.once('exit', () => r());
      child.kill(signal);
    });
  return { ready, stop: () => end('SIGTERM'), kill: () => end('SIGKILL') };
}
