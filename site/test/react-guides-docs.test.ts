// Checks for the React SDK guides, tutorials and sample projects and the Remix quick start
// (site/docs/access/react-sdk/{guides,tutorials}/**, react-sdk/sample-projects.md, remix-sdk/tutorials/**).
// Pages are compiled the way Docusaurus reads them; every ts/tsx block is type-checked against the installed
// @keyway/react, @keyway/sdk and react; the facts the quickstart states about the local identity server
// (organization id, dev mailbox, CORS of KEYWAY_CORS_ORIGINS) are checked against the server started in-process.
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_DEV_ORG_ID } from '@keyway/identity-server';
import {
  allRoutes,
  API_HOST,
  categoryProblems,
  citedOperationProblems,
  docsDir,
  frontMatterProblems,
  headingProblems,
  here,
  linkProblems,
  readPage,
  startLocalServer,
  type LocalServer,
  typeCheck,
  walk,
  wordingProblems,
  type LiveServer,
  type Page,
} from './docs-helpers';

const accessDir = path.join(docsDir, 'access');
const ROOM_DIRS = ['react-sdk/guides', 'react-sdk/tutorials', 'remix-sdk/tutorials'].map((d) => path.join(accessDir, d));
const ROOM_FILES = [path.join(accessDir, 'react-sdk/sample-projects.md')];

// The titles the routes were published with.
const TITLES: Record<string, string> = {
  'react-sdk/guides/anonymous-users': 'Anonymous users',
  'react-sdk/guides/authentication-for-remix': 'Authentication for Remix',
  'react-sdk/guides/form-composition': 'Form composition',
  'react-sdk/guides/logging-in-and-out': 'Logging in and out',
  'react-sdk/guides/setup': 'Setting up the React SDK',
  'react-sdk/guides/signup-components': 'Sign-up components',
  'react-sdk/sample-projects': 'Sample projects',
  'react-sdk/tutorials/mfa': 'Tutorial: multi-factor authentication',
  'react-sdk/tutorials/quickstart': 'React quickstart',
  'remix-sdk/tutorials/quick-start': 'Remix quick start',
};

// Remix is not a dependency of this repository: its route modules are checked against this declaration of the
// few Remix APIs the pages use (same names and shapes as Remix 2), everything Keyway against the real packages.
const REMIX_DECLARATIONS = `
declare module '@remix-run/node' {
  export type LoaderFunctionArgs = { request: Request; params: Record<string, string | undefined>; context: unknown };
  export function redirect(url: string, init?: number | ResponseInit): Response;
}
declare module '@remix-run/react' {
  import type { ReactNode } from 'react';
  export function Links(): ReactNode;
  export function Meta(): ReactNode;
  export function Outlet(): ReactNode;
  export function Scripts(): ReactNode;
  export function ScrollRestoration(): ReactNode;
  export function useNavigate(): (to: string) => void;
  export function useLocation(): { pathname: string; search: string; hash: string };
  export type ClientLoaderFunctionArgs = { request: Request; params: Record<string, string | undefined>; serverLoader: () => Promise<unknown> };
  export function useLoaderData<T>(): T extends (...args: never[]) => Promise<infer R> ? R : never;
}
`;

let pages: Page[] = [];
const byRoute = new Map<string, Page>();
const keyOf = (p: Page) => p.route.replace('/docs/access/', '');
function page(key: string): Page {
  const p = byRoute.get(`/docs/access/${key}`);
  if (!p) throw new Error(`no page for /docs/access/${key}`);
  return p;
}

beforeAll(async () => {
  const files = [...ROOM_DIRS.flatMap((d) => walk(d)), ...ROOM_FILES].filter((f) => /\.mdx?$/.test(f)).sort();
  pages = await Promise.all(files.map((f) => readPage(f, accessDir)));
  for (const p of pages) byRoute.set(p.route, p);
});

/**
 * The ts/tsx blocks of a page as virtual files, named after the file path of their `title="…"` (so the blocks of one page
 * may import each other, `import { App } from './App'`, `from '../keyway.server'`), else by position.
 */
function blocksOf(p: Page): { name: string; source: string }[] {
  return p.code
    .filter((c) => ['ts', 'tsx'].includes(c.lang))
    .map((c, i) => {
      const titled = /title="([\w.$/-]+?)\.tsx?"/.exec(c.meta)?.[1];
      return { name: titled ?? `block-${i}`, source: c.value };
    });
}

describe('the React SDK guides and tutorials room', () => {
  it('has exactly one page per route, with the published titles', () => {
    const expected = [...allRoutes].filter((r) => Object.keys(TITLES).some((k) => r === `/docs/access/${k}`)).sort();
    expect(expected).toHaveLength(10);
    expect(pages.map((p) => p.route).sort()).toEqual(expected);
    for (const p of pages) expect(p.data.title, p.rel).toBe(TITLES[keyOf(p)]);
  });

  it('has a valid _category_.json in every folder', () => {
    expect(categoryProblems(ROOM_DIRS)).toEqual([]);
  });

  it('gives every page a short sidebar_label, a one-sentence description and a unique sidebar_position', () => {
    expect(frontMatterProblems(pages)).toEqual([]);
  });

  it('compiles every page with unique headings and the sections of a guide', () => {
    for (const p of pages) {
      expect(headingProblems(p)).toEqual([]);
      const h2 = p.headings.filter((h) => h.depth === 2).map((h) => h.text.toLowerCase());
      if (keyOf(p) !== 'react-sdk/sample-projects')
        expect(h2.some((t) => t.includes('prerequisites') || t.includes('before you begin')), `${p.rel}: prerequisites`).toBe(true);
      expect(h2.some((t) => t.includes('troubleshooting')), `${p.rel}: troubleshooting`).toBe(true);
      expect(h2.some((t) => t.includes('next steps')), `${p.rel}: next steps`).toBe(true);
    }
  });

  it('has at least 300 words of prose on every page and no banned wording', () => {
    if (process.env.SHOW_WORDS) console.log(pages.map((p) => `${p.words}\t${p.rel}`).join('\n'));
    expect(pages.flatMap((p) => wordingProblems(p))).toEqual([]);
  });

  it('links only to routes that exist and to headings that exist, and to two other pages at least', () => {
    expect(pages.flatMap((p) => linkProblems(p, byRoute))).toEqual([]);
    for (const p of pages) expect(new Set(p.links.map((l) => l.split('#')[0]).filter(Boolean)).size, `${p.rel} links`).toBeGreaterThanOrEqual(2);
  });

  it('keeps the package-manager tabs of the setup page', () => {
    const setup = page('react-sdk/guides/setup');
    expect(setup.file.endsWith('.mdx')).toBe(true);
    expect(setup.raw).toMatch(/import Tabs from '@theme\/Tabs'/);
    const groups = [...setup.raw.matchAll(/<Tabs\b[^>]*groupId="([^"]+)"/g)].map((m) => m[1]);
    expect(groups.length).toBeGreaterThanOrEqual(1);
    expect(new Set(groups)).toEqual(new Set(['package-manager']));
  });

  it('shows code on every page except the sample list, and type-checks every ts/tsx block against the real packages', () => {
    let count = 0;
    for (const p of pages) {
      const blocks = blocksOf(p);
      count += blocks.length;
      if (keyOf(p) !== 'react-sdk/sample-projects') expect(blocks.length, `${p.rel} has TypeScript code`).toBeGreaterThanOrEqual(1);
      const names = blocks.map((b) => b.name);
      expect(names.filter((n, i) => names.indexOf(n) !== i), `${p.rel}: two blocks with the same file title`).toEqual([]);
      // One program per page: the pages are separate projects (each has its own App.tsx).
      const problems = typeCheck([...blocks, { name: 'remix-declarations', source: REMIX_DECLARATIONS }], { docusaurus: true });
      expect(problems.map((d) => `${p.rel}: ${d}`)).toEqual([]);
    }
    expect(count).toBeGreaterThanOrEqual(19);
  }, 300_000);

  it('imports only exports that exist (the type check would also fail) and only from the packages the pages install', () => {
    const allowed = /^(@keyway\/react|@keyway\/sdk|react|react-dom\/client|@remix-run\/(node|react)|\.\.?\/[\w./-]+)$/;
    for (const p of pages)
      for (const b of blocksOf(p))
        for (const m of b.source.matchAll(/from '([^']+)'/g)) expect(m[1], `${p.rel}: import from ${m[1]}`).toMatch(allowed);
  });

  it('names only exports of the packages as components, hooks and helpers in the prose', () => {
    // The export lists of both packages (values and types), read from their entry modules.
    const entry = (pkg: string) => fs.readFileSync(path.resolve(docsDir, '..', '..', 'packages', pkg, 'src', 'index.ts'), 'utf8');
    const exported = new Set([...`${entry('react')}\n${entry('sdk')}`.matchAll(/\b[A-Za-z_]\w*\b/g)].map((m) => m[0]));
    // Web platform words written in code style that are not SDK names.
    const web = new Set(['HttpOnly', 'SameSite', 'Secure']);
    const problems: string[] = [];
    for (const p of pages) {
      const defined = new Set(p.code.flatMap((c) => [...c.value.matchAll(/\b(?:function|const|type|interface)\s+([A-Z]\w*)/g)].map((m) => m[1])));
      for (const code of p.inlineCode) {
        // A hook (`useKeyway()`), a JSX element (`<LoggedIn withFactors>`) or a bare component/type name (`Form`, `User`).
        const name = /^(?:(use[A-Z]\w*)\b|<([A-Z]\w*)|([A-Z]\w*)$)/.exec(code)?.slice(1).find(Boolean);
        if (name && !exported.has(name) && !defined.has(name) && !web.has(name) && !/^[A-Z_]+$/.test(name))
          problems.push(`${p.rel}: \`${code}\` names ${name}, which neither package exports`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('cites only REST operations of the API', () => {
    expect(pages.flatMap((p) => citedOperationProblems(p))).toEqual([]);
  });

  it('states the local server facts the samples rely on consistently', () => {
    for (const p of pages) {
      // Every sample talks to the local server of `npm start`, with its development organization.
      for (const m of p.raw.matchAll(/baseURL[=:]\s*["'{]+([^"'}]+)/g)) expect(m[1], `${p.rel}: baseURL`).toBe(API_HOST);
      for (const m of p.raw.matchAll(/\boid[=:]\s*["'{]+([^"'}]+)/g)) expect(m[1], `${p.rel}: oid`).toMatch(/^(org_keyway_dev|ORG_ID|import\.meta\.env\.VITE_KEYWAY_ORG_ID)$/);
    }
    const quick = page('react-sdk/tutorials/quickstart');
    for (const fact of ['npm start', 'http://localhost:8787/dev/mailbox', 'org_keyway_dev', 'KEYWAY_CORS_ORIGINS', 'http://localhost:5173'])
      expect(quick.raw, `quickstart mentions ${fact}`).toContain(fact);
  });
});

/** The quickstart's sign-in, run with the SDK the React components drive: an emailed code read from the dev mailbox. */
async function signInByEmail(url: string, email: string, existing?: import('@keyway/sdk').Keyway) {
  const { Keyway } = await import('@keyway/sdk');
  const keyway = existing ?? new Keyway({ oid: 'org_keyway_dev', baseURL: url, analytics: false });
  const before = new Date(Date.now() - 1000).toISOString();
  const off = keyway.on('codeRequested', (e) => {
    if (e.kind !== 'otp') return; // an authenticator-app code is asked for by the caller
    void (async () => {
      for (let i = 0; i < 100; i++) {
        const res = await fetch(`${url}/dev/mailbox.json?to=${encodeURIComponent(email)}`);
        const { result } = (await res.json()) as { result: { code?: string; created_at: string }[] };
        const code = result.find((m) => m.created_at > before)?.code;
        if (code) return e.submit(code);
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`no code for ${email} in the dev mailbox`);
    })();
  });
  try {
    await keyway.authenticate(email, { method: 'otp_via_email' }).result;
  } finally {
    off();
  }
  return keyway;
}

/** The current code of an authenticator app for a base32 key (RFC 6238: HMAC-SHA1, 30-second steps, 6 digits). */
function totpCode(base32: string, at = Date.now()): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const ch of base32.replace(/=+$/, '').toUpperCase()) bits += alphabet.indexOf(ch).toString(2).padStart(5, '0');
  const key = Buffer.from((bits.match(/.{8}/g) ?? []).map((b) => parseInt(b, 2)));
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(at / 30_000)));
  const mac = createHmac('sha1', key).update(counter).digest();
  const offset = (mac[mac.length - 1] ?? 0) & 0xf;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0');
}

describe('the quickstart against the local identity server', () => {
  let local: LocalServer | undefined;
  let live: LiveServer | undefined;
  const vite = 'http://localhost:5173';

  beforeAll(async () => {
    local = await startLocalServer({ corsOrigins: ['http://localhost:3000', vite] });
    live = local.live;
    expect(DEFAULT_DEV_ORG_ID).toBe('org_keyway_dev');
  }, 60_000);
  afterAll(async () => {
    await local?.close();
  });

  it('uses the development organization the pages name', () => {
    expect(live?.orgId).toBe('org_keyway_dev');
  });

  it('answers CORS for an origin listed in KEYWAY_CORS_ORIGINS and not for another', async () => {
    const ask = (origin: string) =>
      fetch(`${live?.url}/persons/anonymous`, {
        method: 'OPTIONS',
        headers: { Origin: origin, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type,keyway-orgid' },
      });
    expect((await ask(vite)).headers.get('access-control-allow-origin')).toBe(vite);
    expect((await ask('http://localhost:4000')).headers.get('access-control-allow-origin')).not.toBe('http://localhost:4000');
  });

  it('signs a new person in by email code read from the dev mailbox, and the Remix checks accept then refuse its token', async () => {
    const url = live?.url ?? '';
    const keyway = await signInByEmail(url, `quickstart-${Date.now()}@example.com`);
    const user = keyway.user;
    expect(user?.isAnonymous).toBe(false);
    expect(user?.authenticatedMethods).toEqual(['otp_via_email']);
    // A new address registers (Sign-up components): the first token says so.
    expect(user?.claims.first_token).toBe(true);
    const token = user?.token ?? '';

    // The Remix quick start's requirePerson: POST /token/validate with the organization header.
    const validate = async () =>
      ((await (
        await fetch(`${url}/token/validate`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'Keyway-OrgID': 'org_keyway_dev' },
          body: JSON.stringify({ token }),
        })
      ).json()) as { result?: { valid: boolean } }).result?.valid;
    // Authentication for Remix's billing loader: GET /me with the token, 401 once it is revoked.
    const me = () => fetch(`${url}/me`, { headers: { Authorization: `Bearer ${token}`, 'Keyway-OrgID': 'org_keyway_dev' } });
    expect(await validate()).toBe(true);
    // The shape the billing loader reads.
    const meBody = (await (await me()).json()) as { result?: { person?: { person_id?: string } } };
    expect(meBody.result?.person?.person_id).toBe(user?.personId);

    await keyway.logout(); // what useKeyway().logout() calls: the token is revoked on the server
    expect(keyway.user).toBeUndefined();
    expect(await validate()).toBe(false);
    expect((await me()).status).toBe(401);
  }, 60_000);

  it('runs the Remix quick start server module: a valid token cookie passes, none or a revoked one redirects to /login', async () => {
    const url = live?.url ?? '';
    const remix = page('remix-sdk/tutorials/quick-start');
    const source = (title: string) => {
      const block = remix.code.find((c) => c.meta.includes(`title="${title}"`));
      if (!block) throw new Error(`the Remix quick start has no block titled ${title}`);
      return ts.transpileModule(block.value, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText;
    };
    // Written next to the test so that @keyway/react resolves from the workspace; Remix's redirect() is the one stand-in.
    const dir = fs.mkdtempSync(path.join(here, 'remix-sample-'));
    try {
      fs.writeFileSync(path.join(dir, 'remix-node.mjs'), "export const redirect = (url, init = 302) => new Response(null, { status: typeof init === 'number' ? init : init.status ?? 302, headers: { Location: url } });\n");
      fs.writeFileSync(path.join(dir, 'token-cookie.mjs'), source('app/token-cookie.ts'));
      fs.writeFileSync(
        path.join(dir, 'keyway.server.mjs'),
        source('app/keyway.server.ts').replace("'@remix-run/node'", "'./remix-node.mjs'").replace("'./token-cookie'", "'./token-cookie.mjs'").replaceAll(API_HOST, url),
      );
      const mod = (await import(/* @vite-ignore */ pathToFileURL(path.join(dir, 'keyway.server.mjs')).href)) as {
        requirePerson(request: Request): Promise<{ personId: string; token: string }>;
      };
      const keyway = await signInByEmail(url, `remix-${Date.now()}@example.com`);
      const token = keyway.user?.token ?? '';
      const request = (cookie?: string) => new Request('http://localhost:5173/dashboard?tab=1', cookie ? { headers: { Cookie: cookie } } : {});
      const thrown = async (r: Request) => mod.requirePerson(r).then(() => undefined, (e: unknown) => e as Response);

      expect((await mod.requirePerson(request(`theme=dark; keyway_token=${encodeURIComponent(token)}`))).personId).toBe(keyway.user?.personId);
      const none = await thrown(request());
      expect(none?.status).toBe(302);
      expect(none?.headers.get('Location')).toBe('/login?redirect_to=%2Fdashboard%3Ftab%3D1');
      await keyway.logout();
      expect((await thrown(request(`keyway_token=${encodeURIComponent(token)}`)))?.status).toBe(302);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('upgrades an anonymous person with its attributes on sign-in, as the anonymous users guide says', async () => {
    const url = live?.url ?? '';
    const { Keyway } = await import('@keyway/sdk');
    const keyway = new Keyway({ oid: 'org_keyway_dev', baseURL: url, analytics: false });
    // What `anonymousUsers` on the provider does on load, then the guide's basket.
    const guest = await keyway.createAnonymousUser();
    expect(guest.isAnonymous).toBe(true);
    await guest.updateAttributes({ basket: { items: ['tea'] } });
    // A sign-in with a new address keeps the person, its attributes, and counts as the first token of a regular person.
    await signInByEmail(url, `guest-${Date.now()}@example.com`, keyway);
    const user = keyway.user;
    expect(user?.isAnonymous).toBe(false);
    expect(user?.personId).toBe(guest.personId);
    expect(user?.claims.first_token).toBe(true);
    expect(await user?.getBucketAttributes()).toMatchObject({ basket: { items: ['tea'] } });
    // The read-only bucket is not writable with the person's own token (the guide's troubleshooting).
    await expect(user?.updateAttributes({ plan: 'pro' }, 'end_user_read_only')).rejects.toMatchObject({ httpcode: 403 });
  }, 60_000);

  it('enrols an authenticator app after the email code and accepts each recovery code once, as the MFA tutorial says', async () => {
    const url = live?.url ?? '';
    const email = `mfa-${Date.now()}@example.com`;
    const keyway = await signInByEmail(url, email);
    // The registration shows the key (in the otpauth:// URI and the QR code) and the recovery codes.
    let registration: { key_uri: string; qr_code_data_b64: string; recovery_codes: string[] } | undefined;
    keyway.on('totpKeyGenerated', (e) => {
      registration = e;
    });
    const answer = (code: () => string) =>
      keyway.on('codeRequested', (e) => {
        if (e.kind === 'totp') e.submit(code());
      });
    let off = answer(() => totpCode(new URL(registration?.key_uri ?? 'otpauth://x').searchParams.get('secret') ?? ''));
    await keyway.stepUp({ method: 'totp' }).result;
    off();
    expect(registration?.qr_code_data_b64.length).toBeGreaterThan(100);
    expect(registration?.recovery_codes.length).toBeGreaterThan(0);
    // `<LoggedIn withFactors={['otp_via_email', 'totp']}>` now shows the private area.
    expect(keyway.user?.authenticatedMethods).toEqual(expect.arrayContaining(['otp_via_email', 'totp']));

    // Next sign-in: no second registration, and a recovery code replaces the app's code once.
    const recovery = registration?.recovery_codes[0] ?? '';
    registration = undefined;
    await keyway.logout();
    await signInByEmail(url, email, keyway);
    off = answer(() => recovery);
    await keyway.stepUp({ method: 'totp' }).result;
    off();
    expect(registration).toBeUndefined();
    expect(keyway.user?.authenticatedMethods).toContain('totp');

    await keyway.logout();
    await signInByEmail(url, email, keyway);
    let refused = false;
    const offWrong = keyway.on('incorrectCodeSubmitted', () => {
      refused = true;
    });
    off = answer(() => (refused ? '' : recovery)); // an empty answer ends the flow after the refusal
    await expect(keyway.stepUp({ method: 'totp' }).result).rejects.toThrow();
    off();
    offWrong();
    expect(refused).toBe(true);
  }, 60_000);
});
