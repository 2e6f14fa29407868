import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestServer, type TestServer } from './helpers.js';

// Behind a balancer every request comes from the balancer's address: the per-IP sign-in limit then counts the clients
// by X-Forwarded-For, but only when the operator says which proxies to believe (KEYWAY_TRUST_PROXY / trustProxy).
// Without it a client cannot dodge the limit by sending a header of its own.
describe.each([
  ['trusting loopback proxies', { trustProxy: ['loopback'] }, [200, 200, 429, 200]],
  ['trusting no proxy (the default)', {}, [200, 200, 429, 429]],
] as const)('per-IP limit %s', (_name, opts, expected) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('sqlite', { ...('trustProxy' in opts ? { trustProxy: [...opts.trustProxy] } : {}), limits: { perIpPerMinute: 2, perHandlePerMinute: 0 } });
  });
  afterAll(() => server.stop());

  it('counts two clients behind one proxy apart only when trusted', async () => {
    const call = api(server);
    const start = (client: string, n: number) => call('POST', '/id/v2', { handle: `p${n}@example.com`, factor: { method: 'otp_via_email' } }, { headers: { 'x-forwarded-for': client } });
    const statuses = [];
    for (const [n, client] of ['203.0.113.1', '203.0.113.1', '203.0.113.1', '203.0.113.2'].entries()) statuses.push((await start(client, n)).status);
    expect(statuses).toEqual(expected);
  });
});
