// `npm test`: every test, unit and browser. Installs what is missing, builds what is stale, makes sure Debian's
// Chromium is there for the browser tests, then runs all vitest projects and prints one closing count.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildAll, ensureInstalled, log, root, run } from './lib.mjs';

const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

function ensureChromium() {
  if (fs.existsSync(chromium)) return;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (chromium === '/usr/bin/chromium' && isRoot && fs.existsSync('/usr/bin/apt-get')) {
    log('installing Debian chromium for the browser tests');
    run('apt-get', ['update', '-qq']);
    run('apt-get', ['install', '-y', '-qq', 'chromium'], { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    return;
  }
  throw new Error(`The browser tests need Chromium at ${chromium}: install it (Debian: sudo apt-get install -y chromium) or set CHROMIUM_PATH.`);
}

try {
  ensureInstalled();
  buildAll();
  ensureChromium();
} catch (error) {
  console.error(`\n${error instanceof Error ? error.message : error}`);
  process.exit(1);
}

const report = path.join(os.tmpdir(), `keyway-vitest-${process.pid}.json`);
const args = ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...process.argv.slice(2)];
log(`running: npx ${args.join(' ')}`);
const result = spawnSync('npx', args, { cwd: root, stdio: 'inherit', env: { ...process.env, CHROMIUM_PATH: chromium } });

let summary = '';
try {
  const json = JSON.parse(fs.readFileSync(report, 'utf8'));
  const failed = json.numFailedTests + (json.numFailedTestSuites > 0 && json.numFailedTests === 0 ? json.numFailedTestSuites : 0);
  summary = `${json.numPassedTests} passed, ${failed} failed` + (json.numPendingTests ? `, ${json.numPendingTests} skipped` : '');
  fs.rmSync(report, { force: true });
} catch {
  summary = '';
}
if (summary) console.log(`\nTests: ${summary}`);
process.exit(result.status ?? 1);
