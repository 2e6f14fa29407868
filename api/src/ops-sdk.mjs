// @ts-check
// SDK-facing operations (product-spec.md §7): sign-in, challenges, the signed-in person, tokens,
// self-service attributes and consents, analytics ingestion.
import { ref, str, int, open } from './lib.mjs';
import {
  ORG_ID, DEV_ORG_ID, SUBORG_ID, PERSON, PERSON_ID, CHALLENGE_ID, USER_TOKEN, EMAIL_HANDLE, ORGANIZATION, CREDENTIALS,
  OTP_CHALLENGE, PROXY_CHALLENGE, CONSENTS, CONSENT_DESCRIPTION,
} from './examples.mjs';

const noStore = { 'Cache-Control': { description: 'Always `no-store`: challenges are single-use.', schema: str({ const: 'no-store' }) } };
const pending = {
  status: 202,
  raw: true,
  description: 'The proxy challenge is not completed yet; poll again in a second.',
  schema: ref('ErrorResponse'),
  example: { errors: [{ httpcode: 202, message: 'challenge not completed yet' }] },
};
const idErrors = ['IdBadRequest', 'IdForbidden', 'PersonExists', 'MessageNotSent'];
const attestationErrors = ['AttestationBadRequest', 'AttestationUnauthorized', 'AttestationForbidden', 'NotFound', 'Conflict'];
const attestationBody = {
  schema: ref('Attestation'),
  example: { challenge_id: CHALLENGE_ID, challenge_type: 'otp', data: { otp: '482913' } },
};

/** @param {string} extra */
const idDescription = (extra) => `
Starts an authentication (or a sign-up, when the handle is new and the organization allows self-registration) for
the handle with the chosen factor. The answer (\`result\`) is the list of challenges the client must complete in order; each
answer goes to the attestation endpoint, whose last answer is the user token.

Send the current user token as bearer to add a factor to it (multi-factor, step-up, upgrade of an anonymous person):
the new token then lists both methods in \`authenticated_methods\`. OIDC and SAML factors take no handle.
E-mail factors need an \`email_address\` handle and SMS factors a \`phone_number\` handle.

${extra.trim()}

Rate limited per IP address and per handle (429).`;

/** @type {import('./operation.mjs').OpSpec[]} */
export const sdkOperations = [
  {
    method: 'post', path: '/id', id: 'postId', tags: ['tokens'], sdk: true, security: 'orgOptionalUser',
    summary: 'Start authentication for a handle',
    description: idDescription('This first version takes no `metadata`; new clients use `/id/v2`.'),
    deprecated: true,
    body: { schema: ref('IdRequest'), example: { handle: 'ada@example.com', factor: { method: 'otp_via_email', options: {} } } },
    ok: { schema: ref('ChallengeList'), example: [OTP_CHALLENGE], headers: noStore, description: 'Challenges to complete, in order (`result` is the list itself).' },
    errors: idErrors,
  },
  {
    method: 'post', path: '/id/v2', id: 'postIdV2', tags: ['tokens'], sdk: true, security: 'orgOptionalUser',
    summary: 'Start authentication for a handle (with CSRF and PKCE metadata)',
    description: idDescription(`
\`metadata\` carries the client's CSRF token and PKCE code challenge (S256); they bind the SSO return
(\`/sso/resolve\`) and e-mail/SMS links to the browser that started the flow.`),
    body: {
      schema: ref('IdRequestV2'),
      example: {
        handle: EMAIL_HANDLE,
        factor: { method: 'email_link', options: { redirect_target: 'http://localhost:3000/login' } },
        metadata: { csrf_token: 'b6c1e0f2a9d84c7e91f3', pkce_code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM' },
      },
    },
    ok: { schema: ref('ChallengeList'), example: [PROXY_CHALLENGE], headers: noStore, description: 'Challenges to complete, in order (`result` is the list itself).' },
    errors: idErrors,
  },
  {
    method: 'post', path: '/attestation', id: 'postAttestation', tags: ['tokens'], sdk: true, security: 'challenge', deprecated: true,
    summary: 'Answer a challenge (first version)',
    description: `
Submits the answer to one challenge of an ID request. Kept for older SDKs: it takes the same body and gives the same
answer as \`/attestation/v3\`, which new clients use. A wrong code or password answers 401 and may be retried, at most 5 attempts per
challenge; after that, and after the challenge expires, a new ID request is needed.`,
    body: attestationBody,
    ok: { schema: ref('TokenResult'), example: { token: USER_TOKEN }, description: 'The user token.' },
    errors: attestationErrors,
  },
  {
    method: 'post', path: '/attestation/v2', id: 'postAttestationV2', tags: ['tokens'], sdk: true, security: 'challenge', deprecated: true,
    summary: 'Answer a challenge (second version)',
    description: `
Submits the answer to one challenge. Kept for SDKs of the second generation; same body, answer and attempt limits
as \`/attestation/v3\`.`,
    body: attestationBody,
    ok: { schema: ref('TokenResult'), example: { token: USER_TOKEN } },
    errors: attestationErrors,
  },
  {
    method: 'post', path: '/attestation/v3', id: 'postAttestationV3', tags: ['tokens'], sdk: true, security: 'challenge',
    summary: 'Answer a challenge',
    description: `
Submits the answer to one challenge (\`challenge_id\`, \`challenge_type\`, \`data\`) and returns \`result.token\`, the user
token. \`data\` depends on the challenge: \`{challenge}\` for nonce, \`{otp}\` for OTP and TOTP (a recovery code is
accepted for totp_verify), \`{password}\` for the password challenges, and the browser's PublicKeyCredential for WebAuthn.

A wrong OTP, TOTP code or password answers 401; a new password that breaks a validation rule answers 400 naming the
rule. Each challenge accepts at most 5 wrong answers. Codes expire (10 minutes for OTP); an expired challenge answers
401 'authentication has expired'.`,
    body: attestationBody,
    ok: { schema: ref('TokenResult'), example: { token: USER_TOKEN } },
    errors: attestationErrors,
  },
  {
    method: 'get', path: '/challenge/{challenge_id}', id: 'getChallenge', tags: ['tokens'], sdk: true, security: 'challenge', deprecated: true,
    params: ['ChallengeIdPath'],
    summary: 'Poll a proxy challenge (first version)',
    description: `
Polled by older clients while the person opens the e-mail or SMS link of a proxy challenge: 202 while the link has
not been opened, then the user token. Same answers as \`/challenge/{challenge_id}/v2\`, which new clients use.`,
    ok: { schema: ref('UserToken'), example: USER_TOKEN, description: 'The challenge is completed: `result` is the user token.' },
    moreOk: [pending],
  },
  {
    method: 'get', path: '/challenge/{challenge_id}/v2', id: 'getChallengeV2', tags: ['tokens'], sdk: true, security: 'challenge',
    params: ['ChallengeIdPath'],
    summary: 'Poll a proxy challenge',
    description: `
Polled every second by the client while the person opens the e-mail or SMS link of a proxy challenge. While the link
has not been opened the answer is HTTP 202 with \`errors[0].httpcode\` 202: keep waiting. Once opened, the answer
carries the user token as \`result\`. An expired challenge answers 401 'authentication has expired'; an unknown one 404.`,
    ok: { schema: ref('UserToken'), example: USER_TOKEN, description: 'The challenge is completed: `result` is the user token.' },
    moreOk: [pending],
  },
  {
    method: 'get', path: '/challenge_pack/{challenge_pack_id}', id: 'getChallengePack', tags: ['tokens'], sdk: true, security: 'challenge',
    params: ['ChallengePackIdPath'],
    summary: 'Fetch a challenge pack',
    description: `
Returns the challenges stored under a challenge pack id. Packs are created server-side (direct ID, impersonation,
links) and handed to the browser as a URL parameter; the SDK fetches and completes them like the answer of an ID
request. A pack can be fetched until it expires.`,
    ok: { schema: ref('ChallengeList'), example: [{ id: CHALLENGE_ID, type: 'nonce', authentication_method: 'direct_id', options: { challenge: 'Zq3vT8kB1xR6nW0p' } }], description: 'The challenges of the pack (`result` is the list itself).' },
  },
  {
    method: 'get', path: '/me', id: 'getMe', tags: ['persons'], sdk: true, security: 'user',
    summary: 'Get the signed-in person',
    description: `
Returns the current person's profile: the person the bearer token belongs to, the organizations they belong to,
their handles and their credentials (secrets are never returned; password credentials show only the hash format).
Anonymous persons get their own record with no handles.`,
    ok: { schema: ref('MeResponse'), example: { person: PERSON, organizations: [ORGANIZATION], handles: PERSON.handles, credentials: CREDENTIALS } },
  },
  {
    method: 'get', path: '/me/orgs', id: 'getMeOrgs', tags: ['organizations'], sdk: true, security: 'user',
    summary: 'Get the organizations of the signed-in person',
    description: `
Returns the organization hierarchy the signed-in person can reach: the organization of the token, its
suborganizations and the organizations sharing its person pool. Use it to build an organization switcher, then
call \`GET /token/v2\` with the chosen organization id.`,
    ok: {
      schema: ref('MeOrgsResponse'),
      example: {
        org_hierarchy: [
          { id: ORG_ID, parent_id: null, name: 'Acme Docs', tenant_name: 'acme', children_ids: [SUBORG_ID], person_pool_orgs_ids: [ORG_ID, SUBORG_ID], group_pool_orgs_ids: [ORG_ID], manager_org_id: null, person_in_manager_org: true, inherits_rbac_pools: false },
          { id: SUBORG_ID, parent_id: ORG_ID, name: 'Acme Docs EU', tenant_name: 'acme', children_ids: [], person_pool_orgs_ids: [ORG_ID, SUBORG_ID], group_pool_orgs_ids: [SUBORG_ID], manager_org_id: ORG_ID, person_in_manager_org: true, inherits_rbac_pools: true },
        ],
      },
    },
  },
  ...['', '/v2'].map(/** @returns {import('./operation.mjs').OpSpec} */ (suffix) => ({
    method: 'get', path: `/token${suffix}`, id: suffix ? 'getTokenV2' : 'getToken', tags: ['tokens'], sdk: true, security: 'userWithOrg',
    ...(suffix ? {} : { deprecated: true }),
    summary: suffix ? 'Get a token for another organization' : 'Get a token for another organization (first version)',
    description: `
Exchanges the bearer token for a token of the organization named in \`Keyway-OrgID\`, which must share the person
pool of the token's organization. The result is \`type: token\` when the person may enter directly, or
\`type: challenge_list\` (for example \`authn_context_update\`) when that organization requires another factor first.${suffix ? '' : ' Kept for older SDKs; same answers as `/token/v2`.'}`,
    ok: { schema: ref('TokenOrChallengeList'), example: { type: 'token', token: USER_TOKEN } },
    errors: ['Forbidden'],
  })),
  {
    method: 'post', path: '/token/v2', id: 'postTokenV2', tags: ['tokens'], sdk: true, security: 'userWithOrg',
    summary: 'Get a token for another organization (with CSRF and PKCE metadata)',
    description: `
The same exchange as \`GET /token/v2\`, asked with POST and the client's CSRF token and PKCE code challenge in the
body, as the published sign-in client does when it switches organization. Same answers: \`type: token\`, or
\`type: challenge_list\` when the organization named in \`Keyway-OrgID\` requires another factor first.`,
    body: {
      schema: ref('TokenForOrganizationRequest'),
      example: { metadata: { csrf_token: 'b6c1e0f2a9d84c7e91f3', pkce_code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM' } },
      required: false,
    },
    ok: { schema: ref('TokenOrChallengeList'), example: { type: 'token', token: USER_TOKEN } },
    errors: ['Forbidden'],
  },
  {
    method: 'post', path: '/recover', id: 'postRecover', tags: ['person-credentials'], sdk: true, security: 'org',
    summary: 'Start account recovery',
    description: `
Starts recovery of a person who lost a factor: a link or code is sent to the e-mail address or phone number, and the
challenges returned lead to a password reset or new factor registration. Only \`email_address\` and \`phone_number\`
handles can recover. To avoid revealing who has an account the answer is the same for unknown handles.`,
    body: { schema: ref('RecoverRequest'), example: { handle: EMAIL_HANDLE, factor: { method: 'password' } } },
    ok: { schema: ref('ChallengeList'), example: [OTP_CHALLENGE, { id: 'a3f1c2d4-5b6e-4f70-8a9b-0c1d2e3f4a5b', type: 'password_reset', authentication_method: 'password', options: { validation_rules: { regular_expressions: [] } } }], description: 'Challenges to complete, in order (`result` is the list itself): the code or link, then the new password.' },
    errors: ['IdBadRequest', 'MessageNotSent'],
  },
  {
    method: 'post', path: '/sso/resolve', id: 'postSsoResolve', tags: ['sso'], sdk: true, security: 'org',
    summary: 'Complete an SSO challenge',
    description: `
Completes an OIDC or SAML challenge after the provider sent the person back with \`sso_challenge_id\` and \`sso_code\`.
The PKCE code verifier must match the code challenge sent in the ID request metadata. Once resolved, polling the
challenge returns the user token.`,
    body: { schema: ref('SsoResolveRequest'), example: { challenge_id: CHALLENGE_ID, code: 'sso_6f1b2c9d0e', pkce_code_verifier: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk' } },
    ok: { status: 204, description: 'The challenge is completed.' },
    errors: ['NotFound', 'AttestationUnauthorized'],
  },
  {
    method: 'post', path: '/persons/anonymous', id: 'postPersonsAnonymous', tags: ['persons'], sdk: true, security: 'org',
    summary: 'Create an anonymous person',
    description: `
Creates a person without any handle and returns a token with \`person_type: anonymous\`. Use it to keep attributes and
consents for a visitor before sign-up; a later ID request sent with this token as bearer upgrades the same person to a
regular one. Anonymous tokens never count as authenticated.`,
    body: { schema: ref('AnonymousPersonRequest'), example: { region: 'europe-belgium' }, required: false },
    ok: { schema: ref('UserToken'), example: USER_TOKEN, description: '`result` is the anonymous person\'s token.' },
  },
  {
    method: 'post', path: '/persons/{person_id}/impersonate', id: 'postPersonImpersonate', tags: ['persons'], sdk: true, security: 'userWithOrgOrManagement', deprecated: true,
    params: ['PersonIdPath'],
    summary: 'Impersonate a person (first version)',
    description: `
Kept for older SDKs; same body and answer as \`/persons/{person_id}/impersonate/v2\`. Lets a support operator act as
another person of the organization in \`Keyway-OrgID\`.`,
    body: { schema: ref('ImpersonateRequest'), example: { target_url: 'https://app.example.com/' }, required: false },
    ok: { schema: ref('ImpersonateResult'), example: { token: USER_TOKEN, url: 'https://app.example.com/?challenge_pack_id=cp_01JD8ZC4' } },
    errors: ['Forbidden'],
  },
  {
    method: 'post', path: '/persons/{person_id}/impersonate/v2', id: 'postPersonImpersonateV2', tags: ['persons'], sdk: true, security: 'userWithOrgOrManagement',
    params: ['PersonIdPath'],
    summary: 'Impersonate a person',
    description: `
Lets a support operator act as another person of the organization in \`Keyway-OrgID\`, seeing the app as they do: either a signed-in person
allowed to impersonate (bearer token) or a management caller (API key). The answer is a token of the person with
\`impersonate\` in \`authenticated_methods\`; with \`target_url\` it also carries \`url\`, the target with a
single-use \`challenge_pack_id\` that signs the person in there. Revoke the token when done.`,
    body: { schema: ref('ImpersonateRequest'), example: { target_url: 'https://app.example.com/' }, required: false },
    ok: { schema: ref('ImpersonateResult'), example: { token: USER_TOKEN, url: 'https://app.example.com/?challenge_pack_id=cp_01JD8ZC4' } },
    errors: ['Forbidden'],
  },
  {
    method: 'post', path: '/direct-id', id: 'postDirectId', tags: ['persons'], sdk: true, security: 'user',
    summary: 'Get a Direct-ID for the signed-in person',
    description: `
Returns a single-use, short-lived Direct-ID for the signed-in person. Passing it to another application (for example
as a URL parameter) signs the same person in there without a new authentication; the new token lists \`direct_id\`.`,
    ok: { schema: str({ description: 'Opaque single-use value; pass it to the SDK (URL parameter) to sign the person in.' }), example: 'eyJvaWQiOiIzZjZhMGMxZSJ9.c2lnbmF0dXJl', description: '`result` is the direct id.' },
  },
  {
    method: 'get', path: '/attributes', id: 'getMyAttributes', tags: ['person-attributes'], sdk: true, security: 'user',
    params: ['BucketsQuery'],
    summary: 'Get attributes of the signed-in person',
    description: `
Returns the signed-in person's attributes from the requested buckets (all readable buckets by default). Buckets the
end person has no access to (\`end_user_no_access\`, \`person_pool-end_user_no_access\`) answer 403. \`person_pool-\`
buckets are shared by every organization of the person pool.`,
    ok: { schema: ref('AttributesByBucket'), example: { end_user_read_write: { theme: 'dark' }, end_user_read_only: { plan: 'pro' } } },
    errors: ['Forbidden'],
  },
  ...['put', 'patch'].map(/** @returns {import('./operation.mjs').OpSpec} */ (method) => ({
    method, path: '/attributes', id: method === 'put' ? 'putMyAttributes' : 'patchMyAttributes', tags: ['person-attributes'], sdk: true, security: 'user',
    summary: `${method === 'put' ? 'Set' : 'Merge'} attributes of the signed-in person in several buckets`,
    description: method === 'put'
      ? `Stores the given attributes, bucket by bucket; each named attribute is replaced by the new value, others are kept.
Only buckets the end person may write (\`end_user_read_write\` and its person-pool variant) are accepted; others
answer 403 and nothing is written.`
      : `Merges the given attributes into the stored ones (JSON Merge Patch per attribute: objects merge, \`null\` removes).
Only writable buckets are accepted; others answer 403 and nothing is written.`,
    body: { schema: ref('AttributesByBucket'), example: { end_user_read_write: { theme: 'light', locale: 'en-GB' } } },
    ok: { schema: ref('AttributesByBucket'), example: { end_user_read_write: { theme: 'light', locale: 'en-GB', newsletter: true } }, description: 'The stored attributes of the written buckets.' },
    errors: ['Forbidden'],
  })),
  {
    method: 'get', path: '/attributes/{bucket_name}', id: 'getMyBucketAttributes', tags: ['person-attributes'], sdk: true, security: 'user',
    params: ['BucketNamePath', 'AttributesQuery'],
    summary: 'Get attributes of the signed-in person from one bucket',
    description: 'Reads one bucket, optionally only the named attributes. No-access buckets answer 403.',
    ok: { schema: ref('Attributes'), example: { theme: 'dark', newsletter: true } },
    errors: ['Forbidden'],
  },
  ...['put', 'patch'].map(/** @returns {import('./operation.mjs').OpSpec} */ (method) => ({
    method, path: '/attributes/{bucket_name}', id: method === 'put' ? 'putMyBucketAttributes' : 'patchMyBucketAttributes', tags: ['person-attributes'], sdk: true, security: 'user',
    params: ['BucketNamePath'],
    summary: `${method === 'put' ? 'Set' : 'Merge'} attributes of the signed-in person in one bucket`,
    description: method === 'put'
      ? 'Replaces the value of each given attribute in the bucket. Read-only and no-access buckets answer 403.'
      : 'Merges the given attributes into the bucket (objects merge, `null` removes). Read-only and no-access buckets answer 403.',
    body: { schema: ref('Attributes'), example: { theme: 'light' } },
    ok: { schema: ref('Attributes'), example: { theme: 'light', newsletter: true }, description: 'The stored attributes of the bucket.' },
    errors: ['Forbidden'],
  })),
  {
    method: 'delete', path: '/attributes/{bucket_name}', id: 'deleteMyBucketAttributes', tags: ['person-attributes'], sdk: true, security: 'user',
    params: ['BucketNamePath', { ...{ name: 'attributes', in: 'query', required: true, style: 'form', explode: false, description: 'Comma-joined names of the attributes to delete.', schema: { type: 'array', items: str({ pattern: '^[A-Za-z0-9_.-]{1,128}$' }), minItems: 1, maxItems: 100 } } }],
    summary: 'Delete attributes of the signed-in person from one bucket',
    description: 'Removes the named attributes from a bucket the end person may write and returns what remains in the bucket. Unknown names are ignored.',
    ok: { schema: ref('Attributes'), example: { newsletter: true }, description: 'The attributes left in the bucket.' },
    errors: ['Forbidden'],
  },
  {
    method: 'get', path: '/consent/gdpr', id: 'getMyGdprConsent', tags: ['person-consents'], sdk: true, security: 'user',
    summary: 'Get the GDPR consent of the signed-in person',
    description: `Returns the consent levels the signed-in person has given, oldest first.${CONSENT_DESCRIPTION}`,
    ok: { schema: ref('GdprConsentList'), example: { consents: CONSENTS } },
  },
  {
    method: 'post', path: '/consent/gdpr', id: 'postMyGdprConsent', tags: ['person-consents'], sdk: true, security: 'user',
    summary: 'Add GDPR consent levels for the signed-in person',
    description: `Adds the given levels to those already given and returns the full list.${CONSENT_DESCRIPTION}`,
    body: { schema: ref('GdprConsentRequest'), example: { consent_levels: ['analytics'] } },
    ok: { status: 201, schema: ref('GdprConsentList'), example: { consents: CONSENTS } },
  },
  {
    method: 'put', path: '/consent/gdpr', id: 'putMyGdprConsent', tags: ['person-consents'], sdk: true, security: 'user',
    summary: 'Set the GDPR consent of the signed-in person',
    description: `Replaces the stored levels with exactly the given ones (\`none\` alone withdraws everything).${CONSENT_DESCRIPTION}`,
    body: { schema: ref('GdprConsentRequest'), example: { consent_levels: ['necessary', 'analytics'] } },
    ok: { schema: ref('GdprConsentList'), example: { consents: CONSENTS } },
  },
  {
    method: 'delete', path: '/consent/gdpr', id: 'deleteMyGdprConsent', tags: ['person-consents'], sdk: true, security: 'user',
    params: [
      { name: 'consent_levels', in: 'query', required: false, style: 'form', explode: true, description: 'Levels to remove, the parameter repeated (`consent_levels=analytics&consent_levels=marketing`, as the published client sends them); one comma-joined value is accepted too.', schema: { type: 'array', items: ref('ConsentLevel'), minItems: 1 }, example: ['marketing'] },
      { name: 'deleteAll', in: 'query', required: false, description: 'Remove every level; use instead of consent_levels.', schema: { type: 'boolean' } },
    ],
    summary: 'Remove GDPR consent levels of the signed-in person',
    description: 'Removes the listed levels, or all of them with `deleteAll=true`. One of the two query parameters is required (400 otherwise). `GET /consent/gdpr` reads the levels left.',
    ok: { status: 204, description: 'Removed.' },
  },
  {
    method: 'post', path: '/token/validate', id: 'postTokenValidate', tags: ['tokens'], sdk: true, security: 'orgOrManagement',
    summary: 'Validate a user token',
    description: `
Checks a user token of the organization named by \`Keyway-OrgID\` or by the API key in \`Keyway-API-Key\`: signature
against the current keys, expiry, and revocation. Answers 200 in every case with \`valid\`; when false,
\`invalidity_reason\` says why (expired, revoked, bad signature, other organization). A wrong API key answers 401. Use
it server-side or where local JWT verification against the JWKS is not possible.`,
    body: { schema: ref('TokenRequest'), example: { token: USER_TOKEN } },
    ok: { schema: ref('TokenValidationResult'), example: { valid: true, expires_in_seconds: 3540, expires_at: '2026-03-14T10:26:53Z' } },
  },
  {
    method: 'post', path: '/token/revoke', id: 'postTokenRevoke', tags: ['tokens'], sdk: true, security: 'userOrManagement', consistency: true,
    summary: 'Revoke a user token',
    description: `
Revokes a user token so that validation reports it invalid from then on (also after restarts). The SDK calls it on
log-out with the person's own token; a management caller (API key) may revoke any token of its organization, and a
token of another organization answers 403. Revoking an already revoked or expired token succeeds. Answers 204 with no
body. With \`Keyway-Required-Consistency: all_regions\` the answer waits until every region knows.`,
    // The samples revoke the caller's own token (log-out): only a token this server signed can be revoked.
    body: { schema: ref('TokenRequest'), example: { token: USER_TOKEN }, sample: { 'x-sample-variables': { token: 'KEYWAY_USER_TOKEN' } } },
    ok: { status: 204, description: 'The token is revoked (or was already invalid).' },
  },
  {
    method: 'post', path: '/actions/sdk', id: 'postSdkAction', tags: ['persons'], sdk: true, security: 'optionalUser',
    summary: 'Record an SDK analytics event',
    description: `
Receives one analytics event from the browser SDK (sign-in succeeded or failed, person identified, logged out, SDK
loaded, virtual page loaded). Events are stored for the organization and can be forwarded to webhooks. The SDK
sends it with keep-alive so it survives page unloads. Field sizes are capped (user agent 500 characters).`,
    body: {
      schema: ref('AnalyticsEvent'),
      example: {
        event_name: 'AuthenticationSucceeded_v1', organization_id: DEV_ORG_ID, analytics_correlation_id: 'c0rr-5e1f-4b2a',
        window_location: 'https://docs.example.com/login', user_agent: 'Mozilla/5.0 (X11; Linux x86_64)',
        event_data: { person_id: PERSON_ID, success_authn_method: 'otp_via_email', authenticated_methods: ['otp_via_email'], handle: EMAIL_HANDLE },
      },
    },
    ok: { schema: open({ accepted: int({ minimum: 0 }) }, ['accepted']), example: { accepted: 1 }, description: 'Stored.' },
  },
  {
    method: 'post', path: '/events', id: 'postEvents', tags: ['persons'], sdk: true, security: 'optionalUser',
    summary: 'Record a batch of analytics events',
    description: 'Receives one analytics event, or an array of up to 100; same fields and limits as `/actions/sdk`. All or none are stored.',
    body: {
      schema: ref('AnalyticsEventBatch'),
      example: [{ event_name: 'VirtualPageLoaded_v1', organization_id: DEV_ORG_ID, analytics_correlation_id: 'c0rr-5e1f-4b2a', window_location: 'https://docs.example.com/docs/intro' }],
    },
    ok: { schema: open({ accepted: int({ minimum: 0 }) }, ['accepted']), example: { accepted: 1 }, description: 'Stored.' },
  },
  {
    method: 'get', path: '/events', id: 'listEvents', tags: ['persons'], security: 'management',
    params: [
      { name: 'event_name', in: 'query', required: false, description: 'Only events of this name.', schema: str({ maxLength: 128 }) },
      'Limit', 'Offset', 'Cursor',
    ],
    summary: 'List recorded analytics events',
    description: 'Lists the analytics events stored for the organization, newest first, page by page, optionally of one name. Use it to audit sign-ins or to debug the SDK integration.',
    ok: {
      schema: { type: 'array', items: ref('StoredEvent') }, paginated: true,
      example: [{ id: 42, source: 'sdk', event_name: 'AuthenticationSucceeded_v1', person_id: PERSON_ID, created_at: '2026-03-14T09:26:53Z', event: { event_name: 'AuthenticationSucceeded_v1', organization_id: DEV_ORG_ID, analytics_correlation_id: 'c0rr-5e1f-4b2a', event_data: { person_id: PERSON_ID, success_authn_method: 'otp_via_email' } } }],
    },
  },
];

