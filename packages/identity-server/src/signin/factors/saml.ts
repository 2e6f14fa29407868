import { randomUUID } from 'node:crypto';
import { newSecret, sha256 } from '../../crypto/secrets.js';
import { badRequest } from '../../http/errors.js';
import { pickSamlProvider, samlClient } from '../../sso/providers.js';
import { SSO_TTL_SECONDS, ssoCommon, ssoProxy, type SamlData } from '../../sso/sso-challenges.js';
import { createChallenge, type Factor, type StartRequest } from '../challenges.js';

/** The `saml` factor: sign-in through one of the organization's SAML identity providers. */
export const samlFactor: Factor = {
  methods: {
    saml: {
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
    },
  },
  attestations: {},
};
