import { InvalidKeywayConfigurationError, UnexpectedError, mapServerError } from './errors.js';
import { EventBus } from './events.js';
import type { Envelope } from './types.js';

/** Version of the Keyway browser SDK, sent on every call as `Keyway-SdkVersion`. */
export const SDK_VERSION = '3.29.3';

/** Hosts of a custom deployment. */
export interface KeywayHosts {
  /** API host, an http or https URL. */
  baseURL: string;
  /** Host of the SDK pages (hosted login, cross-origin helper page). */
  sdkURL: string;
}

/** Options of {@link KeywayClient} and {@link Keyway}. */
export interface KeywayConfig {
  /** Organization id. Required when analytics or identity-provider-initiated SSO are on. */
  oid?: string;
  /** `production` (default), `sandbox`, or the hosts of a custom deployment. Not combinable with `baseURL`/`sdkURL`. */
  environment?: 'production' | 'sandbox' | KeywayHosts;
  /** API host (instead of `environment`). */
  baseURL?: string;
  /** SDK page host (instead of `environment`); defaults to `baseURL`. */
  sdkURL?: string;
  /** Send analytics events to `/actions/sdk` (default `true`). */
  analytics?: boolean;
  /** Complete sign-ins started at the identity provider (`iss` URL parameter; default `false`). */
  idpInitiatedSso?: boolean;
  /** Name of the token claim holding the groups (default `groups`). */
  groupsClaimName?: string;
}

/** Validated configuration with every default applied. */
export interface ResolvedConfig {
  /** Organization id, when given. */
  oid?: string;
  /** API host without trailing slash. */
  baseURL: string;
  /** SDK page host without trailing slash. */
  sdkURL: string;
  /** Whether analytics events are sent. */
  analytics: boolean;
  /** Whether identity-provider-initiated SSO is completed. */
  idpInitiatedSso: boolean;
  /** Name of the groups claim. */
  groupsClaimName: string;
}

const ENVIRONMENTS = {
  production: ['https://api.keyway.dev', 'https://sdk.keyway.dev'],
  sandbox: ['https://api.sandbox.keyway.dev', 'https://sdk.sandbox.keyway.dev'],
} as const;

const bad = (m: string) => new InvalidKeywayConfigurationError(m);

function url(value: unknown, name: string, httpOnly: boolean): string {
  let u: URL | undefined;
  try {
    u = new URL(value as string);
  } catch {
    /* reported below */
  }
  if (typeof value !== 'string' || !u || (httpOnly && !/^https?:$/.test(u.protocol)))
    throw bad(`${name} must be a valid ${httpOnly ? 'http or https ' : ''}URL, got ${JSON.stringify(value)}`);
  return value.replace(/\/+$/, '');
}

/**
 * Checks SDK options against the configuration rules and applies defaults.
 * @throws {@link errors.InvalidKeywayConfigurationError} naming the offending option.
 */
export function resolveConfig(options: KeywayConfig): ResolvedConfig {
  if (!options || typeof options !== 'object') throw bad('options are required');
  const { environment: env, oid, analytics = true, idpInitiatedSso = false, groupsClaimName = 'groups' } = options;
  let { baseURL, sdkURL } = options;
  if (env !== undefined) {
    if (baseURL !== undefined || sdkURL !== undefined)
      throw bad('environment cannot be combined with baseURL or sdkURL');
    if (typeof env === 'string') {
      const hosts = ENVIRONMENTS[env as 'production'];
      if (!Object.hasOwn(ENVIRONMENTS, env)) throw bad(`environment must be "production" or "sandbox", got "${env}"`);
      [baseURL, sdkURL] = hosts;
    } else if (typeof env === 'object' && env) {
      if (typeof env.baseURL !== 'string') throw bad('environment.baseURL must be a string');
      if (typeof env.sdkURL !== 'string') throw bad('environment.sdkURL must be a string');
      ({ baseURL, sdkURL } = env);
    } else throw bad('environment must be "production", "sandbox" or { baseURL, sdkURL }');
  }
  if (baseURL === undefined && sdkURL === undefined) [baseURL, sdkURL] = ENVIRONMENTS.production;
  const base = url(baseURL, 'baseURL', true);
  if (typeof analytics !== 'boolean') throw bad('analytics must be a boolean');
  if (typeof idpInitiatedSso !== 'boolean') throw bad('idpInitiatedSso must be a boolean');
  if (oid !== undefined && typeof oid !== 'string') throw bad('oid must be a string');
  if ((analytics || idpInitiatedSso) && !oid) throw bad('oid is required - please initialize the SDK with an organization ID');
  return {
    oid,
    baseURL: base,
    sdkURL: sdkURL === undefined ? base : url(sdkURL, 'sdkURL', false),
    analytics,
    idpInitiatedSso,
    groupsClaimName,
  };
}

/** Options of one API call. */
export interface RequestOptions {
  /** JSON body (or form fields when `form` is set). */
  body?: unknown;
  /** Query parameters; `undefined` values are left out. */
  query?: Record<string, string | undefined>;
  /** Send `Keyway-OrgID`: `true` for the configured organization, or another organization id. */
  org?: boolean | string;
  /** Bearer token; defaults to the token the client holds, `null` sends none. */
  token?: string | null;
  /** Send the body as `application/x-www-form-urlencoded`. */
  form?: boolean;
  /** Let the request outlive the page (analytics). */
  keepalive?: boolean;
  /** Extra headers. */
  headers?: Record<string, string>;
  /** Bypass HTTP caches. */
  noCache?: boolean;
}

/** Raw answer of {@link KeywayClient.call}: HTTP status, parsed body and headers. */
export interface RawResponse<T> {
  /** HTTP status. */
  status: number;
  /** Parsed JSON body (an empty envelope when there was none). */
  body: Envelope<T> & Record<string, unknown>;
  /** Response headers. */
  headers: Headers;
}

/** Milliseconds before the retry `n` (0-based) of a failed network call. */
export const retryDelay = (n: number) => 500 * 2 ** n;
/** How many times a failed network call is retried. */
export const MAX_RETRIES = 5;

/** Resolves after `ms` milliseconds. @internal */
export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Core of the SDK: validated configuration, the held token, the event bus and the HTTP client.
 * Feature modules (sign-in, users, SSO, passkeys, analytics) take a client as first argument,
 * so a page only bundles what it uses. {@link Keyway} wraps all of them.
 */
export class KeywayClient {
  /** The validated configuration. */
  readonly config: ResolvedConfig;
  /** Events of sign-in and recovery flows. */
  readonly events = new EventBus();
  /** Token sent as bearer, when held. */
  token?: string;
  /** The id_token of the hosted login that gave {@link KeywayClient.token}, when one came with it (never sent). */
  idToken?: string;
  /**
   * Current flow of each kind; events of older flows are dropped. Typed by what the client needs of a flow (stopping
   * it), so that this module does not import flow.ts, which imports it. @internal
   */
  readonly flows: { auth?: { cancel(): void }; recovery?: { cancel(): void } } = {};

  /**
   * @param options - SDK options, checked by {@link resolveConfig}.
   * @throws {@link errors.InvalidKeywayConfigurationError} when the options break a rule.
   */
  constructor(options: KeywayConfig) {
    this.config = resolveConfig(options);
  }

  /** The configured organization id, or an error when there is none. */
  get oid(): string {
    const { oid } = this.config;
    if (!oid) throw bad('oid is required - please initialize the SDK with an organization ID');
    return oid;
  }

  /**
   * Performs a call and returns the raw answer without mapping error answers.
   * Network failures are retried up to 5 times (500, 1000, 2000, 4000, 8000 ms) with the header
   * `Keyway-SdkRetryCount`; HTTP error statuses are not retried.
   */
  async call<T>(method: string, path: string, o: RequestOptions = {}): Promise<RawResponse<T>> {
    const u = new URL(this.config.baseURL + path);
    for (const [k, v] of Object.entries(o.query ?? {})) if (v !== undefined) u.searchParams.set(k, v);
    const headers: Record<string, string> = { 'Keyway-SdkVersion': SDK_VERSION, ...o.headers };
    const token = o.token === undefined ? this.token : o.token;
    if (token) headers.Authorization = `Bearer ${token}`;
    if (o.org) headers['Keyway-OrgID'] = o.org === true ? this.oid : o.org;
    let body: string | undefined;
    if (o.body !== undefined) {
      headers['Content-Type'] = o.form ? 'application/x-www-form-urlencoded' : 'application/json';
      body = o.form
        ? new URLSearchParams(o.body as Record<string, string>).toString()
        : JSON.stringify(o.body);
    }
    for (let n = 0; ; n++) {
      let res: Response;
      try {
        res = await fetch(u, {
          method,
          headers: n ? { ...headers, 'Keyway-SdkRetryCount': String(n) } : headers,
          body,
          keepalive: o.keepalive,
          cache: o.noCache ? 'no-store' : undefined,
        });
      } catch (e) {
        if (n >= MAX_RETRIES) throw new UnexpectedError(`network error calling ${method} ${path}: ${(e as Error).message}`);
        await sleep(retryDelay(n));
        continue;
      }
      const text = await res.text();
      let parsed: RawResponse<T>['body'] = {};
      try {
        if (text) parsed = JSON.parse(text);
      } catch {
        if (res.ok) throw new UnexpectedError(`malformed answer from ${method} ${path}`);
      }
      return { status: res.status, body: parsed, headers: res.headers };
    }
  }

  /**
   * Performs a call and returns `result` of the envelope. Error answers (an `errors` list or an
   * HTTP error status) are mapped to SDK errors with `errors[0].message`.
   */
  async request<T>(method: string, path: string, o?: RequestOptions): Promise<T> {
    const r = await this.call<T>(method, path, o);
    const err = failure(r);
    if (err) throw err;
    return r.body.result as T;
  }
}

/** The mapped error of an error answer, or `undefined` for a successful one. @internal */
export function failure(r: RawResponse<unknown>): Error | undefined {
  const e = r.body.errors?.[0];
  if (!e && r.status < 400) return undefined;
  return mapServerError(
    e?.httpcode ?? r.status,
    e?.message ?? `HTTP ${r.status}`,
    r.headers.get('Keyway-Correlation-Id') ?? undefined,
  );
}
