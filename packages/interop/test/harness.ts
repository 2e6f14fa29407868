import { SlashID, type User } from '@slashid/slashid';
import { afterAll, beforeAll, expect } from 'vitest';
import { answerLink, expectErrorCodesMatchStatus, expectMatchesSpec, expectRequestMatchesSpec, lastMessage, startTestIdentityServer, type TestServer } from '@keyway/identity-server/testing';
import { startProxy, type Exchange } from './proxy.js';

export { startProxy, type Exchange };

export interface Interop {
  server: TestServer;
  /** The proxy's URL: the published client's `baseURL`. */
  baseURL: string;
  oid: string;
  log: Exchange[];
  /** The latest sign-in code sent to `to` (dev mailbox). */
  code(to: string): Promise<string>;
  /** The latest link sent to `to` (dev mailbox). */
  link(to: string): Promise<string>;
  /** Exchanges since `mark` (an index into `log`) for `method path` (path without query). */
  calls(method: string, path: string, mark?: number): Exchange[];
  /** Checks every exchange so far against api/openapi.yaml: request bodies, answers, error codes. */
  checkContract(): void;
}

export const BACKEND: 'sqlite' | 'postgres' = process.env.INTEROP_BACKEND === 'postgres' && process.env.TEST_DATABASE_URL ? 'postgres' : 'sqlite';

/** Starts the identity server and the proxy for the suite. */
export function useInterop(): Interop {
  const t = {} as Interop;
  let proxy: Awaited<ReturnType<typeof startProxy>>;
  beforeAll(async () => {
    t.server = await startTestIdentityServer({ backend: BACKEND, corsOrigins: ['http://app.interop.test'] });
    proxy = await startProxy(t.server.url);
    t.baseURL = proxy.url;
    t.oid = t.server.orgId;
    t.log = proxy.log;
  });
  afterAll(async () => {
    await proxy?.close();
    await t.server?.stop();
  });
  t.code = async (to) => {
    const msg = await lastMessage(t.server, to);
    if (!msg.code) throw new Error(`the last message to ${to} has no code`);
    return msg.code;
  };
  t.link = async (to) => {
    const msg = await lastMessage(t.server, to);
    if (!msg.link) throw new Error(`the last message to ${to} has no link`);
    return msg.link;
  };
  t.checkContract = () => checkContract(t.log);
  t.calls = (method, path, mark = 0) => t.log.slice(mark).filter((e) => e.method === method && e.path.split('?')[0] === path);
  return t;
}

/** Checks every exchange of `log` against api/openapi.yaml: request bodies, answers, `httpcode` equal to the status. */
export function checkContract(log: Exchange[]): void {
  expect(log.length).toBeGreaterThan(0);
  for (const e of log) {
    const json = (text: string) => (text ? (JSON.parse(text) as unknown) : undefined);
    if (!String(e.headers['content-type'] ?? '').startsWith('application/json') && e.body) continue;
    expectRequestMatchesSpec(e.method, e.path, json(e.body));
    expectMatchesSpec(e.method, e.path, e.status, json(e.response));
    expectErrorCodesMatchStatus(e.method, e.path, e.status, json(e.response));
  }
}

/** Resolves with the first event of `name` the client emits. */
export function once<T>(sid: { subscribe(name: string, h: (e: T) => void): void; unsubscribe(name: string, h: (e: T) => void): void }, name: string): Promise<T> {
  return new Promise((resolve) => {
    const handler = (e: T) => {
      sid.unsubscribe(name, handler);
      resolve(e);
    };
    sid.subscribe(name, handler);
  });
}

/** The published client, configured for the proxy (analytics off unless asked for). */
export function sdkFor(t: Interop, analyticsEnabled = false): SlashID {
  return new SlashID({ environment: { baseURL: t.baseURL, sdkURL: `${t.baseURL}/sdk.html` }, oid: t.oid, analyticsEnabled });
}

let n = 0;
/** Publishes `answer` once the client listens for it (it subscribes right after announcing the prompt). */
export function reply<K extends 'otpCodeSubmitted' | 'passwordSubmitted'>(sid: SlashID, type: K, answer: string | Promise<string>): void {
  void Promise.resolve(answer).then((value) => setTimeout(() => sid.publish(type, value as never), 0));
}

/** A fresh e-mail address. */
export const email = (label: string) => `${label}-${Date.now()}-${++n}@interop.example.com`;

/** Answers every OTP prompt: first with the `wrong` codes (if any), then with the code from the dev mailbox. */
export function answerOtp(t: Interop, sid: SlashID, to: string, wrong: string[] = []) {
  const seen = { prompts: 0, incorrect: 0 };
  const submit = () => {
    seen.prompts++;
    const next = wrong.shift();
    reply(sid, 'otpCodeSubmitted', next ?? t.code(to));
  };
  sid.subscribe('otpCodeSent', submit);
  sid.subscribe('otpIncorrectCodeSubmitted', () => void seen.incorrect++);
  return seen;
}

/** Changes the organization's settings through the management API (`PATCH /organizations/config`). */
export async function configure(t: Interop, settings: Record<string, unknown>): Promise<void> {
  const res = await fetch(`${t.server.url}/organizations/config`, {
    method: 'PATCH',
    headers: { 'keyway-orgid': t.oid, 'keyway-api-key': 'kw_dev_api_key_not_secret', 'content-type': 'application/json' },
    body: JSON.stringify(settings),
  });
  if (res.status !== 204) throw new Error(`PATCH /organizations/config: ${res.status} ${await res.text()}`);
}

/**
 * Answers password prompts (`passwordSetReady`, `passwordResetReady`) with each of `passwords` in turn, the last one
 * again if asked more often; counts the prompts and the rule failures the client reports (`invalidPasswordSubmitted`).
 */
export function answerPasswords(sid: SlashID, passwords: string[]) {
  const seen = { prompts: 0, invalid: [] as string[][] };
  const submit = () => {
    const next = passwords[Math.min(seen.prompts, passwords.length - 1)]!;
    seen.prompts++;
    reply(sid, 'passwordSubmitted', next);
  };
  sid.subscribe('passwordSetReady', submit);
  sid.subscribe('passwordResetReady', submit);
  sid.subscribe('invalidPasswordSubmitted', (e: { failedRules?: Array<{ name: string } | string> }) => void seen.invalid.push((e.failedRules ?? []).map((r) => (typeof r === 'string' ? r : r.name))));
  return seen;
}

/**
 * The owner of `to` opens the sign-in link the server sends there (as soon as it is in the dev mailbox) and confirms it
 * on its page: what a person does when a password or passkey sign-up proves the address first (#36).
 */
export async function confirmLinkWhenSent(t: Interop, to: string): Promise<void> {
  let link: string | undefined;
  for (let i = 0; i < 100 && !link; i++) {
    link = await t.link(to).catch(() => undefined);
    if (!link) await new Promise((r) => setTimeout(r, 100));
  }
  if (!link) throw new Error(`no link was sent to ${to}`);
  const answered = await answerLink(link);
  if (answered.status >= 400) throw new Error(`confirming the link answered ${answered.status}`);
}

/** Signs a new or known person in by e-mail code with the published client. */
export async function signInByCode(t: Interop, to: string, sid = sdkFor(t)): Promise<User> {
  answerOtp(t, sid, to);
  return sid.id(t.oid, { type: 'email_address', value: to }, { method: 'otp_via_email' });
}
