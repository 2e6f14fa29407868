import fastifyCookie from '@fastify/cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { contentSecurityPolicy, type CspOptions } from '../headers.js';
import { scriptSources, type SiteFile } from '../site-files.js';
import { SESSION_COOKIE, sessionCookieOptions } from './cookie.js';
import { GATE_MANIFEST, inPrefixes, readGateManifest } from './manifest.js';
import { signInRequiredPage } from './page.js';
import { IdentityUnavailableError, TokenValidator, type Validation } from './validator.js';

export { TokenValidator, IdentityUnavailableError, gateRefusal, tokenClaims, type Validation } from './validator.js';
export { readGateManifest, GATE_MANIFEST, DEFAULT_GATED_PREFIXES } from './manifest.js';
export { SESSION_COOKIE } from './cookie.js';

/** Sign-in for the gated docs. Without `identityUrl` and `orgId` nobody can sign in and gated content is never served. */
export interface GateOptions {
  /** Base URL of the identity server the browser signs in with and the server validates tokens with. */
  identityUrl?: string;
  /** The docs organization id (tokens of other organizations are refused). */
  orgId?: string;
  /** Mark the session cookie Secure (default: when NODE_ENV is production). Requests over https always get Secure. */
  secureCookie?: boolean;
  /** Seconds a validated session is trusted before its token is checked again (default 60). */
  revalidateSeconds?: number;
  /** For tests: the fetch used to reach the identity server. */
  fetch?: typeof fetch;
}

export interface Gate {
  /** Whether a file of the build belongs to gated routes only. */
  isGated(file: SiteFile): boolean;
  /** Cache-Control of a file: `private, no-store` for a gated one (no cache may keep it), else `fallback`. */
  cacheControl(file: SiteFile, fallback: string): string;
  /** Answers a request for a gated file without a session; undefined when the request may have it. */
  refuse(request: FastifyRequest, reply: FastifyReply, file: SiteFile): FastifyReply | undefined;
  /**
   * Whether a user token (sent as a bearer token, e.g. by an MCP client) opens the gated docs: the same rule as a docs
   * session's token. Never throws: an unreachable identity server or no sign-in configured is a refusal with its reason.
   */
  tokenOpens(token: string): Promise<{ valid: boolean; reason?: string }>;
}

const JSON_TYPE = /^application\/json\s*(;|$)/i;
const TOKEN_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/**
 * The server side of the gate: `/api/config` (what the browser needs at run time), `/api/session` (open, read, close
 * the docs session), `request.docsSignedIn` on every request, and the rule that gated pages and chunks are served
 * only with a valid session. The gate manifest is removed from the servable files.
 */
export function registerGate(
  app: FastifyInstance,
  context: { siteDir: string; files: Map<string, SiteFile>; csp: CspOptions },
  options: GateOptions = {},
): Gate {
  const manifest = readGateManifest(context.siteDir);
  context.files.delete(GATE_MANIFEST);
  if (!manifest.complete) app.log.warn(`no ${GATE_MANIFEST} in the build: only the gated pages are known, not their chunks`);

  const identityUrl = options.identityUrl?.replace(/\/+$/, '') || undefined;
  const orgId = options.orgId || undefined;
  if (identityUrl) {
    try {
      if (!/^https?:$/.test(new URL(identityUrl).protocol)) throw new Error('not http(s)');
    } catch {
      throw new Error(`gate.identityUrl must be an http or https URL, got ${JSON.stringify(options.identityUrl)}`);
    }
  }
  if (Boolean(identityUrl) !== Boolean(orgId)) throw new Error('gate: identityUrl and orgId are needed together (or neither)');
  const revalidateSeconds = options.revalidateSeconds ?? 60;
  if (!Number.isFinite(revalidateSeconds) || revalidateSeconds < 0) throw new Error('gate.revalidateSeconds must be a number of seconds, 0 or more');
  const validator =
    identityUrl && orgId ? new TokenValidator({ identityUrl, orgId, revalidateSeconds, fetch: options.fetch }) : undefined;
  const secureDefault = options.secureCookie ?? process.env.NODE_ENV === 'production';
  const secure = (request: FastifyRequest) => secureDefault || request.protocol === 'https';

  // Cookies are parsed and written by @fastify/cookie. Its own parsing hook stays off: the gate's onRequest hook below
  // runs before any hook a plugin adds when it loads, so it parses the header itself with the plugin's parser.
  void app.register(fastifyCookie, { hook: false });
  const sessionToken = (request: FastifyRequest): string | undefined =>
    request.headers.cookie ? app.parseCookie(request.headers.cookie)[SESSION_COOKIE] || undefined : undefined;
  const clearSession = (request: FastifyRequest, reply: FastifyReply) => reply.clearCookie(SESSION_COOKIE, sessionCookieOptions(0, secure(request)));

  type Session = { token: string; validation: Validation; unavailable?: boolean };
  const sessionOf = async (request: FastifyRequest): Promise<Session | undefined> => {
    const token = sessionToken(request);
    if (!token || !validator) return undefined;
    try {
      return { token, validation: await validator.validate(token) };
    } catch (error) {
      request.log.warn({ err: error }, 'docs session could not be validated');
      return { token, validation: { valid: false, reason: (error as Error).message }, unavailable: true };
    }
  };

  app.addHook('onRequest', async (request, reply) => {
    if (!sessionToken(request)) return;
    const session = await sessionOf(request);
    request.docsSignedIn = session?.validation.valid === true;
    // An invalid (revoked, expired, foreign) session is dropped; an unreachable identity server keeps the cookie.
    if (session && !session.validation.valid && !session.unavailable) {
      clearSession(request, reply);
    }
  });

  /** Cross-site requests may not open or close a session (login CSRF): the Origin, when sent, must be this site. */
  const sameOrigin = (request: FastifyRequest): boolean => {
    const origin = request.headers.origin;
    if (origin === undefined) return true;
    try {
      // Compared as URL hosts, so that a default port written in Host (`docs.example:443`) still matches.
      return new URL(origin).host === new URL(`${new URL(origin).protocol}//${request.headers.host ?? ''}`).host;
    } catch {
      return false;
    }
  };

  app.get('/api/config', async (_request, reply) => {
    reply.header('Cache-Control', 'no-cache');
    return { identityUrl: identityUrl ?? null, orgId: orgId ?? null };
  });

  app.get('/api/session', async (request, reply) => {
    reply.header('Cache-Control', 'no-store');
    const session = await sessionOf(request);
    if (!session?.validation.valid) return { signedIn: false };
    return { signedIn: true, personId: session.validation.personId, expiresAt: new Date(session.validation.expiresAt).toISOString() };
  });

  app.post('/api/session', async (request, reply) => {
    reply.header('Cache-Control', 'no-store');
    if (!sameOrigin(request)) return reply.code(403).send({ error: 'A session can only be opened from the docs site itself.' });
    if (!JSON_TYPE.test(request.headers['content-type'] ?? '')) {
      return reply.code(415).send({ error: 'Send the token as JSON: Content-Type: application/json, body {"token": "…"}.' });
    }
    const token = (request.body as { token?: unknown } | null | undefined)?.token;
    if (typeof token !== 'string' || !token) return reply.code(400).send({ error: 'The body needs "token": the user token from sign-in, as a string.' });
    if (token.length > 8192 || !TOKEN_SHAPE.test(token)) return reply.code(400).send({ error: '"token" is not a Keyway user token (a JWT).' });
    if (!validator) return reply.code(503).send({ error: 'Sign-in is not configured on this docs server.' });
    let validation: Validation;
    try {
      validator.forget(token);
      validation = await validator.validate(token);
    } catch (error) {
      request.log.error({ err: error }, 'token validation failed');
      const message = error instanceof IdentityUnavailableError ? error.message : 'the token could not be validated';
      return reply.code(503).send({ error: `Sign-in cannot be completed right now: ${message}. Try again in a moment.` });
    }
    if (!validation.valid) return reply.code(401).send({ error: `The token was refused: ${validation.reason}.` });
    const maxAgeSeconds = (validation.expiresAt - Date.now()) / 1000;
    // Replaces the clearing of an older, invalid session cookie the onRequest hook may have added (same name and path).
    reply.setCookie(SESSION_COOKIE, token, sessionCookieOptions(maxAgeSeconds, secure(request)));
    return { signedIn: true, personId: validation.personId, expiresAt: new Date(validation.expiresAt).toISOString() };
  });

  app.delete('/api/session', async (request, reply) => {
    if (!sameOrigin(request)) return reply.code(403).send({ error: 'A session can only be closed from the docs site itself.' });
    const token = sessionToken(request);
    clearSession(request, reply).header('Cache-Control', 'no-store');
    if (token && validator) {
      await validator.revoke(token).catch((error: unknown) => request.log.warn({ err: error }, 'token revocation failed at sign-out'));
    }
    return reply.code(204).send();
  });

  const isGated = (file: SiteFile): boolean =>
    manifest.files.has(file.rel) || (file.isHtml && inPrefixes(`/${file.rel.replace(/(\/index)?\.html$/, '')}`, manifest.prefixes));

  return {
    isGated,
    cacheControl(file, fallback) {
      // Gated pages and chunks are never stored by any cache, the browser's included (they outlive no sign-out).
      return isGated(file) ? 'private, no-store' : fallback;
    },
    async tokenOpens(token) {
      if (!validator) return { valid: false, reason: 'sign-in is not configured on this docs server' };
      if (token.length > 8192 || !TOKEN_SHAPE.test(token)) return { valid: false, reason: 'it is not a Keyway user token (a JWT)' };
      try {
        const validation = await validator.validate(token);
        return validation.valid ? { valid: true } : { valid: false, reason: validation.reason };
      } catch (error) {
        return { valid: false, reason: error instanceof IdentityUnavailableError ? error.message : 'the token could not be validated' };
      }
    },
    refuse(request, reply, file) {
      if (!isGated(file)) return undefined;
      if (request.docsSignedIn) return undefined;
      reply.header('Cache-Control', 'no-store');
      if (!file.isHtml) return reply.code(404).type('text/plain; charset=utf-8').send('Not found');
      const url = new URL(request.url, 'http://docs.invalid');
      const html = signInRequiredPage(url.pathname + url.search);
      const page: SiteFile = { rel: 'sign-in-required.html', isHtml: true, ...scriptSources(html) };
      return reply.code(401).type('text/html; charset=utf-8').header('Content-Security-Policy', contentSecurityPolicy(page, context.csp)).send(html);
    },
  };
}

/** The identity server's origin, which pages must be allowed to call (CSP connect-src); none without a valid URL. */
export function gateConnectSrc(options: GateOptions | undefined): string[] {
  if (!options?.identityUrl) return [];
  try {
    return [new URL(options.identityUrl).origin];
  } catch {
    return [];
  }
}
