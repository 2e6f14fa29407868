// `npm run start:cluster`: the identity server as an operator runs it on more than one process. Starts PostgreSQL
// (Debian's package, the way .ci/run does), KEYWAY_REPLICAS identity-server processes on one database, a loopback
// round-robin load balancer in front of them, and the docs server signing in through the balancer. Ctrl+C stops all.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { buildAll, ensureInstalled, log, root } from './lib.mjs';
import { createSupervisor, docsOrigins, identityCli, launchDocs, portFromEnv, printReady, waitFor } from './processes.mjs';

const DEFAULT_DATABASE_URL = 'postgres://postgres:postgres@127.0.0.1:5432/keyway_cluster';
const port = portFromEnv('PORT', '3000');
const balancerPort = portFromEnv('KEYWAY_API_PORT', '8787');
const replicas = Number(process.env.KEYWAY_REPLICAS ?? 3);
if (!Number.isInteger(replicas) || replicas < 1 || replicas > 32) {
  console.error(`KEYWAY_REPLICAS must be a whole number from 1 to 32, got ${JSON.stringify(process.env.KEYWAY_REPLICAS)}`);
  process.exit(2);
}
const databaseUrl = process.env.DATABASE_URL || DEFAULT_DATABASE_URL;
const dataDir = path.resolve(root, process.env.DATA_DIR ?? '.data', 'cluster');
const apiUrl = process.env.KEYWAY_API_URL ?? `http://localhost:${balancerPort}`;

function fail(message) {
  console.error(`\n${message}`);
  process.exit(1);
}

try {
  ensureInstalled();
  buildAll();
} catch (error) {
  fail(error instanceof Error ? error.message : String(error));
}
fs.mkdirSync(dataDir, { recursive: true });

// ---------------------------------------------------------------------------------------------------------------
// PostgreSQL: use DATABASE_URL when it answers; else start the local Debian cluster (as .ci/run does) and create
// the database.
const pg = (await import('pg')).default;

async function tryConnect(url) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    return client;
  } catch (error) {
    await client.end().catch(() => undefined);
    return error;
  }
}

const sh = (command, args) => spawnSync(command, args, { encoding: 'utf8' });
const hasCommand = (name) => sh('sh', ['-c', `command -v ${name}`]).status === 0;
const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

function startLocalPostgres() {
  if (!hasCommand('pg_lsclusters') || !hasCommand('pg_ctlcluster')) {
    fail(
      'PostgreSQL is not installed. Install Debian\'s package (as root: apt-get install -y postgresql), or set DATABASE_URL\n' +
        'to a PostgreSQL database the replicas may share.',
    );
  }
  if (!isRoot) {
    fail(
      'PostgreSQL is installed but not answering at ' + redact(databaseUrl) + ', and starting it needs root. Start it yourself\n' +
        "(sudo pg_ctlcluster 15 main start; sudo -u postgres psql -c \"ALTER USER postgres PASSWORD 'postgres'\")\n" +
        'or set DATABASE_URL to a database that answers.',
    );
  }
  let cluster = sh('pg_lsclusters', ['--no-header']).stdout.split('\n').filter(Boolean)[0]?.split(/\s+/).slice(0, 2);
  if (!cluster) {
    log('creating a PostgreSQL cluster (15 main)');
    if (sh('pg_createcluster', ['15', 'main']).status !== 0) fail('pg_createcluster 15 main failed');
    cluster = ['15', 'main'];
  }
  log(`starting PostgreSQL ${cluster.join(' ')}`);
  sh('pg_ctlcluster', [...cluster, 'start']); // fails harmlessly when it already runs
  for (let i = 0; i < 30 && sh('pg_isready', ['-q', '-h', '127.0.0.1']).status !== 0; i++) spawnSync('sleep', ['1']);
  // The default URL signs in as postgres/postgres over TCP, as the tests do.
  sh('su', ['postgres', '-c', `psql -q -c "ALTER USER postgres PASSWORD 'postgres'"`]);
}

function redact(url) {
  const u = new URL(url);
  if (u.password) u.password = '***';
  return u.toString();
}

let client = await tryConnect(databaseUrl);
if (client instanceof Error) {
  const missingDatabase = /does not exist/.test(client.message);
  if (!missingDatabase) {
    if (process.env.DATABASE_URL) fail(`DATABASE_URL does not answer (${client.message}).`);
    startLocalPostgres();
  }
  // Create the database through the server's maintenance database.
  const adminUrl = new URL(databaseUrl);
  const name = decodeURIComponent(adminUrl.pathname.slice(1));
  adminUrl.pathname = '/postgres';
  const admin = await tryConnect(adminUrl.toString());
  if (admin instanceof Error) fail(`PostgreSQL does not answer at ${redact(adminUrl.toString())}: ${admin.message}`);
  const exists = await admin.query('select 1 from pg_database where datname = $1', [name]);
  if (!exists.rowCount) {
    log(`creating the database ${name}`);
    await admin.query(`create database "${name.replace(/"/g, '""')}"`);
  }
  await admin.end();
  client = await tryConnect(databaseUrl);
  if (client instanceof Error) fail(`PostgreSQL does not answer at ${redact(databaseUrl)}: ${client.message}`);
}
await client.end();

// ---------------------------------------------------------------------------------------------------------------
// One secrets key for every replica (a secret sealed by one is opened by another): KEYWAY_SECRETS_KEY, else a key
// kept in <DATA_DIR>/cluster/secrets.key (created once, mode 0600, the identity server's own format).
let secretsKey = process.env.KEYWAY_SECRETS_KEY;
if (!secretsKey) {
  const file = path.join(dataDir, 'secrets.key');
  if (!fs.existsSync(file)) fs.writeFileSync(file, randomBytes(32).toString('hex') + '\n', { mode: 0o600, flag: 'wx' });
  secretsKey = fs.readFileSync(file, 'utf8').trim();
}

/** A loopback port nobody listens on right now. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port: p } = server.address();
      server.close(() => resolve(p));
    });
  });
}

// ---------------------------------------------------------------------------------------------------------------
let balancer;
const supervisor = createSupervisor({ onStop: () => balancer?.close() });
const upstreams = [];
const replicaEnv = (replicaPort) => ({
  KEYWAY_API_PORT: String(replicaPort),
  KEYWAY_API_HOST: '127.0.0.1',
  DATABASE_URL: databaseUrl,
  KEYWAY_SECRETS_KEY: secretsKey,
  DATA_DIR: dataDir,
  NODE_ENV: process.env.NODE_ENV ?? 'development',
  KEYWAY_CORS_ORIGINS: process.env.KEYWAY_CORS_ORIGINS ?? docsOrigins(port),
  // Every replica issues tokens as the balancer's URL: a token of one is valid on all.
  KEYWAY_PUBLIC_URL: process.env.KEYWAY_PUBLIC_URL ?? apiUrl,
  // Every request reaches a replica from the balancer on loopback: the client's address is in X-Forwarded-For.
  KEYWAY_TRUST_PROXY: process.env.KEYWAY_TRUST_PROXY ?? 'loopback',
});
const running = await supervisor.startup(async () => {
  for (let i = 0; i < replicas; i++) {
    const replicaPort = await freePort();
    const url = `http://127.0.0.1:${replicaPort}`;
    supervisor.launch(`identity-${i + 1}`, identityCli, replicaEnv(replicaPort));
    upstreams.push(url);
    // The first replica migrates the database and seeds the organization before the others start.
    if (i === 0) await waitFor(`${url}/.well-known/jwks.json`, 'the first identity replica', 400);
  }
  await Promise.all(upstreams.map((url, i) => waitFor(`${url}/.well-known/jwks.json`, `identity replica ${i + 1}`, 400)));
  const { startBalancer } = await import('./balancer.mjs');
  balancer = await startBalancer({ upstreams, port: Number(balancerPort), host: 'localhost' });
  launchDocs(supervisor, { port, dataDir, apiUrl });
  await waitFor(`http://127.0.0.1:${port}/healthz`, 'the docs server');
});
if (running) {
  printReady([
    ['Docs', `http://localhost:${port}`],
    ['Keyway API', `${apiUrl}  (round-robin over ${replicas} replica${replicas === 1 ? '' : 's'})`],
    ...upstreams.map((url, i) => [`  replica ${i + 1}`, url]),
    ['Dev mailbox', `${apiUrl}/dev/mailbox`],
    ['PostgreSQL', redact(databaseUrl)],
    ['Data', dataDir],
  ]);
}
