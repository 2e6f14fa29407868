// The contract covers every operation of api-operations.md and of the SDK list, with the right tags, and every
// operation is documented (summary, description, operationId) with examples that match their schemas.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  OPERATIONS_MD, continuePath, loadDoc, operationsOf, parseOperationsMd, resolve, schemaValidator,
  type MediaType,
} from './spec-helpers.js';

const doc = loadDoc();
const md = parseOperationsMd(readFileSync(OPERATIONS_MD, 'utf8'));
const all = operationsOf(doc);
const validatorFor = schemaValidator(doc);
const key = (method: string, path: string) => `${method.toUpperCase()} ${path}`;

function examplesOf(media: MediaType): [string, unknown][] {
  const named = Object.entries(media.examples ?? {}).map(([name, ex]) => [name, resolve(doc, ex).value] as [string, unknown]);
  return 'example' in media ? [['example', media.example], ...named] : named;
}

function checkExamples(where: string, media: MediaType): string[] {
  if (!media.schema) return [`${where}: no schema`];
  const validate = validatorFor(media.schema);
  const examples = examplesOf(media);
  if (examples.length === 0) return [`${where}: no example`];
  return examples.flatMap(([name, value]) =>
    validate(value) ? [] : [`${where} example ${name}: ${JSON.stringify(validate.errors?.slice(0, 3))}`]);
}

describe('api-operations.md is parsed as expected', () => {
  it('finds every tag heading with its count and as many bullets as the count says', () => {
    expect(md.counts.size).toBe(21); // 22 tags; identity-management is the umbrella heading without a count
    for (const [tag, count] of md.counts) expect(md.listed.filter((o) => o.tag === tag).length, tag).toBe(count);
    expect(md.listed.length).toBe([...md.counts.values()].reduce((a, b) => a + b, 0));
  });
  it('reads the umbrella tags and the abbreviated SDK paths', () => {
    expect(md.umbrella).toContain('persons-bulk-import');
    expect(md.umbrella).toContain('organization-*');
    expect(continuePath('/persons/{person_id}/impersonate', '/impersonate/v2')).toBe('/persons/{person_id}/impersonate/v2');
    expect(md.sdk).toContainEqual({ method: 'get', path: '/challenge/{challenge_id}/v2' });
    expect(md.sdk).toContainEqual({ method: 'delete', path: '/attributes/{bucket_name}' });
  });
});

describe('every listed operation is in openapi.yaml with its tags', () => {
  const umbrella = (tag: string) =>
    md.umbrella.some((u) => (u.endsWith('-*') ? tag.startsWith(u.slice(0, -1)) : u === tag));

  it.each(md.listed.map((o) => [key(o.method, o.path), o.tag, o] as const))('%s carries tag %s', (_k, tag, listed) => {
    const op = doc.paths[listed.path]?.[listed.method];
    expect(op, `${key(listed.method, listed.path)} missing`).toBeDefined();
    expect(op?.tags).toContain(tag);
    if (umbrella(tag)) expect(op?.tags).toContain('identity-management');
  });

  it('documents [auth: client basic] and [auth: bearer AT] operations with those schemes', () => {
    for (const o of md.listed.filter((l) => l.auth)) {
      const schemes = (doc.paths[o.path]?.[o.method]?.security ?? []).flatMap((req) => Object.keys(req));
      expect(schemes, key(o.method, o.path)).toContain(o.auth === 'client basic' ? 'ClientBasic' : 'OAuth2AccessToken');
    }
  });

  it.each(md.sdk.map((o) => [key(o.method, o.path), o] as const))('SDK operation %s is documented under identity-management', (_k, o) => {
    const op = doc.paths[o.path]?.[o.method];
    expect(op, `${key(o.method, o.path)} missing`).toBeDefined();
    if (o.path.startsWith('/.well-known/')) return;
    expect(op?.tags).toContain('identity-management');
    expect(op?.tags?.length).toBeGreaterThan(1);
  });

  it('documents nothing beyond the spec lists except the stored-events query, the published client\'s POST /token/v2, the OpenID Provider\'s standard endpoints and the webhook dead letters', () => {
    const known = new Set([...md.listed, ...md.sdk].map((o) => key(o.method, o.path)));
    const extra = all.map(({ method, path }) => key(method, path)).filter((k) => !known.has(k));
    // POST /token/v2: the published sign-in client asks for another organization's token with POST (issue #16).
    // POST /oauth2/authorize: OpenID Connect Core §3.1.2.1 (GET and POST); /oauth2/logout: RP-Initiated Logout 1.0 (#37).
    // The deliveries of a webhook and the replay of a dead letter: "Faults survived, nothing lost".
    expect(extra.sort()).toEqual([
      'GET /events', 'GET /oauth2/logout', 'GET /organizations/webhooks/{webhook_id}/deliveries', 'POST /oauth2/authorize', 'POST /oauth2/logout',
      'POST /organizations/webhooks/{webhook_id}/deliveries/{delivery_id}/replay', 'POST /token/v2',
    ]);
  });

  it('uses only the 22 category tags of the site', () => {
    const allowed = new Set([...md.counts.keys(), 'identity-management']);
    expect(allowed.size).toBe(22);
    for (const { method, path, op } of all) for (const tag of op.tags ?? []) expect(allowed.has(tag), `${key(method, path)}: ${tag}`).toBe(true);
  });
});

// Validating every example against its schema takes about 5 s on a busy 2-core machine (vitest's default timeout).
describe('every operation is documented', { timeout: 30_000 }, () => {
  it('has a unique operationId, a summary and a description of its own', () => {
    const ids = all.map(({ op }) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    // Summaries title the reference pages: no two operations share one.
    const summaries = all.map(({ op }) => op.summary);
    expect(summaries.filter((x, i) => summaries.indexOf(x) !== i)).toEqual([]);
    const descriptions = new Set<string>();
    for (const { method, path, op } of all) {
      const where = key(method, path);
      expect(op.operationId, where).toMatch(/^[a-z][A-Za-z0-9]+$/);
      expect(op.summary?.length, where).toBeGreaterThan(5);
      expect(op.description?.length, where).toBeGreaterThan(60);
      expect(op.tags?.length, where).toBeGreaterThan(0);
      expect(op.security, `${where} security`).toBeDefined();
      descriptions.add(op.description ?? '');
    }
    // Descriptions are written per operation, not pasted: at most a handful of exact repeats (versioned twins).
    expect(all.length - descriptions.size).toBeLessThanOrEqual(Math.ceil(all.length * 0.1));
  });

  it('answers at least one 2xx, and every 2xx with a body has an example valid against its schema', () => {
    const problems: string[] = [];
    for (const { method, path, op } of all) {
      const where = key(method, path);
      const success = Object.entries(op.responses).filter(([status]) => /^2\d\d$/.test(status));
      if (success.length === 0 && !op.responses['302']) problems.push(`${where}: no 2xx answer`);
      for (const [status, raw] of success) {
        const response = resolve<{ content?: Record<string, MediaType> }>(doc, raw);
        if (!response.content) {
          if (status !== '204' && status !== '200') problems.push(`${where} ${status}: no content`);
          continue;
        }
        for (const [type, media] of Object.entries(response.content)) problems.push(...checkExamples(`${where} ${status} ${type}`, media));
      }
    }
    expect(problems).toEqual([]);
  });

  it('has request body examples valid against their schemas', () => {
    const problems: string[] = [];
    for (const { method, path, op } of all) {
      for (const [type, media] of Object.entries(op.requestBody?.content ?? {})) problems.push(...checkExamples(`${key(method, path)} body ${type}`, media));
    }
    expect(problems).toEqual([]);
  });

  it('has error answer examples valid against their schemas, and at least one 4xx per operation', () => {
    const problems: string[] = [];
    for (const { method, path, op } of all) {
      const errors = Object.entries(op.responses).filter(([status]) => /^4\d\d$/.test(status));
      if (errors.length === 0) problems.push(`${key(method, path)}: no 4xx`);
      for (const [status, raw] of errors) {
        const response = resolve<{ content?: Record<string, MediaType> }>(doc, raw);
        for (const [type, media] of Object.entries(response.content ?? {})) {
          problems.push(...checkExamples(`${key(method, path)} ${status} ${type}`, media));
          for (const [name, value] of examplesOf(media)) {
            const code = (value as { errors?: { httpcode: number }[] }).errors?.[0]?.httpcode;
            if (code !== undefined && String(code) !== status) problems.push(`${key(method, path)} ${status} ${name}: httpcode ${code}`);
          }
        }
      }
    }
    expect(problems).toEqual([]);
  });
});


describe('request validation is strict where the server must reject unknown input', () => {
  // Bodies that are free-form maps by design (attribute names are chosen by the integrator).
  const FREE_FORM = new Set(['#/components/schemas/Attributes']);
  // OAuth 2.0 / OpenID Connect protocol requests, where the standards say a server MUST ignore what it does not know
  // (RFC 6749 §3.1 and §3.2, RFC 7009 and 7662 by reference, OpenID Connect Core §3.1.2.1, RP-Initiated Logout §2).
  const PROTOCOL = new Set(['POST /oauth2/authorize', 'POST /oauth2/logout', 'POST /oauth2/tokens', 'POST /oauth2/tokens/revoke', 'POST /oauth2/tokens/introspect']);

  it('rejects an unknown top-level field in every request body', () => {
    const problems: string[] = [];
    for (const { method, path, op } of all) {
      for (const [type, media] of Object.entries(op.requestBody?.content ?? {})) {
        if (!media.schema || FREE_FORM.has(String(media.schema.$ref)) || PROTOCOL.has(key(method, path))) continue;
        const validate = validatorFor(media.schema);
        for (const [name, value] of examplesOf(media)) {
          if (value && typeof value === 'object' && validate({ ...value, unexpected_field: 1 })) {
            problems.push(`${key(method, path)} ${type} (${name}) accepts unexpected_field`);
          }
        }
      }
    }
    expect(problems).toEqual([]);
  });
});

describe('management conventions of api-operations.md', () => {
  const sdkKeys = new Set(md.sdk.map((o) => key(o.method, o.path)));
  // oidc-discovery documents are public by nature (OpenID Connect Discovery).
  const management = md.listed.filter((o) => !o.auth && o.tag !== 'oidc-discovery' && !sdkKeys.has(key(o.method, o.path)));

  it('management operations authenticate with Keyway-API-Key, alone or with Keyway-OrgID', () => {
    expect(management.length).toBeGreaterThan(100);
    for (const o of management) {
      expect(doc.paths[o.path]?.[o.method]?.security, key(o.method, o.path)).toEqual([{ OrgId: [], ApiKey: [] }, { ApiKey: [] }]);
    }
  });

  it('management writes accept the consistency headers and document 408', () => {
    const paramNames = (op: (typeof all)[number]['op']) => (op.parameters ?? []).map((p) => resolve<{ name: string }>(doc, p).name);
    const writes = all.filter(({ method, op }) => method !== 'get' && JSON.stringify(op.security) === JSON.stringify([{ OrgId: [], ApiKey: [] }, { ApiKey: [] }]));
    expect(writes.length).toBeGreaterThan(60);
    for (const { method, path, op } of writes) {
      const names = paramNames(op);
      // Read-only queries sent as POST (/rbac/check, /sso/oidc/tokens/query) have nothing to replicate.
      if (/\/(check|query)$/.test(path)) continue;
      expect(names, key(method, path)).toEqual(expect.arrayContaining(['Keyway-Required-Consistency', 'Keyway-Required-Consistency-Timeout']));
      expect(op.responses['408'], key(method, path)).toBeDefined();
    }
  });

  it('paginated lists take limit (at most 1000) and offset and return meta.pagination', () => {
    const lists = all.filter(({ op }) => (op.parameters ?? []).some((p) => resolve<{ name: string }>(doc, p).name === 'limit'));
    expect(lists.map(({ method, path }) => key(method, path))).toContain('GET /persons');
    for (const { method, path, op } of lists) {
      const limit = resolve<{ schema: { maximum: number } }>(doc, (op.parameters ?? []).find((p) => resolve<{ name: string }>(doc, p).name === 'limit')!);
      expect(limit.schema.maximum, key(method, path)).toBe(1000);
      const ok = resolve<{ content: Record<string, MediaType> }>(doc, op.responses['200']!);
      expect(ok.content['application/json']?.example, key(method, path)).toHaveProperty('meta.pagination.total_count');
    }
  });
});
