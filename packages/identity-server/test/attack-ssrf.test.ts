import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isInternalAddress, outboundFetch } from '../src/http/outbound.js';
import { api, BACKENDS, startTestServer, type TestServer } from './helpers.js';

// An organization administrator (or whoever steals its API key) points the server's outbound calls at the server's
// own network: webhook targets, SAML metadata URLs, OIDC issuers. In production none of them may connect to a loopback,
// private, link-local or metadata address, also when a name resolves to one (checked at connect time), and no error
// repeats what such an address answered. Development still reaches local fakes.
const KEY = { headers: { 'keyway-api-key': 'kw_prod_test_key_0123456789' } };

/** A raw TCP listener on loopback that counts connections (any protocol, TLS included). */
async function tcpTrap(): Promise<{ port: number; connections: () => number; close: () => Promise<void> }> {
  let count = 0;
  const sockets = new Set<import('node:net').Socket>();
  const server: Server = createServer((socket) => {
    count++;
    sockets.add(socket);
    socket.end('HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-type: text/plain\r\ncontent-length: 20\r\n\r\ninternal-secret-4242');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return { port, connections: () => count, close: () => new Promise((resolve) => {
    for (const s of sockets) s.destroy();
    server.close(() => resolve());
  }) };
}

const until = async (what: string, check: () => Promise<boolean>, ms = 15_000) => {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
};

describe('which addresses are internal', () => {
  it.each([
    ['127.0.0.1', true], ['127.1.2.3', true], ['10.1.2.3', true], ['172.16.0.1', true], ['172.31.255.255', true], ['192.168.1.1', true],
    ['169.254.169.254', true], ['100.100.100.200', true], ['0.0.0.0', true], ['::1', true], ['::', true], ['fe80::1', true],
    ['fd00:ec2::254', true], ['::ffff:127.0.0.1', true], ['::ffff:7f00:1', true], ['::ffff:5db8:d822', false], ['::ffff:169.254.169.254', true], ['224.0.0.1', true],
    ['93.184.216.34', false], ['172.32.0.1', false], ['8.8.8.8', false], ['2606:4700::1111', false],
  ])('%s → %s', (ip, internal) => expect(isInternalAddress(ip)).toBe(internal));

  it('the production fetch refuses a name resolving to loopback at connect time; the development fetch reaches it', async () => {
    const trap = await tcpTrap();
    try {
      await expect(outboundFetch(true)(`http://localhost:${trap.port}/`, { signal: AbortSignal.timeout(5000) })).rejects.toThrow(/localhost resolves to a loopback, private, link-local or metadata address/);
      await expect(outboundFetch(true)(`http://127.0.0.1:${trap.port}/`)).rejects.toThrow(/127\.0\.0\.1 resolves to/);
      await expect(outboundFetch(true)(`http://[::ffff:7f00:1]:${trap.port}/`)).rejects.toThrow(/resolves to/);
      expect(trap.connections()).toBe(0);
      const dev = await outboundFetch(false)(`http://localhost:${trap.port}/`);
      expect(await dev.text()).toBe('internal-secret-4242');
      expect(trap.connections()).toBe(1);
    } finally {
      await trap.close();
    }
  });
});

for (const backend of BACKENDS) {
  describe(`production refuses internal outbound targets (${backend})`, () => {
    let server: TestServer;
    let trap: Awaited<ReturnType<typeof tcpTrap>>;
    beforeAll(async () => {
      trap = await tcpTrap();
      server = await startTestServer(backend, { devMode: false, apiKey: 'kw_prod_test_key_0123456789', webhooks: { retryBaseMs: 60_000, pollMs: 100 } });
    });
    afterAll(async () => {
      await server.stop();
      await trap.close();
    });

    it.each(['https://127.0.0.1/hook', 'https://[::1]/hook', 'https://169.254.169.254/latest/meta-data/', 'https://10.0.0.8/hook', 'https://192.168.0.1/hook', 'https://[::ffff:169.254.169.254]/'])(
      'refuses the webhook target %s when it is written',
      async (target) => {
        const r = await api(server)('POST', '/organizations/webhooks', { name: 'Inside', target_url: target }, KEY);
        expect(r.status).toBe(400);
        expect(r.body.errors[0].message).toMatch(/^target_url: .* resolves to a loopback, private, link-local or metadata address/);
      },
    );

    it('never connects to a webhook target whose name resolves to loopback, and records why without what it answered', async () => {
      const call = api(server);
      const hook = await call('POST', '/organizations/webhooks', { name: 'Sneaky', target_url: `https://localhost:${trap.port}/hook`, timeout: 2 }, KEY);
      expect(hook.status).toBe(201);
      const id = hook.body.result.id as string;
      await call('POST', `/organizations/webhooks/${id}/triggers`, { trigger_type: 'event', trigger_name: 'Probe_v1' }, KEY);
      expect((await call('POST', '/test-events', [{ event_name: 'Probe_v1' }], KEY)).status).toBe(201);
      const deliveries = () => server.db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', id).execute();
      await until('an attempt', async () => (await deliveries()).some((d) => d.attempts >= 1 && d.last_error !== null));
      const [d] = await deliveries();
      expect(d!.last_error).toBe('not called: the target resolves to a loopback, private, link-local or metadata address');
      expect(trap.connections()).toBe(0);
    });

    it('refuses a SAML metadata URL on loopback without connecting or quoting the answer', async () => {
      const r = await api(server)('POST', '/organizations/sso/saml/provider-credentials', { label: 'Inside', idp_metadata_url: `https://localhost:${trap.port}/metadata` }, KEY);
      expect(r.status).toBe(400);
      expect(r.body.errors[0].message).toBe('idp_metadata_url: localhost resolves to a loopback, private, link-local or metadata address, which Keyway does not call');
      expect(JSON.stringify(r.body)).not.toContain('internal-secret');
      const literal = await api(server)('POST', '/organizations/sso/saml/provider-credentials', { label: 'Meta', idp_metadata_url: 'https://169.254.169.254/latest/meta-data/' }, KEY);
      expect(literal.status).toBe(400);
      expect(trap.connections()).toBe(0);
    });

    it('refuses OIDC discovery on loopback: the sign-in answers 502 without connecting', async () => {
      const call = api(server);
      const created = await call('POST', '/organizations/sso/oidc/provider-credentials', { provider: 'generic', label: 'Inside', client_id: 'inside-client', client_secret: 'inside-secret', issuer: `https://localhost:${trap.port}` }, KEY);
      expect(created.status).toBe(201);
      const start = await call('POST', '/id/v2', { factor: { method: 'oidc', options: { provider: 'generic', client_id: 'inside-client', ux_mode: 'popup', pkce_code_challenge: 'x'.repeat(43) } } }, { headers: { origin: 'https://app.example' } });
      expect(start.body.errors?.[0]?.message).toBe(`OIDC provider https://localhost:${trap.port} cannot be reached`);
      expect(start.status).toBe(502);
      expect(JSON.stringify(start.body)).not.toContain('internal-secret');
      expect(trap.connections()).toBe(0);
    });
  });
}
