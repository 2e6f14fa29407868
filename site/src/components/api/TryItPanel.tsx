import React, { useEffect, useId, useRef, useState } from 'react';
import { runtimeConfig, WRITTEN_API_URL } from '../runtimeConfig';
import styles from './styles.module.css';
import { setTryItValues } from './tryItValues';
import { useCopy } from '../useCopy';
import type { TryItOperation } from './types';

/** The base URL when the docs server names no API server (`/api/config`): the identity server of `npm start`. */
export const DEFAULT_BASE_URL = WRITTEN_API_URL;
// sessionStorage only: credentials live as long as this tab and never leave the browser except in the requests sent.
const BASE_URL_KEY = 'keyway.api-reference.base-url';
const CREDENTIALS_KEY = 'keyway.api-reference.credentials';

type CredentialName = 'orgId' | 'apiKey' | 'userToken' | 'accessToken' | 'clientId' | 'clientSecret';

const CREDENTIAL_FIELDS: Record<CredentialName, { label: string; secret: boolean }> = {
  orgId: { label: 'Organization id (Keyway-OrgID)', secret: false },
  apiKey: { label: 'API key (Keyway-API-Key)', secret: true },
  userToken: { label: 'User token (Bearer)', secret: true },
  accessToken: { label: 'OAuth2 access token (Bearer)', secret: true },
  clientId: { label: 'OAuth2 client id', secret: false },
  clientSecret: { label: 'OAuth2 client secret', secret: true },
};

const SCHEME_CREDENTIALS: Record<string, CredentialName[]> = {
  OrgId: ['orgId'],
  ApiKey: ['apiKey'],
  UserToken: ['userToken'],
  OAuth2AccessToken: ['accessToken'],
  KeywayOAuth2: ['accessToken'],
  ClientBasic: ['clientId', 'clientSecret'],
};

function readSession<T>(key: string, fallback: T): T {
  try {
    const v = window.sessionStorage.getItem(key);
    return v === null ? fallback : (JSON.parse(v) as T);
  } catch {
    return fallback;
  }
}

function writeSession(key: string, value: unknown): void {
  try {
    window.sessionStorage.setItem(key, JSON.stringify(value));
  } catch {
    // Storage disabled: the values still work for this page view.
  }
}

interface Answer {
  status: number;
  statusText: string;
  ms: number;
  contentType: string;
  /** Every response header the server lets this page read (the CORS-safelisted ones and those it exposes). */
  headers: [string, string][];
  text: string;
  /** The request that was sent, as a curl command. */
  curl: string;
}

const shellQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * The request `buildRequest` made, as a curl command that sends the same thing: method, URL, headers and body (a
 * multipart body as its fields and its file, written first by a here-document, as the samples do).
 */
export function curlOf(op: TryItOperation, url: string, init: RequestInit, body: string): string {
  const lines = [`curl -X ${init.method ?? 'GET'} ${shellQuote(url)}`];
  new Headers(init.headers).forEach((value, name) => lines.push(`  -H ${shellQuote(`${name}: ${value}`)}`));
  let preface = '';
  if (init.body instanceof FormData) {
    for (const [name, value] of op.fields ?? []) lines.push(`  -F ${shellQuote(`${name}=${value}`)}`);
    if (op.file) {
      preface = `cat > ${op.file.filename} <<'EOF'\n${body.replace(/\n$/, '')}\nEOF\n`;
      lines.push(`  -F ${shellQuote(`${op.file.field}=@${op.file.filename};type=${op.file.contentType}`)}`);
    }
  } else if (typeof init.body === 'string') lines.push(`  --data-binary ${shellQuote(init.body)}`);
  return preface + lines.join(' \\\n');
}

/** Builds the request from the form, or explains what is missing or malformed. */
export function buildRequest(
  op: TryItOperation,
  baseUrl: string,
  values: Record<string, string>,
  credentials: Partial<Record<CredentialName, string>>,
  body: string,
): { url: string; init: RequestInit } | { error: string } {
  let base: URL;
  try {
    base = new URL(baseUrl);
    if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new Error('not http');
  } catch {
    return { error: `The base URL "${baseUrl}" is not an http(s) URL, e.g. ${DEFAULT_BASE_URL}.` };
  }
  // Credentials go in their fields, which put them in headers: never in an address (history, logs, Referer).
  if (base.username || base.password) return { error: 'The base URL holds a user name or password: remove them and use the credential fields.' };
  let path = op.path;
  const query = new URLSearchParams();
  const headers = new Headers();
  for (const p of op.parameters) {
    const v = (values[`${p.in}:${p.name}`] ?? '').trim();
    if (!v) {
      if (p.required) return { error: `Fill in the ${p.in} parameter "${p.name}".` };
      continue;
    }
    if (p.in === 'path') path = path.replace(`{${p.name}}`, encodeURIComponent(v));
    else if (p.in === 'query') query.append(p.name, v);
    else if (p.in === 'header') headers.set(p.name, v);
  }
  for (const scheme of op.security) {
    const names = SCHEME_CREDENTIALS[scheme] ?? [];
    for (const n of names) {
      if (!credentials[n]?.trim()) return { error: `Fill in the ${CREDENTIAL_FIELDS[n].label}: this operation needs it.` };
    }
    if (scheme === 'OrgId') headers.set('Keyway-OrgID', credentials.orgId!.trim());
    else if (scheme === 'ApiKey') headers.set('Keyway-API-Key', credentials.apiKey!.trim());
    else if (scheme === 'UserToken') headers.set('Authorization', `Bearer ${credentials.userToken!.trim()}`);
    else if (scheme === 'OAuth2AccessToken' || scheme === 'KeywayOAuth2') headers.set('Authorization', `Bearer ${credentials.accessToken!.trim()}`);
    else if (scheme === 'ClientBasic') headers.set('Authorization', `Basic ${btoa(`${credentials.clientId!.trim()}:${credentials.clientSecret!.trim()}`)}`);
  }
  const init: RequestInit = { method: op.method, headers };
  if (op.contentType === 'multipart/form-data') {
    // The browser writes the multipart body and its Content-Type (with the boundary) itself.
    const form = new FormData();
    for (const [name, value] of op.fields ?? []) form.append(name, value);
    if (op.file) {
      if (!body.trim()) return { error: `Fill in the content of the file ${op.file.filename}.` };
      form.append(op.file.field, new Blob([body], { type: op.file.contentType }), op.file.filename);
    }
    init.body = form;
  } else if (op.contentType && body.trim()) {
    if (op.contentType === 'application/json') {
      try {
        JSON.parse(body);
      } catch (e) {
        return { error: `The request body is not valid JSON: ${(e as Error).message}` };
      }
    }
    headers.set('Content-Type', op.contentType);
    init.body = body;
  }
  const qs = query.toString();
  const url = base.origin + base.pathname.replace(/\/+$/, '') + path + (qs ? `?${qs}` : '');
  return { url, init };
}

/**
 * Why a request got no answer the page may read. The browser only says "Failed to fetch", so the cause is found the
 * way a developer would in the console: a `no-cors` request to the same URL (exempt from CORS: if it gets through, the
 * server is up and its CORS rules refused this page), else a CSP violation report for the URL (the docs server's
 * connect-src), else the network (nothing answers there).
 */
async function explainFailure(url: string, init: RequestInit, message: string, cspBlocked: () => boolean): Promise<string> {
  const target = new URL(url);
  let reachable = false;
  try {
    // The CSP applies to this request too, CORS does not: through means the server is up and refused this page.
    await fetch(url, { mode: 'no-cors', credentials: 'omit', cache: 'no-store' });
    reachable = true;
  } catch {
    // Blocked by the CSP, or nothing answers.
  }
  if (reachable) {
    const headers: string[] = [];
    new Headers(init.headers).forEach((_value, name) => headers.push(name));
    return (
      `The server at ${target.origin} answered, but its CORS rules do not let this page (${window.location.origin}) read the answer. ` +
      `It must list this origin among its allowed origins (KEYWAY_CORS_ORIGINS for the identity server) and allow ${init.method ?? 'GET'}` +
      (headers.length ? ` with the headers ${headers.join(', ')}.` : '.')
    );
  }
  // Violation reports are queued as tasks: give a pending one a moment to arrive.
  for (let waited = 0; waited < 1000 && !cspBlocked(); waited += 50) await new Promise((r) => setTimeout(r, 50));
  if (cspBlocked()) {
    return (
      `This page may not connect to ${target.origin}: the docs site's Content-Security-Policy (connect-src) does not list it. ` +
      'The docs server allows the API server it is configured with (KEYWAY_API_URL) and any origin in KEYWAY_CSP_CONNECT_SRC; ' +
      'use that base URL or add this one there.'
    );
  }
  return (
    `Network error: nothing answered at ${target.origin} (${message}). Is the API server running there? ` +
    '`npm start` runs the identity server and prints its URL.'
  );
}

function pretty(answer: Answer): string {
  if (answer.contentType.includes('json')) {
    try {
      return JSON.stringify(JSON.parse(answer.text), null, 2);
    } catch {
      // Not JSON after all: show it as it came.
    }
  }
  return answer.text || '(empty body)';
}

export default function TryItPanel({ operation }: { operation: TryItOperation }): React.JSX.Element {
  const id = useId();
  const needed = [...new Set(operation.security.flatMap((s) => SCHEME_CREDENTIALS[s] ?? []))];
  const [baseUrl, setBaseUrl] = useState(DEFAULT_BASE_URL);
  const [credentials, setCredentials] = useState<Partial<Record<CredentialName, string>>>({});
  const [values, setValues] = useState<Record<string, string>>(() =>
    Object.fromEntries(operation.parameters.filter((p) => p.required && p.example !== undefined).map((p) => [`${p.in}:${p.name}`, p.example!])),
  );
  const [body, setBody] = useState(operation.body ?? '');
  const [answer, setAnswer] = useState<Answer | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [sending, setSending] = useState(false);
  // Until the docs server's configuration has arrived, the default base URL may be one this page may not call: Send
  // waits for it (a reader typing a base URL of their own ends the wait, and the configuration no longer replaces it).
  const [configuring, setConfiguring] = useState(true);
  const typedBaseUrl = useRef(false);
  const { copied, copy } = useCopy();

  // The request samples beside the panel follow what is typed here (ReferenceContent's Samples).
  useEffect(() => {
    setTryItValues(`${operation.method} ${operation.path}`, { baseUrl, credentials, values, body });
  }, [operation, baseUrl, credentials, values, body]);

  useEffect(() => {
    setCredentials(readSession(CREDENTIALS_KEY, {}));
    const stored = readSession<string | null>(BASE_URL_KEY, null);
    if (stored !== null) {
      setBaseUrl(stored);
      setConfiguring(false);
      return;
    }
    // By default, the API server the docs server is configured with (the one its CSP lets this page connect to).
    let cancelled = false;
    runtimeConfig()
      .then((config) => !cancelled && !typedBaseUrl.current && config.identityUrl && setBaseUrl(config.identityUrl))
      .catch(() => undefined)
      .finally(() => !cancelled && setConfiguring(false));
    return () => {
      cancelled = true;
    };
  }, []);

  const updateCredential = (name: CredentialName, value: string) => {
    const next = { ...credentials, [name]: value };
    setCredentials(next);
    writeSession(CREDENTIALS_KEY, next);
  };

  const send = async (event: React.FormEvent) => {
    event.preventDefault();
    setError(undefined);
    setAnswer(undefined);
    const built = buildRequest(operation, baseUrl, values, credentials, body);
    if ('error' in built) {
      setError(built.error);
      return;
    }
    setSending(true);
    const started = performance.now();
    const target = new URL(built.url);
    let cspBlocked = false;
    const onViolation = (e: SecurityPolicyViolationEvent) => {
      if (e.effectiveDirective === 'connect-src' && e.blockedURI.startsWith(target.origin)) cspBlocked = true;
    };
    document.addEventListener('securitypolicyviolation', onViolation);
    try {
      const res = await fetch(built.url, { ...built.init, credentials: 'omit', redirect: 'manual' });
      const text = res.type === 'opaqueredirect' ? '(a redirect: the browser does not expose its target to this page)' : await res.text();
      const headers: [string, string][] = [];
      res.headers.forEach((value, name) => headers.push([name, value]));
      setAnswer({
        status: res.status,
        statusText: res.statusText,
        ms: Math.round(performance.now() - started),
        contentType: res.headers.get('content-type') ?? '',
        headers,
        text,
        curl: curlOf(operation, built.url, built.init, body),
      });
    } catch (e) {
      setError(await explainFailure(built.url, built.init, (e as Error).message, () => cspBlocked));
    } finally {
      document.removeEventListener('securitypolicyviolation', onViolation);
      setSending(false);
    }
  };

  const forget = () => {
    setCredentials({});
    try {
      window.sessionStorage.removeItem(CREDENTIALS_KEY);
    } catch {
      // Nothing stored.
    }
  };

  const params = operation.parameters.filter((p) => p.in !== 'cookie');
  return (
    <form onSubmit={send} noValidate>
      <fieldset>
        <legend>Server</legend>
        <div className={styles.field}>
          <label htmlFor={`${id}-base`}>Base URL</label>
          <input
            id={`${id}-base`}
            type="url"
            value={baseUrl}
            onChange={(e) => {
              typedBaseUrl.current = true;
              setConfiguring(false);
              setBaseUrl(e.target.value);
              writeSession(BASE_URL_KEY, e.target.value);
            }}
          />
        </div>
      </fieldset>
      {needed.length > 0 && (
        <fieldset>
          <legend>Credentials</legend>
          {needed.map((n) => (
            <div className={styles.field} key={n}>
              <label htmlFor={`${id}-${n}`}>{CREDENTIAL_FIELDS[n].label}</label>
              <input
                id={`${id}-${n}`}
                type={CREDENTIAL_FIELDS[n].secret ? 'password' : 'text'}
                autoComplete="off"
                value={credentials[n] ?? ''}
                onChange={(e) => updateCredential(n, e.target.value)}
              />
            </div>
          ))}
          <p className={styles.note}>
            Kept in this tab's session storage only.{' '}
            <button type="button" className="button button--link button--sm" onClick={forget}>
              Forget credentials
            </button>
          </p>
        </fieldset>
      )}
      {params.length > 0 && (
        <fieldset>
          <legend>Parameters</legend>
          {params.map((p) => {
            const key = `${p.in}:${p.name}`;
            return (
              <div className={styles.field} key={key}>
                <label htmlFor={`${id}-${key}`}>
                  {p.name} ({p.in}
                  {p.required ? ', required' : ''})
                </label>
                <input
                  id={`${id}-${key}`}
                  type="text"
                  placeholder={p.example ?? ''}
                  value={values[key] ?? ''}
                  onChange={(e) => setValues({ ...values, [key]: e.target.value })}
                />
              </div>
            );
          })}
        </fieldset>
      )}
      {operation.contentType && (
        <fieldset>
          <legend>Body</legend>
          <label htmlFor={`${id}-body`} className={styles.note}>
            {operation.file ? `File ${operation.file.filename} (${operation.file.contentType}), sent as multipart/form-data field "${operation.file.field}"` : `Request body (${operation.contentType})`}
          </label>
          <textarea id={`${id}-body`} value={body} spellCheck={false} onChange={(e) => setBody(e.target.value)} />
        </fieldset>
      )}
      <div className={styles.actions}>
        <button type="submit" className="button button--primary" disabled={sending || configuring}>
          {sending ? 'Sending…' : 'Send request'}
        </button>
      </div>
      <div role="status" aria-live="polite" aria-label="Answer" className={styles.answer}>
        {error && <p className={styles.error}>{error}</p>}
        {answer && (
          <>
            <p>
              <strong>
                {answer.status} {answer.statusText}
              </strong>{' '}
              in {answer.ms} ms
            </p>
            {answer.status >= 400 && (
              <p className={styles.error}>
                The server refused the request with HTTP {answer.status}; its answer below says why.
              </p>
            )}
            <details className={styles.sent}>
              <summary>Response headers ({answer.headers.length})</summary>
              <pre aria-label="Response headers">
                <code>{answer.headers.map(([name, value]) => `${name}: ${value}`).join('\n')}</code>
              </pre>
            </details>
            <pre aria-label="Response body">
              <code>{pretty(answer)}</code>
            </pre>
            <div className={styles.actions}>
              <button
                type="button"
                className="button button--secondary button--sm"
                onClick={() => void copy(answer.curl)}
              >
                {copied ? 'Copied' : 'Copy as curl'}
              </button>
            </div>
            <details className={styles.sent}>
              <summary>The request sent, as curl</summary>
              <pre aria-label="Request sent as curl">
                <code>{answer.curl}</code>
              </pre>
            </details>
          </>
        )}
      </div>
    </form>
  );
}
