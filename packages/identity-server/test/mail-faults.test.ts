import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, freshStorage, type TestStorage } from './helpers.js';
import { codeIn, freePort, type ReceivedMail } from './smtp-sink.js';

// Mail that cannot be sent, against real processes: the identity server (dist/cli.js) and an SMTP server
// (smtp-server, test/smtp-sink-process.mjs). The relay is down while people ask for codes, the identity server is
// killed (SIGKILL) and started again on the same data, then the relay comes back: every code must arrive, once.

const pkg = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Resolves once `child` printed a line matching `ready` (with the match); rejects if it exits first. */
function waitFor(child: ChildProcess, ready: RegExp, out: { text: string }): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    const look = () => {
      const m = ready.exec(out.text);
      if (m) {
        child.stdout!.off('data', look);
        resolve(m);
      }
    };
    child.stdout!.on('data', look);
    child.once('exit', (code) => reject(new Error(`exited with ${code}: ${out.text}`)));
    look();
  });
}

/** A process whose output is collected; `kill` sends SIGKILL and waits for it to end. */
function start(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, args, { cwd: pkg, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const out = { text: '' };
  child.stdout!.on('data', (d: Buffer) => (out.text += d.toString('utf8')));
  child.stderr!.on('data', (d: Buffer) => (out.text += d.toString('utf8')));
  const kill = () =>
    new Promise<void>((r) => {
      if (child.exitCode !== null || child.signalCode !== null) return r();
      child.removeAllListeners('exit');
      child.once('exit', () => r());
      child.kill('SIGKILL');
    });
  return { child, out, kill };
}

/** The SMTP server process on `port`: what it received so far, parsed from its output. */
async function startRelay(port: number) {
  const p = start(['test/smtp-sink-process.mjs', String(port)]);
  await waitFor(p.child, /listening/, p.out);
  const received = (): ReceivedMail[] =>
    p.out.text
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => ({ from: '', ...(JSON.parse(l) as { to: string[]; data: string }) }));
  return { ...p, received };
}

/** The identity server CLI; resolves with its URL once it listens. */
async function startIdentity(env: Record<string, string>) {
  const p = start(['dist/cli.js'], env);
  const [, url] = await waitFor(p.child, /listening on (http:\/\/\S+)/, p.out);
  return { ...p, url: url! };
}

describe.each(BACKENDS)('mail held through an SMTP outage and a crash (%s)', { timeout: 60_000 }, (backend) => {
  let storage: TestStorage;
  const killers: Array<() => Promise<void>> = [];
  beforeAll(async () => {
    const built = spawnSync('npx', ['tsc', '-b'], { cwd: pkg, encoding: 'utf8' });
    expect(built.status, built.stdout + built.stderr).toBe(0);
    storage = await freshStorage(backend);
  });
  afterAll(async () => {
    for (const kill of killers) await kill();
    await storage.cleanup();
  });

  it('answers 200 with the delay, loses no code across the restart and sends each once the relay is back', async () => {
    const smtpPort = await freePort();
    const env = {
      NODE_ENV: 'development',
      KEYWAY_API_HOST: '127.0.0.1',
      KEYWAY_API_PORT: '0',
      DATA_DIR: storage.dataDir,
      DATABASE_URL: storage.databaseUrl ?? '',
      KEYWAY_SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
      KEYWAY_SMTP_FROM: 'Keyway Faults <no-reply@keyway.test>',
      KEYWAY_SMTP_TIMEOUT_MS: '1000',
      KEYWAY_MAIL_RETRY_BASE_MS: '200',
      KEYWAY_MAIL_RETRY_MAX_MS: '800',
      KEYWAY_MAIL_POLL_MS: '100',
    };
    const orgHeaders = { 'content-type': 'application/json', 'keyway-orgid': 'org_keyway_dev' };
    const call = (url: string, path: string, body: unknown) => fetch(url + path, { method: 'POST', headers: orgHeaders, body: JSON.stringify(body) });

    // 1. The relay is down: every request is answered at once, with the delay said.
    let identity = await startIdentity(env);
    killers.push(identity.kill);
    const people = Array.from({ length: 6 }, (_, i) => `held${i}.${backend}@example.com`);
    const challenges = new Map<string, string>();
    for (const email of people) {
      const began = Date.now();
      const r = await call(identity.url, '/id/v2', { handle: email, factor: { method: 'otp_via_email' } });
      const body = (await r.json()) as { result: Array<{ id: string; type: string; options: Record<string, unknown> }> };
      expect(r.status, JSON.stringify(body)).toBe(200);
      expect(Date.now() - began).toBeLessThan(1500);
      expect(body.result[0]).toMatchObject({ type: 'otp', options: { delivery_delayed: true } });
      challenges.set(email, body.result[0]!.id);
    }

    const mailbox = async (url: string) => ((await (await fetch(`${url}/dev/mailbox.json?limit=50`)).json()) as { result: Array<{ to: string; status: string }> }).result.filter((m) => people.includes(m.to));
    const held = (await mailbox(identity.url)).filter((m) => m.status === 'pending').length;
    expect(held).toBe(people.length);

    // 2. The identity server dies without a chance to clean up, and comes back on the same data (the relay still down).
    await identity.kill();
    identity = await startIdentity(env);
    killers.push(identity.kill);
    await new Promise((r) => setTimeout(r, 500));

    // 3. The relay listens again on the same port: the held codes go out from the outbox.
    const relay = await startRelay(smtpPort);
    killers.push(relay.kill);
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline && new Set(relay.received().flatMap((m) => m.to)).size < people.length) await new Promise((r) => setTimeout(r, 100));
    // A little longer, so that a second copy would have had time to arrive.
    await new Promise((r) => setTimeout(r, 1500));
    const received = relay.received();
    const copies = people.map((email) => received.filter((m) => m.to.includes(email)).length);
    const delivered = copies.filter((n) => n >= 1).length;
    const duplicated = copies.filter((n) => n > 1).length;
    console.log(`mail (${backend}): ${people.length} requested, ${delivered} delivered, ${people.length - delivered} lost, ${duplicated} sent twice (${held} held in the outbox when the identity server was killed)`);
    expect(copies).toEqual(people.map(() => 1));

    // 4. Each code signs its person in, and the dev mailbox shows every message sent.
    for (const email of people) {
      const code = codeIn(received.find((m) => m.to.includes(email))!);
      const att = await call(identity.url, '/attestation/v3', { challenge_id: challenges.get(email), challenge_type: 'otp', data: { otp: code } });
      expect(att.status, `${email}: ${await att.clone().text()}`).toBe(200);
      expect(((await att.json()) as { result: { token: string } }).result.token).toMatch(/^ey/);
    }
    expect((await mailbox(identity.url)).map((m) => m.status)).toEqual(people.map(() => 'sent'));
  });
});
