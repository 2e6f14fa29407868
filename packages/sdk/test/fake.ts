/** Scripted HTTP fake of the Keyway API (msw), plus token helpers. */
import { http, HttpResponse, type JsonBodyType } from 'msw';
import { setupServer } from 'msw/node';
import { KeywayClient, type KeywayConfig } from '../src/client.js';

export const BASE = 'https://api.test.keyway';
export const SDK_HOST = 'https://sdk.test.keyway';
export const server = setupServer();

export interface Seen {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Headers;
  body: any;
}

/** Every request the fake received, in order. */
export const seen: Seen[] = [];

type Reply = JsonBodyType | ((req: Seen, n: number) => Response | JsonBodyType | Promise<Response | JsonBodyType>);

/**
 * Scripts `METHOD /path`: each entry of `replies` answers one call (the last one repeats).
 * A plain object is sent as `{ result: object }`; use `fail()` for error answers.
 */
export function route(method: string, path: string, ...replies: Reply[]): Seen[] {
  const mine: Seen[] = [];
  server.use(
    http[method.toLowerCase() as 'get'](BASE + path, async ({ request }) => {
      const url = new URL(request.url);
      const text = await request.text();
      let body: unknown = text;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        body = Object.fromEntries(new URLSearchParams(text));
      }
      const s: Seen = { method, path: url.pathname, query: url.searchParams, headers: request.headers, body };
      seen.push(s);
      mine.push(s);
      const r = replies[Math.min(mine.length - 1, replies.length - 1)];
      const out = typeof r === 'function' ? await r(s, mine.length) : r;
      return out instanceof Response ? out : HttpResponse.json({ result: out });
    }),
  );
  return mine;
}

/** An error answer with the envelope of the API. */
export const fail = (httpcode: number, message: string, status = httpcode, headers?: Record<string, string>) =>
  HttpResponse.json({ errors: [{ httpcode, message }] }, { status, headers });

/** An unsigned JWT with the given claims. */
export function jwt(claims: Record<string, unknown>): string {
  const enc = (o: unknown) => btoa(JSON.stringify(o)).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
  return `${enc({ alg: 'none' })}.${enc(claims)}.sig`;
}

export const TOKEN = jwt({ person_id: 'p1', oid: 'org1', person_type: 'regular', authenticated_methods: ['otp_via_email'], groups: ['admins'] });

export function client(extra: Partial<KeywayConfig> = {}): KeywayClient {
  return new KeywayClient({ oid: 'org1', environment: { baseURL: BASE, sdkURL: SDK_HOST }, analytics: false, ...extra });
}

/** Records analytics calls. */
export const analytics = () => route('POST', '/actions/sdk', {});
