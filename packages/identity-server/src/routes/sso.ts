import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import * as oidc from 'openid-client';
import type { Ctx, Org } from '../context.js';
import { loadOrg, requireOrg } from '../context.js';
import { ApiError, badRequest, notFound, unauthorized } from '../errors.js';
import { parseHandle } from '../handles.js';
import { escapeHtml } from '../mailer.js';
import * as S from '../schemas.js';
import { hashSecret, newSecret, sameDigest, sha256 } from '../secrets.js';
import { challengeData, createChallenge, factorHandlers, redirectTarget, type ChallengeData, type StartRequest } from './auth.js';

/** OIDC identity provider credentials of an organization (`settings.oidc_providers`). */
export interface OidcProviderConfig {
  provider: string;
  client_id: string;
  client_secret: string;
  issuer: string;
  scopes?: string[];
}

interface SsoData extends ChallengeData {
  provider: string;
  client_id: string;
  ux_mode: 'popup' | 'redirect';
  origin?: string;
  csrf_token?: string;
  sdk_pkce: string;
  state_sha256: string;
  nonce: string;
  idp_verifier: string;
}

const SSO_TTL_SECONDS = 600;
const configs = new Map<string, Promise<oidc.Configuration>>();

/** Discovery document of the provider, fetched once per issuer and client (plain http only in development). */
function providerConfig(ctx: Ctx, p: OidcProviderConfig): Promise<oidc.Configuration> {
  const key = `${p.issuer}\u0000${p.client_id}`;
  let cfg = configs.get(key);
  if (!cfg) {
    const insecure = new URL(p.issuer).protocol === 'http:';
    if (insecure && !ctx.devMode) return Promise.reject(badRequest(`OIDC issuer ${p.issuer} must use https`));
    cfg = oidc.discovery(new URL(p.issuer), p.client_id, p.client_secret, undefined, insecure ? { execute: [oidc.allowInsecureRequests] } : {});
    cfg.catch(() => configs.delete(key));
    configs.set(key, cfg);
  }
  return cfg;
}

function ssoCallbackUrl(ctx: Ctx): string {
  return `${ctx.publicUrl}/sso/oidc/callback`;
}

function pickProvider(org: Org, options: Record<string, unknown>): OidcProviderConfig {
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
    const uxMode = r.options.ux_mode === 'redirect' ? 'redirect' : 'popup';
    const target = redirectTarget(r.options);
    if (uxMode === 'redirect' && !target) throw badRequest('factor.options.redirect_target is required in redirect mode');
    const sdkPkce = (r.options.pkce_code_challenge ?? r.metadata?.pkce_code_challenge) as string | undefined;
    if (!sdkPkce) throw badRequest('factor.options.pkce_code_challenge is required');
    const csrf = (r.options.csrf_token ?? r.metadata?.csrf_token) as string | undefined;
    if (uxMode === 'popup' && !r.origin) throw badRequest('popup mode needs the Origin header of the page');
    const config = await providerConfig(ctx, provider).catch((err: unknown) => {
      throw err instanceof ApiError ? err : new ApiError(502, `OIDC provider ${provider.issuer} cannot be reached`);
    });
    const stateSecret = newSecret();
    const nonce = newSecret();
    const idpVerifier = oidc.randomPKCECodeVerifier();
    const data: SsoData = {
      provider: provider.provider,
      client_id: provider.client_id,
      ux_mode: uxMode,
      sdk_pkce: sdkPkce,
      state_sha256: sha256(stateSecret),
      nonce,
      idp_verifier: idpVerifier,
      ...(r.origin ? { origin: r.origin } : {}),
      ...(csrf ? { csrf_token: csrf } : {}),
      ...(target ? { redirect_target: target } : {}),
      ...(r.previous ? { previous: r.previous } : {}),
    };
    const row = await createChallenge(ctx, { org: r.org, type: 'oidc', method: 'oidc', data, ttlSeconds: SSO_TTL_SECONDS });
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: ssoCallbackUrl(ctx),
      scope: (provider.scopes ?? ['openid', 'email', 'profile']).join(' '),
      state: `${row.id}.${stateSecret}`,
      nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(idpVerifier),
      code_challenge_method: 'S256',
    });
    return [{ id: row.id, type: 'oidc', authentication_method: 'oidc', options: { auth_code_url: url.href } }];
  },
});

function ssoPage(reply: FastifyReply, status: number, title: string, text: string, script = '') {
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .send(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body style="font-family:system-ui;margin:3rem"><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p>${script}</body></html>`);
}

export function registerSsoRoutes(app: FastifyInstance, ctx: Ctx): void {
  // The identity provider sends the browser back here with a code; the code is exchanged and checked server-side, then
  // the browser gets a one-time SSO code for /sso/resolve (posted to the opener in popup mode, URL parameters in redirect mode).
  app.get<{ Querystring: Record<string, string> }>('/sso/oidc/callback', async (req, reply) => {
    const state = req.query.state ?? '';
    const [id, secret] = state.split('.', 2);
    const row = id ? await ctx.db.selectFrom('challenges').selectAll().where('id', '=', id).executeTakeFirst() : undefined;
    const d = row ? (challengeData(row) as SsoData) : undefined;
    if (!row || !d || row.type !== 'oidc' || !secret || !sameDigest(sha256(secret), d.state_sha256)) {
      return ssoPage(reply, 400, 'Sign-in failed', 'This sign-in response does not belong to a sign-in started here.');
    }
    if (row.status !== 'pending' || Date.parse(row.expires_at) <= Date.now()) return ssoPage(reply, 400, 'Sign-in failed', 'This sign-in has expired or was already used. Start again.');
    if (req.query.error) return ssoPage(reply, 400, 'Sign-in failed', `The identity provider answered: ${req.query.error_description ?? req.query.error}`);
    const org = await loadOrg(ctx, row.org_id);
    const provider = org && pickProvider(org, { client_id: d.client_id });
    let email: string | undefined;
    let subject: string;
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
    } catch (err) {
      req.log.warn({ err }, 'OIDC code exchange failed');
      return ssoPage(reply, 400, 'Sign-in failed', 'The answer of the identity provider could not be verified.');
    }
    const handle = email ? parseHandle({ type: 'email_address', value: email }) : undefined;
    if (!handle) return ssoPage(reply, 400, 'Sign-in failed', 'The identity provider did not share a verified e-mail address.');
    const ssoCode = newSecret();
    await ctx.db
      .updateTable('challenges')
      .set({ status: 'returned', handle_type: handle.type, handle_value: handle.value, secret_hash: hashSecret(row.id, ssoCode), data: JSON.stringify({ ...d, sso_subject: subject }) })
      .where('id', '=', row.id)
      .where('status', '=', 'pending')
      .execute();
    const params = { sso_challenge_id: row.id, sso_code: ssoCode, ...(d.csrf_token ? { csrf_token: d.csrf_token } : {}) };
    if (d.ux_mode === 'redirect') {
      const back = new URL(d.redirect_target!);
      for (const [k, v] of Object.entries(params)) back.searchParams.set(k, v);
      return reply.redirect(back.href, 303);
    }
    const message = JSON.stringify({ type: 'sso_challenge', challenge_id: row.id, code: ssoCode, csrf_token: d.csrf_token }).replace(/</g, '\\u003c');
    const script = `<script>window.opener && window.opener.postMessage(${message}, ${JSON.stringify(d.origin).replace(/</g, '\\u003c')});</script>`;
    return ssoPage(reply, 200, 'Signed in', 'You can close this window.', script);
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
      const d = challengeData(row) as SsoData;
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
