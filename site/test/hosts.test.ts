// One set of Keyway hosts across the whole site. The API and SDK-page hosts are the ones the SDK's `environment` option
// resolves to (asked of the SDK itself, not copied here); the other hosts are the product's hosted parts the docs may name,
// each listed once with what it is. Requests to the Keyway API (an operation of api/openapi.yaml, OAuth 2.0, the
// well-known documents) go to an API host or to the local server only.
import fs from 'node:fs';
import path from 'node:path';
import { resolveConfig } from '@keyway/sdk';
import { describe, expect, it } from 'vitest';
import { findOperations, siteDir } from './docs-helpers';
import { loadContract } from '@keyway/api';

const repo = path.resolve(siteDir, '..');
const environments = (['production', 'sandbox'] as const).map((environment) => resolveConfig({ environment, analytics: false }));
const API_HOSTS = new Set(environments.map((c) => new URL(c.baseURL).host));
const SDK_HOSTS = new Set(environments.map((c) => new URL(c.sdkURL).host));
/** The hosted parts of the product the docs name besides the API, and what each is. */
const HOSTED_PARTS: Record<string, string> = {
  'keyway.dev': 'company website: homepage, blog, legal pages, published JSON schemas',
  'console.keyway.dev': 'the Keyway console (sign-up, organization settings)',
  'downloads.keyway.dev': 'Gate binaries and release files',
  'registry.keyway.dev': 'Gate container images',
  'ingest.keyway.dev': 'Identity Protection event intake of streaming connections',
  'beacon.keyway.dev': 'Identity Protection phishing-detection beacons',
};
const ALLOWED = new Set([...API_HOSTS, ...SDK_HOSTS, ...Object.keys(HOSTED_PARTS)]);
const LOCAL = /^(localhost|127\.0\.0\.1)(:\d+)?$/;

/** Files a reader sees the text of: docs, pages and components, the site configuration, the API contract and the READMEs. */
function sources(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (!['node_modules', 'build', '.docusaurus', 'test', '__tests__'].includes(e.name)) walk(p);
      } else if (/\.(mdx?|tsx?|mjs|json|ya?ml)$/.test(e.name) && !/\.test\.tsx?$/.test(e.name)) out.push(p);
    }
  };
  for (const d of ['site/docs', 'site/src', 'site/plugins', 'packages/sdk/src', 'packages/react/src', 'api/src']) walk(path.join(repo, d));
  out.push(...['site/docusaurus.config.ts', 'api/openapi.yaml', 'README.md', 'packages/sdk/README.md', 'packages/react/README.md'].map((f) => path.join(repo, f)));
  return out.filter((f) => fs.existsSync(f));
}

const KEYWAY_HOST = /(?<![@\w.-])((?:[a-z0-9-]+\.)*keyway\.(?:dev|io|com|net|org|app|cloud|ai|co|sh))(?![\w-])/gi;
const URL_RE = /\bhttps?:\/\/([A-Za-z0-9.-]+(?::\d+)?)(\/[^\s"'`)\]<>{}\\,]*)?/g;
const API_PATH = (p: string) =>
  p.startsWith('/oauth2/') || p.startsWith('/.well-known/') || ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].some((m) => findOperations(m, p).length > 0);

describe('Keyway hosts across the site', () => {
  const files = sources();

  it('come from the SDK: one production and one sandbox API host', () => {
    expect([...API_HOSTS].sort()).toEqual(['api.keyway.dev', 'api.sandbox.keyway.dev']);
    expect(files.length).toBeGreaterThan(300);
  });

  it('are only the SDK hosts and the listed hosted parts', () => {
    const found = new Map<string, string[]>();
    for (const f of files) {
      const text = fs.readFileSync(f, 'utf8');
      for (const m of text.matchAll(KEYWAY_HOST)) {
        const host = (m[1] ?? '').toLowerCase();
        if (!ALLOWED.has(host)) found.set(host, [...(found.get(host) ?? []), path.relative(repo, f)]);
      }
    }
    expect(Object.fromEntries([...found].map(([h, where]) => [h, [...new Set(where)].slice(0, 5)]))).toEqual({});
  });

  it('send API requests to an API host or the local server, never to another host', () => {
    const wrong: string[] = [];
    let apiUrls = 0;
    for (const f of files) {
      const text = fs.readFileSync(f, 'utf8');
      for (const m of text.matchAll(URL_RE)) {
        const host = (m[1] ?? '').toLowerCase();
        const p = (m[2] ?? '/').split(/[?#]/)[0] ?? '/';
        if (!/keyway\./.test(host) && !LOCAL.test(host)) continue;
        if (!API_PATH(p)) continue;
        apiUrls++;
        if (!API_HOSTS.has(host) && !LOCAL.test(host)) wrong.push(`${path.relative(repo, f)}: ${m[0]}`);
      }
    }
    expect(apiUrls).toBeGreaterThan(100);
    expect(wrong).toEqual([]);
  });

  it('are the servers of the API contract', () => {
    const spec = loadContract().doc as { servers: { url: string }[] };
    const servers = spec.servers.map((s) => new URL(s.url).host);
    expect(servers.filter((h) => !LOCAL.test(h)).sort()).toEqual([...API_HOSTS].sort());
  });
});
