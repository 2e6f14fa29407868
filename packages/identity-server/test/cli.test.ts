import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pkg, startCli } from './cli-process.js';

// Each test starts Node.js processes that load the server and the contract (a few CPU seconds each): on a loaded
// 2-core machine that took up to 25 s, so they get a minute.
describe('CLI (dist/cli.js)', { timeout: 60_000 }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'keyway-cli-'));
  beforeAll(() => {
    const built = spawnSync('npx', ['tsc', '-b'], { cwd: pkg, encoding: 'utf8' });
    expect(built.status, built.stdout + built.stderr).toBe(0);
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('starts from env, prints URL, org id and mailbox, and seeds the organization idempotently', async () => {
    const env = { KEYWAY_API_PORT: '0', KEYWAY_API_HOST: '127.0.0.1', DATA_DIR: dataDir, KEYWAY_ORG_ID: 'org_cli_test', NODE_ENV: 'development', DATABASE_URL: '' };
    for (let run = 0; run < 2; run++) {
      const cli = startCli(env);
      try {
        const { banner, url } = await cli.ready;
        expect(banner).toContain('organization id: org_cli_test');
        expect(banner).toContain(`dev mailbox:     ${url}/dev/mailbox`);
        expect(banner).toContain(`SQLite in ${dataDir}`);
        const id = await fetch(`${url}/id/v2`, { method: 'POST', headers: { 'content-type': 'application/json', 'keyway-orgid': 'org_cli_test' }, body: JSON.stringify({ handle: `run${run}@example.com`, factor: { method: 'otp_via_email' } }) });
        expect(id.status).toBe(200);
        const mailbox = (await (await fetch(`${url}/dev/mailbox.json`)).json()) as { result: Array<{ to: string }> };
        // Messages persist in the data directory: the second run sees both.
        expect(mailbox.result.map((m) => m.to)).toEqual(run === 0 ? ['run0@example.com'] : ['run1@example.com', 'run0@example.com']);
      } finally {
        await cli.stop();
      }
    }
  });

  it('has no dev mailbox and no default API key in production', async () => {
    const cli = startCli({ KEYWAY_API_PORT: '0', KEYWAY_API_HOST: '127.0.0.1', DATA_DIR: dataDir, NODE_ENV: 'production', DATABASE_URL: '', KEYWAY_DRAIN_SECONDS: '0' });
    try {
      const { banner, url } = await cli.ready;
      expect(banner).not.toContain('dev mailbox');
      expect(banner).not.toContain('API key');
      expect((await fetch(`${url}/dev/mailbox.json`)).status).toBe(404);
      const pre = await fetch(`${url}/id/v2`, { method: 'OPTIONS', headers: { origin: 'http://localhost:3000', 'access-control-request-method': 'POST' } });
      expect(pre.headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await cli.stop();
    }
  });

  it('refuses a malformed port with a clear message', () => {
    const r = spawnSync(process.execPath, ['dist/cli.js'], { cwd: pkg, env: { ...process.env, KEYWAY_API_PORT: 'eighty', DATA_DIR: dataDir }, encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('KEYWAY_API_PORT must be a non-negative integer up to 65535, got "eighty"');
  });

  it('refuses a KEYWAY_TRUST_PROXY that is not a list of addresses', () => {
    const r = spawnSync(process.execPath, ['dist/cli.js'], { cwd: pkg, env: { ...process.env, KEYWAY_TRUST_PROXY: 'loopback, everyone', DATA_DIR: dataDir }, encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('KEYWAY_TRUST_PROXY must be a comma-separated list of addresses, CIDR ranges, loopback, linklocal or uniquelocal; "everyone" is none of them');
  });

  it('refuses a passkey prompt that could never be answered (KEYWAY_PASSKEY_TIMEOUT_SECONDS=0)', () => {
    const r = spawnSync(process.execPath, ['dist/cli.js'], { cwd: pkg, env: { ...process.env, KEYWAY_PASSKEY_TIMEOUT_SECONDS: '0', DATA_DIR: dataDir }, encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('KEYWAY_PASSKEY_TIMEOUT_SECONDS must be at least 1 (seconds a passkey prompt waits), got "0"');
  });

  it('refuses a webhook delivery that could never be attempted (KEYWAY_WEBHOOK_MAX_ATTEMPTS=0)', () => {
    const r = spawnSync(process.execPath, ['dist/cli.js'], { cwd: pkg, env: { ...process.env, KEYWAY_WEBHOOK_MAX_ATTEMPTS: '0', DATA_DIR: dataDir }, encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('KEYWAY_WEBHOOK_MAX_ATTEMPTS must be at least 1 (attempts of a webhook delivery before it is a dead letter), got "0"');
  });
});
