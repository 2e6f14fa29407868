import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createDocsServer } from '../src/server.js';

// A miniature build laid out the way Docusaurus writes one with trailingSlash: false.
const page = (title: string, inline = 'document.documentElement.dataset.theme="light"') =>
  `<!doctype html><html><head><title>${title} | Keyway Docs</title><script>${inline}</script>` +
  `<script src="/assets/js/main.abc123.js" defer></script></head><body><h1>${title}</h1></body></html>`;
const fixture: Record<string, string> = {
  'index.html': page('Home'),
  '404.html': page('Page Not Found'),
  'docs/intro.html': page('Introduction'),
  'docs/access/index.html': page('Identity Management'),
  'docs/gate/faq.html': page('FAQ'),
  'assets/js/main.abc123.js': `console.log(${JSON.stringify('x'.repeat(4000))});`,
  'img/logo.svg': '<svg xmlns="http://www.w3.org/2000/svg"></svg>',
  'search-index.json': '{"documentCount":0}',
};

let dir: string;
let app: FastifyInstance;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-server-'));
  for (const [rel, body] of Object.entries(fixture)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), body);
  }
  const js = path.join(dir, 'assets/js/main.abc123.js');
  fs.writeFileSync(`${js}.br`, zlib.brotliCompressSync(fs.readFileSync(js)));
  fs.writeFileSync(`${js}.gz`, zlib.gzipSync(fs.readFileSync(js)));
  app = await createDocsServer({ siteDir: dir, connectSrc: ['http://localhost:8787'] });
});
afterAll(async () => {
  await app.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const get = (url: string, headers: Record<string, string> = {}) => app.inject({ method: 'GET', url, headers });

describe('routes', () => {
  it('serves clean routes from .html and /index.html files', async () => {
    for (const [url, title] of [['/', 'Home'], ['/docs/intro', 'Introduction'], ['/docs/access', 'Identity Management']] as const) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(200);
      expect(res.body).toContain(`<h1>${title}</h1>`);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
    }
  });

  it('redirects .html, /index.html and trailing slashes to the clean path, keeping the query', async () => {
    const cases = [
      ['/docs/intro.html', '/docs/intro'],
      ['/docs/access/index.html', '/docs/access'],
      ['/index.html', '/'],
      ['/docs/intro/', '/docs/intro'],
      ['/docs/gate/faq/?q=1', '/docs/gate/faq?q=1'],
      ['/docs/access.html', '/docs/access'],
    ];
    for (const [from, to] of cases) {
      const res = await get(from!);
      expect(res.statusCode, from).toBe(301);
      expect(res.headers.location, from).toBe(to);
    }
  });

  it('answers unknown paths with the not-found page and status 404, including /404 itself', async () => {
    for (const url of ['/nope', '/docs/intro/extra', '/docs/nope.html', '/404', '/404.html', '/docs//intro']) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(404);
      expect(res.body, url).toContain('Page Not Found');
    }
  });

  it('never serves a file outside the build, and rejects malformed paths with 400', async () => {
    // Dot segments are resolved before routing, so they can only reach paths inside the site.
    const traversal = await get('/docs/%2e%2e/%2e%2e/%2e%2e/etc/passwd');
    expect(traversal.statusCode).toBe(404);
    expect(traversal.body).toContain('Page Not Found');
    for (const url of ['/%E0%A4%A', '/docs/%00intro', '/docs/%5c..%5cintro']) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(400);
    }
  });

  it('answers other methods with 405 and the allowed ones', async () => {
    const res = await app.inject({ method: 'POST', url: '/docs/intro', payload: { a: 1 } });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD');
  });

  it('answers 404 for a file removed from the build after start (e.g. a deploy in progress), not 405', async () => {
    const extra = path.join(dir, 'assets/js/gone.def456.js');
    fs.writeFileSync(extra, 'console.log(1)');
    const other = await createDocsServer({ siteDir: dir });
    try {
      expect((await other.inject({ method: 'GET', url: '/assets/js/gone.def456.js' })).statusCode).toBe(200);
      fs.rmSync(extra);
      const res = await other.inject({ method: 'GET', url: '/assets/js/gone.def456.js' });
      expect(res.statusCode).toBe(404);
      expect(res.headers['cache-control']).toBe('no-cache');
    } finally {
      await other.close();
      fs.rmSync(extra, { force: true });
    }
  });

  it('reports health', async () => {
    const res = await get('/healthz');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok', pages: 5 });
  });
});

describe('headers', () => {
  it('caches hashed assets forever and revalidates pages', async () => {
    expect((await get('/assets/js/main.abc123.js')).headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect((await get('/docs/intro')).headers['cache-control']).toBe('no-cache');
    expect((await get('/search-index.json')).headers['cache-control']).toBe('no-cache');
    expect((await get('/nope')).headers['cache-control']).toBe('no-cache');
  });

  it('sends the precompressed body the client accepts, with Vary', async () => {
    const br = await get('/assets/js/main.abc123.js', { 'accept-encoding': 'br, gzip' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toContain('Accept-Encoding');
    expect(zlib.brotliDecompressSync(br.rawPayload).toString()).toBe(fixture['assets/js/main.abc123.js']);
    const gz = await get('/assets/js/main.abc123.js', { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    const plain = await get('/assets/js/main.abc123.js');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe(fixture['assets/js/main.abc123.js']);
  });

  it('sets security headers and a CSP that allows exactly the page’s own inline script', async () => {
    const res = await get('/docs/intro');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('strict-origin-when-cross-origin');
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("object-src 'none'");
    expect(csp).toContain('connect-src \'self\' http://localhost:8787');
    const hash = (await import('node:crypto')).createHash('sha256').update('document.documentElement.dataset.theme="light"').digest('base64');
    expect(csp).toContain(`script-src 'self' 'sha256-${hash}'`);
    expect(csp.split(';').find((d) => d.trim().startsWith('script-src'))).not.toContain('unsafe-inline');
  });

  it('answers conditional requests with 304', async () => {
    const first = await get('/docs/intro');
    const again = await get('/docs/intro', { 'if-none-match': String(first.headers.etag) });
    expect(again.statusCode).toBe(304);
  });
});

describe('start-up', () => {
  it('refuses to start without a build, naming the directory', async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-empty-'));
    await expect(createDocsServer({ siteDir: empty })).rejects.toThrow(`No site build at ${empty}`);
  });
});
