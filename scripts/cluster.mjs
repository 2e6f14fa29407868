// Identity-server replicas on one database behind the development balancer, as `npm run start:cluster` runs them and
// as the cluster tests and benchmarks drive them: start, restart one the way an orchestrator does (SIGTERM, wait for
// it to drain and exit, start it again, wait until it is ready), a rolling restart of all, a replica killed outright
// (restarted like systemd's Restart=always), stop. Only Node built-ins and the balancer here.
import { spawn } from 'node:child_process';
import net from 'node:net';
import { startBalancer } from './balancer.mjs';
import { identityCli, waitFor } from './processes.mjs';

/** A loopback port nobody listens on right now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts `replicas` identity-server processes with `env` (DATABASE_URL and KEYWAY_SECRETS_KEY shared by all) and the
 * balancer in front of them. `output(name, text)` receives each replica's output (default: dropped). `cli` and
 * `readinessPath` run another build (an earlier commit's, to measure before and after).
 */
export async function startCluster({ replicas, env, balancerPort = 0, balancerHost = '127.0.0.1', output = () => {}, publicUrl, cli = identityCli, readinessPath = '/health/ready' }) {
  const members = [];
  let stopping = false;
  const spawnReplica = (member) => {
    const child = spawn(process.execPath, [cli], {
      env: { ...process.env, ...env, KEYWAY_API_PORT: String(member.port), KEYWAY_API_HOST: '127.0.0.1', ...(publicUrl ? { KEYWAY_PUBLIC_URL: publicUrl } : {}) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    for (const stream of [child.stdout, child.stderr]) {
      stream.setEncoding('utf8');
      stream.on('data', (text) => output(member.name, text));
    }
    member.child = child;
    member.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    void member.exited.then(({ code, signal }) => {
      if (stopping || member.child !== child || member.restarting) return;
      // Gone on its own (a crash, kill -9): started again, as an orchestrator would.
      output(member.name, `stopped (${signal ?? `exit code ${code}`}); starting it again\n`);
      setTimeout(() => !stopping && spawnReplica(member), 200);
    });
  };
  for (let i = 0; i < replicas; i++) {
    const port = await freePort();
    const member = { name: `identity-${i + 1}`, port, url: `http://127.0.0.1:${port}` };
    members.push(member);
    spawnReplica(member);
    // The first replica migrates the database and seeds the organization before the others start.
    if (i === 0) await waitFor(`${member.url}${readinessPath}`, 'the first identity replica', 400);
  }
  await Promise.all(members.map((m) => waitFor(`${m.url}${readinessPath}`, m.name, 400)));
  const balancer = await startBalancer({ upstreams: members.map((m) => m.url), port: balancerPort, host: balancerHost, readinessPath });

  /** SIGTERM to replica `i`, wait until it exits, start it again and wait until it is ready. Answers how it exited. */
  async function restart(i) {
    const member = members[i];
    member.restarting = true;
    try {
      member.child.kill('SIGTERM');
      const exit = await member.exited;
      spawnReplica(member);
      await waitFor(`${member.url}${readinessPath}`, member.name, 400);
      return exit;
    } finally {
      member.restarting = false;
    }
  }

  return {
    url: balancer.url,
    replicas: members.map((m) => ({ name: m.name, url: m.url, get pid() { return m.child.pid; } })),
    balancer,
    restart,
    /**
     * Each replica in turn: restarted, and ready again (the balancer sees it) before the next one. `beforeRestart(i)`
     * and `onRestarted(name, exit, i)` let another balancer take the replica out and back in.
     */
    async rollingRestart({ beforeRestart = async () => {}, onRestarted = async () => {} } = {}) {
      for (let i = 0; i < members.length; i++) {
        await beforeRestart(i);
        const exit = await restart(i);
        // The balancer takes it back on its next readiness check.
        while (!balancer.ready().includes(members[i].url)) await new Promise((r) => setTimeout(r, 50));
        await onRestarted(members[i].name, exit, i);
      }
    },
    /** `kill -9` of replica `i`: answers once it is gone; it is started again by itself (see `ready`). */
    async kill(i) {
      members[i].child.kill('SIGKILL');
      await members[i].exited;
    },
    /** Resolves once replica `i` answers ready (after a kill, its new process). */
    ready: (i) => waitFor(`${members[i].url}${readinessPath}`, members[i].name, 400),
    async stop() {
      stopping = true;
      await balancer.close();
      await Promise.all(members.map(async (m) => {
        if (m.child.exitCode === null && m.child.signalCode === null) m.child.kill('SIGINT');
        await m.exited;
      }));
    },
  };
}
