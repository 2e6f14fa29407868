// Request samples of an operation in curl, JavaScript fetch, @keyway/sdk, Python requests and Go net/http, all built from
// one request model so that they send the same request. They target the local identity server with its development
// organization and API key, so a reader running `npm start` can paste them as they are.
import type { ApiSpec, Json, JsonObject, MediaType, Operation, Schema } from './spec';

export const LOCAL_BASE_URL = 'http://localhost:8787';
export const DEV_ORG_ID = 'org_keyway_dev';
export const DEV_API_KEY = 'kw_dev_api_key_not_secret';

/** A header value: literal text, or a secret the reader supplies (an environment variable in curl, Python and Go). */
type Part = string | { variable: string; hint: string };

/** What each variable a sample reads holds, as its comment tells the reader. */
const HINTS: Record<string, string> = {
  KEYWAY_USER_TOKEN: "the signed-in person's user token",
  KEYWAY_ACCESS_TOKEN: 'an OAuth2 access token',
  KEYWAY_CLIENT_ID: 'the OAuth2 client id',
  KEYWAY_CLIENT_SECRET: 'the OAuth2 client secret',
};

/** One part of a multipart/form-data body: a plain field, or a file (name, content type, text). */
export interface FormPart {
  name: string;
  value: string;
  file?: { filename: string; contentType: string };
}

/** How a JSON body value stands for a variable the reader supplies (replaced by the variable in each language). */
export const bodyVariable = (variable: string): string => `@@${variable}@@`;

export interface RequestModel {
  method: string;
  /** Path with parameters filled in and the query string appended, without the base URL. */
  target: string;
  headers: { name: string; value: Part[] }[];
  basicAuth?: { user: string; password: string };
  body?:
    | { kind: 'json'; value: Json; variables: string[] }
    | { kind: 'form'; fields: [string, string][] }
    | { kind: 'multipart'; parts: FormPart[] }
    | { kind: 'raw'; contentType: string; text: string };
}

export interface Sample {
  /** Tab value, stable across pages (groupId="api-language" keeps the reader's choice). */
  value: 'curl' | 'fetch' | 'sdk' | 'python' | 'go';
  label: string;
  language: string;
  code: string;
}

/** The @keyway/sdk call covering an operation, and the SDK methods it uses (checked against packages/sdk/src by the tests). */
export interface SdkCall {
  methods: string[];
  code: string;
}

const signedIn = (line: string): string => `// keyway.user is set once the person has signed in (see keyway.authenticate).\n${line}`;

/** Operations the browser SDK performs, by `METHOD /path`. */
export const SDK_CALLS: Record<string, SdkCall> = {
  'POST /id/v2': {
    methods: ['authenticate'],
    code: "keyway.on('codeRequested', (e) => e.submit(window.prompt('Code from the e-mail') ?? ''));\nconst token = await keyway.authenticate('ada@example.com', { method: 'otp_via_email' }).result;",
  },
  'POST /attestation/v3': {
    methods: ['authenticate'],
    code: "// The flow of keyway.authenticate answers each challenge with an attestation.\nkeyway.on('codeRequested', (e) => e.submit(window.prompt('Code from the e-mail') ?? ''));\nconst token = await keyway.authenticate('ada@example.com', { method: 'otp_via_email' }).result;",
  },
  'POST /recover': { methods: ['recover'], code: "const token = await keyway.recover('ada@example.com', 'email_link').result;" },
  'POST /sso/resolve': {
    methods: ['signInWithSSO'],
    code: "// From a click handler: the popup must open on a user gesture.\nconst token = await keyway.signInWithSSO({ method: 'oidc', options: { provider: 'google', ux_mode: 'popup' } }).result;",
  },
  'POST /persons/anonymous': { methods: ['createAnonymousUser'], code: "const anonymous = await keyway.createAnonymousUser('europe-belgium');\nconsole.log(anonymous.token);" },
  'GET /oauth2/authorize': {
    methods: ['hostedLogin', 'handleURL'],
    code: "// Sends the browser to the hosted login page; on the redirect page, keyway.handleURL() finishes the sign-in.\nawait keyway.hostedLogin({ clientId: 'docs-portal', redirectUri: 'https://docs.example.com/login' });",
  },
  'POST /actions/sdk': { methods: ['trackPageView'], code: 'await keyway.trackPageView({ path: window.location.pathname });' },
  'POST /token/validate': { methods: ['validate'], code: signedIn('const validation = await keyway.user.validate();') },
  'POST /token/revoke': { methods: ['logout'], code: signedIn('await keyway.user.logout();') },
  'GET /me': { methods: ['me'], code: signedIn('const me = await keyway.user.me();') },
  'GET /me/orgs': { methods: ['organizations'], code: signedIn('const organizations = await keyway.user.organizations();') },
  'GET /token/v2': {
    methods: ['tokenForOrganization', 'switchOrganization'],
    code: signedIn("const answer = await keyway.user.tokenForOrganization('org_other');\n// or, to complete any challenge and switch: await keyway.switchOrganization('org_other').result;"),
  },
  'GET /attributes': { methods: ['getAttributes'], code: signedIn("const attributes = await keyway.user.getAttributes(['end_user_read_write']);") },
  'PUT /attributes': { methods: ['setBucketsAttributes'], code: signedIn("await keyway.user.setBucketsAttributes({ end_user_read_write: { theme: 'dark' } });") },
  'PATCH /attributes': { methods: ['updateBucketsAttributes'], code: signedIn("await keyway.user.updateBucketsAttributes({ end_user_read_write: { theme: 'dark' } });") },
  'GET /attributes/{bucket_name}': { methods: ['getBucketAttributes'], code: signedIn("const attributes = await keyway.user.getBucketAttributes('end_user_read_write');") },
  'PUT /attributes/{bucket_name}': { methods: ['setAttributes'], code: signedIn("await keyway.user.setAttributes({ theme: 'dark' }, 'end_user_read_write');") },
  'PATCH /attributes/{bucket_name}': { methods: ['updateAttributes'], code: signedIn("await keyway.user.updateAttributes({ theme: null, newsletter: true }, 'end_user_read_write');") },
  'DELETE /attributes/{bucket_name}': { methods: ['deleteAttributes'], code: signedIn("await keyway.user.deleteAttributes(['theme'], 'end_user_read_write');") },
  'GET /consent/gdpr': { methods: ['consents'], code: signedIn('const consents = await keyway.user.consents();') },
  'PUT /consent/gdpr': { methods: ['setConsents'], code: signedIn("await keyway.user.setConsents(['analytics']);") },
  'POST /consent/gdpr': { methods: ['addConsents'], code: signedIn("await keyway.user.addConsents(['marketing']);") },
  'DELETE /consent/gdpr': { methods: ['removeConsents', 'removeAllConsents'], code: signedIn("await keyway.user.removeConsents(['marketing']);\n// or remove them all: await keyway.user.removeAllConsents();") },
  'POST /persons/{person_id}/impersonate/v2': {
    methods: ['impersonate'],
    code: signedIn("const answer = await keyway.user.impersonate('pid:0193a1f2c4b87d3e9f10a2b3c4d5e6f7', 'https://app.example.com/');"),
  },
  'POST /direct-id': { methods: ['directId'], code: signedIn('const { direct_id } = await keyway.user.directId();') },
};

/** An example value for a schema: its own example, default, const or first enum value, else one built from its type. */
export function exampleOf(spec: ApiSpec, schema: Schema | undefined, depth = 0, seen: string[] = []): Json {
  if (!schema || depth > 6) return null;
  if (schema.$ref) {
    if (seen.includes(schema.$ref)) return null;
    return exampleOf(spec, spec.lookup<Schema>(schema.$ref), depth + 1, [...seen, schema.$ref]);
  }
  if (schema.example !== undefined) return schema.example;
  if (schema.examples?.length) return schema.examples[0]!;
  if (schema.const !== undefined) return schema.const;
  if (schema.default !== undefined) return schema.default;
  if (schema.enum?.length) return schema.enum[0]!;
  if (schema.allOf) {
    const parts = schema.allOf.map((s) => exampleOf(spec, s, depth + 1, seen));
    if (parts.every((p) => p && typeof p === 'object' && !Array.isArray(p))) return Object.assign({}, ...parts) as JsonObject;
    return parts[0] ?? null;
  }
  const variant = schema.oneOf?.[0] ?? schema.anyOf?.[0];
  if (variant) return exampleOf(spec, variant, depth + 1, seen);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  if (type === 'object' || schema.properties) {
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(schema.properties ?? {})) {
      if (schema.required?.includes(k)) out[k] = exampleOf(spec, v, depth + 1, seen);
    }
    return out;
  }
  if (type === 'array') return [exampleOf(spec, schema.items, depth + 1, seen)];
  if (type === 'integer' || type === 'number') return schema.minimum ?? 1;
  if (type === 'boolean') return true;
  if (type === 'string') return schema.format === 'date-time' ? '2026-03-14T09:20:00Z' : schema.format === 'email' ? 'ada@example.com' : 'string';
  return null;
}

/** The example of a media type: `example`, else the first of `examples`, else one built from the schema. */
export function mediaExample(spec: ApiSpec, media: MediaType): Json {
  if (media.example !== undefined) return media.example;
  const first = Object.values(media.examples ?? {})[0];
  if (first) return (first.$ref ? spec.lookup<{ value?: Json }>(first.$ref).value : first.value) ?? null;
  return exampleOf(spec, media.schema);
}

const scalar = (v: Json): string => (v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));

/** The request an operation's samples send: the first security alternative, required parameters, the body example. */
export function requestModel(spec: ApiSpec, op: Operation): RequestModel {
  const headers: RequestModel['headers'] = [];
  let basicAuth: RequestModel['basicAuth'];
  const schemes = spec.doc.components?.securitySchemes ?? {};
  for (const name of Object.keys(op.security[0] ?? {})) {
    const scheme = schemes[name];
    if (!scheme) throw new Error(`API reference: ${op.method.toUpperCase()} ${op.path} uses the undefined security scheme ${name}`);
    if (scheme.type === 'apiKey' && scheme.in === 'header' && scheme.name) {
      const value = /org/i.test(scheme.name) ? DEV_ORG_ID : /key/i.test(scheme.name) ? DEV_API_KEY : `YOUR_${name.toUpperCase()}`;
      headers.push({ name: scheme.name, value: [value] });
    } else if (scheme.type === 'http' && scheme.scheme === 'basic') {
      basicAuth = { user: 'KEYWAY_CLIENT_ID', password: 'KEYWAY_CLIENT_SECRET' };
    } else {
      // Bearer schemes and OAuth2: the user token for SDK calls, an OAuth2 access token otherwise.
      const variable = name === 'UserToken' ? 'KEYWAY_USER_TOKEN' : 'KEYWAY_ACCESS_TOKEN';
      headers.push({ name: 'Authorization', value: ['Bearer ', { variable, hint: HINTS[variable]! }] });
    }
  }
  let target = op.path;
  const query: string[] = [];
  for (const p of op.parameters) {
    const value = p.example ?? exampleOf(spec, p.schema);
    if (p.in === 'path') {
      const filled = value === null || value === '' || value === 'string' ? p.name.toUpperCase() : scalar(value);
      target = target.replace(`{${p.name}}`, encodeURIComponent(filled).replace(/%3A/gi, ':'));
    } else if (p.in === 'query' && (p.required || p.example !== undefined)) {
      // Optional query parameters are printed when the contract gives them an example (one of several alternatives
      // that an operation needs, such as consent_levels or deleteAll). An array is sent form-exploded (name repeated).
      const values = Array.isArray(value) ? (p.explode === false ? [value.map(scalar).join(',')] : value) : [value];
      for (const v of values) query.push(`${encodeURIComponent(p.name)}=${encodeURIComponent(scalar(v))}`);
    } else if (p.required && p.in === 'header') {
      headers.push({ name: p.name, value: [scalar(value)] });
    }
  }
  if (query.length) target += `?${query.join('&')}`;

  let body: RequestModel['body'];
  const content = op.raw.requestBody ? spec.deref(op.raw.requestBody).content : undefined;
  const [contentType, media] = Object.entries(content ?? {})[0] ?? [];
  if (contentType && media) {
    const example = mediaExample(spec, media);
    if (contentType === 'application/json') body = jsonBody(example, media, op);
    else if (contentType === 'multipart/form-data') body = { kind: 'multipart', parts: formParts(spec, example, media, op) };
    else if (contentType === 'application/x-www-form-urlencoded' && example && typeof example === 'object' && !Array.isArray(example))
      body = { kind: 'form', fields: Object.entries(example).map(([k, v]) => [k, scalar(v)]) };
    else body = { kind: 'raw', contentType, text: typeof example === 'string' ? example : JSON.stringify(example) };
  }
  return { method: op.method.toUpperCase(), target, headers, basicAuth, body };
}

/** A JSON body; the fields named by the media type's `x-sample-variables` hold the reader's variable instead of the example. */
function jsonBody(example: Json, media: MediaType, op: Operation): RequestModel['body'] {
  const wanted = Object.entries(media['x-sample-variables'] ?? {});
  if (!wanted.length) return { kind: 'json', value: example, variables: [] };
  if (!example || typeof example !== 'object' || Array.isArray(example))
    throw new Error(`API reference: ${op.method.toUpperCase()} ${op.path} has x-sample-variables but its example is not an object`);
  const value: JsonObject = { ...example };
  for (const [field, variable] of wanted) {
    if (!HINTS[variable]) throw new Error(`API reference: ${op.method.toUpperCase()} ${op.path}: x-sample-variables names ${variable}, not one of ${Object.keys(HINTS).join(', ')}`);
    value[field] = bodyVariable(variable);
  }
  return { kind: 'json', value, variables: wanted.map(([, v]) => v) };
}

/**
 * The parts of a multipart/form-data example: a property whose schema has a `contentMediaType` (or binary format) is a
 * file, sent with that content type (or the one of the media type's `encoding`) and the name of `x-sample-filenames`.
 */
export function formParts(spec: ApiSpec, example: Json, media: MediaType, op: Operation): FormPart[] {
  if (!example || typeof example !== 'object' || Array.isArray(example))
    throw new Error(`API reference: ${op.method.toUpperCase()} ${op.path}: a multipart/form-data example must be an object of fields`);
  const schema = media.schema?.$ref ? spec.lookup<Schema>(media.schema.$ref) : media.schema;
  return Object.entries(example).map(([name, v]) => {
    const prop = schema?.properties?.[name];
    const type = media.encoding?.[name]?.contentType ?? prop?.contentMediaType ?? (prop?.format === 'binary' ? 'application/octet-stream' : undefined);
    if (!type) return { name, value: scalar(v) };
    const filename = media['x-sample-filenames']?.[name] ?? `${name}.${type.split('/')[1]?.replace(/^octet-stream$/, 'bin') ?? 'bin'}`;
    return { name, value: scalar(v), file: { filename, contentType: type } };
  });
}

const variablesOf = (m: RequestModel): { variable: string; hint: string }[] => {
  const vars = m.headers.flatMap((h) => h.value.filter((p): p is { variable: string; hint: string } => typeof p !== 'string'));
  if (m.basicAuth)
    vars.push({ variable: m.basicAuth.user, hint: HINTS[m.basicAuth.user]! }, { variable: m.basicAuth.password, hint: HINTS[m.basicAuth.password]! });
  for (const variable of m.body?.kind === 'json' ? m.body.variables : []) vars.push({ variable, hint: HINTS[variable]! });
  return vars.filter((v, i) => vars.findIndex((w) => w.variable === v.variable) === i);
};

/** The JSON of a body, each variable's marker string (quotes included) replaced by `use(variable)`. */
const withVariables = (text: string, variables: string[], use: (variable: string) => string): string =>
  variables.reduce((t, v) => t.replaceAll(JSON.stringify(bodyVariable(v)), use(v)), text);

/** The files of a multipart body, written by a shell here-document before the request (a reader has them on disk). */
const heredocs = (parts: FormPart[]): string[] =>
  parts.filter((p) => p.file).map((p) => `cat > ${p.file!.filename} <<'EOF'\n${p.value.replace(/\n$/, '')}\nEOF`);

const shellSingle = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
const shellDouble = (parts: Part[]): string =>
  `"${parts.map((p) => (typeof p === 'string' ? p.replace(/(["\\$`])/g, '\\$1') : `$${p.variable}`)).join('')}"`;

export function curlSample(m: RequestModel, base = LOCAL_BASE_URL): string {
  const lines = [`curl -X ${m.method} ${shellSingle(base + m.target)}`];
  for (const h of m.headers) {
    const dynamic = h.value.some((p) => typeof p !== 'string');
    lines.push(`  -H ${dynamic ? shellDouble([`${h.name}: `, ...h.value]) : shellSingle(`${h.name}: ${h.value.join('')}`)}`);
  }
  if (m.basicAuth) lines.push(`  -u "$${m.basicAuth.user}:$${m.basicAuth.password}"`);
  if (m.body?.kind === 'json')
    lines.push(`  -H 'Content-Type: application/json'`, `  --data ${withVariables(shellSingle(JSON.stringify(m.body.value, null, 2)), m.body.variables, (v) => `"'"$${v}"'"`)}`);
  if (m.body?.kind === 'multipart')
    for (const p of m.body.parts) lines.push(`  -F ${shellSingle(p.file ? `${p.name}=@${p.file.filename};type=${p.file.contentType}` : `${p.name}=${p.value}`)}`);
  if (m.body?.kind === 'form') for (const [k, v] of m.body.fields) lines.push(`  --data-urlencode ${shellSingle(`${k}=${v}`)}`);
  if (m.body?.kind === 'raw') lines.push(`  -H ${shellSingle(`Content-Type: ${m.body.contentType}`)}`, `  --data-binary ${shellSingle(m.body.text)}`);
  const vars = variablesOf(m);
  const preface = vars.length ? vars.map((v) => `# ${v.variable}: ${v.hint}`).join('\n') + '\n' : '';
  const files = m.body?.kind === 'multipart' ? heredocs(m.body.parts) : [];
  return preface + files.map((f) => f + '\n').join('') + lines.join(' \\\n');
}

const jsString = (s: string): string => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;
const jsParts = (parts: Part[]): string =>
  parts.every((p) => typeof p === 'string')
    ? jsString(parts.join(''))
    : '`' + parts.map((p) => (typeof p === 'string' ? p.replace(/[`\\$]/g, '\\$&') : `\${${p.variable}}`)).join('') + '`';

export function fetchSample(m: RequestModel, base = LOCAL_BASE_URL): string {
  const out: string[] = [];
  for (const v of variablesOf(m)) out.push(`const ${v.variable} = '…'; // ${v.hint}`);
  const headers = m.headers.map((h) => `    ${jsString(h.name)}: ${jsParts(h.value)},`);
  if (m.basicAuth) headers.push(`    Authorization: 'Basic ' + btoa(\`\${${m.basicAuth.user}}:\${${m.basicAuth.password}}\`),`);
  let body = '';
  if (m.body?.kind === 'json') {
    headers.push(`    'Content-Type': 'application/json',`);
    body = `  body: JSON.stringify(${withVariables(JSON.stringify(m.body.value, null, 2), m.body.variables, (v) => v).replace(/\n/g, '\n  ')}),`;
  } else if (m.body?.kind === 'multipart') {
    // No Content-Type header: fetch writes it with the multipart boundary.
    out.push('const form = new FormData();');
    for (const p of m.body.parts)
      out.push(
        p.file
          ? `form.append(${jsString(p.name)}, new Blob([${jsString(p.value)}], { type: ${jsString(p.file.contentType)} }), ${jsString(p.file.filename)});`
          : `form.append(${jsString(p.name)}, ${jsString(p.value)});`,
      );
    body = '  body: form,';
  } else if (m.body?.kind === 'form') {
    body = `  body: new URLSearchParams(${JSON.stringify(Object.fromEntries(m.body.fields), null, 2).replace(/\n/g, '\n  ')}),`;
  } else if (m.body?.kind === 'raw') {
    headers.push(`    'Content-Type': ${jsString(m.body.contentType)},`);
    body = `  body: ${jsString(m.body.text)},`;
  }
  out.push(
    `const response = await fetch(${jsString(base + m.target)}, {`,
    `  method: '${m.method}',`,
    ...(headers.length ? ['  headers: {', ...headers, '  },'] : []),
    ...(body ? [body] : []),
    '});',
    'console.log(response.status, await response.text());',
  );
  return out.join('\n');
}

export function sdkSample(call: SdkCall, base = LOCAL_BASE_URL): string {
  return [
    "import { Keyway } from '@keyway/sdk';",
    '',
    `const keyway = new Keyway({ oid: '${DEV_ORG_ID}', baseURL: '${base}' });`,
    call.code,
  ].join('\n');
}

/** JSON as a Python literal (True/False/None). */
export function pythonLiteral(v: Json, indent = ''): string {
  if (v === null) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'number') return String(v);
  if (typeof v === 'string') return JSON.stringify(v);
  const inner = `${indent}    `;
  if (Array.isArray(v)) return v.length ? `[\n${v.map((x) => inner + pythonLiteral(x, inner)).join(',\n')},\n${indent}]` : '[]';
  const entries = Object.entries(v);
  return entries.length ? `{\n${entries.map(([k, x]) => `${inner}${JSON.stringify(k)}: ${pythonLiteral(x, inner)}`).join(',\n')},\n${indent}}` : '{}';
}

export function pythonSample(m: RequestModel, base = LOCAL_BASE_URL): string {
  const vars = variablesOf(m);
  const out = [...(vars.length ? ['import os'] : []), 'import requests', ''];
  for (const v of vars) out.push(`${v.variable} = os.environ["${v.variable}"]  # ${v.hint}`);
  if (vars.length) out.push('');
  const pyParts = (parts: Part[]): string =>
    parts.every((p) => typeof p === 'string')
      ? JSON.stringify(parts.join(''))
      : 'f' + JSON.stringify(parts.map((p) => (typeof p === 'string' ? p.replace(/[{}]/g, '$&$&') : `{${p.variable}}`)).join(''));
  const args = [JSON.stringify(base + m.target)];
  if (m.headers.length || m.body?.kind === 'raw') {
    const hs = m.headers.map((h) => `        ${JSON.stringify(h.name)}: ${pyParts(h.value)},`);
    if (m.body?.kind === 'raw') hs.push(`        "Content-Type": ${JSON.stringify(m.body.contentType)},`);
    args.push(`headers={\n${hs.join('\n')}\n    }`);
  }
  if (m.basicAuth) args.push(`auth=(${m.basicAuth.user}, ${m.basicAuth.password})`);
  if (m.body?.kind === 'json') args.push(`json=${withVariables(pythonLiteral(m.body.value, '    '), m.body.variables, (v) => v)}`);
  if (m.body?.kind === 'multipart') {
    // requests writes the multipart body and its Content-Type (with the boundary); a file is (name, content, type).
    const fields = m.body.parts.map((p) => `        ${JSON.stringify(p.name)}: ${p.file ? `(${JSON.stringify(p.file.filename)}, ${JSON.stringify(p.value)}, ${JSON.stringify(p.file.contentType)})` : `(None, ${JSON.stringify(p.value)})`},`);
    args.push(`files={\n${fields.join('\n')}\n    }`);
  }
  if (m.body?.kind === 'form') args.push(`data=${pythonLiteral(Object.fromEntries(m.body.fields), '    ')}`);
  if (m.body?.kind === 'raw') args.push(`data=${JSON.stringify(m.body.text)}`);
  out.push(`response = requests.request(\n    "${m.method}",\n    ${args.join(',\n    ')},\n)`, 'print(response.status_code, response.text)');
  return out.join('\n');
}

const goString = (s: string): string => (s.includes('`') ? JSON.stringify(s) : '`' + s + '`');

export function goSample(m: RequestModel, base = LOCAL_BASE_URL): string {
  const vars = variablesOf(m);
  const imports = ['"fmt"', '"io"', '"net/http"'];
  if (vars.length) imports.push('"os"');
  let bodyExpr = 'nil';
  let contentType =
    m.body?.kind === 'json' ? '"application/json"' : m.body?.kind === 'form' ? '"application/x-www-form-urlencoded"' : m.body?.kind === 'raw' ? JSON.stringify(m.body.contentType) : undefined;
  const setup: string[] = [];
  if (m.body?.kind === 'multipart') {
    // mime/multipart writes the parts; a file part gets its own headers (CreateFormFile would send application/octet-stream).
    if (m.body.parts.filter((p) => p.file).length > 1) throw new Error('API reference: the Go sample writes one file part at most');
    imports.push('"bytes"', '"mime/multipart"');
    setup.push('\tvar payload bytes.Buffer', '\tform := multipart.NewWriter(&payload)');
    for (const p of m.body.parts) {
      if (p.file) {
        if (!imports.includes('"net/textproto"')) imports.push('"net/textproto"');
        setup.push(
          '\tpart := make(textproto.MIMEHeader)',
          `\tpart.Set("Content-Disposition", ${goString(`form-data; name="${p.name}"; filename="${p.file.filename}"`)})`,
          `\tpart.Set("Content-Type", ${JSON.stringify(p.file.contentType)})`,
          '\tw, err := form.CreatePart(part)',
          '\tif err != nil {',
          '\t\tpanic(err)',
          '\t}',
          `\tif _, err := io.WriteString(w, ${goString(p.value)}); err != nil {`,
          '\t\tpanic(err)',
          '\t}',
        );
      } else {
        setup.push(`\tif err := form.WriteField(${JSON.stringify(p.name)}, ${JSON.stringify(p.value)}); err != nil {`, '\t\tpanic(err)', '\t}');
      }
    }
    setup.push('\tif err := form.Close(); err != nil {', '\t\tpanic(err)', '\t}');
    bodyExpr = '&payload';
    contentType = 'form.FormDataContentType()';
  } else if (m.body) {
    imports.push('"strings"');
    if (m.body.kind === 'form') {
      imports.push('"net/url"');
      setup.push('\tform := url.Values{}', ...m.body.fields.map(([k, v]) => `\tform.Set(${JSON.stringify(k)}, ${JSON.stringify(v)})`));
      bodyExpr = 'strings.NewReader(form.Encode())';
    } else {
      const text = m.body.kind === 'json' ? JSON.stringify(m.body.value, null, 2) : m.body.text;
      const variables = m.body.kind === 'json' ? m.body.variables : [];
      bodyExpr = `strings.NewReader(${withVariables(goString(text), variables, (v) => `"\` + os.Getenv(${JSON.stringify(v)}) + \`"`)})`;
      if (variables.length && !imports.includes('"os"')) imports.push('"os"');
    }
  }
  const goParts = (parts: Part[]): string =>
    parts.map((p) => (typeof p === 'string' ? JSON.stringify(p) : `os.Getenv(${JSON.stringify(p.variable)})`)).join(' + ');
  const lines = [
    'package main',
    '',
    'import (',
    ...imports.sort().map((i) => `\t${i}`),
    ')',
    '',
    'func main() {',
    ...setup,
    `\treq, err := http.NewRequest(${JSON.stringify(m.method)}, ${JSON.stringify(base + m.target)}, ${bodyExpr})`,
    '\tif err != nil {',
    '\t\tpanic(err)',
    '\t}',
    ...m.headers.map((h) => `\treq.Header.Set(${JSON.stringify(h.name)}, ${goParts(h.value)})`),
    ...(m.basicAuth ? [`\treq.SetBasicAuth(os.Getenv("${m.basicAuth.user}"), os.Getenv("${m.basicAuth.password}"))`] : []),
    ...(contentType ? [`\treq.Header.Set("Content-Type", ${contentType})`] : []),
    '\tres, err := http.DefaultClient.Do(req)',
    '\tif err != nil {',
    '\t\tpanic(err)',
    '\t}',
    '\tdefer res.Body.Close()',
    '\tbody, _ := io.ReadAll(res.Body)',
    '\tfmt.Println(res.Status, string(body))',
    '}',
  ];
  return lines.join('\n');
}

/** Every sample of an operation, in tab order; the SDK tab only where the SDK performs the call. */
export function samplesFor(spec: ApiSpec, op: Operation): Sample[] {
  const m = requestModel(spec, op);
  const sdk = SDK_CALLS[`${op.method.toUpperCase()} ${op.path}`];
  return [
    { value: 'curl', label: 'curl', language: 'bash', code: curlSample(m) },
    { value: 'fetch', label: 'JavaScript (fetch)', language: 'js', code: fetchSample(m) },
    ...(sdk ? [{ value: 'sdk' as const, label: '@keyway/sdk', language: 'js', code: sdkSample(sdk) }] : []),
    { value: 'python', label: 'Python', language: 'python', code: pythonSample(m) },
    { value: 'go', label: 'Go', language: 'go', code: goSample(m) },
  ];
}
