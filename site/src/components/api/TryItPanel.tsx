import React, { useEffect, useId, useState } from 'react';
import styles from './styles.module.css';
import type { TryItOperation } from './types';

export const DEFAULT_BASE_URL = 'http://localhost:8787';
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
  text: string;
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
  if (op.contentType && body.trim()) {
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

  useEffect(() => {
    setBaseUrl(readSession(BASE_URL_KEY, DEFAULT_BASE_URL));
    setCredentials(readSession(CREDENTIALS_KEY, {}));
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
    try {
      const res = await fetch(built.url, { ...built.init, credentials: 'omit', redirect: 'manual' });
      const text = res.type === 'opaqueredirect' ? '(a redirect: the browser does not expose its target to this page)' : await res.text();
      setAnswer({ status: res.status, statusText: res.statusText, ms: Math.round(performance.now() - started), contentType: res.headers.get('content-type') ?? '', text });
    } catch (e) {
      setError(
        `The request to ${built.url} did not get an answer (${(e as Error).message}). Is the server running, and does it allow this site's ` +
          'origin (KEYWAY_CORS_ORIGINS)? The docs server also only lets pages connect to the API server it was configured with.',
      );
    } finally {
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
            Request body ({operation.contentType})
          </label>
          <textarea id={`${id}-body`} value={body} spellCheck={false} onChange={(e) => setBody(e.target.value)} />
        </fieldset>
      )}
      <div className={styles.actions}>
        <button type="submit" className="button button--primary" disabled={sending}>
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
            <pre>
              <code>{pretty(answer)}</code>
            </pre>
          </>
        )}
      </div>
    </form>
  );
}
