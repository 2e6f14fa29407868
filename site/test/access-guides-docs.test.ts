// Checks for the Access guides and integrations pages (site/docs/access/guides/**, site/docs/access/integrations/**).
// Pages are compiled the way Docusaurus reads them and held to the spec and the real code: routes, titles,
// links and anchors, prose length, wording, every REST request against api/openapi.yaml, JSON answers,
// TypeScript/TSX samples type-checked against the installed packages, PHP samples linted by `php -l`
// (when PHP is installed), the JWT checks the integrations promise, and `runnable` samples executed
// against the identity server started in-process.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  allRoutes,
  API_HOST,
  AUTHN_METHODS,
  BUCKETS,
  checkQuery,
  CONSISTENCY_VALUES,
  docsDir,
  EVENTS,
  findOperations,
  JWT_REGISTERED,
  KEYWAY_HEADERS,
  openapi,
  openapiOperation,
  parseCurls,
  readPage,
  successSchema,
  TOKEN_CLAIMS,
  typeCheck,
  validate,
  walk,
  type Curl,
  type Page,
  categoryProblems,
  frontMatterProblems,
  headingProblems,
  linkProblems,
  SCHEME_HEADER,
  wordingProblems,
  startLocalServer,
  type LocalServer,
  type LiveServer,
  runRunnableSamples,
  citedOperationProblems,
} from './docs-helpers';

const accessDir = path.join(docsDir, 'access');
const ROOMS = ['guides', 'integrations'].map((r) => ({ dir: path.join(accessDir, r), route: `/docs/access/${r}` }));
const roomRoutes = [...allRoutes].filter((r) => ROOMS.some((room) => r.startsWith(`${room.route}/`))).sort();

// The titles the routes were published with (the site owner links them by these names).
const TITLES: Record<string, string> = {
  'guides/analytics': 'Analytics events',
  'guides/m2m': 'Machine-to-machine access',
  'guides/oauth-server': 'Keyway as an OAuth 2.0 server',
  'guides/sso/oauth_creds_apple': 'Sign in with Apple credentials',
  'guides/sso/oauth_creds_azure': 'Microsoft Entra ID (Azure) credentials',
  'guides/sso/oauth_creds_google': 'Google sign-in credentials',
  'guides/sso/oauth_creds_googlegroups': 'Google Groups in tokens',
  'guides/sso/sso_5min': 'Single sign-on in five minutes',
  'guides/sso/sso_sid_console': 'SSO configuration in the console',
  'guides/suborgs/multitenancy-example': 'Multitenancy with suborganizations',
  'guides/suborgs/org-switching-example': 'Switching organizations',
  'guides/vault': 'Storing sensitive data in the vault',
  'guides/webhooks/custom-claims': 'Custom claims with webhooks',
  'guides/webhooks/introduction': 'Webhooks',
  'integrations/docusaurus-login': 'Sign-in for a Docusaurus site',
  'integrations/laravel': 'Laravel integration',
  'integrations/php': 'PHP integration',
  'integrations/shopify-app': 'Shopify app integration',
  'integrations/symfony': 'Symfony integration',
};
const DOCUSAURUS_PAGE = 'integrations/docusaurus-login';
// Events the server delivers to webhooks besides the analytics events, and the headers of a delivery
// (packages/identity-server/src/webhooks.ts).
const WEBHOOK_EVENTS = ['PersonCreated_v1', 'PersonDeleted_v1'];
const DELIVERY_HEADERS = ['Keyway-Correlation-Id', 'Keyway-Webhook-Id', 'Keyway-Delivery-Id', 'Keyway-Event-Type', 'Keyway-Idempotency-Key', 'Keyway-Sync-Hook'];
const PHP_PAGES = ['integrations/php', 'integrations/laravel', 'integrations/symfony', 'integrations/shopify-app'];
const SHELL = ['bash', 'sh', 'shell'];

let pages: Page[] = [];
const byRoute = new Map<string, Page>();
const keyOf = (p: Page) => p.route.replace('/docs/access/', '');

beforeAll(async () => {
  for (const room of ROOMS) {
    const files = walk(room.dir).filter((f) => /\.mdx?$/.test(f)).sort();
    pages.push(...(await Promise.all(files.map((f) => readPage(f, accessDir)))));
  }
  pages = pages.sort((a, b) => a.route.localeCompare(b.route));
  for (const p of pages) byRoute.set(p.route, p);
});

function page(key: string): Page {
  const p = byRoute.get(`/docs/access/${key}`);
  if (!p) throw new Error(`no page for /docs/access/${key}`);
  return p;
}

/** Body of a curl request as a value: JSON, or the fields of a form-encoded body. */
function bodyOf(c: Curl): unknown {
  const sample = (v: string) => (/TOKEN/.test(v) ? 'eyJhbGciOiJFUzI1NiJ9.eyJ9.c2ln' : /VERIFIER/.test(v) ? 'v'.repeat(43) : 'sample');
  const filled = (c.data ?? '').replace(/\$\{?[A-Z_]+\}?/g, sample);
  if (c.headers['content-type'] === 'application/x-www-form-urlencoded') return Object.fromEntries(new URLSearchParams(filled));
  return JSON.parse(filled) as unknown;
}

describe('the guides and integrations rooms', () => {
  it('has exactly one page per route, with the published titles', () => {
    expect(roomRoutes).toHaveLength(19);
    expect(pages.map((p) => p.route)).toEqual(roomRoutes);
    for (const p of pages) expect(p.data.title, p.rel).toBe(TITLES[keyOf(p)]);
  });

  it('has a valid _category_.json in every folder', () => {
    expect(categoryProblems([...ROOMS.map((r) => r.dir), ...pages.map((p) => path.dirname(p.file))])).toEqual([]);
  });

  it('gives every page a short sidebar_label, a one-sentence description and a unique sidebar_position', () => {
    expect(frontMatterProblems(pages)).toEqual([]);
  });

  it('compiles every page with unique headings, no second H1 and the sections of a guide', () => {
    for (const p of pages) {
      expect(headingProblems(p)).toEqual([]);
      const h2 = p.headings.filter((h) => h.depth === 2).map((h) => h.text.toLowerCase());
      expect(h2.some((t) => t.includes('prerequisites') || t.includes('before you begin')), `${p.rel}: prerequisites`).toBe(true);
      expect(h2.some((t) => t.includes('troubleshooting')), `${p.rel}: troubleshooting`).toBe(true);
      expect(h2.some((t) => t.includes('next steps')), `${p.rel}: next steps`).toBe(true);
    }
  });

  it('has at least 300 words of prose outside code on every page, no banned wording and no unreplaced {product}', () => {
    if (process.env.SHOW_WORDS) console.log(pages.map((p) => `${p.words}\t${p.rel}`).join('\n'));
    expect(pages.flatMap((p) => wordingProblems(p))).toEqual([]);
  });

  it('links only to routes that exist and to headings that exist on our own pages, and to two other pages at least', () => {
    expect(pages.flatMap((p) => linkProblems(p, byRoute))).toEqual([]);
    for (const p of pages) expect(new Set(p.links.map((l) => l.split('#')[0]).filter(Boolean)).size, `${p.rel} links to other pages`).toBeGreaterThanOrEqual(2);
  });
});

// An operation of the API: listed in api-operations.md, or described by api/openapi.yaml (which also has
// operations the list leaves out, such as GET /events).
const known = (method: string, urlPath: string) => findOperations(method, urlPath).length > 0 || openapiOperation(method, urlPath) !== undefined;

describe('requests and answers against the API contract', () => {
  it('cites only REST operations that the API offers', () => {
    expect(pages.flatMap((p) => citedOperationProblems(p, known))).toEqual([]);
  });

  it('sends every curl request to an operation of openapi.yaml with its credentials, query and a valid body', () => {
    let count = 0;
    for (const p of pages) {
      for (const block of p.code.filter((c) => SHELL.includes(c.lang))) {
        for (const c of parseCurls(block.value)) {
          count++;
          const where = `${p.rel}: ${c.text.slice(0, 100)}`;
          expect(c.url.startsWith(`${API_HOST}/`), `${where} (host)`).toBe(true);
          const urlPath = c.url.slice(API_HOST.length).split('?')[0] ?? '';
          expect(known(c.method, urlPath), `${where} (not an API operation)`).toBe(true);
          const found = openapiOperation(c.method, urlPath);
          expect(found, `${where} (openapi.yaml describes it)`).toBeDefined();
          if (!found) continue;
          const security = found.op.security ?? [];
          if (security.length)
            expect(security.some((req) => Object.keys(req).every((s) => SCHEME_HEADER[s]?.(c) ?? false)), `${where} credentials ${JSON.stringify(security)}`).toBe(true);
          if (c.headers['keyway-api-key'] !== undefined) expect(c.headers['keyway-api-key'], where).toMatch(/^\$[A-Z_]*API_KEY$/);
          if (/^Bearer /.test(c.headers.authorization ?? '')) expect(c.headers['keyway-api-key'], `${where} (never mix an API key into a person call)`).toBeUndefined();
          expect(checkQuery(found.op, c.url), `${where} query`).toEqual([]);
          const consistency = c.headers['keyway-required-consistency'];
          if (consistency !== undefined) expect(CONSISTENCY_VALUES, where).toContain(consistency);
          const content = found.op.requestBody?.content ?? {};
          if (c.data !== undefined) {
            const type = c.headers['content-type'] ?? '';
            expect(Object.keys(content), `${where} content type ${type}`).toContain(type);
            expect(validate(content[type]?.schema, bodyOf(c)), `${where} body`).toEqual([]);
          } else if (found.op.requestBody && (found.op.requestBody as { required?: boolean }).required) {
            throw new Error(`${where}: the operation needs a body`);
          }
        }
      }
    }
    expect(count, 'the guides show real requests').toBeGreaterThanOrEqual(30);
  });

  it('shows JSON that parses: answers in the envelope and valid for the operation, claims of the token model', () => {
    let checked = 0;
    for (const p of pages) {
      let last: { curl: Curl; urlPath: string } | undefined;
      for (const block of p.code) {
        if (SHELL.includes(block.lang)) {
          const curls = parseCurls(block.value);
          const one = curls.length === 1 ? curls[0] : undefined;
          last = one ? { curl: one, urlPath: one.url.slice(API_HOST.length).split('?')[0] ?? '' } : undefined;
          continue;
        }
        if (block.lang !== 'json') continue;
        const where = `${p.rel}: ${block.meta || block.value.slice(0, 60)}`;
        let value: Record<string, unknown> = {};
        expect(() => (value = JSON.parse(block.value) as Record<string, unknown>), where).not.toThrow();
        if (/title="Response/.test(block.meta)) {
          expect(last, `${where}: a response follows a block with one request`).toBeDefined();
          const found = last && openapiOperation(last.curl.method, last.urlPath);
          const schema = 'errors' in value ? { $ref: '#/components/schemas/ErrorResponse' } : found && successSchema(found.op);
          expect(schema, `${where}: openapi.yaml has a schema for this answer`).toBeDefined();
          expect(validate(schema, value), where).toEqual([]);
          checked++;
        }
        if ('person_id' in value && 'oid' in value) {
          for (const k of Object.keys(value)) expect([...TOKEN_CLAIMS, ...JWT_REGISTERED, 'user_token'], `${where} claim ${k}`).toContain(k);
          for (const m of (value.authenticated_methods as string[] | undefined) ?? []) expect(AUTHN_METHODS, where).toContain(m);
          expect(validate({ $ref: '#/components/schemas/TokenClaims' }, value), where).toEqual([]);
          checked++;
        }
        if ('event_name' in value) {
          expect(validate({ $ref: '#/components/schemas/AnalyticsEvent' }, value), where).toEqual([]);
          checked++;
        }
      }
    }
    expect(checked, 'answers, claims and events checked').toBeGreaterThanOrEqual(15);
  });

  it('uses only the Keyway header, event and bucket names of the spec', () => {
    for (const p of pages) {
      // Headers of Keyway's API (an app's own header such as X-Keyway-Token is not one of them).
      for (const m of p.raw.matchAll(/(?<![\w-])Keyway-[A-Za-z-]+/g)) expect([...KEYWAY_HEADERS, ...DELIVERY_HEADERS], p.rel).toContain(m[0]);
      for (const m of p.raw.matchAll(/\b[A-Z][A-Za-z]+_v\d+\b/g)) expect([...EVENTS, ...WEBHOOK_EVENTS], p.rel).toContain(m[0]);
      for (const m of p.raw.matchAll(/(?:person_pool-)?end_user_[a-z_]+/g)) expect(BUCKETS, p.rel).toContain(m[0]);
    }
  });
});

describe('code samples', () => {
  it('type-checks every TypeScript sample against the installed packages', () => {
    // A sample may import another sample of its page by the file name in its title (./vault-crypto.js).
    const blocks = pages.filter((p) => keyOf(p) !== DOCUSAURUS_PAGE).flatMap((p) => {
      const ts = p.code.filter((c) => ['ts', 'typescript'].includes(c.lang));
      const titled = new Map(ts.map((c, i) => [/title="([\w-]+)\.ts"/.exec(c.meta)?.[1] ?? '', i]));
      const prefix = `guides_${keyOf(p).replace(/[^a-z0-9]+/gi, '_')}`;
      return ts.map((c, i) => ({
        name: `${prefix}_${i}`,
        source: c.value.replace(/from '\.\/([\w-]+)\.js'/g, (m, file: string) => (titled.has(file) ? `from './${prefix}_${titled.get(file)}.mjs'` : m)),
      }));
    });
    expect(blocks.length, 'the guides include TypeScript samples').toBeGreaterThanOrEqual(5);
    expect(typeCheck(blocks)).toEqual([]);
  }, 120_000);

  it('type-checks the Docusaurus site files (TS and TSX) the way the site compiles them', () => {
    // The files of the Docusaurus page import each other by path (../keyway): point those imports at the samples.
    const files = page(DOCUSAURUS_PAGE).code.filter((c) => ['ts', 'tsx'].includes(c.lang));
    const byBase = new Map(files.map((c, i) => [/title="(?:[\w./-]*\/)?([\w-]+)\.tsx?"/.exec(c.meta)?.[1] ?? '', i]));
    const blocks = files.map((c, i) => ({
      name: `docusaurus_${i}`,
      source: c.value.replace(/from '(\.{1,2}\/[\w./-]*?)([\w-]+)'/g, (m, _dir: string, base: string) => (byBase.has(base) ? `from './docusaurus_${byBase.get(base)}'` : m)),
    }));
    expect(files.filter((c) => c.lang === 'tsx').length, 'the Docusaurus page shows its login page').toBeGreaterThanOrEqual(1);
    expect(blocks.length).toBeGreaterThanOrEqual(3);
    expect(typeCheck(blocks, { docusaurus: true })).toEqual([]);
  }, 120_000);

  const php = (() => {
    try {
      execFileSync('php', ['-v'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  })();

  it.skipIf(!php)('lints every PHP sample with php -l', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keyway-php-'));
    let n = 0;
    try {
      for (const p of pages) {
        for (const block of p.code.filter((c) => c.lang === 'php')) {
          const file = path.join(dir, `sample${n++}.php`);
          fs.writeFileSync(file, block.value.startsWith('<?php') ? block.value : `<?php\n${block.value}`);
          try {
            execFileSync('php', ['-l', file], { stdio: 'pipe' });
          } catch (err) {
            throw new Error(`${p.rel}: PHP sample ${block.meta}: ${String((err as { stdout?: Buffer }).stdout ?? err)}`);
          }
        }
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    expect(n).toBeGreaterThanOrEqual(8);
  }, 60_000);

  it('verifies Keyway tokens in every PHP integration the way the server signs them', () => {
    for (const key of PHP_PAGES) {
      const p = page(key);
      const php = p.code.filter((c) => c.lang === 'php');
      const code = php.map((c) => c.value).join('\n');
      // The file that verifies Keyway tokens: keys from the JWKS, ES256 only (other algorithms, such as the HS256 of
      // Shopify's own session tokens, may appear in other files of a page, never in this one).
      const verifier = php.filter((c) => c.value.includes('/.well-known/jwks.json'));
      expect(verifier.length, `${key}: fetches the JWKS`).toBeGreaterThan(0);
      for (const v of verifier) {
        expect(v.value, `${key}: ES256, the algorithm of Keyway tokens`).toContain('ES256');
        expect(v.value, `${key}: never another algorithm`).not.toMatch(/\b(RS256|HS256)\b/);
      }
      for (const claim of ["'iss'", "'exp'", "'person_id'", "'oid'"]) expect(code, `${key}: reads ${claim}`).toContain(claim);
      expect(p.raw, `${key}: names the composer package it uses`).toMatch(/composer require [a-z0-9-]+\/[a-z0-9-]+/);
    }
  });

  it('describes the real portal sign-in on the Docusaurus page: /login, redirect_to, validation and the gated paths', () => {
    const p = page('integrations/docusaurus-login');
    const gated = JSON.parse(fs.readFileSync(path.resolve(docsDir, '..', 'src', 'data', 'gated-prefixes.json'), 'utf8')) as string[];
    for (const prefix of gated) expect(p.raw, prefix).toContain(prefix);
    for (const word of ['/login', 'redirect_to', 'POST /token/validate', 'analytics: false', 'localStorage']) expect(p.raw, word).toContain(word);
  });

  it('keeps the guides consistent with the server: SSO callback, token endpoint form, webhook signature keys', () => {
    for (const key of ['guides/sso/oauth_creds_apple', 'guides/sso/oauth_creds_azure', 'guides/sso/oauth_creds_google', 'guides/sso/sso_5min'])
      expect(page(key).raw, `${key}: redirect URI to register at the provider`).toContain('/sso/oidc/callback');
    for (const key of ['guides/oauth-server', 'guides/m2m']) expect(page(key).raw, key).toContain('application/x-www-form-urlencoded');
    for (const key of ['guides/webhooks/introduction', 'guides/webhooks/custom-claims'])
      expect(page(key).raw, key).toContain('/organizations/webhooks/verification-jwks');
    expect(page('guides/analytics').raw).toContain('analytics: false');
    expect(page('guides/vault').raw).toContain('`end_user_no_access`');
    expect(page('guides/suborgs/org-switching-example').raw).toContain('switchOrganization');
  });
});

// ---------------------------------------------------------------------------------------------
// Samples marked `runnable` run against the identity server started in-process (fresh database).
// Variables: $KEYWAY_ORG_ID, $KEYWAY_API_KEY, $TOKEN / $PERSON_ID (a fresh anonymous person per
// request), $SUBORG_ID (a suborganization created before the run).
// ---------------------------------------------------------------------------------------------
// Values the provider-credential guides ask the reader to export (each guide uses its own, so they never collide).
const PROVIDER_VARS: Record<string, string> = {
  GOOGLE_CLIENT_ID: '1234567890-runnable.apps.googleusercontent.com',
  GOOGLE_CLIENT_SECRET: 'GOCSPX-runnable-secret',
  APPLE_SERVICES_ID: 'com.example.web.signin',
  APPLE_CLIENT_SECRET: 'eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJURUFNSUQifQ.c2ln',
  AZURE_CLIENT_ID: '0f5c2a8e-4b1d-4e6f-9a7c-3d2b1e0f9c8a',
  AZURE_CLIENT_SECRET: 'azure~runnable~secret',
  AZURE_TENANT_ID: '6e1f3c2a-9b8d-4f7e-a1c2-5d4e3f2a1b0c',
};

const CONSOLE_CLIENT_ID = '0oa1runnableconsole';

describe('runnable samples against the local identity server', () => {
  let local: LocalServer | undefined;
  let subOrgId = '';
  let subOrgKey = '';
  let webhookId = '';
  const deliveryId = 'a3e1c0d2-5b7f-4e19-9c8a-1d2e3f4a5b6c';
  let apiClient = { client_id: '', client_secret: '' };
  let jobClient = { client_id: '', client_secret: '' };
  let startError = '';

  beforeAll(async () => {
    try {
      local = await startLocalServer();
      const { live, apiKey } = local;
      const res = await fetch(`${live.url}/organizations/suborganizations`, {
        method: 'POST',
        headers: { 'Keyway-OrgID': live.orgId, 'Keyway-API-Key': apiKey, 'Content-Type': 'application/json' },
        body: JSON.stringify({ org_name: 'Runnable samples', tenant_name: 'runnable' }),
      });
      const subOrg = ((await res.json()) as { result?: { id?: string; api_key?: string } }).result;
      subOrgId = subOrg?.id ?? '';
      subOrgKey = subOrg?.api_key ?? '';
      // The webhook the trigger samples attach to.
      const hook = await fetch(`${live.url}/organizations/webhooks`, {
        method: 'POST',
        headers: { 'Keyway-OrgID': live.orgId, 'Keyway-API-Key': apiKey, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'Runnable samples', target_url: 'https://hooks.example.com/runnable' }),
      });
      webhookId = ((await hook.json()) as { result?: { id?: string } }).result?.id ?? '';
      // A dead letter of that webhook, as 8 failed attempts leave it, for the samples that list and replay them.
      const at = new Date().toISOString();
      await live.db
        .insertInto('webhook_deliveries')
        .values({
          id: deliveryId, webhook_id: webhookId, org_id: live.orgId, event_type: 'PersonCreated_v1', status: 'failed', attempts: 8, next_attempt_at: at, last_status: 503, last_error: 'receiver answered 503', created_at: at, delivered_at: null,
          event: JSON.stringify({ id: '0f3c5c2e-8c1b-4a53-9d7e-2b6f1a9c4e10', type: 'PersonCreated_v1', org_id: live.orgId, created_at: at, test: false, data: {} }),
        })
        .execute();
      // The provider the console guide reads and rotates.
      await fetch(`${live.url}/organizations/sso/oidc/provider-credentials`, {
        method: 'POST',
        headers: { 'Keyway-OrgID': live.orgId, 'Keyway-API-Key': apiKey, 'Content-Type': 'application/json' },
        body: JSON.stringify({ provider: 'okta', label: 'Acme Okta', client_id: CONSOLE_CLIENT_ID, client_secret: 'first-secret', issuer: 'https://acme.okta.example' }),
      });
      // The API of the machine-to-machine guide, registered as a client so that it may introspect tokens.
      const client = await fetch(`${live.url}/oauth2/clients`, {
        method: 'POST',
        headers: { 'Keyway-OrgID': live.orgId, 'Keyway-API-Key': apiKey, 'Content-Type': 'application/json' },
        body: JSON.stringify({ client_name: 'Invoices API', scopes: ['openid'], grant_types: ['authorization_code'] }),
      });
      apiClient = ((await client.json()) as { result?: typeof apiClient }).result ?? apiClient;
      // The billing job of the same guide: a confidential client allowed the client credentials grant.
      const job = await fetch(`${live.url}/oauth2/clients`, {
        method: 'POST',
        headers: { 'Keyway-OrgID': live.orgId, 'Keyway-API-Key': apiKey, 'Content-Type': 'application/json' },
        body: JSON.stringify({ client_name: 'Nightly billing job', scopes: ['invoices:read', 'invoices:write'], grant_types: ['client_credentials'] }),
      });
      jobClient = ((await job.json()) as { result?: typeof jobClient }).result ?? jobClient;
    } catch (err) {
      startError = (err as Error).stack ?? String(err);
    }
  }, 60_000);

  afterAll(async () => {
    await local?.close();
  });

  // Pages say what the local server does not do yet (a note naming the operations). Each claim is probed: when the server
  // starts doing it, the note is stale and the page's samples can become runnable.
  const json = (v: unknown) => ({ type: 'application/json', body: JSON.stringify(v) });
  const LOCAL_LIMITS: { page: string; method: string; path: string; body?: { type: string; body: string }; status: number; says: string }[] = [];
  // Limits that no request can probe: the local server has no Google Workspace to read groups from.
  const UNPROBED_LIMITS = ['guides/sso/oauth_creds_googlegroups'];
  const SAYS_LIMIT = /local identity server[^.]*?(does not|implements)/;

  it('says exactly what the local server does not do yet', async () => {
    const saying = pages.filter((p) => SAYS_LIMIT.test(p.raw)).map(keyOf);
    expect(saying.sort(), 'pages that say the local server lacks something: probe each claim in LOCAL_LIMITS').toEqual(
      [...new Set([...UNPROBED_LIMITS, ...LOCAL_LIMITS.map((l) => l.page)])].sort(),
    );
    expect(startError, 'the identity server starts').toBe('');
    const { live, apiKey } = local as LocalServer;
    const stale: string[] = [];
    for (const limit of LOCAL_LIMITS) {
      const p = page(limit.page);
      expect(p.raw, `${limit.page} shows ${limit.path}`).toContain(limit.path);
      expect(p.raw, `${limit.page} tells readers what the local server does not do`).toMatch(SAYS_LIMIT);
      const res = await fetch(`${live.url}${limit.path.replace('$WEBHOOK_ID', webhookId)}`, {
        method: limit.method,
        headers: { 'Keyway-OrgID': live.orgId, 'Keyway-API-Key': apiKey, ...(limit.body ? { 'Content-Type': limit.body.type } : {}) },
        ...(limit.body ? { body: limit.body.body } : {}),
      });
      const text = await res.text();
      if (res.status !== limit.status || !text.includes(limit.says))
        stale.push(`${limit.page}: ${limit.method} ${limit.path} now answers ${res.status} ${text.slice(0, 160)}; update the note and make the samples runnable`);
    }
    expect(stale).toEqual([]);
  });

  it('runs every runnable request and gets the documented status and result fields', async () => {
    expect(startError, 'the identity server starts').toBe('');
    expect(subOrgId, 'a suborganization for the samples').not.toBe('');
    const extraVars = (person: { token: string }) => ({
      ...PROVIDER_VARS,
      SUBORG_ID: subOrgId,
      WEBHOOK_ID: webhookId,
      DELIVERY_ID: deliveryId,
      ACME_ORG_ID: subOrgId,
      ACME_API_KEY: subOrgKey,
      OIDC_CLIENT_ID: CONSOLE_CLIENT_ID,
      NEW_CLIENT_SECRET: 'rotated-secret',
      CLIENT_ID: jobClient.client_id,
      CLIENT_SECRET: jobClient.client_secret,
      API_CLIENT_ID: apiClient.client_id,
      API_CLIENT_SECRET: apiClient.client_secret,
      ACCESS_TOKEN: person.token,
    });
    const { ran, problems } = await runRunnableSamples(pages, local as LocalServer, { extraVars, lists: true });
    expect(problems).toEqual([]);
    expect(ran, 'runnable samples executed').toBeGreaterThanOrEqual(12);
  }, 120_000);
});

// ---------------------------------------------------------------------------------------------
// TypeScript samples that verify tokens run against real tokens of the local server: the sample is transpiled as it is
// shown (with the local server's address), loaded, and called.
// ---------------------------------------------------------------------------------------------
describe('token-verifying samples against real tokens', () => {
  let local: LocalServer | undefined;
  const samplesDir = path.resolve(docsDir, '..', '..', 'node_modules', '.cache', 'keyway-guide-samples');

  beforeAll(async () => {
    local = await startLocalServer();
    fs.mkdirSync(samplesDir, { recursive: true });
  }, 60_000);

  afterAll(async () => {
    await local?.close();
    fs.rmSync(samplesDir, { recursive: true, force: true });
  });

  async function loadSample<T>(key: string, title: string, live: LiveServer): Promise<T> {
    const block = page(key).code.find((c) => c.meta.includes(`title="${title}"`));
    if (!block) throw new Error(`${key}: no sample titled ${title}`);
    const js = ts.transpileModule(block.value.replaceAll(API_HOST, live.url), {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
    }).outputText;
    const file = path.join(samplesDir, `${title.replace(/\W+/g, '_')}-${Date.now()}.mjs`);
    fs.writeFileSync(file, js);
    return (await import(/* @vite-ignore */ pathToFileURL(file).href)) as T;
  }

  it('the tenant guard of the multitenancy guide accepts its tenant and refuses another', async () => {
    const { live } = local as LocalServer;
    const { personOfTenant } = await loadSample<{ personOfTenant(a: string | undefined, org: string): Promise<string> }>(
      'guides/suborgs/multitenancy-example',
      'tenant-guard.ts',
      live,
    );
    const res = await fetch(`${live.url}/persons/anonymous`, { method: 'POST', headers: { 'Keyway-OrgID': live.orgId, 'Content-Type': 'application/json' }, body: '{}' });
    const token = ((await res.json()) as { result: string }).result;
    const claims = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { person_id: string };
    await expect(personOfTenant(`Bearer ${token}`, live.orgId)).resolves.toBe(claims.person_id);
    await expect(personOfTenant(`Bearer ${token}`, 'org_another_tenant')).rejects.toThrow('another tenant');
    await expect(personOfTenant(undefined, live.orgId)).rejects.toThrow('missing bearer token');
    const forged = `${token.slice(0, token.lastIndexOf('.') + 1)}${'A'.repeat(86)}`;
    await expect(personOfTenant(`Bearer ${forged}`, live.orgId)).rejects.toThrow();
  }, 60_000);

  it('the event export of the analytics guide reads new failures page by page', async () => {
    const { live, apiKey } = local as LocalServer;
    Object.assign(process.env, { KEYWAY_ORG_ID: live.orgId, KEYWAY_API_KEY: apiKey });
    const failure = (i: number) => ({
      event_name: 'AuthenticationFailed_v1',
      organization_id: live.orgId,
      event_data: { failed_authn_method: 'otp_via_email', failure_reason: 'incorrect_otp_code_via_email', handle: `p${i}@example.com` },
    });
    for (const i of [1, 2, 3]) {
      const post = await fetch(`${live.url}/actions/sdk`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(failure(i)) });
      expect(post.status, await post.text()).toBe(200);
    }
    const { exportFailures } = await loadSample<{ exportFailures(last: number): Promise<number> }>('guides/analytics', 'export-failures.ts', live);
    const lines: string[] = [];
    const log = console.log;
    console.log = (line: string) => void lines.push(line);
    try {
      const newest = await exportFailures(0);
      expect(newest).toBeGreaterThan(0);
      expect(lines.map((l) => (JSON.parse(l) as { reason: string }).reason)).toEqual(Array(3).fill('incorrect_otp_code_via_email'));
      lines.length = 0;
      expect(await exportFailures(newest)).toBe(newest);
      expect(lines).toEqual([]);
    } finally {
      console.log = log;
    }
  });

  it('the scope check of the machine-to-machine guide introspects with its own client credentials', async () => {
    const { live, apiKey } = local as LocalServer;
    const res = await fetch(`${live.url}/oauth2/clients`, {
      method: 'POST',
      headers: { 'Keyway-OrgID': live.orgId, 'Keyway-API-Key': apiKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({ client_name: 'Invoices API', scopes: ['openid'], grant_types: ['authorization_code'] }),
    });
    const client = ((await res.json()) as { result: { client_id: string; client_secret: string } }).result;
    Object.assign(process.env, { API_CLIENT_ID: client.client_id, API_CLIENT_SECRET: client.client_secret });
    const { requireScope } = await loadSample<{ requireScope(a: string | undefined, s: string): Promise<string> }>('guides/m2m', 'require-scope.ts', live);
    const anon = await fetch(`${live.url}/persons/anonymous`, { method: 'POST', headers: { 'Keyway-OrgID': live.orgId, 'Content-Type': 'application/json' }, body: '{}' });
    const token = ((await anon.json()) as { result: string }).result;
    // The local server grants its tokens the scope openid only.
    await expect(requireScope(`Bearer ${token}`, 'openid')).resolves.toBe(client.client_id);
    await expect(requireScope(`Bearer ${token}`, 'invoices:read')).rejects.toThrow('does not grant invoices:read');
    await expect(requireScope('Bearer not-a-token', 'openid')).rejects.toThrow('not active');
    await expect(requireScope(undefined, 'openid')).rejects.toThrow('missing bearer token');
  });

  it('the ID token check of the OAuth server guide accepts a token from the hosted login, with its nonce', async () => {
    const { live } = local as LocalServer;
    const json = { 'Keyway-OrgID': live.orgId, 'Content-Type': 'application/json' };
    // A person signed in with an e-mailed code (the code comes from the development mailbox).
    const id = await fetch(`${live.url}/id/v2`, { method: 'POST', headers: json, body: JSON.stringify({ handle: 'oauth.guide@example.com', factor: { method: 'otp_via_email' } }) });
    const idBody = (await id.json()) as { result: { challenges?: { id: string; type: string }[] } | { id: string; type: string }[] };
    const challenges = Array.isArray(idBody.result) ? idBody.result : (idBody.result.challenges ?? []);
    const otp = challenges.find((c) => c.type === 'otp');
    expect(otp, JSON.stringify(idBody)).toBeDefined();
    const mail = (await (await fetch(`${live.url}/dev/mailbox.json?to=oauth.guide@example.com&limit=1`)).json()) as { result?: { code?: string }[] } | { code?: string }[];
    const code = (Array.isArray(mail) ? mail : (mail.result ?? []))[0]?.code ?? '';
    const att = await fetch(`${live.url}/attestation/v3`, { method: 'POST', headers: json, body: JSON.stringify({ challenge_id: otp?.id, challenge_type: 'otp', data: { otp: code } }) });
    const personToken = ((await att.json()) as { result: { token: string } }).result.token;
    // The hosted login with PKCE, skipping the sign-in page with that token, then the code exchange of step 4.
    const verifier = 'v'.repeat(43);
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const authorize = new URL(`${live.url}/oauth2/authorize`);
    const redirectUri = 'http://localhost:3000/callback';
    for (const [k, v] of Object.entries({ response_type: 'code', client_id: 'keyway-dev-client', redirect_uri: redirectUri, scope: 'openid', state: 'state-0001', code_challenge: challenge, code_challenge_method: 'S256', nonce: 'n-123', token: personToken }))
      authorize.searchParams.set(k, v);
    const back = await fetch(authorize, { redirect: 'manual' });
    const location = new URL(back.headers.get('location') ?? '', live.url);
    expect(location.searchParams.get('state'), `${back.status} ${await back.text()}`).toBe('state-0001');
    const exchange = await fetch(`${live.url}/oauth2/tokens`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: location.searchParams.get('code') ?? '', code_verifier: verifier, client_id: 'keyway-dev-client', redirect_uri: redirectUri }),
    });
    const tokens = (await exchange.json()) as { id_token: string; access_token: string };
    const { verifyIdToken } = await loadSample<{ verifyIdToken(t: string, n?: string): Promise<{ personId: string; email?: string }> }>('guides/oauth-server', 'id-token.ts', live);
    const person = await verifyIdToken(tokens.id_token, 'n-123');
    expect(person.email).toBe('oauth.guide@example.com');
    expect(person.personId).toMatch(/^pid:/);
    await expect(verifyIdToken(tokens.id_token, 'another-nonce')).rejects.toThrow('nonce mismatch');
    await expect(verifyIdToken(tokens.access_token)).rejects.toThrow(); // an access token is not an ID token (audience)
  }, 60_000);

  it('the webhook receiver of the webhooks guide verifies a real delivery of the local server', async () => {
    const { live, apiKey } = local as LocalServer;
    // A receiving endpoint on loopback (plain http is accepted for localhost on a development server).
    const received: { headers: Record<string, string | string[] | undefined>; body: string }[] = [];
    const samples: Server[] = [];
    const receiver = createServer(async (req, res) => {
      let body = '';
      for await (const chunk of req) body += String(chunk);
      received.push({ headers: req.headers, body });
      res.writeHead(204).end();
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const target = `http://localhost:${(receiver.address() as { port: number }).port}/keyway/events`;
    try {
      const management = { 'Keyway-OrgID': live.orgId, 'Keyway-API-Key': apiKey, 'Content-Type': 'application/json' };
      const hook = await fetch(`${live.url}/organizations/webhooks`, { method: 'POST', headers: management, body: JSON.stringify({ name: 'Receiver', target_url: target }) });
      const id = ((await hook.json()) as { result: { id: string } }).result.id;
      await fetch(`${live.url}/organizations/webhooks/${id}/triggers`, { method: 'POST', headers: management, body: JSON.stringify({ trigger_type: 'event', trigger_name: 'PersonCreated_v1' }) });
      await fetch(`${live.url}/persons`, { method: 'POST', headers: management, body: JSON.stringify({ handles: [{ type: 'email_address', value: 'webhook.guide@example.com' }] }) });
      for (let i = 0; i < 100 && received.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
      expect(received.length, 'a delivery arrived').toBeGreaterThan(0);
      const delivery = received[0]!;
      expect(delivery.headers['content-type']).toBe('application/jwt');
      expect(delivery.headers['keyway-event-type']).toBe('PersonCreated_v1');
      // PORT 0: the sample's own receiver listens on a free port; it is closed below.
      Object.assign(process.env, { KEYWAY_ORG_ID: live.orgId, KEYWAY_API_KEY: apiKey, WEBHOOK_TARGET_URL: target, PORT: '0' });
      type Receiver = { server: Server; verifyDelivery(jwt: string): Promise<{ delivery_id: string; event: { type: string; test: boolean; data: Record<string, unknown> } }> };
      const { verifyDelivery, server } = await loadSample<Receiver>(
        'guides/webhooks/introduction',
        'webhook-receiver.ts',
        live,
      );
      samples.push(server);
      const payload = await verifyDelivery(delivery.body);
      expect(payload.event.type).toBe('PersonCreated_v1');
      expect(payload.event.test).toBe(false);
      expect(payload.event.data.source).toBe('management');
      expect(payload.delivery_id).toBe(delivery.headers['keyway-delivery-id']);
      process.env.WEBHOOK_TARGET_URL = 'https://elsewhere.example.com/hook';
      const elsewhere = await loadSample<Receiver>('guides/webhooks/introduction', 'webhook-receiver.ts', live);
      samples.push(elsewhere.server);
      await expect(elsewhere.verifyDelivery(delivery.body)).rejects.toThrow(); // meant for another endpoint
    } finally {
      for (const s of [receiver, ...samples]) {
        s.closeAllConnections();
        await new Promise((resolve) => s.close(resolve));
      }
    }
  }, 60_000);

  it('the token template of the custom claims guide puts the attribute into the next token', async () => {
    const { live, apiKey } = local as LocalServer;
    const management = { 'Keyway-OrgID': live.orgId, 'Keyway-API-Key': apiKey, 'Content-Type': 'application/json' };
    // The template exactly as step 2 sends it.
    const step2 = parseCurls(page('guides/webhooks/custom-claims').code.find((c) => c.meta.includes('Set the token template'))?.value ?? '')[0];
    const put = await fetch(`${live.url}/organizations/config/token-template`, { method: 'PUT', headers: management, body: step2?.data ?? '' });
    expect(put.status, await put.text()).toBe(204);
    const anon = await fetch(`${live.url}/persons/anonymous`, { method: 'POST', headers: { 'Keyway-OrgID': live.orgId, 'Content-Type': 'application/json' }, body: '{}' });
    const first = ((await anon.json()) as { result: string }).result;
    const claimsOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
    const personId = String(claimsOf(first).person_id);
    expect(claimsOf(first).plan, 'no attribute yet: null').toBeNull();
    // Step 1: the attribute, then a new token for the same person.
    const patch = await fetch(`${live.url}/persons/${personId}/attributes/end_user_read_only`, { method: 'PATCH', headers: management, body: JSON.stringify({ plan: 'team' }) });
    expect(patch.status, await patch.text()).toBe(204);
    const again = await fetch(`${live.url}/token`, { headers: { Authorization: `Bearer ${first}`, 'Keyway-OrgID': live.orgId } });
    const next = ((await again.json()) as { result: { token: string } }).result.token;
    expect(claimsOf(next).plan).toBe('team');
    // A reserved claim is refused with 400 naming it.
    const reserved = await fetch(`${live.url}/organizations/config/token-template`, { method: 'PUT', headers: management, body: JSON.stringify({ content: '{ "oid": "x" }' }) });
    expect(reserved.status).toBe(400);
    expect(await reserved.text()).toContain('oid');
    await fetch(`${live.url}/organizations/config/token-template`, { method: 'PUT', headers: management, body: JSON.stringify({ content: '{}' }) });
  });

  it('the token client of the machine-to-machine guide obtains and caches a client credentials token', async () => {
    const { live, apiKey } = local as LocalServer;
    const res = await fetch(`${live.url}/oauth2/clients`, {
      method: 'POST',
      headers: { 'Keyway-OrgID': live.orgId, 'Keyway-API-Key': apiKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({ client_name: 'Nightly billing job', scopes: ['invoices:read', 'invoices:write'], grant_types: ['client_credentials'], access_token_duration: 900 }),
    });
    const job = ((await res.json()) as { result: { client_id: string; client_secret: string } }).result;
    Object.assign(process.env, { CLIENT_ID: job.client_id, CLIENT_SECRET: job.client_secret });
    const { accessToken } = await loadSample<{ accessToken(scope: string): Promise<string> }>('guides/m2m', 'client-credentials.ts', live);
    const token = await accessToken('invoices:read');
    const claims = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { scope?: string; sub?: string };
    expect(claims.scope).toBe('invoices:read');
    expect(claims.sub).toBe(job.client_id);
    expect(await accessToken('invoices:read'), 'cached until shortly before expiry').toBe(token);
    process.env.CLIENT_SECRET = 'wrong';
    const fresh = await loadSample<{ accessToken(scope: string): Promise<string> }>('guides/m2m', 'client-credentials.ts', live);
    await expect(fresh.accessToken('invoices:read')).rejects.toThrow('client authentication failed');
  });

  it('the vault sealing module of the vault guide round-trips and binds values to their person', async () => {
    process.env.VAULT_KEY_K1 = Buffer.alloc(32, 7).toString('base64');
    const { seal, open } = await loadSample<{ seal(v: string, p: string): string; open(s: string, p: string): string }>('guides/vault', 'vault-crypto.ts', (local as LocalServer).live);
    const sealed = seal('756-1234-5678-97', 'pid:ada');
    expect(sealed).toMatch(/^v1\.k1\./);
    expect(sealed).not.toContain('756-1234');
    expect(open(sealed, 'pid:ada')).toBe('756-1234-5678-97');
    expect(() => open(sealed, 'pid:grace')).toThrow();
    const parts = sealed.split('.');
    const tag = parts[3] ?? '';
    parts[3] = (tag[0] === 'A' ? 'B' : 'A') + tag.slice(1); // a changed authentication tag
    expect(() => open(parts.join('.'), 'pid:ada')).toThrow();
  });
});
