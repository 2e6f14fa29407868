import { expectErrorCodesMatchStatus, expectMatchesSpec } from '../src/testing.js';
import { api, type Answer } from './helpers.js';

export { covered, expectErrorCodesMatchStatus, expectMatchesSpec, expectRequestMatchesSpec, specPath } from '../src/testing.js';

/** Like {@link api}, but every JSON answer is validated against api/openapi.yaml. */
export function contractApi(server: { url: string; orgId: string }) {
  const call = api(server);
  return async <T = any>(...args: Parameters<typeof call>): Promise<Answer<T>> => {
    const res = await call<T>(...args);
    expectMatchesSpec(args[0], args[1], res.status, res.body);
    expectErrorCodesMatchStatus(args[0], args[1], res.status, res.body);
    return res;
  };
}

/** A form POST to an OAuth2 protocol endpoint (HTTP Basic when `basic` is given); a JSON answer is checked against the spec. */
export async function protocolForm(server: { url: string }, path: string, fields: Record<string, string>, basic?: { id: string; secret: string }) {
  const res = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(basic ? { authorization: `Basic ${Buffer.from(`${basic.id}:${basic.secret}`).toString('base64')}` } : {}) },
    body: new URLSearchParams(fields).toString(),
  });
  const text = await res.text();
  const body = text ? (JSON.parse(text) as Record<string, any>) : undefined;
  if (body) expectMatchesSpec('POST', path, res.status, body);
  return { status: res.status, body: body ?? {} };
}
