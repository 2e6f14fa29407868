import type { KeywayClient } from './client.js';
import { InvalidKeywayURLParamsError, UnexpectedError } from './errors.js';
import { challengesOf, startFlow, type ChallengeHandlers, type ChallengesOrToken, type Flow } from './flow.js';
import { HelperMessageType } from './helper.js';
import { completeHostedLogin } from './hosted.js';
import { fromB64url } from './pkce.js';
import { completeSSO, signInWithSSO } from './sso.js';
import type { Challenge, Factor } from './types.js';

/** URL parameters the SDK reads on return to the page. */
export const URL_PARAMS = {
  ssoChallengeId: 'sso_challenge_id',
  ssoCode: 'sso_code',
  csrfToken: 'csrf_token',
  iss: 'iss',
  challengePackId: 'challenge_pack_id',
  challenges: 'challenges',
  code: 'code',
  state: 'state',
} as const;

function strip(u: URL, names: string[]): void {
  for (const n of names) u.searchParams.delete(n);
  try {
    history.replaceState(history.state, '', u.href);
  } catch {
    /* sandboxed frame */
  }
}

/**
 * Acts on the Keyway parameters of the page URL, then removes them from the address bar:
 * - `sso_challenge_id`, `sso_code`, `csrf_token` (all three): completes an SSO return; in a popup it
 *   hands them to the opener and closes.
 * - `iss=social:{provider}:{client_id}` (with `idpInitiatedSso`): restarts that social login in redirect mode.
 * - `challenge_pack_id` or `challenges` (base64url JSON; not both): completes the challenges (magic links,
 *   direct ID, impersonation).
 * - `code` and `state`: completes the hosted login (`error` and `state`: reports its failure).
 *
 * Flows emit `userAuthenticatedFromURL` with the token.
 * @returns the running flow, the hosted login's access token, or `undefined` when there was nothing to do.
 * @throws {@link errors.InvalidKeywayURLParamsError} for incomplete or conflicting parameters.
 */
export async function handleURL(
  client: KeywayClient,
  handlers: ChallengeHandlers,
  href: string = location.href,
): Promise<Flow | string | undefined> {
  const u = new URL(href);
  const p = u.searchParams;
  const P = URL_PARAMS;
  const sso = [P.ssoChallengeId, P.ssoCode, P.csrfToken];
  const present = sso.filter((n) => p.has(n));
  const fromURL = (body: (flow: Flow) => Promise<string | undefined>, factor: Factor) => {
    const flow = startFlow(client, 'auth', { factor }, handlers, body);
    flow.result.then((token) => flow.emit('userAuthenticatedFromURL', { token }), () => {});
    return flow;
  };

  if (p.has(P.ssoChallengeId) || p.has(P.ssoCode)) {
    if (present.length < 3)
      throw new InvalidKeywayURLParamsError('sso_challenge_id, sso_code and csrf_token are all needed to complete SSO');
    const ret = { challenge_id: p.get(P.ssoChallengeId)!, code: p.get(P.ssoCode)!, csrf_token: p.get(P.csrfToken)! };
    // `challenges` beside them names the same SSO challenge (for clients that poll it from the URL): completeSSO polls it.
    strip(u, [...sso, P.challenges]);
    if (window.opener && window.opener !== window) {
      (window.opener as Window).postMessage({ type: HelperMessageType.SSOChallenge, ...ret }, location.origin);
      window.close();
      return undefined;
    }
    return fromURL((flow) => completeSSO(flow, ret), { method: 'oidc' });
  }

  const iss = p.get(P.iss);
  if (iss && client.config.idpInitiatedSso) {
    const m = /^social:([^:]+):(.+)$/.exec(iss);
    if (!m) throw new InvalidKeywayURLParamsError(`iss must look like social:{provider}:{client_id}, got "${iss}"`);
    strip(u, [P.iss]);
    return signInWithSSO(client, { method: 'oidc', options: { provider: m[1], client_id: m[2], ux_mode: 'redirect', redirect_target: u.href } }, handlers);
  }

  const pack = p.get(P.challengePackId);
  const encoded = p.get(P.challenges);
  if (pack && encoded) throw new InvalidKeywayURLParamsError('challenge_pack_id and challenges cannot be used together');
  if (pack || encoded) {
    let list: Challenge[] | undefined;
    if (encoded) {
      try {
        list = JSON.parse(new TextDecoder().decode(fromB64url(encoded)));
      } catch {
        /* reported below */
      }
      if (!Array.isArray(list)) throw new InvalidKeywayURLParamsError('the challenges parameter is not a base64url JSON list');
    }
    strip(u, [P.challengePackId, P.challenges]);
    return fromURL(async (flow) => {
      const got =
        list ??
        challengesOf(
          await client
            .request<ChallengesOrToken>('GET', `/challenge_pack/${encodeURIComponent(pack!)}`, { org: true, token: null })
            .catch(() => {
              throw new UnexpectedError('error fetching challenges');
            }),
        );
      if (!got) throw new UnexpectedError('error fetching challenges');
      if (typeof got === 'string') return got;
      flow.request.factor = { method: got[0]?.authentication_method ?? 'direct_id' };
      return flow.process(got);
    }, { method: 'direct_id' });
  }

  const oauthError = p.get('error');
  if (oauthError && p.has(P.state)) {
    const detail = p.get('error_description') ?? oauthError;
    strip(u, ['error', 'error_description', P.state]);
    throw new UnexpectedError(`Failed to obtain access token: ${detail}`);
  }
  if (p.has(P.code) && p.has(P.state)) {
    const tokens = await completeHostedLogin(client, p);
    strip(u, [P.code, P.state]);
    return tokens.access_token;
  }
  return undefined;
}
