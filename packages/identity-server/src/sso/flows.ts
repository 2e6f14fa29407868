import { createHash, randomUUID } from 'node:crypto';
import formbody from '@fastify/formbody';
import { SAML, ValidateInResponseTo } from '@node-saml/node-saml';
import type { FastifyInstance, FastifyReply } from 'fastify';
import * as oidc from 'openid-client';
import type { Ctx, Org } from '../context.js';
import { loadOrg, requireOrg } from '../context.js';
import { ApiError, badRequest, notFound, unauthorized } from '../http/errors.js';
import { parseHandle } from '../persons/handles.js';
import { escapeHtml } from '../email/mailer.js';
import * as S from '../http/schemas.js';
import { hashSecret, newSecret, sameDigest, sha256 } from '../crypto/secrets.js';
import { pendingIdpTokens, type PendingIdpTokens } from './idp-tokens.js';
import { outboundFetch } from '../http/outbound.js';
import { challengeData, createChallenge, factorHandlers, redirectTarget, type ChallengeData, type StartRequest } from '../signin/challenges.js';

/** OIDC identity provider credentials of an organization (`settings.oidc_providers`). */
export interface OidcProviderConfig {
  provider: string;
  client_id: string;
  client_secret: string;
  issuer: string;
  scopes?: string[];
}

/** What every SSO challenge keeps: how to return to the SDK and what to check in /sso/resolve. */
interface SsoReturnFields {
  ux_mode: 'popup' | 'redirect';
  origin?: string;
  csrf_token?: string;
  sdk_pkce: string;
  redirect_target?: string;
  previous?: ChallengeData['previous'];
}

interface SsoCommon extends ChallengeData, SsoReturnFields {
  state_sha256: string;
}

interface SsoData extends SsoCommon {
  provider: string;
  client_id: string;
  nonce: string;
  idp_verifier: string;
}

/** The SDK-facing part of an OIDC or SAML factor: ux_mode, redirect target, the SDK's PKCE challenge and CSRF token. */
function ssoCommon(ctx: Ctx, r: StartRequest): SsoReturnFields {
  const uxMode = r.options.ux_mode === 'redirect' ? 'redirect' : 'popup';
  const target = redirectTarget(ctx, r.org, r.options);
  if (uxMode === 'redirect' && !target) throw badRequest('factor.options.redirect_target is required in redirect mode');
  const sdkPkce = (r.options.pkce_code_challenge ?? r.metadata?.pkce_code_challenge) as string | undefined;
  if (!sdkPkce) throw badRequest('factor.options.pkce_code_challenge is required');
  const csrf = (r.options.csrf_token ?? r.metadata?.csrf_token) as string | undefined;
  if (uxMode === 'popup' && !r.origin) throw badRequest('popup mode needs the Origin header of the page');
  return {
    ux_mode: uxMode,
    sdk_pkce: sdkPkce,
    ...(r.origin ? { origin: r.origin } : {}),
    ...(csrf ? { csrf_token: csrf } : {}),
    ...(target ? { redirect_target: target } : {}),
    ...(r.previous ? { previous: r.previous } : {}),
  };
}

/**
 * The `proxy` challenge that follows an SSO challenge (in `/id/v2` answers and in a redirect return's `challenges`):
 * the published client gets the token by polling it once the return is resolved.
 */
function ssoProxy(method: 'oidc' | 'saml', challengeId: string) {
  return { id: challengeId, type: 'proxy' as const, authentication_method: method, options: { challenge_id: challengeId } };
}

const SSO_TTL_SECONDS = 600;
const DEFAULT_OIDC_SCOPES = ['openid', 'email', 'profile'];
const configs = new Map<string, Promise<oidc.Configuration>>();

/** Discovery document of the provider, fetched once per issuer, client and secret (plain http only in development). */
export function providerConfig(ctx: Ctx, p: OidcProviderConfig): Promise<oidc.Configuration> {
  // Keyed by the secret too: after a PATCH of client_secret the new secret is used at once.
  const key = `${p.issuer}\u0000${p.client_id}\u0000${sha256(p.client_secret)}`;
  let cfg = configs.get(key);
  if (!cfg) {
    const insecure = new URL(p.issuer).protocol === 'http:';
    if (insecure && !ctx.devMode) return Promise.reject(badRequest(`OIDC issuer ${p.issuer} must use https`));
    // Discovery and every later call to the provider go through the outbound guard (internal addresses refused in
    // production, checked at connect time).
    const guarded = outboundFetch(!ctx.devMode) as unknown as oidc.CustomFetch;
    cfg = oidc.discovery(new URL(p.issuer), p.client_id, p.client_secret, undefined, {
      ...(insecure ? { execute: [oidc.allowInsecureRequests] } : {}),
      [oidc.customFetch]: guarded,
    });
    cfg.catch(() => configs.delete(key));
    configs.set(key, cfg);
  }
  return cfg;
}

function ssoCallbackUrl(ctx: Ctx): string {
  return `${ctx.publicUrl}/sso/oidc/callback`;
}

export function pickProvider(org: Org, options: Record<string, unknown>): OidcProviderConfig {
  const list = (org.settings as { oidc_providers?: OidcProviderConfig[] }).oidc_providers ?? [];
  const found = list.find((p) => (options.client_id ? p.client_id === options.client_id : p.provider === options.provider));
  if (!found) {
    throw badRequest(`no OIDC provider "${String(options.client_id ?? options.provider)}" is configured for organization "${org.id}"`);
  }
  return found;
}

factorHandlers.set('oidc', {
  async start(ctx, r: StartRequest) {
    if (r.handle) throw badRequest('oidc takes no handle: the identity provider names the person');
    const provider = pickProvider(r.org, r.options);
    const common = ssoCommon(ctx, r);
    const config = await providerConfig(ctx, provider).catch((err: unknown) => {
      throw err instanceof ApiError ? err : new ApiError(502, `OIDC provider ${provider.issuer} cannot be reached`);
    });
    const stateSecret = newSecret();
    const nonce = newSecret();
    const idpVerifier = oidc.randomPKCECodeVerifier();
    const data: SsoData = { ...common, provider: provider.provider, client_id: provider.client_id, state_sha256: sha256(stateSecret), nonce, idp_verifier: idpVerifier };
    const row = await createChallenge(ctx, { org: r.org, type: 'oidc', method: 'oidc', data, ttlSeconds: SSO_TTL_SECONDS });
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: ssoCallbackUrl(ctx),
      scope: (provider.scopes ?? DEFAULT_OIDC_SCOPES).join(' '),
      state: `${row.id}.${stateSecret}`,
      nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(idpVerifier),
      code_challenge_method: 'S256',
    });
    return [{ id: row.id, type: 'oidc', authentication_method: 'oidc', options: { auth_code_url: url.href } }, ssoProxy('oidc', row.id)];
  },
});

function ssoPage(reply: FastifyReply, status: number, title: string, text: string, script = '') {
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .send(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body style="font-family:system-ui;margin:3rem"><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p>${script}</body></html>`);
}

/**
 * After the provider vouched for the person: binds the e-mail handle to the challenge and hands the browser a one-time
 * SSO code — posted to the opening page's origin (popup) or as URL parameters of redirect_target (redirect).
 */
async function ssoReturn(ctx: Ctx, reply: FastifyReply, method: 'oidc' | 'saml', challengeId: string, d: SsoCommon, email: string | undefined, subject: string) {
  const handle = email ? parseHandle({ type: 'email_address', value: email }) : undefined;
  if (!handle) return ssoPage(reply, 400, 'Sign-in failed', 'The identity provider did not share a verified e-mail address.');
  const ssoCode = newSecret();
  const res = await ctx.db
    .updateTable('challenges')
    .set({ status: 'returned', handle_type: handle.type, handle_value: handle.value, secret_hash: hashSecret(challengeId, ssoCode), data: JSON.stringify({ ...d, sso_subject: subject }) })
    .where('id', '=', challengeId)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  if (Number(res.numUpdatedRows) !== 1) return ssoPage(reply, 400, 'Sign-in failed', 'This sign-in was already used. Start again.');
  const params = { sso_challenge_id: challengeId, sso_code: ssoCode, ...(d.csrf_token ? { csrf_token: d.csrf_token } : {}) };
  if (d.ux_mode === 'redirect') {
    const back = new URL(d.redirect_target!);
    for (const [k, v] of Object.entries(params)) back.searchParams.set(k, v);
    // The published client completes a redirect return only when the URL also carries the challenges to complete
    // (`challenges`, base64url JSON): the proxy challenge its token comes from, polled while /sso/resolve runs.
    back.searchParams.set('challenges', Buffer.from(JSON.stringify([ssoProxy(method, challengeId)])).toString('base64url'));
    return reply.redirect(back.href, 303);
  }
  // Two messages to the opening page's origin: @keyway/sdk's, and the published client's (`type` 5 with the return's
  // query string; it accepts it only from its baseURL's origin, which is this page's).
  const message = JSON.stringify({ type: 'sso_challenge', challenge_id: challengeId, code: ssoCode, csrf_token: d.csrf_token }).replace(/</g, '\\u003c');
  const published = JSON.stringify({ type: 5, urlParams: `?${new URLSearchParams(params)}` }).replace(/</g, '\\u003c');
  const target = JSON.stringify(d.origin).replace(/</g, '\\u003c');
  const script = `<script>if (window.opener) { window.opener.postMessage(${message}, ${target}); window.opener.postMessage(${published}, ${target}); }</script>`;
  return ssoPage(reply, 200, 'Signed in', 'You can close this window.', script);
}

/** SAML identity provider credentials of an organization (`settings.saml_providers`). */
export interface SamlProviderConfig {
  provider_credentials_id: string;
  /** Single sign-on URL of the identity provider (HTTP-Redirect binding). */
  entry_point: string;
  /** PEM certificate(s) the identity provider signs assertions with. */
  idp_cert: string | string[];
  /** Expected Issuer of the responses, when given. */
  idp_issuer?: string;
}

interface SamlData extends SsoCommon {
  provider_credentials_id: string;
  request_id: string;
  request_instant: string;
}

function pickSamlProvider(org: Org, id: unknown): SamlProviderConfig {
  const list = (org.settings as { saml_providers?: SamlProviderConfig[] }).saml_providers ?? [];
  const found = id === undefined && list.length === 1 ? list[0] : list.find((p) => p.provider_credentials_id === id);
  if (!found) throw badRequest(`no SAML provider "${String(id)}" is configured for organization "${org.id}"`);
  return found;
}

/** node-saml for one provider; the AuthnRequest id of the challenge is the only InResponseTo it accepts. */
function samlClient(ctx: Ctx, p: SamlProviderConfig, request: { request_id: string; request_instant: string }) {
  return new SAML({
    callbackUrl: `${ctx.publicUrl}/sso/saml/acs`,
    entryPoint: p.entry_point,
    issuer: `${ctx.publicUrl}/sso/saml/metadata`,
    audience: `${ctx.publicUrl}/sso/saml/metadata`,
    idpCert: p.idp_cert,
    ...(p.idp_issuer ? { idpIssuer: p.idp_issuer } : {}),
    wantAssertionsSigned: true,
    wantAuthnResponseSigned: false,
    identifierFormat: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
    validateInResponseTo: ValidateInResponseTo.always,
    generateUniqueId: () => request.request_id,
    cacheProvider: {
      saveAsync: async (key, value) => ({ value, createdAt: Date.now() }),
      getAsync: async (key) => (key === request.request_id ? request.request_instant : null),
      removeAsync: async (key) => key,
    },
  });
}

factorHandlers.set('saml', {
  async start(ctx, r: StartRequest) {
    if (r.handle) throw badRequest('saml takes no handle: the identity provider names the person');
    const provider = pickSamlProvider(r.org, r.options.provider_credentials_id);
    const common = ssoCommon(ctx, r);
    const stateSecret = newSecret();
    const requestId = `_${randomUUID()}`;
    const data: SamlData = { ...common, provider_credentials_id: provider.provider_credentials_id, request_id: requestId, request_instant: new Date().toISOString(), state_sha256: sha256(stateSecret) };
    const row = await createChallenge(ctx, { org: r.org, type: 'saml', method: 'saml', data, ttlSeconds: SSO_TTL_SECONDS });
    const url = await samlClient(ctx, provider, data).getAuthorizeUrlAsync(`${row.id}.${stateSecret}`, undefined, {});
    return [{ id: row.id, type: 'saml', authentication_method: 'saml', options: { start_authentication_url: url } }, ssoProxy('saml', row.id)];
  },
});

/** The pending SSO challenge named by an OIDC `state` / SAML `RelayState` (`<challenge id>.<secret>`), or why not. */
async function openSsoChallenge(ctx: Ctx, type: 'oidc' | 'saml', state: string) {
  const [id, secret] = state.split('.', 2);
  const row = id ? await ctx.db.selectFrom('challenges').selectAll().where('id', '=', id).executeTakeFirst() : undefined;
  const data = row ? (challengeData(row) as SsoCommon) : undefined;
  if (!row || !data || row.type !== type || !secret || !sameDigest(sha256(secret), data.state_sha256)) return 'This sign-in response does not belong to a sign-in started here.';
  if (row.status !== 'pending' || Date.parse(row.expires_at) <= Date.now()) return 'This sign-in has expired or was already used. Start again.';
  return { row, data };
}

export function registerSsoRoutes(app: FastifyInstance, ctx: Ctx): void {
  // The identity provider sends the browser back here with a code; the code is exchanged and checked server-side, then
  // the browser gets a one-time SSO code for /sso/resolve (posted to the opener in popup mode, URL parameters in redirect mode).
  app.get<{ Querystring: Record<string, string> }>('/sso/oidc/callback', async (req, reply) => {
    const state = req.query.state ?? '';
    const found = await openSsoChallenge(ctx, 'oidc', state);
    if (typeof found === 'string') return ssoPage(reply, 400, 'Sign-in failed', found);
    const { row } = found;
    const d = found.data as SsoData;
    if (req.query.error) return ssoPage(reply, 400, 'Sign-in failed', `The identity provider answered: ${req.query.error_description ?? req.query.error}`);
    const org = await loadOrg(ctx, row.org_id);
    const provider = org && pickProvider(org, { client_id: d.client_id });
    let email: string | undefined;
    let subject: string;
    let idpTokens: PendingIdpTokens;
    try {
      const config = await providerConfig(ctx, provider!);
      const tokens = await oidc.authorizationCodeGrant(config, new URL(`${ssoCallbackUrl(ctx)}?${new URLSearchParams(req.query)}`), {
        pkceCodeVerifier: d.idp_verifier,
        expectedState: state,
        expectedNonce: d.nonce,
        idTokenExpected: true,
      });
      const claims = tokens.claims()!;
      subject = claims.sub;
      let profile: Record<string, unknown> = claims;
      // Providers may keep scope claims out of the ID token; then they come from the userinfo endpoint.
      if (typeof claims.email !== 'string') profile = await oidc.fetchUserInfo(config, tokens.access_token, subject);
      if (typeof profile.email === 'string' && profile.email_verified !== false) email = profile.email;
      // Kept sealed in the challenge until the sign-in completes, then stored for the person (GET /sso/oidc/tokens).
      idpTokens = pendingIdpTokens(ctx, row.id, { provider: d.provider, client_id: d.client_id, issuer: provider!.issuer, subject }, {
        access_token: tokens.access_token,
        refresh_token: tokens.refresh_token,
        id_token: tokens.id_token,
        token_type: tokens.token_type,
        expires_in: tokens.expires_in,
        scopes: (tokens.scope ?? (provider!.scopes ?? DEFAULT_OIDC_SCOPES).join(' ')).split(' ').filter(Boolean),
      });
    } catch (err) {
      req.log.warn({ err }, 'OIDC code exchange failed');
      return ssoPage(reply, 400, 'Sign-in failed', 'The answer of the identity provider could not be verified.');
    }
    return ssoReturn(ctx, reply, 'oidc', row.id, { ...d, idp_tokens: idpTokens }, email, subject);
  });

  // SAML 2.0 assertion consumer service (HTTP-POST binding); RelayState names the challenge.
  app.register(async (scope) => {
    await scope.register(formbody, { bodyLimit: 512 * 1024 });
    scope.post<{ Body: Record<string, string> }>('/sso/saml/acs', async (req, reply) => {
      const found = await openSsoChallenge(ctx, 'saml', req.body?.RelayState ?? '');
      if (typeof found === 'string') return ssoPage(reply, 400, 'Sign-in failed', found);
      const { row } = found;
      const d = found.data as SamlData;
      const org = await loadOrg(ctx, row.org_id);
      const provider = org && pickSamlProvider(org, d.provider_credentials_id);
      let profile;
      try {
        const saml = samlClient(ctx, provider!, { request_id: d.request_id, request_instant: d.request_instant });
        profile = (await saml.validatePostResponseAsync({ SAMLResponse: req.body.SAMLResponse ?? '' })).profile;
      } catch (err) {
        req.log.warn({ err }, 'SAML response rejected');
        return ssoPage(reply, 400, 'Sign-in failed', 'The answer of the identity provider could not be verified.');
      }
      const email = [profile?.email, profile?.mail, profile?.['urn:oid:0.9.2342.19200300.100.1.3'], profile?.nameIDFormat?.endsWith('emailAddress') ? profile.nameID : undefined].find(
        (v): v is string => typeof v === 'string' && v.includes('@'),
      );
      // attribute_mapping: SAML attribute → person attribute, stored read-only for the person at sign-in.
      const mapping = (provider as SamlProviderConfig & { attribute_mapping?: Record<string, string> }).attribute_mapping ?? {};
      const mapped: Record<string, unknown> = {};
      for (const [samlName, attr] of Object.entries(mapping)) if (profile?.[samlName] !== undefined) mapped[attr] = profile[samlName];
      return ssoReturn(ctx, reply, 'saml', row.id, Object.keys(mapped).length ? { ...d, sso_attributes: mapped } : d, email, profile?.nameID ?? '');
    });
  });

  app.post<{ Body: { challenge_id: string; code: string; pkce_code_verifier: string } }>(
    '/sso/resolve',
    { schema: { body: S.ssoResolve } },
    async (req, reply) => {
      const org = await requireOrg(ctx, req);
      const row = await ctx.db.selectFrom('challenges').selectAll().where('id', '=', req.body.challenge_id).executeTakeFirst();
      if (!row || (row.type !== 'oidc' && row.type !== 'saml') || row.org_id !== org.id) throw notFound(`challenge "${req.body.challenge_id}" does not exist`);
      if (Date.parse(row.expires_at) <= Date.now()) throw unauthorized('authentication has expired');
      if (row.status !== 'returned') throw unauthorized(row.status === 'pending' ? 'the identity provider has not answered yet' : 'challenge has already been answered');
      if (row.attempts >= ctx.limits.maxAttempts) throw new ApiError(429, 'too many incorrect answers for this challenge: start again');
      const d = challengeData(row) as SsoCommon;
      const codeOk = row.secret_hash !== null && sameDigest(hashSecret(row.id, req.body.code), row.secret_hash);
      const pkceOk = createHash('sha256').update(req.body.pkce_code_verifier).digest('base64url') === d.sdk_pkce;
      if (!codeOk || !pkceOk) {
        await ctx.db.updateTable('challenges').set((eb) => ({ attempts: eb('attempts', '+', 1) })).where('id', '=', row.id).execute();
        throw unauthorized(codeOk ? 'PKCE code verifier does not match the code challenge' : 'SSO code is not valid');
      }
      await ctx.db.updateTable('challenges').set({ status: 'verified' }).where('id', '=', row.id).where('status', '=', 'returned').execute();
      return reply.code(204).send();
    },
  );
}
