// `npm run start:cluster`: the identity server as an operator runs it on more than one process. Starts PostgreSQL
// (Debian's package, the way .ci/run does), KEYWAY_REPLICAS identity-server processes on one database, a loopback
// round-robin load balancer in front of them (scripts/cluster.mjs), and the docs server signing in through the
// balancer. Ctrl+C stops all; SIGHUP restarts the replicas one after the other.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { buildAll, ensureInstalled, log, root } from './lib.mjs';
import { startCluster } from './cluster.mjs';
import { createSupervisor, docsOrigins, launchDocs, portFromEnv, printReady, waitFor } from './processes.mjs';

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

// ---------------------------------------------------------------------------------------------------------------
let cluster;
const supervisor = createSupervisor({ onStop: () => cluster?.stop() });
const replicaEnv = {
  DATABASE_URL: databaseUrl,
  KEYWAY_SECRETS_KEY: secretsKey,
  DATA_DIR: dataDir,
  NODE_ENV: process.env.NODE_ENV ?? 'development',
  KEYWAY_CORS_ORIGINS: process.env.KEYWAY_CORS_ORIGINS ?? docsOrigins(port),
  // Every request reaches a replica from the balancer on loopback: the client's address is in X-Forwarded-For.
  KEYWAY_TRUST_PROXY: process.env.KEYWAY_TRUST_PROXY ?? 'loopback',
  // The balancer checks readiness five times a second: a second of draining is plenty here.
  KEYWAY_DRAIN_SECONDS: process.env.KEYWAY_DRAIN_SECONDS ?? '1',
};
const running = await supervisor.startup(async () => {
  cluster = await startCluster({
    replicas,
    env: replicaEnv,
    // Every replica issues tokens as the balancer's URL: a token of one is valid on all.
    publicUrl: process.env.KEYWAY_PUBLIC_URL ?? apiUrl,
    balancerPort: Number(balancerPort),
    balancerHost: 'localhost',
    output: (name, text) => process.stdout.write(text.replace(/^(?=.)/gm, `[${name}] `)),
  });
  launchDocs(supervisor, { port, dataDir, apiUrl });
  await waitFor(`http://127.0.0.1:${port}/healthz`, 'the docs server');
});
// `kill -HUP <this process>`: a rolling restart, one replica after the other, while the balancer keeps serving.
process.on('SIGHUP', () => {
  log('rolling restart');
  void cluster?.rollingRestart({ onRestarted: (name) => log(`${name} restarted and ready`) }).then(() => log('rolling restart done'));
});
if (running) {
  printReady([
    ['Docs', `http://localhost:${port}`],
    ['Keyway API', `${apiUrl}  (round-robin over the ready ones of ${replicas} replica${replicas === 1 ? '' : 's'})`],
    ...cluster.replicas.map((r) => [`  ${r.name.replace('identity-', 'replica ')}`, r.url]),
    ['Dev mailbox', `${apiUrl}/dev/mailbox`],
    ['PostgreSQL', redact(databaseUrl)],
    ['Data', dataDir],
    ['Rolling restart', `kill -HUP ${process.pid}`],
  ]);
}
