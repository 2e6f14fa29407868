// Checks for the Access concepts pages (site/docs/access/concepts/**).
// Every page is parsed and compiled the way Docusaurus reads it, and its content is held to the
// model of /work/shared/spec/product-spec.md and api-operations.md: routes, links, prose length,
// wording, API paths and curl requests, event, bucket, claim and header names, JSON examples and
// TypeScript samples (type-checked against the packages installed in the workspace).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  docsDir,
  allRoutes,
  BUCKETS,
  EVENTS,
  EVENT_ENVELOPE,
  SUCCESS_FIELDS,
  FAILURE_FIELDS,
  FAILURE_SLUGS,
  TOKEN_CLAIMS,
  JWT_REGISTERED,
  AUTHN_METHODS,
  HIERARCHY_FIELDS,
  KEYWAY_HEADERS,
  CONSISTENCY_VALUES,
  API_HOST,
  REGIMES,
  findOperations,
  openapi,
  openapiOperation,
  validate,
  checkQuery,
  successSchema,
  walk,
  readPage,
  parseCurls,
  typeCheck,
  type OpenApiOperation,
  type Page,
  type Curl,
  categoryProblems,
  frontMatterProblems,
  headingProblems,
  linkProblems,
  SCHEME_HEADER,
  wordingProblems,
  startLocalServer,
  type LocalServer,
  runRunnableSamples,
  citedOperationProblems,
  PAGES_BEYOND_CONTRACT,
} from './docs-helpers';

const roomDir = path.join(docsDir, 'access', 'concepts');
const roomRoute = '/docs/access/concepts';
const roomRoutes = [...allRoutes].filter((r) => r.startsWith(`${roomRoute}/`)).sort();
const BEYOND_CONTRACT = PAGES_BEYOND_CONTRACT.filter((r) => r.startsWith(`${roomRoute}/`));
// ---------------------------------------------------------------------------------------------
// The tests
// ---------------------------------------------------------------------------------------------
let pages: Page[] = [];
const byRoute = new Map<string, Page>();

beforeAll(async () => {
  const files = walk(roomDir).filter((f) => /\.mdx?$/.test(f)).sort();
  pages = await Promise.all(files.map((f) => readPage(f, roomDir)));
  for (const p of pages) byRoute.set(p.route, p);
});

function page(route: string): Page {
  const p = byRoute.get(`${roomRoute}/${route}`);
  if (!p) throw new Error(`no page for ${roomRoute}/${route}`);
  return p;
}

describe('the spec helpers', () => {
  it('reads the operations of api-operations.md, including the SDK-facing ones', () => {
    expect(findOperations('DELETE', '/persons/p-123')).toHaveLength(1);
    expect(findOperations('GET', '/organizations/webhooks/verification-jwks').length).toBeGreaterThan(0);
    expect(findOperations('POST', '/persons/anonymous')[0]).toMatchObject({ person: true, management: false });
    expect(findOperations('POST', '/token/revoke')[0]).toMatchObject({ person: true, management: true });
    expect(findOperations('DELETE', '/persons/p-123')[0]).toMatchObject({ person: false, management: true });
    expect(findOperations('PATCH', '/attributes/end_user_read_only')[0]?.person).toBe(true);
    expect(findOperations('POST', '/attestation/v3')).toHaveLength(1);
    expect(findOperations('GET', '/persons/p-1/nothing-here')).toHaveLength(0);
    expect(findOperations('POST', '/consent/gdpr/extra')).toHaveLength(0);
  });

  it('parses curl commands with continuations, quotes and JSON bodies', () => {
    const [c] = parseCurls(
      `curl -X PATCH "${API_HOST}/persons/$PERSON_ID" \\\n  -H "Keyway-OrgID: $KEYWAY_ORG_ID" \\\n  -H 'Content-Type: application/json' \\\n  -d '{\n  "active": false\n}'`,
    );
    expect(c?.method).toBe('PATCH');
    expect(c?.url).toBe(`${API_HOST}/persons/$PERSON_ID`);
    expect(c?.headers['keyway-orgid']).toBe('$KEYWAY_ORG_ID');
    expect(JSON.parse(c?.data ?? '')).toEqual({ active: false });
    expect(parseCurls(`curl -s ${API_HOST}/me -H "Authorization: Bearer $TOKEN" | jq .result`)[0]?.method).toBe('GET');
  });
});

describe('the concepts room', () => {
  it('has exactly one page per concepts route, with index.md for routes that have children', () => {
    expect(roomRoutes).toHaveLength(17);
    expect(pages.map((p) => p.route).filter((r) => !BEYOND_CONTRACT.includes(r)).sort()).toEqual(roomRoutes);
    for (const r of roomRoutes) {
      const hasChildren = roomRoutes.some((o) => o.startsWith(`${r}/`));
      const p = byRoute.get(r);
      if (hasChildren) expect(p?.rel, r).toMatch(/(^|\/)index\.mdx?$/);
      else expect(p?.rel, r).not.toMatch(/(^|\/)index\.mdx?$/);
    }
  });

  it('has a valid _category_.json in every folder', () => {
    expect(categoryProblems([roomDir, ...walk(roomDir).filter((f) => /\.mdx?$/.test(f)).map((f) => path.dirname(f))])).toEqual([]);
  });

  it('gives every page title, sidebar_label, a one-sentence description and a unique sidebar_position', () => {
    expect(frontMatterProblems(pages)).toEqual([]);
  });

  it('compiles every page and keeps headings unique, with the title as the only H1', () => {
    for (const p of pages) {
      expect(headingProblems(p)).toEqual([]);
      expect(p.headings.length, `${p.rel} has sections`).toBeGreaterThanOrEqual(3);
    }
  });

  it('has at least 300 words of prose outside code on every page, no banned wording and no unreplaced {product}', () => {
    if (process.env.SHOW_WORDS) console.log(pages.map((p) => `${p.words}\t${p.rel}`).join('\n'));
    expect(pages.flatMap((p) => wordingProblems(p))).toEqual([]);
  });

  it('links only to routes that exist, and to headings that exist on our own pages', () => {
    expect(pages.flatMap((p) => linkProblems(p, byRoute))).toEqual([]);
  });

  it('links every page to at least two other pages (next steps)', () => {
    for (const p of pages) {
      const others = new Set(p.links.map((l) => l.split('#')[0]).filter((l) => l && !l.startsWith('#')));
      expect(others.size, p.rel).toBeGreaterThanOrEqual(2);
    }
  });
});

describe('accuracy against the spec', () => {
  it('cites only REST operations that the API offers', () => {
    expect(pages.flatMap((p) => citedOperationProblems(p))).toEqual([]);
  });

  it('writes every curl request against the local server with the right headers and a valid body', () => {
    let count = 0;
    for (const p of pages) {
      for (const block of p.code.filter((c) => ['bash', 'sh', 'shell'].includes(c.lang))) {
        for (const c of parseCurls(block.value)) {
          count++;
          const where = `${p.rel}: ${c.text.slice(0, 90)}`;
          expect(c.url.startsWith(`${API_HOST}/`), `${where} (host)`).toBe(true);
          const urlPath = c.url.slice(API_HOST.length).split('?')[0] ?? '';
          const ops = findOperations(c.method, urlPath);
          expect(ops.length, `${where} (${c.method} ${urlPath} is not an API operation)`).toBeGreaterThan(0);
          const bearer = /^Bearer \$[A-Z_]+$/.test(c.headers.authorization ?? '');
          const management = c.headers['keyway-orgid'] === '$KEYWAY_ORG_ID' && c.headers['keyway-api-key'] === '$KEYWAY_API_KEY';
          const anonymous = urlPath === '/persons/anonymous' && c.headers['keyway-orgid'] === '$KEYWAY_ORG_ID';
          // Where api/openapi.yaml already describes the operation, its security schemes decide (next test).
          if (openapiOperation(c.method, urlPath)) {
            /* checked against openapi.yaml */
          } else if (ops.every((o) => o.person && !o.management)) expect(bearer || anonymous, `${where} (person call needs a bearer token)`).toBe(true);
          else if (ops.every((o) => o.management && !o.person)) expect(management, `${where} (management call needs org id and API key)`).toBe(true);
          else expect(bearer || management, `${where} (credentials)`).toBe(true);
          if (bearer) expect(c.headers['keyway-api-key'], `${where} (never mix an API key into a person call)`).toBeUndefined();
          if (c.data !== undefined) {
            expect(c.headers['content-type'], `${where} (content type)`).toBe('application/json');
            expect(() => JSON.parse(c.data ?? ''), `${where} (body is JSON)`).not.toThrow();
          }
          const consistency = c.headers['keyway-required-consistency'];
          if (consistency !== undefined) expect(CONSISTENCY_VALUES, where).toContain(consistency);
          const timeout = c.headers['keyway-required-consistency-timeout'];
          if (timeout !== undefined) expect(timeout, `${where} (timeout in seconds)`).toMatch(/^\d+$/);
        }
      }
    }
    expect(count, 'the concepts pages show real requests').toBeGreaterThanOrEqual(15);
  });

  it.skipIf(!openapi)('matches api/openapi.yaml wherever it describes the operation: credentials, request bodies and responses', () => {
    let requests = 0;
    let responses = 0;
    for (const p of pages) {
      let last: { curl: Curl; op: OpenApiOperation } | undefined;
      for (const block of p.code) {
        if (['bash', 'sh', 'shell'].includes(block.lang)) {
          const curls = parseCurls(block.value);
          last = undefined;
          for (const c of curls) {
            const urlPath = c.url.slice(API_HOST.length).split('?')[0] ?? '';
            const found = openapiOperation(c.method, urlPath);
            if (!found) continue;
            requests++;
            const where = `${p.rel}: ${c.method} ${found.template}`;
            const security = found.op.security ?? [];
            if (security.length)
              expect(
                security.some((req) => Object.keys(req).every((scheme) => SCHEME_HEADER[scheme]?.(c) ?? false)),
                `${where} sends credentials matching one of ${JSON.stringify(security)}`,
              ).toBe(true);
            expect(checkQuery(found.op, c.url), `${where} query`).toEqual([]);
            // Consistency headers only where the operation declares them (they make no sense on reads).
            const declaresConsistency = (found.op.parameters ?? []).some((prm) => prm.$ref?.endsWith('/RequiredConsistency') || prm.name === 'Keyway-Required-Consistency');
            if (c.headers['keyway-required-consistency'] !== undefined || c.headers['keyway-required-consistency-timeout'] !== undefined)
              expect(declaresConsistency, `${where} does not take the consistency headers`).toBe(true);
            const bodySchema = found.op.requestBody?.content?.['application/json']?.schema;
            if (c.data !== undefined && bodySchema) {
              const body = JSON.parse(c.data.replace(/\$[A-Z_]+/g, (v) => (v.endsWith('TOKEN') ? 'eyJhbGciOiJFUzI1NiJ9.eyJ9.c2ln' : 'sample'))) as unknown;
              expect(validate(bodySchema, body), `${where} request body`).toEqual([]);
            }
            if (curls.length === 1) last = { curl: c, op: found.op };
          }
        } else if (block.lang === 'json' && /title="Response/.test(block.meta) && last) {
          const value = JSON.parse(block.value) as Record<string, unknown>;
          const where = `${p.rel}: response of ${last.curl.method} ${last.curl.url}`;
          const schema = 'errors' in value ? { $ref: '#/components/schemas/ErrorResponse' } : successSchema(last.op);
          if (schema) {
            responses++;
            expect(validate(schema, value), where).toEqual([]);
          }
          if ('errors' in value) expect('result' in value, `${where}: an error answer has no result`).toBe(false);
        }
      }
    }
    // Token claims and analytics events shown on their own follow the component schemas too.
    for (const p of pages) {
      for (const block of p.code.filter((c) => c.lang === 'json')) {
        const value = JSON.parse(block.value) as Record<string, unknown>;
        const where = `${p.rel}: ${block.meta}`;
        if ('person_id' in value && 'oid' in value) {
          responses++;
          expect(validate({ $ref: '#/components/schemas/TokenClaims' }, value), where).toEqual([]);
        }
        if ('event_name' in value) {
          responses++;
          expect(validate({ $ref: '#/components/schemas/AnalyticsEvent' }, value), where).toEqual([]);
        }
      }
    }
    expect(requests, 'requests checked against openapi.yaml').toBeGreaterThan(0);
    expect(responses, 'responses checked against openapi.yaml').toBeGreaterThan(0);
  });

  it('uses only the Keyway header names, event names, bucket names and consistency values of the spec', () => {
    for (const p of pages) {
      for (const m of p.raw.matchAll(/\bKeyway-[A-Za-z-]+/g)) expect(KEYWAY_HEADERS, p.rel).toContain(m[0]);
      for (const m of p.raw.matchAll(/\b[A-Z][A-Za-z]+_v\d+\b/g)) expect(EVENTS, p.rel).toContain(m[0]);
      for (const m of p.raw.matchAll(/(?:person_pool-)?end_user_[a-z_]+/g)) expect(BUCKETS, p.rel).toContain(m[0]);
      for (const m of p.raw.matchAll(/Keyway-Required-Consistency:\s*"?([a-z_]+)/g)) expect(CONSISTENCY_VALUES, p.rel).toContain(m[1]);
      expect(p.raw, `${p.rel}: the default groups claim is named groups`).not.toMatch(/groups_claim_name[^.\n]*default[^.\n]*`(?!groups`)[a-z_]+`/);
    }
  });

  it('shows JSON that parses, responses in the API envelope and token examples with real claims', () => {
    let responses = 0;
    for (const p of pages) {
      for (const block of p.code.filter((c) => c.lang === 'json')) {
        const where = `${p.rel}: ${block.meta || block.value.slice(0, 60)}`;
        let value: unknown;
        expect(() => (value = JSON.parse(block.value)), where).not.toThrow();
        if (value && typeof value === 'object' && ('result' in value || 'errors' in value)) {
          // The API envelope: result, errors[{httpcode,message}] when something went wrong, and
          // meta.pagination{limit,offset,total_count} on every list answer.
          responses++;
          const env = value as { result?: unknown; errors?: unknown; meta?: { pagination?: Record<string, unknown> } };
          expect(Object.keys(env).filter((k) => !['result', 'errors', 'meta'].includes(k)), `${where} envelope keys`).toEqual([]);
          if (env.errors !== undefined) {
            expect(Array.isArray(env.errors), `${where} errors[]`).toBe(true);
            for (const e of env.errors as { httpcode?: unknown; message?: unknown }[]) {
              expect(typeof e.httpcode, `${where} errors[].httpcode`).toBe('number');
              expect(typeof e.message, `${where} errors[].message`).toBe('string');
            }
          }
          // A challenge list (the answer of /id) is a sequence of steps, not a page of a listing: it has no pagination.
          const challengeList = Array.isArray(env.result) && env.result.every((c) => c && typeof c === 'object' && 'authentication_method' in c);
          if ((Array.isArray(env.result) && !challengeList) || env.meta !== undefined)
            for (const k of ['limit', 'offset', 'total_count']) expect(typeof env.meta?.pagination?.[k], `${where} meta.pagination.${k}`).toBe('number');
        }
        if (value && typeof value === 'object' && 'person_id' in value && 'oid' in value) {
          const claims = value as Record<string, unknown>;
          for (const k of Object.keys(claims)) expect([...TOKEN_CLAIMS, ...JWT_REGISTERED, 'user_token'], `${where} claim ${k}`).toContain(k);
          for (const m of (claims.authenticated_methods as string[] | undefined) ?? []) expect(AUTHN_METHODS, where).toContain(m);
        }
        if (value && typeof value === 'object' && 'event_data' in value) {
          for (const k of EVENT_ENVELOPE) expect(Object.keys(value), `${where} event envelope`).toContain(k);
        }
      }
    }
    expect(responses, 'the concepts pages show real responses').toBeGreaterThanOrEqual(5);
  });

  it('type-checks every TypeScript sample against the installed packages', () => {
    const blocks = pages.flatMap((p) =>
      p.code
        .filter((c) => ['ts', 'tsx', 'typescript'].includes(c.lang))
        .map((c, i) => ({ name: `${p.rel.replace(/[^a-z0-9]+/gi, '_')}_${i}`, source: c.value })),
    );
    expect(blocks.length, 'the concepts pages include TypeScript samples').toBeGreaterThanOrEqual(2);
    expect(typeCheck(blocks)).toEqual([]);
  }, 120_000);

  it('explains token containers with every claim of the model', () => {
    const p = page('token-containers');
    for (const k of [...TOKEN_CLAIMS, 'groups_claim_name', 'user_token']) expect(p.raw, k).toContain(`\`${k}\``);
  });

  it('explains anonymous persons as person_type anonymous created by POST /persons/anonymous', () => {
    const p = page('anonymous-persons');
    expect(p.raw).toContain('POST /persons/anonymous');
    expect(p.raw).toMatch(/`person_type`[^\n]*`anonymous`/);
    expect(p.prose).toMatch(/never[^.]*authenticated/i);
  });

  it('documents all six attribute buckets, the default and the endpoints that read and write them', () => {
    const p = page('attribute-buckets');
    for (const b of BUCKETS) expect(p.raw, b).toContain(`\`${b}\``);
    expect(p.prose).toMatch(/default/i);
    for (const op of ['GET /attributes', 'PATCH /attributes/{bucket_name}', 'GET /organizations/attribute-buckets', 'PUT /persons/{person_id}/attributes/{bucket_name}'])
      expect(p.raw, op).toContain(op);
  });

  it('describes every organization hierarchy entry field on the suborganizations page', () => {
    const p = page('suborganizations');
    for (const f of HIERARCHY_FIELDS) expect(p.raw, f).toContain(`\`${f}\``);
    for (const op of ['GET /me/orgs', 'POST /organizations/suborganizations', 'GET /organizations/suborganizations']) expect(p.raw, op).toContain(op);
  });

  it('defines every analytics event with its envelope, payload fields and failure reasons', () => {
    const p = page('events/event_definitions');
    const headingTexts = p.headings.map((h) => h.text);
    for (const e of EVENTS) expect(headingTexts, e).toContain(e);
    for (const f of [...EVENT_ENVELOPE, ...SUCCESS_FIELDS, ...FAILURE_FIELDS, ...FAILURE_SLUGS]) expect(p.raw, f).toContain(`\`${f}\``);
    const overview = page('events');
    for (const e of EVENTS) expect(overview.raw, e).toContain(e);
    expect(overview.raw).toContain('POST /events');
  });

  it('explains both consistency headers and their values on the replication page', () => {
    const p = page('replication');
    for (const h of ['Keyway-Required-Consistency', 'Keyway-Required-Consistency-Timeout', ...CONSISTENCY_VALUES]) expect(p.raw, h).toContain(h);
    expect(p.raw).toMatch(/\b408\b/);
  });

  it('tells how to verify sync hooks with the webhook verification keys', () => {
    const p = page('sync-hooks');
    expect(p.raw).toContain('/organizations/webhooks/verification-jwks');
    expect(p.raw).toContain('POST /organizations/webhooks/{webhook_id}/triggers');
    expect(p.code.some((c) => c.lang === 'ts' && c.value.includes('jwtVerify'))).toBe(true);
  });

  it('gives every compliance regime a page that is not legal advice and maps Keyway features to it', () => {
    const index = page('data-protection-compliance');
    for (const r of REGIMES) {
      expect(index.links.some((l) => l.replace(/\.md$/, '').endsWith(r)), `index links ${r}`).toBe(true);
      const p = page(`data-protection-compliance/${r}`);
      expect(p.prose, `${r} disclaimer`).toMatch(/not legal advice/i);
      for (const feature of ['DELETE /persons/{person_id}', 'GET /persons/{person_id}/attributes']) expect(p.raw, `${r}: ${feature}`).toContain(feature);
      expect(p.raw, `${r}: consent`).toMatch(/\/consent\/gdpr/);
      for (const link of ['attribute-buckets', 'encryption', 'replication', 'events']) {
        expect(p.links.some((l) => l.includes(link)), `${r} links ${link}`).toBe(true);
      }
    }
    expect(index.prose).toMatch(/not legal advice/i);
  });
});

// ---------------------------------------------------------------------------------------------
// Samples marked `runnable` (```bash title="…" runnable) run against the local identity server,
// started in-process from packages/identity-server on a free port with a throw-away database.
// Each request gets a fresh anonymous person: $TOKEN is its user token, $PERSON_ID its id.
// ---------------------------------------------------------------------------------------------

/**
 * Shell blocks of these pages that are not requests the runner can send, each with the reason. Every other shell block
 * must be marked `runnable`; the test below fails on a block that is neither.
 */
const NOT_RUNNABLE: Record<string, string> = {
  'token-containers.md: Variables used by the examples':
    'a shell set-up (export and a curl piped to jq), not one request: run by the test "sets the variables the examples use" instead',
};

describe('runnable samples against the local identity server', () => {
  let local: LocalServer | undefined;
  let startError = '';
  /** A suborganization of the development organization (the pages call it $SUBORG_ID). */
  let suborgId = '';
  /** A webhook registered as sync-hooks.md does ($WEBHOOK_ID), at a local endpoint that answers with a claim. */
  let webhookId = '';
  const hookCalls: string[] = [];
  const hook = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      hookCalls.push(body);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ claims: { plan: 'team' } }));
    });
  });

  beforeAll(async () => {
    try {
      local = await startLocalServer();
      const res = await fetch(`${local.live.url}/organizations/suborganizations`, {
        method: 'POST',
        headers: { 'Keyway-OrgID': local.live.orgId, 'Keyway-API-Key': local.apiKey, 'Content-Type': 'application/json' },
        body: JSON.stringify({ org_name: 'Globex Corporation', tenant_name: 'globex' }),
      });
      suborgId = ((await res.json()) as { result: { id: string } }).result.id;
      // replication.md removes the person from the organization's `admins` group.
      await fetch(`${local.live.url}/groups`, {
        method: 'POST',
        headers: { 'Keyway-OrgID': local.live.orgId, 'Keyway-API-Key': local.apiKey, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'admins', description: 'Administrators' }),
      });
      await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
      const registered = await fetch(`${local.live.url}/organizations/webhooks`, {
        method: 'POST',
        headers: { 'Keyway-OrgID': local.live.orgId, 'Keyway-API-Key': local.apiKey, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'Billing claims', target_url: `http://127.0.0.1:${(hook.address() as AddressInfo).port}/keyway/claims`, timeout: 3 }),
      });
      webhookId = ((await registered.json()) as { result: { id: string } }).result.id;
    } catch (err) {
      startError = (err as Error).stack ?? String(err);
    }
  }, 60_000);

  afterAll(async () => {
    await local?.close();
    hook.close();
  });

  it('marks every shell block runnable, or says why it cannot be', () => {
    const unmarked = pages.flatMap((p) =>
      p.code
        .filter((b) => ['bash', 'sh', 'shell'].includes(b.lang) && !/\brunnable\b/.test(b.meta))
        .map((b) => `${p.rel}: ${/title="([^"]*)"/.exec(b.meta)?.[1] ?? '(untitled)'}`)
        .filter((k) => !NOT_RUNNABLE[k]),
    );
    expect(unmarked).toEqual([]);
  });

  it('runs every runnable request and gets the documented status and result fields', async () => {
    expect(startError, 'the identity server starts').toBe('');
    // $SEALED is what encrypt-attribute.ts's sealAttribute gives for the person: AES-256-GCM, iv + ciphertext + tag.
    const sealed = (personId: string): string => {
      const iv = crypto.randomBytes(12);
      const cipher = crypto.createCipheriv('aes-256-gcm', crypto.randomBytes(32), iv).setAAD(Buffer.from(personId));
      return Buffer.concat([iv, cipher.update('AB123456C'), cipher.final(), cipher.getAuthTag()]).toString('base64url');
    };
    const { ran, problems } = await runRunnableSamples(pages, local as LocalServer, {
      extraVars: async (person) => {
        // The person a back end acts on is a member of the `admins` group (replication.md removes them from it).
        await fetch(`${local!.live.url}/groups/admins/persons`, {
          method: 'POST',
          headers: { 'Keyway-OrgID': local!.live.orgId, 'Keyway-API-Key': local!.apiKey, 'Content-Type': 'application/json' },
          body: JSON.stringify({ persons: [person.personId] }),
        });
        return { SEALED: sealed(person.personId), SUBORG_ID: suborgId, WEBHOOK_ID: webhookId };
      },
    });
    expect(problems).toEqual([]);
    // Once sync-hooks.md attached the token_minted trigger, the tokens of the later samples called the endpoint.
    expect(hookCalls.length, 'sync hook calls').toBeGreaterThan(0);
    expect(ran, 'runnable samples executed').toBeGreaterThanOrEqual(27);
  }, 120_000);

  it('sets the variables the examples use, as printed, with sh, curl and jq', async () => {
    expect(startError, 'the identity server starts').toBe('');
    const block = page('token-containers').code.find((b) => /title="Variables used by the examples"/.test(b.meta))!;
    const script = `${block.value.replaceAll(API_HOST, local!.live.url)}\nprintf '%s\\n%s\\n%s' "$KEYWAY_ORG_ID" "$KEYWAY_API_KEY" "$TOKEN"`;
    // Asynchronously: the server answering curl runs in this process.
    const { stdout: out } = await promisify(execFile)('sh', ['-c', script], { encoding: 'utf8' });
    const [orgId, apiKey, token] = out.split('\n');
    expect([orgId, apiKey]).toEqual([local!.live.orgId, local!.apiKey]);
    const check = await fetch(`${local!.live.url}/token/validate`, {
      method: 'POST',
      headers: { 'Keyway-OrgID': local!.live.orgId, 'Content-Type': 'application/json' },
      body: JSON.stringify({ token }),
    });
    expect(((await check.json()) as { result: { valid: boolean } }).result.valid, 'TOKEN is a valid user token').toBe(true);
  });
});
