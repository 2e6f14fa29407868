import { createHash } from 'node:crypto';
import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply } from 'fastify';
import * as oidc from 'openid-client';
import type { Ctx } from '../context.js';
import { hashSecret, newOtpCode, newSecret, sameDigest } from '../crypto/secrets.js';
import { answer, ApiError, notFound, unauthorized } from '../http/errors.js';
import { requireOrg } from '../http/guards.js';
import { escapeHtml, sendFormPage, sendMessagePage } from '../http/html.js';
import * as S from '../http/schemas.js';
import { loadOrg } from '../organizations/settings.js';
import { parseHandle, type Handle } from '../persons/handles.js';
import { challengeData } from '../signin/challenges.js';
import { sendCode } from '../signin/factors/otp.js';
import { DELAYED_NOTICE } from '../email/mailer.js';
import { federatedPerson, providerKey } from './federated.js';
import { pendingIdpTokens, type PendingIdpTokens } from './idp-tokens.js';
import { pickProvider, requestedScopes, pickSamlProvider, providerConfig, samlClient, ssoCallbackUrl, trustsEmails, type SamlProviderConfig } from './providers.js';
import { openSsoChallenge, ssoProxy, type SamlData, type SsoCommon, type SsoData } from './sso-challenges.js';
import type { Wire } from '../http/wire.js';

// The identity provider's return (OIDC callback, SAML assertion consumer service) and /sso/resolve, which turns the
// one-time SSO code into a verified challenge the SDK then gets its token from.

function ssoPage(reply: FastifyReply, status: number, title: string, text: string, script = '') {
  return sendMessagePage(reply.header('cache-control', 'no-store'), status, title, text, script);
}

/** What the provider said of the person, as the return needs it. */
interface ProviderAnswer {
  method: 'oidc' | 'saml';
  /** `federated_identities` key of the provider (see sso/federated.ts). */
  provider: string;
  subject: string;
  email: string | undefined;
  /** Whether the provider's word proves the address (its `email_verified` and the organization's trust, #36). */
  trusted: boolean;
}

/**
 * After the provider vouched for the person. A subject it signed in before signs the same person in. Otherwise its
 * address names the person, once proved: by the provider when the organization trusts it for that, else by a code sent
 * to the address (a page asks for it; {@link registerSsoProofRoute}). Then the browser gets a one-time SSO code.
 */
async function ssoReturn(ctx: Ctx, reply: FastifyReply, challengeId: string, d: SsoCommon, who: ProviderAnswer) {
  const handle = who.email ? parseHandle({ type: 'email_address', value: who.email }) : undefined;
  if (!handle) return ssoPage(reply, 400, 'Sign-in failed', 'The identity provider did not share an e-mail address.');
  const row = await ctx.db.selectFrom('challenges').select(['org_id']).where('id', '=', challengeId).executeTakeFirst();
  const linked = row ? await federatedPerson(ctx, row.org_id, who.provider, who.subject) : undefined;
  const data: SsoCommon = { ...d, sso_subject: who.subject, sso_provider: who.provider, ...(who.trusted ? { handle_proof: `idp:${who.provider}` } : {}) };
  if (!linked && !who.trusted) return askForCode(ctx, reply, challengeId, handle, data);
  // A linked subject signs its person in; the address the provider sends now is named in the token only if that person
  // holds it (#36: a provider's later word is no proof of an address someone else may hold).
  const holds = linked && (await ctx.db.selectFrom('handles').select('id').where('person_id', '=', linked).where('type', '=', handle.type).where('value', '=', handle.value).executeTakeFirst());
  return completeReturn(ctx, reply, who.method, challengeId, 'pending', { handle: !linked || holds ? handle : undefined, data, personId: linked });
}

/**
 * Hands the browser the one-time SSO code: posted to the opening page's origin (popup) or as URL parameters of
 * redirect_target (redirect). `from` is the status the challenge must still have (a return is used once).
 */
async function completeReturn(ctx: Ctx, reply: FastifyReply, method: 'oidc' | 'saml', challengeId: string, from: string, next: { handle: Handle | undefined; data: SsoCommon; personId?: string | undefined }) {
  const d = next.data;
  const ssoCode = newSecret();
  const res = await ctx.db
    .updateTable('challenges')
    .set({ status: 'returned', handle_type: next.handle?.type ?? null, handle_value: next.handle?.value ?? null, secret_hash: hashSecret(challengeId, ssoCode), data: JSON.stringify(d), ...(next.personId ? { person_id: next.personId } : {}) })
    .where('id', '=', challengeId)
    .where('status', '=', from)
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

/** The page that asks for the code sent to an address a provider asserted without proving it. */
function codePage(reply: FastifyReply, status: number, challengeId: string, email: string, error?: string, delayed = false) {
  return sendFormPage(
    reply,
    status,
    'Confirm your e-mail address',
    `<p>Your identity provider did not confirm that <b>${escapeHtml(email)}</b> is yours. We sent a 6-digit code to it: enter it to continue.</p>` +
      (delayed ? `<p role="status">${escapeHtml(DELAYED_NOTICE)}</p>` : '') +
      (error ? `<p role="alert" style="color:#b00020">${escapeHtml(error)}</p>` : '') +
      `<form method="post" action="/sso/confirm-email"><input type="hidden" name="challenge_id" value="${escapeHtml(challengeId)}">` +
      `<label for="code">Code</label> <input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" required> <button type="submit">Continue</button></form>`,
  );
}

/** Sends a code to the address and keeps the return waiting for it (status `proving`). */
async function askForCode(ctx: Ctx, reply: FastifyReply, challengeId: string, handle: Handle, data: SsoCommon) {
  const code = newOtpCode();
  const res = await ctx.db
    .updateTable('challenges')
    .set({ status: 'proving', handle_type: handle.type, handle_value: handle.value, data: JSON.stringify({ ...data, email_code_hash: hashSecret(challengeId, code) }) })
    .where('id', '=', challengeId)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  if (Number(res.numUpdatedRows) !== 1) return ssoPage(reply, 400, 'Sign-in failed', 'This sign-in was already used. Start again.');
  const row = await ctx.db.selectFrom('challenges').select('org_id').where('id', '=', challengeId).executeTakeFirstOrThrow();
  const org = await loadOrg(ctx, row.org_id);
  if (!org) return ssoPage(reply, 400, 'Sign-in failed', 'This organization no longer exists.');
  const sent = await sendCode(ctx, org, handle, code, 'sign-in');
  return codePage(reply, 200, challengeId, handle.value, undefined, sent.delivery === 'delayed');
}

/** `/sso/confirm-email`: the code sent to an address the provider did not prove; a right one completes the return. */
export function registerSsoProofRoute(app: FastifyInstance, ctx: Ctx): void {
  app.register(async (scope) => {
    await scope.register(formbody, { bodyLimit: 16 * 1024 });
    scope.post<{ Body: { challenge_id?: string; code?: string } }>(
      '/sso/confirm-email',
      { schema: { body: { type: 'object', additionalProperties: false, required: ['challenge_id', 'code'], properties: { challenge_id: { type: 'string', maxLength: 128 }, code: { type: 'string', maxLength: 16 } } } } },
      async (req, reply) => {
        const row = await ctx.db.selectFrom('challenges').selectAll().where('id', '=', req.body.challenge_id!).executeTakeFirst();
        if (!row || (row.type !== 'oidc' && row.type !== 'saml') || row.status !== 'proving' || Date.parse(row.expires_at) <= Date.now()) {
          return ssoPage(reply, 400, 'Sign-in failed', 'This sign-in has expired or was already used. Start again.');
        }
        const d = challengeData(row) as SsoCommon & { email_code_hash?: string };
        if (row.attempts >= ctx.limits.maxAttempts) return ssoPage(reply, 429, 'Sign-in failed', 'Too many incorrect codes. Start again.');
        const right = !!d.email_code_hash && sameDigest(hashSecret(row.id, (req.body.code ?? '').trim()), d.email_code_hash);
        if (!right) {
          await ctx.db.updateTable('challenges').set((eb) => ({ attempts: eb('attempts', '+', 1) })).where('id', '=', row.id).execute();
          return codePage(reply, 401, row.id, row.handle_value ?? '', 'incorrect code');
        }
        const { email_code_hash: _used, ...data } = d;
        return completeReturn(ctx, reply, row.type, row.id, 'proving', { handle: { type: 'email_address', value: row.handle_value! }, data: { ...data, handle_proof: 'otp_via_email' } });
      },
    );
  });
}

/**
 * The identity provider sends the browser back here with a code; the code is exchanged and checked server-side, then
 * the browser gets a one-time SSO code for /sso/resolve (posted to the opener in popup mode, URL parameters in redirect mode).
 */
export function registerOidcCallbackRoute(app: FastifyInstance, ctx: Ctx): void {
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
    let trusted = false;
    let subject: string;
    let idpTokens: PendingIdpTokens;
    try {
      const config = await providerConfig(ctx, row.org_id, provider!);
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
      if (typeof profile.email === 'string') email = profile.email;
      // The provider proves the address only when it says so (`email_verified === true`) and the organization trusts it.
      trusted = profile.email_verified === true && trustsEmails('oidc', provider!);
      // Kept sealed in the challenge until the sign-in completes, then stored for the person (GET /sso/oidc/tokens).
      idpTokens = pendingIdpTokens(ctx, row.id, { provider: d.provider, client_id: d.client_id, issuer: provider!.issuer, subject }, {
        access_token: tokens.access_token,
        refresh_token: tokens.refresh_token,
        id_token: tokens.id_token,
        token_type: tokens.token_type,
        expires_in: tokens.expires_in,
        ...(typeof tokens.refresh_expires_in === 'number' ? { refresh_expires_in: tokens.refresh_expires_in } : {}),
        extra_callback_values: Object.fromEntries(Object.entries(req.query).filter(([k, v]) => k !== 'code' && k !== 'state' && typeof v === 'string')),
        scopes: (tokens.scope ?? requestedScopes(provider!).join(' ')).split(' ').filter(Boolean),
      });
    } catch (err) {
      req.log.warn({ err }, 'OIDC code exchange failed');
      return ssoPage(reply, 400, 'Sign-in failed', 'The answer of the identity provider could not be verified.');
    }
    return ssoReturn(ctx, reply, row.id, { ...d, idp_tokens: idpTokens }, { method: 'oidc', provider: providerKey('oidc', d.client_id), subject, email, trusted });
  });
}

/** SAML 2.0 assertion consumer service (HTTP-POST binding); RelayState names the challenge. */
export function registerSamlAcsRoute(app: FastifyInstance, ctx: Ctx): void {
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
      const claimed = (provider?.email_claims ?? []).map((name) => profile?.[name]);
      const email = [...claimed, profile?.email, profile?.mail, profile?.['urn:oid:0.9.2342.19200300.100.1.3'], profile?.nameIDFormat?.endsWith('emailAddress') ? profile.nameID : undefined].find(
        (v): v is string => typeof v === 'string' && v.includes('@'),
      );
      // attribute_mapping: SAML attribute → person attribute, stored read-only for the person at sign-in.
      const mapping = (provider as SamlProviderConfig & { attribute_mapping?: Record<string, string> }).attribute_mapping ?? {};
      const mapped: Record<string, unknown> = {};
      for (const [samlName, attr] of Object.entries(mapping)) if (profile?.[samlName] !== undefined) mapped[attr] = profile[samlName];
      const who: ProviderAnswer = { method: 'saml', provider: providerKey('saml', d.provider_credentials_id), subject: profile?.nameID ?? '', email, trusted: trustsEmails('saml', provider!) };
      return ssoReturn(ctx, reply, row.id, Object.keys(mapped).length ? { ...d, sso_attributes: mapped } : d, who);
    });
  });
}

/** `/sso/resolve`: the SDK proves it started the sign-in (SSO code + PKCE verifier); the challenge becomes verified. */
export function registerSsoResolveRoute(app: FastifyInstance, ctx: Ctx): void {
  app.post<Wire<'/sso/resolve', 'post'>>(
    '/sso/resolve',
    { schema: { body: S.ssoResolve } },
    async (req, reply) => {
      const org = await requireOrg(ctx, req);
      const row = await ctx.db.selectFrom('challenges').selectAll().where('id', '=', req.body.challenge_id).executeTakeFirst();
      if (!row || (row.type !== 'oidc' && row.type !== 'saml') || row.org_id !== org.id) throw notFound(`challenge "${req.body.challenge_id}" does not exist`);
      if (Date.parse(row.expires_at) <= Date.now()) throw answer('authenticationExpired');
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
