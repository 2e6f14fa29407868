// Docs for agents on the docs server: Markdown twins, llms.txt, and the MCP server over Streamable HTTP and stdio, each
// checked with real clients (fetch, the MCP SDK's Client) against a miniature build and a real identity server.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startTestIdentityServer } from '@keyway/identity-server/testing';
import { startDocsServer, type StartedDocsServer } from '../src/server.js';
import type { AgentOperation, AgentPage } from '../src/agents/pages.js';
import { anonymousTokenAt, signInAt } from './gate-fixture.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const SECRET = 'Zebrafinch rules fire when a session token is replayed from a second country.';
const html = (title: string, body: string) =>
  `<!doctype html><html><head><title>${title} | Keyway Docs</title><meta name="description" content="${title} page."></head><body><main><article><div class="theme-doc-markdown markdown"><header><h1>${title}</h1></header>${body}</div></article></main></body></html>`;
const twin = (title: string, route: string, body: string) => `---\ntitle: "${title}"\ndescription: "${title} page."\nurl: "${route}"\n---\n\n# ${title}\n\n${body}\n`;

const pages: AgentPage[] = [
  { route: '/docs/intro', title: 'Introduction', description: 'What Keyway is.', section: 'Overview', gated: false, file: 'docs/intro.md' },
  { route: '/docs/access/guides/m2m', title: 'Machine-to-machine access', description: 'Backend services with client credentials.', section: 'Access', gated: false, file: 'docs/access/guides/m2m.md' },
  { route: '/docs/identity-protection/detections/webhooks', title: 'Detection webhooks', description: 'Zebrafinch detections pushed to you.', section: 'Identity Protection', gated: true, file: 'docs/identity-protection/detections/webhooks.md' },
  { route: '/docs/api/get-me', title: 'Get the signed-in person', description: 'Returns the person.', section: 'API reference', gated: false, file: 'docs/api/get-me.md', operationId: 'getMe' },
];
const operations: AgentOperation[] = [
  { operationId: 'getMe', method: 'GET', path: '/me', summary: 'Get the signed-in person', description: '', tags: ['persons'], route: '/docs/api/get-me', parameters: [], responses: { '200': { description: 'Success.', content: { 'application/json': { schema: { $ref: '#/components/schemas/Person' } } } } }, security: [{ UserToken: [] }], schemas: { Person: { type: 'object', properties: { person_id: { type: 'string' } } } } },
  { operationId: 'getPerson', method: 'GET', path: '/persons/{person_id}', summary: 'Get a person', description: '', tags: ['persons'], route: '/docs/api/get-persons-person-id', parameters: [{ name: 'person_id', in: 'path', required: true }], responses: {}, security: [], schemas: {} },
];
const fixture: Record<string, string> = {
  'index.html': html('Home', '<p>Welcome.</p>'),
  '404.html': html('Page Not Found', '<p>Nothing here.</p>'),
  'docs/intro.html': html('Introduction', '<p>Keyway signs people in. Start with machine tokens.</p>'),
  'docs/intro.md': twin('Introduction', '/docs/intro', 'Keyway signs people in.'),
  'docs/access/guides/m2m.html': html('Machine-to-machine access', '<p>Backend services use client credentials to get machine tokens.</p>'),
  'docs/access/guides/m2m.md': twin('Machine-to-machine access', '/docs/access/guides/m2m', '```bash title="token.sh"\ncurl -u id:secret https://auth.keyway.dev/oauth2/tokens\n```'),
  'docs/identity-protection/detections/webhooks.html': html('Detection webhooks', `<p>${SECRET}</p>`),
  'docs/identity-protection/detections/webhooks.md': twin('Detection webhooks', '/docs/identity-protection/detections/webhooks', SECRET),
  'docs/api/get-me.html': html('Get the signed-in person', '<p>Returns the person.</p>'),
  'docs/api/get-me.md': twin('Get the signed-in person', '/docs/api/get-me', '`GET /me`'),
  'llms.txt': 'static anonymous llms.txt',
  'llms-full.txt': 'static anonymous llms-full.txt',
  '.agents/pages.json': JSON.stringify(pages),
  '.agents/operations.json': JSON.stringify(operations),
  '.gate-manifest.json': JSON.stringify({
    version: 1,
    prefixes: ['/docs/identity-protection/detections', '/docs/identity-protection/queries'],
    pages: ['docs/identity-protection/detections/webhooks.html'],
    assets: [],
  }),
};

let dir: string;
let identity: Awaited<ReturnType<typeof startTestIdentityServer>>;
let docs: StartedDocsServer;
let token: string;
let anonymous: string;
let cookie: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-agents-'));
  for (const [rel, body] of Object.entries(fixture)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), body);
  }
  identity = await startTestIdentityServer();
  docs = await startDocsServer({ siteDir: dir, port: 0, gate: { identityUrl: identity.url, orgId: identity.orgId, revalidateSeconds: 0 } });
  token = await signInAt(identity, 'agent.reader@example.com');
  anonymous = await anonymousTokenAt(identity);
  const session = await fetch(`${docs.url}/api/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }) });
  expect(session.status).toBe(200);
  cookie = String(session.headers.get('set-cookie')).split(';')[0]!;
}, 60_000);
afterAll(async () => {
  await docs?.close();
  await identity?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('pages as Markdown', () => {
  it('answers /<path>.md and Accept: text/markdown on the clean URL with the twin, as text/markdown; charset=utf-8', async () => {
    const md = await fetch(`${docs.url}/docs/access/guides/m2m.md`);
    expect(md.status).toBe(200);
    expect(md.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(await md.text()).toBe(fixture['docs/access/guides/m2m.md']);
    const negotiated = await fetch(`${docs.url}/docs/access/guides/m2m`, { headers: { accept: 'text/markdown, text/html;q=0.5' } });
    expect(negotiated.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(negotiated.headers.get('vary')).toMatch(/Accept\b/);
    expect(await negotiated.text()).toContain('```bash title="token.sh"');
    // A browser's Accept still gets the HTML page, which says it varies on Accept.
    const page = await fetch(`${docs.url}/docs/access/guides/m2m`, { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('vary')).toMatch(/\bAccept\b/);
  });

  it('refuses a gated twin without a docs session (401, nothing of it) and gives it with one', async () => {
    for (const init of [{ url: '/docs/identity-protection/detections/webhooks.md' }, { url: '/docs/identity-protection/detections/webhooks', headers: { accept: 'text/markdown' } }]) {
      const anon = await fetch(docs.url + init.url, { headers: init.headers });
      expect(anon.status, init.url).toBe(401);
      expect(anon.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
      expect(anon.headers.get('cache-control')).toBe('no-store');
      const body = await anon.text();
      expect(body).toContain('/login?redirect_to=%2Fdocs%2Fidentity-protection%2Fdetections%2Fwebhooks');
      expect(body).not.toContain('Zebrafinch');
      const signed = await fetch(docs.url + init.url, { headers: { ...init.headers, cookie } });
      expect(signed.status, init.url).toBe(200);
      expect(signed.headers.get('cache-control')).toMatch(/^private/);
      expect(await signed.text()).toContain(SECRET);
    }
  });

  it('serves the index files never, and unknown twins as not found', async () => {
    for (const p of ['/.agents/pages.json', '/.agents/operations.json', '/docs/nowhere.md']) expect((await fetch(docs.url + p)).status, p).toBe(404);
  });
});

describe('llms.txt and llms-full.txt', () => {
  it('list the public pages for anonymous readers, and the gated ones too for signed-in readers, with this site\'s URLs', async () => {
    const anon = await (await fetch(`${docs.url}/llms.txt`)).text();
    expect(anon).toContain(`- [Machine-to-machine access](${docs.url}/docs/access/guides/m2m.md): Backend services with client credentials.`);
    expect(anon).toContain('## API reference');
    expect(anon).not.toContain('Detection webhooks');
    const signed = await (await fetch(`${docs.url}/llms.txt`, { headers: { cookie } })).text();
    expect(signed).toContain(`- [Detection webhooks](${docs.url}/docs/identity-protection/detections/webhooks.md)`);

    const fullAnon = await fetch(`${docs.url}/llms-full.txt`, { headers: { 'accept-encoding': 'identity' } });
    expect(fullAnon.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    const text = await fullAnon.text();
    expect(text).toContain('curl -u id:secret');
    expect(text).not.toContain('Zebrafinch');
    expect(await (await fetch(`${docs.url}/llms-full.txt`, { headers: { cookie } })).text()).toContain(SECRET);
  });
});

type ToolText = { content: { type: string; text: string }[]; isError?: boolean };
const textOf = (r: unknown) => (r as ToolText).content.map((c) => c.text).join('\n');

async function httpClient(headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'agents-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${docs.url}/mcp`), { requestInit: { headers } }));
  return client;
}

describe('the MCP server over Streamable HTTP (/mcp)', () => {
  it('lists its four tools, searches like /api/search, reads pages and API operations', async () => {
    const client = await httpClient();
    try {
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['get_api_operation', 'get_page', 'list_pages', 'search_docs']);

      const search = textOf(await client.callTool({ name: 'search_docs', arguments: { query: 'client credentials' } }));
      const api = (await (await fetch(`${docs.url}/api/search?q=${encodeURIComponent('client credentials')}`)).json()) as { results: { url: string }[] };
      expect(api.results.length).toBeGreaterThan(0);
      const urls = [...search.matchAll(/^ {3}(http\S+)$/gm)].map((m) => m[1]!.slice(docs.url.length));
      expect(urls).toEqual(api.results.map((r) => r.url));
      expect(search).toContain(`Markdown: ${docs.url}/docs/access/guides/m2m.md`);

      const page = await client.callTool({ name: 'get_page', arguments: { path: `${docs.url}/docs/access/guides/m2m` } });
      expect(textOf(page)).toBe(fixture['docs/access/guides/m2m.md']);
      const missing = (await client.callTool({ name: 'get_page', arguments: { path: '/docs/nowhere' } })) as ToolText;
      expect(missing.isError).toBe(true);
      expect(textOf(missing)).toContain('No page of the Keyway docs at /docs/nowhere');

      const list = textOf(await client.callTool({ name: 'list_pages', arguments: { section: 'API reference' } }));
      expect(list).toBe(`## API reference\n\n- [Get the signed-in person](${docs.url}/docs/api/get-me.md): Returns the person.`);
      expect(textOf(await client.callTool({ name: 'list_pages', arguments: {} }))).not.toContain('Detection webhooks');

      const byId = textOf(await client.callTool({ name: 'get_api_operation', arguments: { operationId: 'getMe' } }));
      expect(byId).toContain('GET /me: Get the signed-in person');
      expect(byId).toContain('"Person": {');
      const byPath = textOf(await client.callTool({ name: 'get_api_operation', arguments: { method: 'get', path: '/persons/pid:abc' } }));
      expect(byPath).toContain('GET /persons/{person_id}: Get a person');
      const bad = (await client.callTool({ name: 'get_api_operation', arguments: { method: 'GET' } })) as ToolText;
      expect(bad.isError).toBe(true);
      expect(textOf(bad)).toBe('Give "operationId", or both "method" and "path".');
    } finally {
      await client.close();
    }
  });

  it('gives a gated page only to a signed-in reader: docs session cookie or bearer user token, never an anonymous person', async () => {
    const gated = { name: 'get_page', arguments: { path: '/docs/identity-protection/detections/webhooks' } };
    const cases: [string, Record<string, string>, boolean, string][] = [
      ['no credentials', {}, false, 'needs a signed-in reader'],
      ['anonymous person token', { authorization: `Bearer ${anonymous}` }, false, 'an anonymous token does not sign in'],
      ['not a token', { authorization: 'Bearer nonsense' }, false, 'not a Keyway user token'],
      ['bearer user token', { authorization: `Bearer ${token}` }, true, SECRET],
      ['docs session cookie', { cookie }, true, SECRET],
    ];
    for (const [label, headers, allowed, expected] of cases) {
      const client = await httpClient(headers);
      try {
        const result = (await client.callTool(gated)) as ToolText;
        expect(Boolean(result.isError), label).toBe(!allowed);
        expect(textOf(result), label).toContain(expected);
        if (!allowed) expect(textOf(result), label).not.toContain('Zebrafinch');
        const search = textOf(await client.callTool({ name: 'search_docs', arguments: { query: 'zebrafinch replayed' } }));
        expect(search.includes('Detection webhooks'), label).toBe(allowed);
      } finally {
        await client.close();
      }
    }
  });

  it('refuses requests from other sites and other methods', async () => {
    const foreign = await fetch(`${docs.url}/mcp`, { method: 'POST', headers: { origin: 'https://evil.example', 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
    expect(foreign.status).toBe(403);
    expect((await fetch(`${docs.url}/mcp`)).status).toBe(405);
  });
});

describe('the MCP server over stdio (npx keyway-docs-mcp)', () => {
  const bin = path.resolve(here, '../dist/mcp-stdio.js');
  const stdioClient = async (env: Record<string, string>) => {
    const client = new Client({ name: 'agents-test-stdio', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [bin], env: { PATH: process.env.PATH ?? '', ...env }, stderr: 'pipe' }));
    return client;
  };

  it('forwards to the docs server: tools, search, pages; gated pages with KEYWAY_USER_TOKEN only', async () => {
    expect(fs.existsSync(bin), 'build the package first: npm run build -w @keyway/docs-server').toBe(true);
    const anon = await stdioClient({ KEYWAY_DOCS_URL: docs.url });
    try {
      expect((await anon.listTools()).tools).toHaveLength(4);
      expect(textOf(await anon.callTool({ name: 'get_page', arguments: { path: '/docs/intro.md' } }))).toContain('# Introduction');
      const refused = (await anon.callTool({ name: 'get_page', arguments: { path: '/docs/identity-protection/detections/webhooks' } })) as ToolText;
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toContain('KEYWAY_USER_TOKEN');
    } finally {
      await anon.close();
    }
    const signed = await stdioClient({ KEYWAY_DOCS_URL: docs.url, KEYWAY_USER_TOKEN: token });
    try {
      expect(textOf(await signed.callTool({ name: 'get_page', arguments: { path: '/docs/identity-protection/detections/webhooks' } }))).toContain(SECRET);
    } finally {
      await signed.close();
    }
    const withAnonymous = await stdioClient({ KEYWAY_DOCS_URL: docs.url, KEYWAY_USER_TOKEN: anonymous });
    try {
      const result = (await withAnonymous.callTool({ name: 'get_page', arguments: { path: '/docs/identity-protection/detections/webhooks' } })) as ToolText;
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('an anonymous token does not sign in');
    } finally {
      await withAnonymous.close();
    }
  }, 30_000);

  it('says what is wrong when the docs server cannot be reached', async () => {
    const { spawnSync } = await import('node:child_process');
    const run = spawnSync(process.execPath, [bin], { env: { PATH: process.env.PATH ?? '', KEYWAY_DOCS_URL: 'http://127.0.0.1:9' }, input: '', encoding: 'utf8', timeout: 15_000 });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('cannot reach the docs\' MCP endpoint http://127.0.0.1:9/mcp');
    const bad = spawnSync(process.execPath, [bin], { env: { PATH: process.env.PATH ?? '', KEYWAY_DOCS_URL: 'ftp://x' }, input: '', encoding: 'utf8', timeout: 15_000 });
    expect(bad.stderr).toContain('KEYWAY_DOCS_URL must be the http(s) URL of a Keyway docs server');
  }, 40_000);
});
