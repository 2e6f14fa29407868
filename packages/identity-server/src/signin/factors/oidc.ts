import * as oidc from 'openid-client';
import { newSecret, sha256 } from '../../crypto/secrets.js';
import { ApiError, badRequest } from '../../http/errors.js';
import { pickProvider, providerConfig, requestedScopes, ssoCallbackUrl } from '../../sso/providers.js';
import { SSO_TTL_SECONDS, ssoCommon, ssoProxy, type SsoData } from '../../sso/sso-challenges.js';
import { createChallenge, type Factor, type StartRequest } from '../challenges.js';

/** The `oidc` factor: sign-in through one of the organization's OIDC identity providers. */
export const oidcFactor: Factor = {
  methods: {
    oidc: {
      async start(ctx, r: StartRequest) {
        if (r.handle) throw badRequest('oidc takes no handle: the identity provider names the person');
        const provider = pickProvider(r.org, r.options);
        const common = ssoCommon(ctx, r);
        const config = await providerConfig(ctx, r.org.id, provider).catch((err: unknown) => {
          throw err instanceof ApiError ? err : new ApiError(502, `OIDC provider ${provider.issuer} cannot be reached`);
        });
        const stateSecret = newSecret();
        const nonce = newSecret();
        const idpVerifier = oidc.randomPKCECodeVerifier();
        const data: SsoData = { ...common, provider: provider.provider, client_id: provider.client_id, state_sha256: sha256(stateSecret), nonce, idp_verifier: idpVerifier };
        const row = await createChallenge(ctx, { org: r.org, type: 'oidc', method: 'oidc', data, ttlSeconds: SSO_TTL_SECONDS });
        const url = oidc.buildAuthorizationUrl(config, {
          redirect_uri: ssoCallbackUrl(ctx),
          scope: requestedScopes(provider).join(' '),
          state: `${row.id}.${stateSecret}`,
          nonce,
          code_challenge: await oidc.calculatePKCECodeChallenge(idpVerifier),
          code_challenge_method: 'S256',
        });
        return [{ id: row.id, type: 'oidc', authentication_method: 'oidc', options: { auth_code_url: url.href } }, ssoProxy('oidc', row.id)];
      },
    },
  },
  attestations: {},
};
