/**
 * Chromium test harness: the real identity server (in-process, temporary SQLite), a static page on
 * http://localhost serving browser/app.tsx bundled with React (esbuild), and Debian Chromium.
 */
import { build } from 'esbuild';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import type { IdentityServer } from '@keyway/identity-server';
import { launchChromium } from '@keyway/test-support';
import { startServer } from '../test/api.js';

const here = path.dirname(fileURLToPath(import.meta.url));

export interface Harness {
  api: IdentityServer;
  origin: string;
  /** Size of the page bundle (React, @keyway/react, @keyway/sdk), minified, in bytes. */
  bundleBytes: number;
  /** Opens the test page with a scene. */
  open(scene: string): Promise<Page>;
  close(): Promise<void>;
}

export async function startHarness(): Promise<Harness> {
  const bundle = await build({
    entryPoints: [path.join(here, 'app.tsx')],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    jsx: 'automatic',
    define: { 'process.env.NODE_ENV': '"production"' },
    write: false,
  });
  const js = bundle.outputFiles[0]!.contents;
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>@keyway/react test</title></head>
<body><div id="root"></div><script type="module" src="/app.js"></script></body></html>`;
  const web: Server = createServer((req, res) => {
    if (req.url === '/app.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(js);
    else res.writeHead(200, { 'content-type': 'text/html' }).end(html);
  });
  await new Promise<void>((r) => web.listen(0, '127.0.0.1', r));
  const origin = `http://localhost:${(web.address() as AddressInfo).port}`;
  const server = await startServer([origin]);
  const api = server.api;
  // Only loopback hosts resolve: the page reaches our servers unchanged and nothing else (no interception).
  const browser: Browser = await launchChromium();
  return {
    api,
    origin,
    bundleBytes: js.byteLength,
    async open(scene) {
      const page = await browser.newPage();
      page.on('pageerror', (e) => console.error('page error:', e));
      await page.goto(`${origin}/?scene=${scene}&api=${encodeURIComponent(api.url)}&oid=${api.orgId}`);
      return page;
    },
    async close() {
      await browser.close();
      await server.close();
      await new Promise((r) => web.close(r));
    },
  };
}
