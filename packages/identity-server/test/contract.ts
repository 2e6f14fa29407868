import { expect } from 'vitest';
import { OpenApiContract, SPEC_ID } from '../src/openapi.js';
import { api, type Answer } from './helpers.js';

const contract = OpenApiContract.load()!;
const templates = Object.keys(contract.doc.paths).map((template) => ({
  template,
  re: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
}));

/** `/challenge/abc/v2` → `/challenge/{challenge_id}/v2`: the matching template with the fewest parameters that has `method`. */
export function specPath(path: string, method = 'get'): string | undefined {
  const clean = decodeURIComponent(path.split('?')[0]!);
  const params = (t: string) => (t.match(/\{/g) ?? []).length;
  const matches = templates.filter((t) => t.re.test(clean)).sort((a, b) => params(a.template) - params(b.template));
  return (matches.find((t) => contract.doc.paths[t.template]?.[method.toLowerCase()]) ?? matches[0])?.template;
}

/** Operations answered and validated so far: `METHOD /template status`. */
export const covered = new Set<string>();

/** Checks one real answer against the response schema the spec gives for its status code. */
export function expectMatchesSpec(method: string, path: string, status: number, body: unknown, contentType = 'application/json'): void {
  const template = specPath(path, method);
  expect(template, `${method} ${path} is not in api/openapi.yaml`).toBeDefined();
  const op = contract.doc.paths[template!]![method.toLowerCase()] as { responses?: Record<string, { content?: Record<string, { schema?: unknown }> }> } | undefined;
  expect(op, `${method} ${template} is not in api/openapi.yaml`).toBeDefined();
  const response = op!.responses?.[String(status)] ?? op!.responses?.[`${String(status)[0]}XX`] ?? op!.responses?.default;
  expect(response, `${method} ${template} answered ${status}, which the spec does not list`).toBeDefined();
  const media = response!.content?.[contentType] ? contentType : Object.keys(response!.content ?? {})[0];
  if (media) {
    const pointer = `${SPEC_ID}#/paths/${template!.replace(/~/g, '~0').replace(/\//g, '~1')}/${method.toLowerCase()}/responses/${status in (op!.responses ?? {}) ? status : 'default'}/content/${media.replace(/\//g, '~1')}/schema`;
    const validate = contract.bodyAjv.getSchema(pointer) ?? contract.bodyAjv.compile({ $ref: pointer });
    const ok = validate(body);
    expect(ok, `${method} ${path} → ${status} does not match the spec: ${JSON.stringify(validate.errors?.slice(0, 3))}\n${JSON.stringify(body).slice(0, 400)}`).toBe(true);
  }
  covered.add(`${method.toUpperCase()} ${template} ${status}`);
}

/** Error answers carry `errors[].httpcode` equal to the HTTP status (the SDK reads the body's code, not the status). */
export function expectErrorCodesMatchStatus(method: string, path: string, status: number, body: unknown): void {
  const errors = (body as { errors?: Array<{ httpcode?: unknown }> } | undefined)?.errors;
  if (status < 300 || !Array.isArray(errors)) return;
  for (const e of errors) expect(e.httpcode, `${method} ${path} answered ${status} with an error whose httpcode is ${String(e.httpcode)}`).toBe(status);
}

/** Checks a JSON request body against the request schema the spec gives for the operation. */
export function expectRequestMatchesSpec(method: string, path: string, body: unknown): void {
  const template = specPath(path, method);
  expect(template, `${method} ${path} is not in api/openapi.yaml`).toBeDefined();
  const op = contract.doc.paths[template!]![method.toLowerCase()] as { requestBody?: { content?: Record<string, unknown> } } | undefined;
  expect(op, `${method} ${template} is not in api/openapi.yaml`).toBeDefined();
  if (body === undefined) return;
  expect(op!.requestBody?.content?.['application/json'], `${method} ${template} takes no JSON body in the spec`).toBeDefined();
  const pointer = `${SPEC_ID}#/paths/${template!.replace(/~/g, '~0').replace(/\//g, '~1')}/${method.toLowerCase()}/requestBody/content/application~1json/schema`;
  const validate = contract.bodyAjv.getSchema(pointer) ?? contract.bodyAjv.compile({ $ref: pointer });
  expect(validate(body), `${method} ${path}: the request does not match the spec: ${JSON.stringify(validate.errors?.slice(0, 3))}\n${JSON.stringify(body).slice(0, 400)}`).toBe(true);
}

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
