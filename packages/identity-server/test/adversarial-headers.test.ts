import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BACKENDS, cookiesOf, startTestServer, useTestServer } from './helpers.js';

// #15 §6 (headers): production answers carry HSTS; the hosted login page runs under a CSP that allows no script at all.
describe.each(BACKENDS)('adversarial: security headers of the identity server (%s)', (backend) => {
  const t = useTestServer(backend);

  it('the hosted login page (authorize, then the code form) carries a CSP with no script, no framing, forms posting here', async () => {
    const challenge = createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url');
    const redirect = 'http://localhost:3000/login';
    const url = `${t.server.url}/oauth2/authorize?${new URLSearchParams({ response_type: 'code', client_id: 'keyway-dev-client', redirect_uri: redirect, state: 'st4te-1234', scope: 'openid', code_challenge: challenge, code_challenge_method: 'S256' })}`;
    const page = await fetch(url);
    expect(page.status).toBe(200);
    const csp = page.headers.get('content-security-policy') ?? '';
    const directives = Object.fromEntries(csp.split(/;\s*/).map((d) => [d.split(' ')[0], d.split(' ').slice(1).join(' ')]));
    expect(directives['default-src']).toBe("'none'");
    expect(directives['script-src']).toBeUndefined(); // falls back to default-src 'none': no script runs, inline or not
    expect(directives['frame-ancestors']).toBe("'none'");
    expect(directives['form-action']).toBe("'self' http://localhost:3000");
    expect(directives['base-uri']).toBe("'none'");
    const requestId = /name="request_id" value="([^"]+)"/.exec(await page.text())![1]!;
    const codePage = await fetch(`${t.server.url}/oauth2/login`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookiesOf(page) }, body: new URLSearchParams({ request_id: requestId, email: 'csp@example.com' }) });
    expect(codePage.status).toBe(200);
    expect(codePage.headers.get('content-security-policy')).toBe(csp);
  });

  it('answers of a development server carry no HSTS (it is served over http)', async () => {
    expect((await fetch(`${t.server.url}/.well-known/jwks.json`)).headers.get('strict-transport-security')).toBeNull();
  });

  it('every answer of a production server carries HSTS, errors included', async () => {
    const prod = await startTestServer(backend, { devMode: false, apiKey: 'kw_prod_key_for_the_test', publicUrl: 'https://id.example.com' });
    try {
      for (const [path, status] of [['/.well-known/jwks.json', 200], ['/me', 401], ['/no-such-route', 404]] as const) {
        const res = await fetch(prod.url + path, { headers: { 'keyway-orgid': prod.orgId } });
        expect(res.status, path).toBe(status);
        expect(res.headers.get('strict-transport-security'), path).toBe('max-age=31536000; includeSubDomains');
      }
    } finally {
      await prod.stop();
    }
  });
});
