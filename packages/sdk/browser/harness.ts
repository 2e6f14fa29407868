/**
 * Browser test harness: the real identity server (in-process, temporary SQLite), a static page on
 * http://localhost that loads the SDK bundle (built from src with esbuild), and Debian Chromium.
 */
import { build } from 'esbuild';
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, type CDPSession, type Page } from 'playwright-core';
import { answerLink, startTestIdentityServer, type TestServer } from '@keyway/identity-server/testing';
import { launchChromium } from '@keyway/test-support';

const root = fileURLToPath(new URL('..', import.meta.url));

export interface Harness {
  api: TestServer;
  origin: string;
  browser: Browser;
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

/** Newest dev-mailbox entry for `to` that arrived after `after` (ISO time). */
export async function mailbox(api: { url: string }, to: string, after = ''): Promise<{ code?: string; link?: string; created_at: string }> {
  for (let i = 0; i < 100; i++) {
    const r = (await (await fetch(`${api.url}/dev/mailbox.json?to=${encodeURIComponent(to)}`)).json()) as {
      result: Array<{ code?: string; link?: string; created_at: string }>;
    };
    const m = r.result.find((x) => x.created_at > after);
    if (m) return m;
    await new Promise((res) => setTimeout(res, 100));
  }
  throw new Error(`no message for ${to}`);
}

/**
 * The owner of `to` opens the sign-in link sent there after `after` (read from the dev mailbox) and answers its page
 * (`confirm`: “Yes, sign me in”). Returns the status of the answer (200: the page that says the tab continues).
 */
export async function answerMailedLink(api: { url: string }, to: string, after: string, decision: 'confirm' | 'deny' = 'confirm'): Promise<number> {
  const { link } = await mailbox(api, to, after);
  if (!link) throw new Error(`the newest message to ${to} holds no link`);
  return (await answerLink(link, decision)).status;
}

/**
 * Gives the page Chromium's virtual authenticator (CDP `WebAuthn`): a user-verifying platform authenticator with
 * resident keys that answers every prompt at once, or never with `presence: false`. Returns its id.
 */
export async function virtualAuthenticator(page: Page, presence = true): Promise<{ cdp: CDPSession; authenticatorId: string }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: presence },
  });
  return { cdp, authenticatorId };
}

/** RFC 6238 TOTP (SHA-1, 6 digits, 30 s) of an otpauth:// URI's secret. */
export function totp(keyUri: string, at = Date.now()): string {
  const secret = new URL(keyUri).searchParams.get('secret') ?? '';
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const c of secret.replace(/=+$/, '').toUpperCase()) bits += alphabet.indexOf(c).toString(2).padStart(5, '0');
  const key = Buffer.from(bits.match(/.{8}/g)!.map((b) => parseInt(b, 2)));
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(at / 30_000)));
  const h = createHmac('sha1', key).update(counter).digest();
  const o = h[h.length - 1]! & 15;
  return String((h.readUInt32BE(o) & 0x7fffffff) % 1_000_000).padStart(6, '0');
}

export async function startHarness(): Promise<Harness> {
  const bundle = await build({
    entryPoints: [path.join(root, 'src/index.ts')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
  });
  const js = bundle.outputFiles[0]!.text;
  const html = `<!doctype html><html><head><meta charset="utf-8"><title>sdk test</title></head><body>
<script type="module">import * as K from '/sdk.js'; window.K = K; window.sdkReady = true;
// SSO return page: inside a popup, handleURL hands the parameters to the opener and closes the window.
// Stand-in identity provider: waits a moment, then sends the browser back to ?next=.
if (location.pathname === '/idp') setTimeout(() => location.assign(new URLSearchParams(location.search).get('next')), 700);
if (location.pathname === '/sso-return') K.handleURL(new K.KeywayClient({ baseURL: 'https://unused.invalid', analytics: false }), {});
</script></body></html>`;
  const web: Server = createServer((req, res) => {
    if (req.url === '/sdk.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(js);
    else res.writeHead(200, { 'content-type': 'text/html' }).end(html);
  });
  await new Promise<void>((r) => web.listen(0, '127.0.0.1', r));
  const origin = `http://localhost:${(web.address() as AddressInfo).port}`;
  const api = await startTestIdentityServer({ corsOrigins: [origin], limits: { perHandlePerMinute: 1000, perIpPerMinute: 10_000, passkeyTimeoutSeconds: 15 } });
  // Only loopback hosts resolve: the page reaches our servers unchanged and nothing else (no interception).
  const browser = await launchChromium();
  return {
    api,
    origin,
    browser,
    async newPage() {
      const page = await browser.newPage();
      page.on('pageerror', (e) => console.error('page error:', e));
      await page.goto(origin + '/');
      await page.waitForFunction(() => (window as unknown as { sdkReady?: boolean }).sdkReady === true);
      return page;
    },
    async close() {
      await browser.close();
      await new Promise((r) => web.close(r));
      await api.stop();
    },
  };
}
