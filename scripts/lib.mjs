// Shared by `npm start`, `npm test` and `npm run build`. Only Node built-ins here: this runs before anything is installed.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const siteBuild = path.join(root, 'site', 'build');

/** Environment variables that change what the site build contains (see the README). */
export const SITE_BUILD_ENV = [
  'KEYWAY_SITE_URL',
  'KEYWAY_CONSOLE_SIGNUP_URL',
  'KEYWAY_GA_TRACKING_ID',
  'KEYWAY_INTELLIGENCE_SCRIPT_URL',
  'KEYWAY_SESSION_RECORDING_SCRIPT_URL',
  'KEYWAY_ANNOUNCEMENT_ID',
  'KEYWAY_ANNOUNCEMENT_HTML',
  'KEYWAY_ANNOUNCEMENT_BG',
  'KEYWAY_ANNOUNCEMENT_COLOR',
  'KEYWAY_ANNOUNCEMENT_CLOSEABLE',
  'KEYWAY_API_URL',
  'KEYWAY_ORG_ID',
  'KEYWAY_PREACT',
];

/** Packages built before the site, in dependency order. */
export const PACKAGES = ['@keyway/api', '@keyway/sdk', '@keyway/react', '@keyway/identity-server', '@keyway/docs-server'];

export function log(message) {
  console.log(`\x1b[36m[keyway]\x1b[0m ${message}`);
}

export function run(command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', ...options });
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} failed with ${result.signal ?? `exit code ${result.status}`}`);
  }
}

function mtime(file) {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

/** Runs `npm install` when node_modules is missing or older than the lockfile or any package.json. */
export function ensureInstalled() {
  const installed = mtime(path.join(root, 'node_modules', '.package-lock.json'));
  const manifests = ['package.json', 'package-lock.json', 'api/package.json', 'site/package.json', 'packages/test-support/package.json', ...PACKAGES.filter((p) => p !== '@keyway/api').map((p) => `packages/${p.split('/')[1]}/package.json`)];
  const newest = Math.max(...manifests.map((m) => mtime(path.join(root, m))));
  if (installed && installed >= newest) return;
  log(installed ? 'dependencies changed: npm ci' : 'first run: installing dependencies (about 2 minutes)');
  // `npm ci` installs exactly the committed lockfile and never rewrites it; it refuses a lockfile that is out of
  // step with a package.json, which is then the change to fix (run `npm install` and commit the lockfile).
  try {
    run('npm', ['ci', '--no-audit', '--no-fund']);
  } catch (error) {
    throw new Error(`${error.message}\nIf npm says the lockfile is out of sync with a package.json: run \`npm install\` and commit package-lock.json.`);
  }
}

function hashTree(hash, dir, skip) {
  if (!fs.existsSync(dir)) return;
  const entries = fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of entries) {
    const abs = path.join(dir, entry.name);
    if (skip.some((s) => abs === s || abs.startsWith(s + path.sep)) || entry.name === 'node_modules') continue;
    if (entry.name.startsWith('.docusaurus')) continue; // generated-files folders of any build
    if (entry.isDirectory()) hashTree(hash, abs, skip);
    else if (entry.isFile()) hash.update(path.relative(root, abs)).update('\0').update(fs.readFileSync(abs)).update('\0');
  }
}

/** A fingerprint of everything the site build is made from: sources, the API contract, the SDK and the build settings. */
export function siteFingerprint(env = process.env) {
  const hash = createHash('sha256');
  // Outputs and generated inputs (derived from the API contract and the SDK source, which are hashed themselves).
  const skip = [
    siteBuild,
    path.join(root, 'site', '.variant-build'),
    path.join(root, 'site', 'docs', 'access', 'sdk'),
    path.join(root, 'site', 'docs', 'api', '_generated'),
    path.join(root, 'site', 'test'),
  ];
  const inputs = [
    'site',
    'api/openapi.yaml',
    'packages/sdk/src',
    'packages/sdk/package.json',
    'packages/sdk/scripts', // the SDK reference's routes, labels and index page
    'packages/sdk/docs',
    'packages/react/src',
    'packages/docs-server/src/search', // the build indexes with the same code the server searches with
    'packages/docs-server/src/assistant/meaning.ts', // …and embeds its passages as the server reads them
    'package-lock.json',
  ];
  for (const input of inputs) {
    const abs = path.join(root, input);
    if (fs.existsSync(abs) && fs.statSync(abs).isFile()) hash.update(input).update(fs.readFileSync(abs));
    else hashTree(hash, abs, skip);
  }
  for (const name of SITE_BUILD_ENV) hash.update(`${name}=${env[name] ?? ''}\n`);
  return hash.digest('hex');
}

const stampFile = path.join(siteBuild, '.keyway-build-stamp');

/** Builds the packages (incrementally) and the site, unless the last site build was made from the same inputs. */
export function buildAll({ force = false } = {}) {
  for (const pkg of PACKAGES) run('npm', ['run', 'build', '--if-present', '--silent', '-w', pkg]);
  const fingerprint = siteFingerprint();
  if (!force && fs.existsSync(stampFile) && fs.readFileSync(stampFile, 'utf8') === fingerprint) {
    log('site build is up to date: reusing site/build');
    return;
  }
  run('npm', ['run', 'reference', '--if-present', '--silent', '-w', '@keyway/sdk']);
  log('building the site (about a minute)');
  run('npm', ['run', 'build', '-w', '@keyway/site']);
  fs.writeFileSync(stampFile, fingerprint);
}
