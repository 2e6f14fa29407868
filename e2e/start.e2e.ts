// `npm start` on non-default ports (PORT, KEYWAY_API_PORT): the docs pages' CSP lets them call the identity server on
// its port, the identity server's CORS allows the docs origin, and try-it in Chromium targets it by default and gets
// its answer, with nothing in between.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useSharedContext, openPage } from './browser';
import { npmStart, type NpmStart } from './npm-start';

const context = useSharedContext();
let started: NpmStart;
let docsPort = 0;
let apiPort = 0;
let output = '';

beforeAll(async () => {
  started = await npmStart();
  ({ docsPort, apiPort } = started);
  output = started.output();
});
afterAll(async () => {
  await started?.stop();
});

describe('npm start on other ports', () => {
  it('prints both URLs; the pages may connect to the API port, whose CORS allows the docs origin and the API key header', async () => {
    const api = `http://localhost:${apiPort}`;
    expect(output).toContain(`Docs          http://localhost:${docsPort}`);
    expect(output).toContain(`Keyway API    ${api}`);
    const page = await fetch(`http://localhost:${docsPort}/docs/api/get-persons`);
    const connect = /connect-src ([^;]+)/.exec(page.headers.get('content-security-policy') ?? '')?.[1]?.split(' ') ?? [];
    expect(connect).toContain(api);
    expect(connect).not.toContain('http://localhost:8787');
    expect(await (await fetch(`http://localhost:${docsPort}/api/config`)).json()).toMatchObject({ identityUrl: api });
    const pre = await fetch(`${api}/persons`, {
      method: 'OPTIONS',
      headers: { origin: `http://localhost:${docsPort}`, 'access-control-request-method': 'GET', 'access-control-request-headers': 'keyway-api-key,keyway-orgid' },
    });
    expect(pre.headers.get('access-control-allow-origin')).toBe(`http://localhost:${docsPort}`);
  });

  it('try-it sends GET /persons to that API server by default and shows its answer', async () => {
    const page = await context().newPage();
    await openPage(page, `http://localhost:${docsPort}/docs/api/get-persons`);
    await page.getByRole('button', { name: 'Try it', exact: true }).click();
    await expect.poll(() => page.getByLabel('Base URL').inputValue()).toBe(`http://localhost:${apiPort}`);
    await page.getByLabel('Organization id (Keyway-OrgID)').fill('org_keyway_dev');
    await page.getByLabel('API key (Keyway-API-Key)').fill('kw_dev_api_key_not_secret');
    await page.getByRole('button', { name: 'Send request' }).click();
    await expect.poll(() => page.getByRole('status', { name: 'Answer' }).textContent()).toMatch(/^200 OK/);
    await page.close();
  });
});
