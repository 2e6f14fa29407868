// GENERATED from openapi.yaml by `npm run contract -w @keyway/api` (openapi-typescript) — do not edit.
export interface paths {
    "/id": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start authentication for a handle
         * @deprecated
         * @description Starts an authentication (or a sign-up, when the handle is new and the organization allows self-registration) for
         *     the handle with the chosen factor. The answer (`result`) is the list of challenges the client must complete in order; each
         *     answer goes to the attestation endpoint, whose last answer is the user token.
         *
         *     Send the current user token as bearer to add a factor to it (multi-factor, step-up, upgrade of an anonymous person):
         *     the new token then lists both methods in `authenticated_methods`. OIDC and SAML factors take no handle.
         *     E-mail factors need an `email_address` handle and SMS factors a `phone_number` handle.
         *
         *     This first version takes no `metadata`; new clients use `/id/v2`.
         *
         *     Rate limited per IP address and per handle (429).
         */
        post: operations["postId"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/id/v2": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start authentication for a handle (with CSRF and PKCE metadata)
         * @description Starts an authentication (or a sign-up, when the handle is new and the organization allows self-registration) for
         *     the handle with the chosen factor. The answer (`result`) is the list of challenges the client must complete in order; each
         *     answer goes to the attestation endpoint, whose last answer is the user token.
         *
         *     Send the current user token as bearer to add a factor to it (multi-factor, step-up, upgrade of an anonymous person):
         *     the new token then lists both methods in `authenticated_methods`. OIDC and SAML factors take no handle.
         *     E-mail factors need an `email_address` handle and SMS factors a `phone_number` handle.
         *
         *     `metadata` carries the client's CSRF token and PKCE code challenge (S256); they bind the SSO return
         *     (`/sso/resolve`) and e-mail/SMS links to the browser that started the flow.
         *
         *     Rate limited per IP address and per handle (429).
         */
        post: operations["postIdV2"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/attestation": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Answer a challenge (first version)
         * @deprecated
         * @description Submits the answer to one challenge of an ID request. Kept for older SDKs: it takes the same body and gives the same
         *     answer as `/attestation/v3`, which new clients use. A wrong code or password answers 401 and may be retried, at most 5 attempts per
         *     challenge; after that, and after the challenge expires, a new ID request is needed.
         */
        post: operations["postAttestation"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/attestation/v2": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Answer a challenge (second version)
         * @deprecated
         * @description Submits the answer to one challenge. Kept for SDKs of the second generation; same body, answer and attempt limits
         *     as `/attestation/v3`.
         */
        post: operations["postAttestationV2"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/attestation/v3": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Answer a challenge
         * @description Submits the answer to one challenge (`challenge_id`, `challenge_type`, `data`) and returns `result.token`, the user
         *     token. `data` depends on the challenge: `{challenge}` for nonce, `{otp}` for OTP and TOTP (a recovery code is
         *     accepted for totp_verify), `{password}` for the password challenges, and the browser's PublicKeyCredential for WebAuthn.
         *
         *     A wrong OTP, TOTP code or password answers 401; a new password that breaks a validation rule answers 400 naming the
         *     rule. Each challenge accepts at most 5 wrong answers. Codes expire (10 minutes for OTP); an expired challenge answers
         *     401 'authentication has expired'.
         */
        post: operations["postAttestationV3"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/challenge/{challenge_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Poll a proxy challenge (first version)
         * @deprecated
         * @description Polled by older clients while the person opens the e-mail or SMS link of a proxy challenge: 202 while the link has
         *     not been opened, then the user token. Same answers as `/challenge/{challenge_id}/v2`, which new clients use.
         */
        get: operations["getChallenge"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/challenge/{challenge_id}/v2": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Poll a proxy challenge
         * @description Polled every second by the client while the person opens the e-mail or SMS link of a proxy challenge. While the link
         *     has not been opened the answer is HTTP 202 with `errors[0].httpcode` 202: keep waiting. Once opened, the answer
         *     carries the user token as `result`. An expired challenge answers 401 'authentication has expired'; an unknown one 404.
         */
        get: operations["getChallengeV2"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/challenge_pack/{challenge_pack_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Fetch a challenge pack
         * @description Returns the challenges stored under a challenge pack id. Packs are created server-side (direct ID, impersonation,
         *     links) and handed to the browser as a URL parameter; the SDK fetches and completes them like the answer of an ID
         *     request. A pack can be fetched until it expires.
         */
        get: operations["getChallengePack"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the signed-in person
         * @description Returns the current person's profile: the person the bearer token belongs to, the organizations they belong to,
         *     their handles and their credentials (secrets are never returned; password credentials show only the hash format).
         *     Anonymous persons get their own record with no handles.
         */
        get: operations["getMe"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/me/orgs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the organizations of the signed-in person
         * @description Returns the organization hierarchy the signed-in person can reach: the organization of the token, its
         *     suborganizations and the organizations sharing its person pool. Use it to build an organization switcher, then
         *     call `GET /token/v2` with the chosen organization id.
         */
        get: operations["getMeOrgs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a token for another organization (first version)
         * @deprecated
         * @description Exchanges the bearer token for a token of the organization named in `Keyway-OrgID`, which must share the person
         *     pool of the token's organization. The result is `type: token` when the person may enter directly, or
         *     `type: challenge_list` (for example `authn_context_update`) when that organization requires another factor first. Kept for older SDKs; same answers as `/token/v2`.
         */
        get: operations["getToken"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/token/v2": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a token for another organization
         * @description Exchanges the bearer token for a token of the organization named in `Keyway-OrgID`, which must share the person
         *     pool of the token's organization. The result is `type: token` when the person may enter directly, or
         *     `type: challenge_list` (for example `authn_context_update`) when that organization requires another factor first.
         */
        get: operations["getTokenV2"];
        put?: never;
        /**
         * Get a token for another organization (with CSRF and PKCE metadata)
         * @description The same exchange as `GET /token/v2`, asked with POST and the client's CSRF token and PKCE code challenge in the
         *     body, as the published sign-in client does when it switches organization. Same answers: `type: token`, or
         *     `type: challenge_list` when the organization named in `Keyway-OrgID` requires another factor first.
         */
        post: operations["postTokenV2"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/recover": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start account recovery
         * @description Starts recovery of a person who lost a factor: a link or code is sent to the e-mail address or phone number, and the
         *     challenges returned lead to a password reset or new factor registration. Only `email_address` and `phone_number`
         *     handles can recover. To avoid revealing who has an account the answer is the same for unknown handles.
         */
        post: operations["postRecover"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sso/resolve": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Complete an SSO challenge
         * @description Completes an OIDC or SAML challenge after the provider sent the person back with `sso_challenge_id` and `sso_code`.
         *     The PKCE code verifier must match the code challenge sent in the ID request metadata. Once resolved, polling the
         *     challenge returns the user token.
         */
        post: operations["postSsoResolve"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/persons/anonymous": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create an anonymous person
         * @description Creates a person without any handle and returns a token with `person_type: anonymous`. Use it to keep attributes and
         *     consents for a visitor before sign-up; a later ID request sent with this token as bearer upgrades the same person to a
         *     regular one. Anonymous tokens never count as authenticated.
         */
        post: operations["postPersonsAnonymous"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/persons/{person_id}/impersonate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Impersonate a person (first version)
         * @deprecated
         * @description Kept for older SDKs; same body and answer as `/persons/{person_id}/impersonate/v2`. Lets a support operator act as
         *     another person of the organization in `Keyway-OrgID`.
         */
        post: operations["postPersonImpersonate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/persons/{person_id}/impersonate/v2": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Impersonate a person
         * @description Lets a support operator act as another person of the organization in `Keyway-OrgID`, seeing the app as they do: either a signed-in person
         *     allowed to impersonate (bearer token) or a management caller (API key). The answer is a token of the person with
         *     `impersonate` in `authenticated_methods`; with `target_url` it also carries `url`, the target with a
         *     single-use `challenge_pack_id` that signs the person in there. Revoke the token when done.
         */
        post: operations["postPersonImpersonateV2"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/direct-id": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Get a Direct-ID for the signed-in person
         * @description Returns a single-use, short-lived Direct-ID for the signed-in person. Passing it to another application (for example
         *     as a URL parameter) signs the same person in there without a new authentication; the new token lists `direct_id`.
         */
        post: operations["postDirectId"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/attributes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get attributes of the signed-in person
         * @description Returns the signed-in person's attributes from the requested buckets (all readable buckets by default). Buckets the
         *     end person has no access to (`end_user_no_access`, `person_pool-end_user_no_access`) answer 403. `person_pool-`
         *     buckets are shared by every organization of the person pool.
         */
        get: operations["getMyAttributes"];
        /**
         * Set attributes of the signed-in person in several buckets
         * @description Stores the given attributes, bucket by bucket; each named attribute is replaced by the new value, others are kept.
         *     Only buckets the end person may write (`end_user_read_write` and its person-pool variant) are accepted; others
         *     answer 403 and nothing is written.
         */
        put: operations["putMyAttributes"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Merge attributes of the signed-in person in several buckets
         * @description Merges the given attributes into the stored ones (JSON Merge Patch per attribute: objects merge, `null` removes).
         *     Only writable buckets are accepted; others answer 403 and nothing is written.
         */
        patch: operations["patchMyAttributes"];
        trace?: never;
    };
    "/attributes/{bucket_name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get attributes of the signed-in person from one bucket
         * @description Reads one bucket, optionally only the named attributes. No-access buckets answer 403.
         */
        get: operations["getMyBucketAttributes"];
        /**
         * Set attributes of the signed-in person in one bucket
         * @description Replaces the value of each given attribute in the bucket. Read-only and no-access buckets answer 403.
         */
        put: operations["putMyBucketAttributes"];
        post?: never;
        /**
         * Delete attributes of the signed-in person from one bucket
         * @description Removes the named attributes from a bucket the end person may write and returns what remains in the bucket. Unknown names are ignored.
         */
        delete: operations["deleteMyBucketAttributes"];
        options?: never;
        head?: never;
        /**
         * Merge attributes of the signed-in person in one bucket
         * @description Merges the given attributes into the bucket (objects merge, `null` removes). Read-only and no-access buckets answer 403.
         */
        patch: operations["patchMyBucketAttributes"];
        trace?: never;
    };
    "/consent/gdpr": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the GDPR consent of the signed-in person
         * @description Returns the consent levels the signed-in person has given, oldest first.
         *     Consent levels: none, necessary, analytics, marketing, retargeting, tracking. Each stored level carries the time it
         *     was given.
         */
        get: operations["getMyGdprConsent"];
        /**
         * Set the GDPR consent of the signed-in person
         * @description Replaces the stored levels with exactly the given ones (`none` alone withdraws everything).
         *     Consent levels: none, necessary, analytics, marketing, retargeting, tracking. Each stored level carries the time it
         *     was given.
         */
        put: operations["putMyGdprConsent"];
        /**
         * Add GDPR consent levels for the signed-in person
         * @description Adds the given levels to those already given and returns the full list.
         *     Consent levels: none, necessary, analytics, marketing, retargeting, tracking. Each stored level carries the time it
         *     was given.
         */
        post: operations["postMyGdprConsent"];
        /**
         * Remove GDPR consent levels of the signed-in person
         * @description Removes the listed levels, or all of them with `deleteAll=true`. One of the two query parameters is required (400 otherwise). `GET /consent/gdpr` reads the levels left.
         */
        delete: operations["deleteMyGdprConsent"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/token/validate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Validate a user token
         * @description Checks a user token of the organization named by `Keyway-OrgID` or by the API key in `Keyway-API-Key`: signature
         *     against the current keys, expiry, and revocation. Answers 200 in every case with `valid`; when false,
         *     `invalidity_reason` says why (expired, revoked, bad signature, other organization). A wrong API key answers 401. Use
         *     it server-side or where local JWT verification against the JWKS is not possible.
         */
        post: operations["postTokenValidate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/token/revoke": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Revoke a user token
         * @description Revokes a user token so that validation reports it invalid from then on (also after restarts). The SDK calls it on
         *     log-out with the person's own token; a management caller (API key) may revoke any token of its organization, and a
         *     token of another organization answers 403. Revoking an already revoked or expired token succeeds. Answers 204 with no
         *     body. With `Keyway-Required-Consistency: all_regions` the answer waits until every region knows.
         */
        post: operations["postTokenRevoke"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/actions/sdk": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Record an SDK analytics event
         * @description Receives one analytics event from the browser SDK (sign-in succeeded or failed, person identified, logged out, SDK
         *     loaded, virtual page loaded). Events are stored for the organization and can be forwarded to webhooks. The SDK
         *     sends it with keep-alive so it survives page unloads. Field sizes are capped (user agent 500 characters).
         */
        post: operations["postSdkAction"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List recorded analytics events
         * @description Lists the analytics events stored for the organization, newest first, page by page, optionally of one name. Use it to audit sign-ins or to debug the SDK integration.
         */
        get: operations["listEvents"];
        put?: never;
        /**
         * Record a batch of analytics events
         * @description Receives one analytics event, or an array of up to 100; same fields and limits as `/actions/sdk`. All or none are stored.
         */
        post: operations["postEvents"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/oauth2/authorize": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Request an authorization code
         * @description Entry point of Keyway's hosted login (authorization code flow with PKCE S256; PKCE may be left out by confidential clients only). The browser is redirected here; the
         *     person signs in on the hosted page and is redirected back to `redirect_uri` with `code` and `state`. Errors in
         *     `client_id` or `redirect_uri` are shown on the page instead of redirecting (to avoid open redirects); other errors
         *     are returned to the redirect URI as `error` and `error_description`, with `state` and `iss` (RFC 9207). Signing in sets an
         *     HTTP-only session cookie of this server: another client of the same organization then signs the person in without a page.
         */
        get: operations["getOAuth2Authorize"];
        put?: never;
        /**
         * Request an authorization code (form post)
         * @description The form-encoded twin of `GET /oauth2/authorize` (OpenID Connect Core §3.1.2.1), with the same parameters in the body.
         *     Entry point of Keyway's hosted login (authorization code flow with PKCE S256; PKCE may be left out by confidential clients only). The browser is redirected here; the
         *     person signs in on the hosted page and is redirected back to `redirect_uri` with `code` and `state`. Errors in
         *     `client_id` or `redirect_uri` are shown on the page instead of redirecting (to avoid open redirects); other errors
         *     are returned to the redirect URI as `error` and `error_description`, with `state` and `iss` (RFC 9207). Signing in sets an
         *     HTTP-only session cookie of this server: another client of the same organization then signs the person in without a page.
         */
        post: operations["postOAuth2Authorize"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/oauth2/logout": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * End the session (RP-Initiated Logout)
         * @description OpenID Connect RP-Initiated Logout 1.0. Ends the person's session at this server (the session cookie the hosted login set),
         *     so no client of the organization signs them in again without a page. With a valid `id_token_hint` (an id_token this
         *     server issued, expired or not) the session ends at once and the browser goes to `post_logout_redirect_uri` (which must be
         *     registered in the client's `post_logout_redirect_uris`) with `state`, or to a "signed out" page. Without one, the page
         *     asks the person to confirm.
         */
        get: operations["getOAuth2Logout"];
        put?: never;
        /**
         * End the session (RP-Initiated Logout, form post)
         * @description OpenID Connect RP-Initiated Logout 1.0. Ends the person's session at this server (the session cookie the hosted login set),
         *     so no client of the organization signs them in again without a page. With a valid `id_token_hint` (an id_token this
         *     server issued, expired or not) the session ends at once and the browser goes to `post_logout_redirect_uri` (which must be
         *     registered in the client's `post_logout_redirect_uris`) with `state`, or to a "signed out" page. Without one, the page
         *     asks the person to confirm. Same as GET, with the parameters form-encoded in the body.
         */
        post: operations["postOAuth2Logout"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/oauth2/tokens": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Obtain an access token
         * @description The OAuth2 token endpoint. With `authorization_code` it exchanges the code of `/oauth2/authorize`; public clients
         *     (the browser SDK) send `client_id` and the PKCE `code_verifier` in the form instead of client credentials. With
         *     `client_credentials` a confidential client authenticates with HTTP Basic and gets a machine-to-machine token. The
         *     answer follows RFC 6749 and includes an OpenID Connect `id_token` when `openid` was requested. Codes are single-use
         *     and expire after 60 seconds. Clients allowed the `refresh_token` grant (with a `refresh_token_duration` above 0) also
         *     get a `refresh_token` with the code exchange; `grant_type=refresh_token` trades it for new tokens (a `scope` may
         *     narrow them) and a new refresh token. Each refresh token works once: presenting a used one again is taken as theft and
         *     revokes every token of that grant, the newest refresh and access tokens included (`invalid_grant`).
         */
        post: operations["postOAuth2Tokens"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/oauth2/tokens/revoke": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Revoke a token
         * @description Revokes an access or refresh token issued to the authenticated client (RFC 7009); a refresh token takes the tokens of
         *     its grant with it. Unknown or already revoked tokens also answer 200, so the caller cannot probe which tokens exist.
         */
        post: operations["postOAuth2TokensRevoke"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/oauth2/tokens/revoke-all": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Revoke tokens
         * @description Revokes every access and refresh token the authenticated client (a confidential one) holds for one person, e.g. when a person signs out everywhere; with `until`, only the tokens issued before that time.
         */
        post: operations["postOAuth2TokensRevokeAll"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/oauth2/tokens/introspect": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Introspect an access token
         * @description Tells a resource server whether an access token (or a refresh token of the calling client, `token_type: refresh_token`) is active and what it grants (RFC 7662). Inactive tokens answer `{"active": false}` only.
         */
        post: operations["postOAuth2TokensIntrospect"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/oauth2/userinfo": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a person's profile
         * @description Returns the OpenID Connect claims of the person the access token was issued for, limited to the granted scopes.
         */
        get: operations["getOAuth2Userinfo"];
        put?: never;
        /**
         * Get a person's profile (POST)
         * @description Returns the OpenID Connect claims of the person the access token was issued for, limited to the granted scopes. Same as GET, for clients that cannot send GET.
         */
        post: operations["postOAuth2Userinfo"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/.well-known/openid-configuration": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get OpenID configuration values
         * @description OpenID Connect discovery document of the Keyway issuer: endpoints, supported flows, scopes and signing algorithms. Public and cacheable.
         */
        get: operations["getOpenIdConfiguration"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/.well-known/jwks.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get public key JWKS for user tokens
         * @description The public keys that verify Keyway user tokens and id_tokens. Keys rotate: the set holds the current key and the
         *     previous ones still valid for unexpired tokens, so cache it briefly and refetch when a token names an unknown `kid`.
         */
        get: operations["getJwks"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/persons": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a list of persons
         * @description Lists the persons of the organization, newest first, page by page (`limit` at most 1000, `offset`), with
         *     `meta.pagination.total_count`. The SCIM-style `filter` selects by handle, group, role, activity or person type;
         *     an unparsable filter answers 400 naming the position of the problem. `handle`, `ids` and `all_person_types` narrow the
         *     list further (all of them together), and `fields` keeps only the parts of each person named.
         */
        get: operations["listPersons"];
        /**
         * Create or update a person (idempotent)
         * @description Creates the person if none of the handles is known, otherwise updates the person owning them (adds the missing
         *     handles, sets groups, roles and attributes as given). Safe to repeat, which makes it the call for synchronising an
         *     external user directory. Handles belonging to two different persons answer 409.
         */
        put: operations["upsertPerson"];
        /**
         * Create a new person
         * @description Registers a person in the organization with one or more handles, and optionally groups, roles and attributes. No
         *     message is sent to the person. Answers 409 'person exists' when a handle already belongs to a person of the person
         *     pool; use `PUT /persons` to create-or-update instead.
         */
        post: operations["createPerson"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/persons/{person_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a person
         * @description Returns one person with handles, groups, roles and attributes of every bucket; `fields` keeps only the parts named.
         */
        get: operations["getPerson"];
        put?: never;
        post?: never;
        /**
         * Delete a person from an organization
         * @description Removes the person from this organization. When no other organization of the person pool still holds the person,
         *     the handles, credentials, attributes and consents are deleted too and the person's tokens stop validating.
         */
        delete: operations["deletePerson"];
        options?: never;
        head?: never;
        /**
         * Modify an existing person
         * @description Changes the activity or the region of a person. Deactivating blocks new sign-ins (answered 403 'Person <id> is
         *     inactive') without deleting data; moving regions migrates the person's data.
         */
        patch: operations["patchPerson"];
        trace?: never;
    };
    "/persons/{person_id}/organizations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the list of person's organizations
         * @description Lists the organizations (this one and those sharing its person pool) the person belongs to; `filter` selects among them by id or name.
         */
        get: operations["getPersonOrganizations"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/persons/{person_id}/direct-id": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Get Direct-ID value for a person
         * @description Issues a single-use Direct-ID for the person, valid for `duration_secs` (default 300, at most 3600). Give it to
         *     your front end (for example in a link) and the SDK signs the person in without asking for a factor; the resulting
         *     token lists `direct_id`. Treat it like a password. `result` is the Direct-ID.
         */
        post: operations["createPersonDirectId"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/persons/{person_id}/mint-token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Mint a token for a person
         * @description Issues a user token for the person without them signing in (no authentication step), for back-end integrations and tests. The token lists
         *     `api` (or the given methods) in `authenticated_methods` and may carry extra claims; reserved claim names are
         *     rejected with 400. `result` is the token.
         */
        post: operations["mintPersonToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/persons/{person_id}/groups": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get groups for a person
         * @description Names of the groups the person belongs to; the same names appear in the groups claim of their tokens.
         */
        get: operations["getPersonGroups"];
        /**
         * Set the groups for a person
         * @description Replaces the person's group memberships with exactly the given groups (an empty list removes all). Unknown groups answer 400 and nothing changes.
         */
        put: operations["setPersonGroups"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/persons/{person_id}/permissions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get permissions for a person
         * @description The names of the effective permissions of the person: those of their roles plus the additional ones. `POST /rbac/check` tells what grants one.
         */
        get: operations["getPersonPermissions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/persons/{person_id}/additional-permissions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get additional permissions for a person
         * @description Permissions granted to the person directly, outside any role. Use it to audit exceptions; `GET .../permissions` gives the effective set. The `ETag` goes into `If-Match` of a change.
         */
        get: operations["getPersonAdditionalPermissions"];
        /**
         * Set the permissions for a person
         * @description Replaces the person's direct permissions. Every permission must exist (400 otherwise); role permissions are unaffected. With `If-Match`, only if they are still those of that `ETag` (412 otherwise).
         */
        put: operations["setPersonAdditionalPermissions"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/persons/{person_id}/roles": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get roles for a person
         * @description Names of the roles assigned to the person. Roles inherited through the RBAC pool of a parent organization are included. The `ETag` goes into `If-Match` of a change.
         */
        get: operations["getPersonRoles"];
        /**
         * Set the roles for a person
         * @description Replaces the person's roles with exactly the given ones. Unknown roles answer 400 and nothing changes. With `If-Match`, only if they are still those of that `ETag` (412 otherwise).
         */
        put: operations["setPersonRoles"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/groups": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a list of groups
         * @description Lists the names of the groups of the organization in name order, page by page (`limit` at most 1000), with the total in `meta.pagination`; `GET /groups/{group_name}` gives one group in full.
         */
        get: operations["listGroups"];
        put?: never;
        /**
         * Create a group
         * @description Creates an empty group. Names are unique per organization (409 when taken) and limited to letters, digits and `_ . : -`.
         */
        post: operations["createGroup"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/groups/{group_name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a group
         * @description Returns one group with its description, creation time and number of members; 404 when no group of the organization has that name.
         */
        get: operations["getGroup"];
        put?: never;
        post?: never;
        /**
         * Delete a group
         * @description Deletes the group and every membership in it. Tokens issued before keep the old groups claim until they expire. The answer is the envelope without `result`.
         */
        delete: operations["deleteGroup"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/groups/{group_name}/persons": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the persons in a group
         * @description Lists the ids of the persons who are members of the group, oldest member first, page by page; `GET /persons?ids=…` reads them in full.
         */
        get: operations["listGroupPersons"];
        put?: never;
        /**
         * Add persons to a group
         * @description Adds up to 1000 persons to the group; persons already in it are left as they are. An unknown person id answers 404 and nobody is added. The answer is the envelope without `result`.
         */
        post: operations["addPersonsToGroup"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/groups/{group_name}/persons/{person_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Delete a person from a group
         * @description Removes one person from the group; the person and the group remain. The answer is the envelope without `result`.
         */
        delete: operations["removePersonFromGroup"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/persons/{person_id}/handles": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get handles for a person
         * @description Lists every handle (e-mail address, phone number, username) the person can be identified and signed in with.
         */
        get: operations["getPersonHandles"];
        put?: never;
        /**
         * Add handles to a person
         * @description Adds e-mail addresses, phone numbers (E.164) or usernames the person can sign in with, sent as a list of handles. A
         *     handle owned by another person of the pool answers 409 'person exists'; malformed ones answer 400 with the
         *     SDK-mapped messages. `GET .../handles` reads the result.
         */
        post: operations["addPersonHandles"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/persons/{person_id}/handles/{handle}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Delete a handle from a person
         * @description Removes one handle, written `type:value`. The last handle of a regular person cannot be removed (409).
         */
        delete: operations["deletePersonHandle"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/persons/{person_id}/credentials": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a person's credentials
         * @description Lists passwords, passkeys and TOTP authenticators of the person with when they were last used. Secrets are never returned.
         */
        get: operations["getPersonCredentials"];
        put?: never;
        /**
         * Create a new credential
         * @description Stores a credential for the person, for example when migrating from another system: a password (`password`, hashed here), a TOTP secret (`secret`), or a credential as the public reference imports it (`type`, `label`, `params`): a password hash (`params.password_hash`), a passkey (`params.webauthn_credential_id` and `params.public_key`) or a TOTP record (`params.key_uri`, `params.unused_recovery_codes`). A password or TOTP replaces the one the person has; a passkey is added (409 when its id belongs to another person). A format this server cannot verify answers 400 naming the field and the value.
         */
        post: operations["createPersonCredential"];
        /**
         * Delete all credentials
         * @description Deletes every credential of the person, e.g. after an account takeover. The person can still sign in with e-mail or SMS factors.
         */
        delete: operations["deletePersonCredentials"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/persons/{person_id}/credentials/{credential_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Delete a credential object
         * @description Deletes one credential, for example a lost security key or an authenticator app the person no longer has. Other credentials are kept.
         */
        delete: operations["deletePersonCredential"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/persons/{person_id}/credentials/password": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Create or overwrite a password credential
         * @description Sets the person's password (hashed with a memory-hard function). It must satisfy the organization's password rules unless `skip_validation` is set; failures answer 400 naming the rules. A hash made by another system can be imported instead (`type: password`, `params.password_hash`: bcrypt or scrypt PHC; other formats answer 400 naming the format); it is replaced by this server's own hash at the first sign-in.
         */
        put: operations["setPersonPassword"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/persons/{person_id}/credentials/password-reset": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Trigger a password reset flow
         * @description Sends the person a password-reset link to `reset_handle` (by default the person's first e-mail address, else phone number); opening it leads to a `password_reset` challenge: on `redirect_target` (your page, completing it with the SDK) or, without one, on the identity server's own reset page. The current password keeps working until replaced, unless `force_change` is set.
         */
        post: operations["resetPersonPassword"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/persons/{person_id}/credentials/password-rotate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rotate a person's password
         * @description Marks the password as compromised: sign-ins with it are refused (403 'password must be changed') until a new password
         *     is set (reset link, account recovery or `PUT .../credentials/password`). With a `handle` (and `redirect_target`) a
         *     reset link is sent to it right away. A person without a password answers 404.
         */
        post: operations["rotatePersonPassword"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/persons/{person_id}/consent/gdpr": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get GDPR consent
         * @description Returns the consent levels the person has given.
         *     Consent levels: none, necessary, analytics, marketing, retargeting, tracking. Each stored level carries the time it
         *     was given.
         */
        get: operations["getPersonGdprConsent"];
        /**
         * Set GDPR consent
         * @description Replaces the person's consent levels with exactly the given ones.
         *     Consent levels: none, necessary, analytics, marketing, retargeting, tracking. Each stored level carries the time it
         *     was given.
         */
        put: operations["setPersonGdprConsent"];
        /**
         * Store GDPR consent
         * @description Adds consent levels on behalf of the person (for consent collected outside the SDK) and returns all levels.
         *     Consent levels: none, necessary, analytics, marketing, retargeting, tracking. Each stored level carries the time it
         *     was given.
         */
        post: operations["addPersonGdprConsent"];
        /**
         * Remove GDPR consent
         * @description Removes the listed levels of the person, or all with `deleteAll=true`; one of the two is required.
         */
        delete: operations["deletePersonGdprConsent"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/persons/bulk-import": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Fetch the import CSV template
         * @description Returns the CSV header row (and one sample row) that `POST /persons/bulk-import` expects: `handle_type` and
         *     `handle_value` (required), `active`, `region`, `groups` and `roles` (names separated by `;`), and attribute
         *     columns named `attr:<bucket>:<name>` (a cell that is JSON is stored as that value, any other text as a string).
         */
        get: operations["getBulkImportTemplate"];
        put?: never;
        /**
         * Bulk import persons
         * @description Imports up to 10 000 persons from a CSV file (multipart part `persons`) in the template's format. Rows are checked one by one: valid rows are
         *     imported, invalid ones are reported with their row number (the header is row 1) and reason, and come back as
         *     `failed_csv`, so they can be fixed and re-sent (existing persons are updated, not duplicated). A file whose header cannot be used (missing handle
         *     columns, unknown columns or buckets) or that is not CSV answers 400 and imports nothing.
         */
        post: operations["bulkImportPersons"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/persons/{person_id}/attributes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get attributes for a person from multiple buckets
         * @description Returns the attributes of a person from the requested buckets (every bucket when `buckets` is absent). Buckets prefixed `person_pool-` are shared with every organization of the person pool.
         */
        get: operations["getPersonAttributes"];
        /**
         * Upsert attributes for a person in multiple buckets (replace values)
         * @description Stores each given attribute of a person, replacing its previous value; attributes not named are kept. Management calls may write every bucket, including those the end person cannot see. Buckets prefixed `person_pool-` are shared with every organization of the person pool.
         */
        put: operations["putPersonAttributes"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Upsert attributes for a person in multiple buckets (merge values)
         * @description Merges each given attribute of a person into its stored value (JSON Merge Patch: objects merge, `null` removes). Management calls may write every bucket, including those the end person cannot see. Buckets prefixed `person_pool-` are shared with every organization of the person pool.
         */
        patch: operations["patchPersonAttributes"];
        trace?: never;
    };
    "/persons/{person_id}/attributes/{bucket_name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get attributes for a person from a single bucket
         * @description Returns the attributes of a person in one bucket, optionally only those named in `attributes`.
         */
        get: operations["getPersonBucketAttributes"];
        /**
         * Upsert attributes for a person in a single bucket (replace values)
         * @description Stores each given attribute of a person, replacing its previous value; attributes not named are kept. Management calls may write every bucket, including those the end person cannot see. Buckets prefixed `person_pool-` are shared with every organization of the person pool.
         */
        put: operations["putPersonBucketAttributes"];
        post?: never;
        /**
         * Delete attributes for a person from a single bucket
         * @description Deletes the attributes named in `attributes` from the bucket, or the whole bucket of a person when none are named.
         */
        delete: operations["deletePersonBucketAttributes"];
        options?: never;
        head?: never;
        /**
         * Upsert attributes for a person in a single bucket (merge values)
         * @description Merges each given attribute of a person into its stored value (JSON Merge Patch: objects merge, `null` removes). Management calls may write every bucket, including those the end person cannot see. Buckets prefixed `person_pool-` are shared with every organization of the person pool.
         */
        patch: operations["patchPersonBucketAttributes"];
        trace?: never;
    };
    "/organizations/attributes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get attributes for the organization from multiple buckets
         * @description Returns the attributes of the organization from the requested buckets (every bucket when `buckets` is absent). Organization attributes are visible to management calls only.
         */
        get: operations["getOrganizationAttributes"];
        /**
         * Upsert attributes for the organization in multiple buckets (replace values)
         * @description Stores each given attribute of the organization, replacing its previous value; attributes not named are kept. Management calls may write every bucket, including those the end person cannot see. Organization attributes are visible to management calls only.
         */
        put: operations["putOrganizationAttributes"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Upsert attributes for the organization in multiple buckets (merge values)
         * @description Merges each given attribute of the organization into its stored value (JSON Merge Patch: objects merge, `null` removes). Management calls may write every bucket, including those the end person cannot see. Organization attributes are visible to management calls only.
         */
        patch: operations["patchOrganizationAttributes"];
        trace?: never;
    };
    "/organizations/attributes/{bucket_name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get attributes for the organization from a single bucket
         * @description Returns the attributes of the organization in one bucket, optionally only those named in `attributes`.
         */
        get: operations["getOrganizationBucketAttributes"];
        /**
         * Upsert attributes for the organization in a single bucket (replace values)
         * @description Stores each given attribute of the organization, replacing its previous value; attributes not named are kept. Management calls may write every bucket, including those the end person cannot see. Organization attributes are visible to management calls only.
         */
        put: operations["putOrganizationBucketAttributes"];
        post?: never;
        /**
         * Delete attributes for the organization from a single bucket
         * @description Deletes the attributes named in `attributes` from the bucket, or the whole bucket of the organization when none are named.
         */
        delete: operations["deleteOrganizationBucketAttributes"];
        options?: never;
        head?: never;
        /**
         * Upsert attributes for the organization in a single bucket (merge values)
         * @description Merges each given attribute of the organization into its stored value (JSON Merge Patch: objects merge, `null` removes). Management calls may write every bucket, including those the end person cannot see. Organization attributes are visible to management calls only.
         */
        patch: operations["patchOrganizationBucketAttributes"];
        trace?: never;
    };
    "/organizations/attribute-buckets": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List organization's attribute buckets
         * @description Lists the attribute buckets available to the organization and what the end person may do with each (read-write,
         *     read-only, no access) and whether the bucket is shared with the person pool. The SDK can only reach buckets with
         *     end-user access.
         */
        get: operations["listAttributeBuckets"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/organizations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get information about an organization
         * @description Returns the organization of `Keyway-OrgID` with its parent and the suborganizations it manages.
         */
        get: operations["getOrganization"];
        put?: never;
        post?: never;
        /**
         * Delete an organization
         * @description Deletes the organization of `Keyway-OrgID` with its persons, configuration and keys; the API key stops working at
         *     once. This cannot be undone. With suborganizations it answers 409 unless `delete_suborganizations=true`, which
         *     deletes the whole subtree. `confirmation_timestamp` guards against a stale request: when given, it must be within five
         *     minutes of the server's clock.
         */
        delete: operations["deleteOrganization"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/organizations/suborganizations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List suborganizations
         * @description Lists the ids of the organizations directly below this one in the hierarchy (`GET /organizations` lists them with their names). `filter` selects by name: `org_name eq "Acme"`, `tenant_name sw "ac"` (operators eq, ne, co, sw, pr, and, or; case-insensitive).
         */
        get: operations["listSuborganizations"];
        put?: never;
        /**
         * Create a suborganization
         * @description Creates an organization below this one, for a tenant of a multi-tenant product. With `persons_org_id` (this
         *     organization, or one of its own person pool) it shares that person pool: the same people sign in to both. With
         *     `inherit_rbac_pools` the parent's roles and permissions apply. Each handle of `admins` becomes an active person of
         *     the new organization in its group `admins`. Group pools are not shared: `groups_org_id` answers 400. The answer
         *     includes the new organization's API key, shown only once.
         */
        post: operations["createSuborganization"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/organizations/api-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Generate a new API key for the specified organization
         * @description Issues a new management API key for the organization; the previous key stops working immediately. The key is shown only in this answer.
         */
        put: operations["rotateApiKey"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/organizations/config": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get organization config
         * @description Sign-in settings of the organization: self-registration, handle patterns, allowed factors, token lifetime, password rules, approval of new persons.
         */
        get: operations["getOrganizationConfig"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Update organization config
         * @description Changes the given settings only. With `deny_self_registration` people cannot create their own accounts: only persons
         *     you create can sign in, and ID requests for unknown handles answer 403
         *     'self-registration not allowed for this organization'; handles outside `new_person_handle_patterns` answer 403 'person
         *     cannot be registered'; with `requires_manual_approval` new persons answer 403 'person is not active' until activated.
         *     `token_duration` is the lifetime of user tokens in seconds; `allowed_factor_methods` limits the factors `/id` accepts
         *     (every factor when empty). A sign-in link may return to a URI of `authn_link_allowed_redirect_uris` or below its path,
         *     besides the allowed domains. `authn_redirect_page_ui_config` is sent as a `ui_customization` challenge before the
         *     challenge of every link or code sign-in. `sudo_mode_duration` and `canonical_identity_ai_matching_enabled` are stored
         *     and served with no effect yet. The former names (`allow_self_registration`, `handle_patterns`,
         *     `token_duration_seconds`, `allowed_factors`, `require_approval_for_new_persons`) are still accepted; given with
         *     the new name, they must agree (400 otherwise). Patterns must be valid regular expressions (400 otherwise).
         */
        patch: operations["patchOrganizationConfig"];
        trace?: never;
    };
    "/organizations/quota/current-tier": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get current pricing tier details
         * @description The pricing tier of the organization (or of the root of its hierarchy) and its limits.
         */
        get: operations["getCurrentPricingTier"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/organizations/quota/all-tiers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get details on all pricing tiers
         * @description Every pricing tier with its limits (active persons, suborganizations, API rate) and price, to compare before upgrading.
         */
        get: operations["listPricingTiers"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/organizations/quota/usage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get resource usage for the organization hierarchy
         * @description Monthly active persons and person counts of the current billing period, per organization of the hierarchy and in total.
         */
        get: operations["getQuotaUsage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/organizations/config/domains": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the allowed domains
         * @description Domains accepted as redirect targets of links and SSO, and as passkey scopes, for this organization.
         */
        get: operations["listAllowedDomains"];
        put?: never;
        /**
         * Add allowed domains
         * @description Adds domains (lower-case DNS names, no scheme or path). Subdomains must be listed separately. With `overwrite=true` the given domains replace the list.
         */
        post: operations["addAllowedDomains"];
        /**
         * Remove allowed domains
         * @description Removes domains: one with `domain`, several in the body, or every one with `deleteAll=true` (one of the three is required). Links and SSO flows already started for them fail on return.
         */
        delete: operations["removeAllowedDomains"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/organizations/config/templates": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List available templates
         * @description Names of the message templates the organization can replace: e-mails (`email_*`) and SMS (`text_*`) for the sign-in link, the one-time code, the password reset link and the notice of a changed password. Read one with the GET of its name.
         */
        get: operations["listEmailTemplates"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/organizations/config/templates/{template_name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the named template
         * @description Returns one template: the organization's replacement (`customized`) or the built-in text. Placeholders `{{ code }}`, `{{ link }}`, `{{ org_name }}` and `{{ minutes }}` are filled when the message is sent (HTML-escaped in an e-mail body).
         */
        get: operations["getEmailTemplate"];
        /**
         * Modify the named template
         * @description Changes the fields given (`subject`, `body`, `text_body`, `sender_name`); the others keep their current value. A new
         *     `body` without `text_body` drops the former plain-text alternative (it is then derived from the HTML). The code and
         *     link templates must keep their placeholder (`{{ code }}` or `{{ link }}`), else 400. Sign-in codes and links and
         *     organization-initiated password resets use the replacement, by e-mail and by SMS; account recovery messages keep the
         *     built-in text, and no password-change notice is sent yet.
         */
        put: operations["setEmailTemplate"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/organizations/config/external-credentials": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List available external credentials
         * @description Lists the credentials of outside services (SMTP server, SMS gateway, identity providers) the organization configured. Secret fields are never returned.
         */
        get: operations["listExternalCredentials"];
        put?: never;
        /**
         * Create new external credentials
         * @description Stores the credential of an outside service: `extcred_provider` and `extcred_type` say what it is, `json_blob` holds the secret (encrypted at rest, never returned: only its top-level names are, in `secret_field_names`). The former form (`label`, `type`, `public_fields`, `secret_fields`) is still accepted. Answers the id of the new credential in a list.
         */
        post: operations["createExternalCredential"];
        /**
         * Remove an external credential by id
         * @description Removes an external credential; features using it fall back to Keyway defaults. Name it with `credentialId`, or remove them all with `deleteAll=true`.
         */
        delete: operations["deleteExternalCredential"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/organizations/config/external-credentials/{cred_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the specified credential
         * @description Returns one external credential with its public fields; secret fields are write-only and never returned.
         */
        get: operations["getExternalCredential"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Modify the selected credential
         * @description Changes the label (`extcred_label`) or the secret: `json_blob` replaces it, the former `secret_fields` merge into it.
         */
        patch: operations["patchExternalCredential"];
        trace?: never;
    };
    "/organizations/config/kyc": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get organization KYC config
         * @description Identity-verification settings: whether KYC is on, the provider, whether registration waits for it and the accepted document countries.
         */
        get: operations["getKycConfig"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Update KYC organization config
         * @description Changes the given KYC settings only. Country codes are ISO 3166-1 alpha-2.
         */
        patch: operations["patchKycConfig"];
        trace?: never;
    };
    "/organizations/sso/saml/provider-credentials": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List SAML credentials
         * @description Lists the SAML identity providers configured for the organization. Their ids are the `provider_credentials_id` of SAML factors.
         */
        get: operations["listSamlProviderCredentialss"];
        put?: never;
        /**
         * Create new SAML provider credentials
         * @description Registers a SAML identity provider from its metadata (URL or XML, one of the two). The answer gives the entity id and ACS URL to configure on the provider side.
         */
        post: operations["createSamlProviderCredentials"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/organizations/sso/saml/provider-credentials/{saml_provider_credentials_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get SAML provider credentials
         * @description Returns one SAML provider configuration, including the service-provider entity id and ACS URL to register at the IdP.
         */
        get: operations["getSamlProviderCredentials"];
        put?: never;
        post?: never;
        /**
         * Delete SAML provider credentials
         * @description Removes a SAML provider; SAML sign-ins through it stop at once and persons who only used it must recover another factor.
         */
        delete: operations["deleteSamlProviderCredentials"];
        options?: never;
        head?: never;
        /**
         * Modify SAML provider credentials
         * @description Changes the label, metadata or attribute mapping of a SAML provider; new metadata is fetched and checked before it is stored.
         */
        patch: operations["patchSamlProviderCredentials"];
        trace?: never;
    };
    "/organizations/sso/oidc/provider-credentials": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List OIDC credentials
         * @description Lists the OIDC identity providers (social login and enterprise) configured for the organization, without their secrets.
         */
        get: operations["listOidcProviderCredentialss"];
        put?: never;
        /**
         * Create new OIDC provider credentials
         * @description Registers the client the organization holds at an OIDC provider. `client_id` then identifies it in OIDC factors; `issuer` is required for generic and Keycloak providers, and for Entra ID and Okta unless `options` name the tenant or organization URL. With `external_cred_id` the secret is read from that external credential at each sign-in; with `options.apple` Keyway signs Apple's client secret itself.
         */
        post: operations["createOidcProviderCredentials"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/organizations/sso/oidc/provider-credentials/{oauth_client_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get OIDC provider credentials
         * @description Returns one OIDC provider configuration, identified by the client id held at the provider, without its secret.
         */
        get: operations["getOidcProviderCredentials"];
        put?: never;
        post?: never;
        /**
         * Delete OIDC provider credentials
         * @description Removes an OIDC provider configuration; sign-ins through it stop at once.
         */
        delete: operations["deleteOidcProviderCredentials"];
        options?: never;
        head?: never;
        /**
         * Modify OIDC provider credentials
         * @description Changes the label, scopes, options, external credential or secret of an OIDC provider configuration; `options` replace the former ones.
         */
        patch: operations["patchOidcProviderCredentials"];
        trace?: never;
    };
    "/organizations/config/token-template": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the organization's token template
         * @description The template of extra claims added to every user token of the organization.
         */
        get: operations["getTokenTemplate"];
        /**
         * Modify the organization's token template
         * @description Replaces the token template. It must render to a JSON object; it may add the person's roles and permissions as
         *     claims and cannot override reserved claims (person_id, oid, authenticated_methods, exp …): violations answer 400
         *     naming the claim. Applies to tokens issued from then on.
         */
        put: operations["setTokenTemplate"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/organizations/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List all webhooks
         * @description Lists the webhooks of the organization with their targets and timeouts; triggers are listed per webhook.
         */
        get: operations["listWebhooks"];
        put?: never;
        /**
         * Create a new webhook
         * @description Registers an HTTPS endpoint Keyway calls with signed JWT payloads. It receives nothing until triggers are attached.
         */
        post: operations["createWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/organizations/webhooks/{webhook_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a webhook
         * @description Returns one webhook: its target URL, custom headers and delivery timeout.
         */
        get: operations["getWebhook"];
        put?: never;
        post?: never;
        /**
         * Delete a webhook
         * @description Deletes a webhook and its triggers; deliveries in flight are dropped and sync hooks using it are no longer called.
         */
        delete: operations["deleteWebhook"];
        options?: never;
        head?: never;
        /**
         * Update a webhook
         * @description Changes the given fields of a webhook; the target URL must stay https. Deliveries already queued use the new settings.
         */
        patch: operations["patchWebhook"];
        trace?: never;
    };
    "/organizations/webhooks/{webhook_id}/triggers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List webhook triggers
         * @description Lists the events and synchronous hooks that call this webhook, each as a trigger type and name.
         */
        get: operations["listWebhookTriggers"];
        put?: never;
        /**
         * Create a webhook trigger
         * @description Attaches a trigger: `event` triggers deliver asynchronously after the event happened; `sync_hook` triggers are
         *     called during the flow and their answer can add claims or deny. The hook point is `token_minted` (every user token
         *     Keyway signs: sign-ins, organization switches, minted and OAuth2 access tokens); other names answer 400.
         *
         *     A sync hook call is a `POST` whose body is a JWT (`application/jwt`) signed with the verification keys, `iss` =
         *     Keyway's URL, `aud` = the target URL, with `trigger_name`, `person_id`, `org_id` and `data.token` (the claims
         *     about to be signed), and the header `Keyway-Sync-Hook`. Keyway waits up to the webhook's `timeout`. A 200 JSON
         *     answer `{"claims": {...}}` adds those claims (reserved ones such as `person_id`, `groups`, `exp` are ignored);
         *     `{"allow": false, "reason": "..."}` refuses the token (403 naming the webhook and the reason). An error status, a
         *     timeout or an answer that is not a JSON object is ignored: the token is issued without that hook's claims.
         */
        post: operations["createWebhookTrigger"];
        /**
         * Delete a webhook trigger
         * @description Detaches a trigger from the webhook, named by `trigger_type` and `trigger_name` in the query (or, as before, in the body); the webhook and its other triggers remain.
         */
        delete: operations["deleteWebhookTrigger"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/organizations/webhooks/{webhook_id}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List webhook deliveries
         * @description Lists the deliveries of events to this webhook, newest first, page by page (`limit` at most 1000), with the total
         *     in `meta.pagination`. `status=failed` is the dead-letter list: deliveries whose attempts ran out (retries follow
         *     an exponential backoff with jitter). Each shows its attempts, the last answer or error, and the event's type and id.
         *     Sync hook calls are not listed.
         */
        get: operations["listWebhookDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/organizations/webhooks/{webhook_id}/deliveries/{delivery_id}/replay": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Replay a failed webhook delivery
         * @description Queues a dead letter (a delivery in state `failed`) again: it becomes `pending` with its attempts reset and is
         *     sent at once, with the same event and event id (the `Keyway-Idempotency-Key` header), so a receiver that got it
         *     after all handles it once. A delivery that is pending or delivered answers 409, as does a sync hook call; an unknown
         *     delivery, or one of another webhook, answers 404.
         */
        post: operations["replayWebhookDelivery"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/organizations/webhooks/verification-jwks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get verification JWKS for webhooks
         * @description Public keys that verify the signature of webhook payloads and sync-hook calls, as a bare JSON Web Key Set (no `result` envelope), ready for any JWKS library. Cache them and refetch when a payload names an unknown `kid`.
         */
        get: operations["getWebhookVerificationJwks"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/test-events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Generate events for testing
         * @description Emits synthetic events of the given types (marked `test: true`) to every webhook with a matching `event` trigger, so that webhook endpoints can be tried without real sign-ins. Answers the generated events, delivered or not; they are also recorded in the event log (source `test`). Sync hooks are not called.
         */
        post: operations["generateTestEvents"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/rbac/permissions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a list of permissions
         * @description Lists the names of the permissions defined in the organization (or inherited through the RBAC pool).
         */
        get: operations["listPermissions"];
        put?: never;
        /**
         * Create a permission
         * @description Defines a permission; its name is what your application checks (e.g. `docs:write`). Names are unique (409).
         */
        post: operations["createPermission"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/rbac/permissions/{permission_name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a permission
         * @description Returns one permission with its description; 404 when the organization (and its RBAC pool) has no such permission.
         */
        get: operations["getPermission"];
        put?: never;
        post?: never;
        /**
         * Delete a permission
         * @description Deletes a permission and removes it from every role and person holding it.
         */
        delete: operations["deletePermission"];
        options?: never;
        head?: never;
        /**
         * Update a permission
         * @description Changes the description of a permission; the name is its identity and cannot change. With `If-Match`, only if it is still as that `ETag` (412 otherwise).
         */
        patch: operations["patchPermission"];
        trace?: never;
    };
    "/rbac/roles": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a list of roles
         * @description Lists the names of the roles of the organization, including roles inherited through the RBAC pool; `GET /rbac/roles/{role_name}` gives the permissions of one.
         */
        get: operations["listRoles"];
        put?: never;
        /**
         * Create a role
         * @description Defines a role as a named set of existing permissions (unknown permissions answer 400): create each permission first with `POST /rbac/permissions`, as its example does for `docs:write`.
         */
        post: operations["createRole"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/rbac/roles/{role_name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a role
         * @description Returns one role with the names of the permissions it grants.
         */
        get: operations["getRole"];
        put?: never;
        post?: never;
        /**
         * Delete a role
         * @description Deletes a role and unassigns it from every person; their permissions from other roles are unaffected.
         */
        delete: operations["deleteRole"];
        options?: never;
        head?: never;
        /**
         * Update a role
         * @description Changes the description or replaces the permission set of a role; persons holding the role are affected at once. With `If-Match`, only if it is still as that `ETag` (412 otherwise).
         */
        patch: operations["patchRole"];
        trace?: never;
    };
    "/rbac/check": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Check whether a person has a permission
         * @description Answers whether the person holds the permission (`granted`) through a role or directly, and what grants it (`granted_by`). Unknown permissions answer `granted: false`; an unknown person answers 404.
         */
        post: operations["checkPermission"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/oauth2/clients": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a list of OAuth2 clients
         * @description Lists the OAuth2 clients registered with the organization, without secrets.
         */
        get: operations["listOAuth2Clients"];
        put?: never;
        /**
         * Create a new OAuth2 client
         * @description Registers an application that signs persons in through Keyway's hosted login or obtains machine-to-machine tokens.
         *     Public clients (browser apps) hold no secret and must use PKCE; confidential clients get a secret, shown only in
         *     this answer. Redirect URIs must be absolute and match exactly at authorization time.
         */
        post: operations["createOAuth2Client"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/oauth2/clients/{oauth_client_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get an OAuth2 client
         * @description Returns one OAuth2 client (grants, scopes, redirect URIs, token durations) without its secret.
         */
        get: operations["getOAuth2Client"];
        put?: never;
        post?: never;
        /**
         * Delete an existing OAuth2 client
         * @description Deletes an OAuth2 client and revokes every token issued to it; hosted login for it stops at once.
         */
        delete: operations["deleteOAuth2Client"];
        options?: never;
        head?: never;
        /**
         * Modify an existing OAuth2 client
         * @description Changes the given fields of an OAuth2 client. Shortened token durations apply to tokens issued from then on.
         */
        patch: operations["patchOAuth2Client"];
        trace?: never;
    };
    "/oauth2/clients/{oauth_client_id}/secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Generate a new client secret
         * @description Replaces the secret of a confidential client; the old secret stops working at once. Public clients answer 409.
         */
        put: operations["rotateOAuth2ClientSecret"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/oauth2/clients/{oauth_client_id}/ui-configuration": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the configuration for the hosted UI
         * @description Look of the hosted login page shown for this client: logo, title, colours, links and the factors offered.
         */
        get: operations["getOAuth2ClientUiConfiguration"];
        /**
         * Modify the configuration for the hosted UI
         * @description Replaces the hosted login configuration of the client and answers 201 with it. The logo and favicon must be https URLs; factors must be allowed by the organization config; a field and its older name (`logoUrl`/`logo_url`, `pageTitle`/`title`, `showBadge`/`show_keyway_branding`) must agree.
         */
        put: operations["setOAuth2ClientUiConfiguration"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/oauth2/tokens/mint": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Mint OAuth 2.0 & OIDC tokens
         * @description Issues an access token (and an id_token when `openid` is among the scopes, unless disabled) for a person and a client without a browser flow, e.g. for migrations and tests. Scopes default to the client's and must be among them (400); an unknown client or person answers 404.
         */
        post: operations["mintOAuth2Tokens"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sso/oidc/tokens": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get OIDC tokens
         * @description Returns the tokens identity providers issued to a person during OIDC sign-ins, one entry per token (access token,
         *     refresh token when the provider gave one, ID token), so your back end can call the provider's APIs on their behalf.
         *     The person is named by their Keyway user token in `Keyway-Token` or by `person_id`; neither answers 400. Each sign-in
         *     through an OIDC client replaces the tokens of the previous one through that client. Values are stored encrypted and
         *     are returned only here and by the query. An unknown person answers 404.
         */
        get: operations["listSsoOidcTokens"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sso/oidc/tokens/query": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Query tokens obtained through SSO with OIDC
         * @description Like `GET /sso/oidc/tokens` with the selection in the body: narrowed to some sign-ins (`authentication_ids`), kinds of token (`token_types`), a provider or a client; keeps person ids out of URLs and logs. An unknown person answers 404.
         */
        post: operations["querySsoOidcTokens"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sso/oidc/tokens/revoke": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * (Deprecated) Revoke an OAuth token obtained through SSO with OIDC
         * @deprecated
         * @description Revokes the stored tokens that the given access or refresh token belongs to, at the provider (RFC 7009, when it has a
         *     revocation endpoint) and here. A value that is not a live stored token of that client answers 404. Deprecated: use
         *     `/sso/oidc/tokens/revoke/v2`, which revokes by person and sign-in without handling token values.
         */
        post: operations["revokeSsoOidcTokenLegacy"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sso/oidc/tokens/revoke/v2": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Revoke an OAuth token obtained through SSO with OIDC
         * @description Revokes the tokens one SSO sign-in of a person obtained (`authentication_id` of the listed tokens), all of them or the
         *     `token_types` given: the refresh token and then the access token are revoked at the provider (RFC 7009) when it
         *     publishes a revocation endpoint, then their values are forgotten here (an ID token is only forgotten). Nothing live is
         *     not an error. When the provider cannot be reached or refuses, nothing changes and the answer is 502. An unknown
         *     person or sign-in answers 404.
         */
        post: operations["revokeSsoOidcTokens"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** @description Every Keyway JSON answer (except the OAuth2/OIDC protocol endpoints) is wrapped in this envelope. */
        Envelope: {
            /** @description The answer of the operation; its type is given by each operation. */
            result?: unknown;
            errors?: components["schemas"]["ErrorList"];
            meta?: components["schemas"]["Meta"];
        };
        Error: {
            /** @description HTTP status this error stands for (202 while a proxy challenge is pending). */
            httpcode: number;
            /** @description Human-readable reason; clients match the documented messages exactly. */
            message: string;
        };
        ErrorList: components["schemas"]["Error"][];
        /** @description An envelope carrying at least one error; `result` is absent. */
        ErrorResponse: components["schemas"]["Envelope"] & {
            errors: components["schemas"]["ErrorList"];
        };
        /** @description On lists: `pagination` when the page was asked by `offset` (or from the start), `cursor_pagination` always. */
        Meta: {
            pagination?: components["schemas"]["Pagination"];
            cursor_pagination?: components["schemas"]["CursorPagination"];
        };
        CursorPagination: {
            /** @description Pass as `cursor` to read the next page; empty on the last page. */
            cursor: string;
            limit: number;
            total_count: number;
        };
        Pagination: {
            limit: number;
            offset: number;
            total_count: number;
        };
        /**
         * @description Person identifier, `pid:` followed by an opaque id.
         * @example pid:3a7c9e10-2b4d-4f6a-8c1e-5d7f9a0b2c4e
         */
        PersonId: string;
        /** @description Organization identifier. */
        OrganizationId: string;
        /** @description Challenge identifier. */
        ChallengeId: string;
        /** @description Opaque identifier of a stored object. */
        ResourceId: string;
        /** @description A signed JWT (user token). */
        UserToken: string;
        /**
         * @description Data residency region of a person.
         * @enum {string}
         */
        Region: "us-iowa" | "europe-belgium" | "europe-england" | "asia-japan" | "australia-sydney";
        /**
         * @description Data residency region of a person. Earlier names are accepted and stored as today's: `us-central` → `us-iowa`, `eu-west` and `eu-north` → `europe-belgium`, `ap-northeast` → `asia-japan`, `ap-southeast` → `australia-sydney`.
         * @enum {string}
         */
        RegionInput: "us-iowa" | "europe-belgium" | "europe-england" | "asia-japan" | "australia-sydney" | "us-central" | "eu-west" | "eu-north" | "ap-northeast" | "ap-southeast";
        /** @enum {string} */
        PersonHandleType: "email_address" | "phone_number" | "username";
        PersonHandle: {
            type: components["schemas"]["PersonHandleType"];
            /** @description E-mail address, E.164 phone number or username. */
            value: string;
            /** @description In answers: whether the handle was proved (a code or link sent to it answered, an identity provider the organization trusts for it, or the management API saying so); `email_verified` and `phone_number_verified` in tokens tell the same. In management requests that create persons or add handles: `true` when the system the person comes from verified the handle. Ignored in sign-in requests: only a proof makes a handle verified. */
            verified?: boolean;
        };
        /** @enum {string} */
        PersonType: "regular" | "anonymous";
        /**
         * @description Attribute bucket; the name states what the end person may do with it (default end_user_read_write).
         * @enum {string}
         */
        AttributeBucketName: "end_user_read_write" | "end_user_read_only" | "end_user_no_access" | "person_pool-end_user_read_write" | "person_pool-end_user_read_only" | "person_pool-end_user_no_access";
        /** @description Attribute name → any JSON value. */
        Attributes: {
            [key: string]: unknown;
        };
        /** @description Bucket name → attributes stored in that bucket. */
        AttributesByBucket: {
            [key: string]: components["schemas"]["Attributes"];
        };
        Person: {
            person_id: components["schemas"]["PersonId"];
            /** @description Inactive persons cannot sign in. */
            active: boolean;
            person_type: components["schemas"]["PersonType"];
            region: components["schemas"]["Region"];
            handles?: components["schemas"]["PersonHandle"][];
            groups?: components["schemas"]["GroupName"][];
            /** @description RBAC roles assigned to the person. */
            roles?: components["schemas"]["RoleName"][];
            attributes?: components["schemas"]["AttributesByBucket"];
        };
        MeResponse: {
            person: components["schemas"]["Person"];
            organizations: components["schemas"]["Organization"][];
            handles: components["schemas"]["PersonHandle"][];
            credentials: components["schemas"]["Credential"][];
        };
        Organization: {
            id: components["schemas"]["OrganizationId"];
            parent_id?: components["schemas"]["OrganizationId"] | null;
            org_name: string;
            tenant_name: string;
            /** @description Organizations whose persons can sign in to this one (the person pool it shares). */
            persons_pool_org_ids?: components["schemas"]["OrganizationId"][];
            /** @description Organizations whose groups this one uses: only itself (this server shares no group pools). */
            group_pool_org_ids?: components["schemas"]["OrganizationId"][];
            /** @description Roles and permissions of the parent apply. */
            inherits_rbac_pools?: boolean;
            managed_organizations?: components["schemas"]["Organization"][];
        };
        OrganizationWithPools: components["schemas"]["Organization"] & {
            persons_pool_org_ids: components["schemas"]["OrganizationId"][];
            group_pool_org_ids: components["schemas"]["OrganizationId"][];
            inherits_rbac_pools: boolean;
        };
        OrgHierarchyEntry: {
            id: components["schemas"]["OrganizationId"];
            parent_id: components["schemas"]["OrganizationId"] | null;
            name: string;
            tenant_name: string;
            children_ids: components["schemas"]["OrganizationId"][];
            person_pool_orgs_ids?: components["schemas"]["OrganizationId"][];
            group_pool_orgs_ids?: components["schemas"]["OrganizationId"][];
            manager_org_id?: components["schemas"]["OrganizationId"] | null;
            person_in_manager_org?: boolean;
            inherits_rbac_pools?: boolean;
        };
        MeOrgsResponse: {
            org_hierarchy: components["schemas"]["OrgHierarchyEntry"][];
        };
        Credential: {
            id: components["schemas"]["ResourceId"];
            /** @enum {string} */
            type: "password" | "public-key" | "totp";
            label?: string;
            last_used?: string | null;
            params: components["schemas"]["PasswordCredentialParams"] | components["schemas"]["PublicKeyCredentialParams"] | components["schemas"]["TotpCredentialParams"];
        };
        /** password */
        PasswordCredentialParams: {
            /**
             * @description How the password is stored. The hash itself is never returned: a stolen token or key must not yield offline-crackable material.
             * @enum {string}
             */
            hash_algorithm: "scrypt" | "argon2id" | "argon2i" | "argon2d" | "bcrypt" | "pbkdf2";
        };
        /** public-key */
        PublicKeyCredentialParams: {
            webauthn_credential_id: string;
            /** @description COSE public key, base64url. */
            public_key: string;
            attestation_type?: string;
            authenticator?: {
                aaguid: string;
                sign_count?: number;
                clone_warning?: boolean;
            };
        };
        /** totp */
        TotpCredentialParams: {
            recovery_codes_total: number;
            recovery_codes_unused: number;
        };
        /** @enum {string} */
        AuthenticationMethod: "webauthn" | "email_link" | "sms_link" | "otp_via_sms" | "otp_via_email" | "totp" | "oidc" | "saml" | "api" | "direct_id" | "password" | "impersonate" | "anonymous";
        /** @description The authentication method chosen for an ID request, with its options. */
        Factor: {
            /** @constant */
            method: "email_link";
            options?: {
                /**
                 * @description Copy of the factor's method (optional).
                 * @constant
                 */
                method?: "email_link";
                /**
                 * Format: uri
                 * @description http(s) URL the person returns to after the flow (redirect mode and links).
                 */
                redirect_target?: string;
            };
        } | {
            /** @constant */
            method: "sms_link";
            options?: {
                /**
                 * @description Copy of the factor's method (optional).
                 * @constant
                 */
                method?: "sms_link";
                /**
                 * Format: uri
                 * @description http(s) URL the person returns to after the flow (redirect mode and links).
                 */
                redirect_target?: string;
            };
        } | {
            /** @constant */
            method: "otp_via_email";
            options?: {
                /**
                 * @description Copy of the factor's method (optional).
                 * @constant
                 */
                method?: "otp_via_email";
            };
        } | {
            /** @constant */
            method: "otp_via_sms";
            options?: {
                /**
                 * @description Copy of the factor's method (optional).
                 * @constant
                 */
                method?: "otp_via_sms";
            };
        } | {
            /** @constant */
            method: "password";
            options?: {
                /**
                 * @description Copy of the factor's method (optional).
                 * @constant
                 */
                method?: "password";
                /** @description Sign up rather than in: the answer is a sign-in link sent to the handle (a `proxy` challenge to poll), then the challenge that sets the password or passkey once the link is confirmed on its page, whether or not the handle has an account (someone who has one is signed in by the link and sets a new password or adds a passkey). A username has nothing to prove: with a password a free one is taken at once (a taken one is a 409 `person_exists`). Without it, `/id` signs in: the same challenge for every handle, known or not. */
                sign_up?: boolean;
            };
        } | {
            /** @constant */
            method: "totp";
            options?: {
                /**
                 * @description Copy of the factor's method (optional).
                 * @constant
                 */
                method?: "totp";
            };
        } | {
            /** @constant */
            method: "webauthn";
            options?: components["schemas"]["WebAuthnFactorOptions"];
        } | {
            /** @constant */
            method: "oidc";
            options: components["schemas"]["OidcFactorOptions"];
        } | {
            /** @constant */
            method: "saml";
            options: components["schemas"]["SamlFactorOptions"];
        };
        WebAuthnFactorOptions: {
            /**
             * @description Copy of the factor's method (optional).
             * @constant
             */
            method?: "webauthn";
            /** @description Sign up rather than in: the answer is a sign-in link sent to the handle (a `proxy` challenge to poll), then the challenge that sets the password or passkey once the link is confirmed on its page, whether or not the handle has an account (someone who has one is signed in by the link and sets a new password or adds a passkey). A username has nothing to prove: with a password a free one is taken at once (a taken one is a 409 `person_exists`). Without it, `/id` signs in: the same challenge for every handle, known or not. */
            sign_up?: boolean;
            /** @description Relying party id; defaults to the current hostname. */
            scope?: string;
            available_credential_ids?: string[];
            /**
             * @default any
             * @enum {string}
             */
            attachment: "any" | "platform";
            /**
             * @default preferred
             * @enum {string}
             */
            user_verification: "required" | "preferred" | "discouraged";
            /**
             * @default preferred
             * @enum {string}
             */
            resident_key: "required" | "preferred" | "discouraged";
            /**
             * @default none
             * @enum {string}
             */
            attestation: "none";
        };
        OidcFactorOptions: {
            /**
             * @description Copy of the factor's method (optional).
             * @constant
             */
            method?: "oidc";
            /** @description Client id of the OIDC provider credentials; defaults to the one configured for the provider. */
            client_id?: string;
            /** @enum {string} */
            provider: "google" | "apple" | "azuread" | "azure" | "facebook" | "github" | "gitlab" | "line" | "bitbucket" | "okta" | "keycloak" | "generic";
            /**
             * @description How the SDK shows the provider: a popup window or a full-page redirect.
             * @default popup
             * @enum {string}
             */
            ux_mode: "popup" | "redirect";
            /**
             * Format: uri
             * @description http(s) URL the person returns to after the flow (redirect mode and links).
             */
            redirect_target?: string;
            /** @description Ask the provider for the person's groups as well. */
            requires_groups?: boolean;
            /** @description PKCE S256 code challenge (base64url of the SHA-256 of the verifier). */
            pkce_code_challenge?: string;
            /** @description Random value the client stores and expects back unchanged. */
            csrf_token?: string;
        };
        SamlFactorOptions: {
            /**
             * @description Copy of the factor's method (optional).
             * @constant
             */
            method?: "saml";
            provider_credentials_id: components["schemas"]["ResourceId"];
            /**
             * @description How the SDK shows the provider: a popup window or a full-page redirect.
             * @default popup
             * @enum {string}
             */
            ux_mode: "popup" | "redirect";
            /**
             * Format: uri
             * @description http(s) URL the person returns to after the flow (redirect mode and links).
             */
            redirect_target?: string;
            /** @description PKCE S256 code challenge (base64url of the SHA-256 of the verifier). */
            pkce_code_challenge?: string;
            /** @description Random value the client stores and expects back unchanged. */
            csrf_token?: string;
        };
        /** @description A handle as `{type, value}`, or as a plain string whose type is inferred: e-mail address when it contains `@`, phone number when it is `+` and digits (E.164), username otherwise. */
        HandleInput: components["schemas"]["PersonHandle"] | string;
        IdRequestMetadata: {
            /** @description Random value the client stores and expects back unchanged. */
            csrf_token?: string;
            /** @description PKCE S256 code challenge (base64url of the SHA-256 of the verifier). */
            pkce_code_challenge?: string;
        };
        IdRequest: {
            handle?: components["schemas"]["HandleInput"];
            factor: components["schemas"]["Factor"];
        };
        IdRequestV2: {
            handle?: components["schemas"]["HandleInput"];
            factor: components["schemas"]["Factor"];
            metadata?: components["schemas"]["IdRequestMetadata"];
        };
        TokenForOrganizationRequest: {
            metadata?: components["schemas"]["IdRequestMetadata"];
        };
        RecoverRequest: {
            /** @description E-mail address or phone number, as `{type, value}` or as a plain string. */
            handle: {
                /** @enum {string} */
                type: "email_address" | "phone_number";
                value: string;
            } | string;
            factor: {
                /**
                 * @description `password` (what the published client sends) recovers the password with a code sent to the handle: an `otp` challenge, then `password_reset`.
                 * @enum {string}
                 */
                method: "password" | "email_link" | "sms_link" | "otp_via_email" | "otp_via_sms";
                options?: Record<string, never>;
            };
        };
        SsoResolveRequest: {
            challenge_id: components["schemas"]["ChallengeId"];
            code: string;
            pkce_code_verifier: string;
        };
        /** @description A step the client must complete; `type` decides the shape of `options`. */
        Challenge: {
            /** @constant */
            type: "ui_customization";
            id: components["schemas"]["ChallengeId"];
            /** @enum {string} */
            authentication_method: "email_link" | "sms_link" | "otp_via_email" | "otp_via_sms" | "oidc" | "saml" | "webauthn" | "password" | "totp";
            options: {
                authn_redirect_page_ui_config: {
                    /** Format: uri */
                    logo_url?: string;
                    title?: string;
                    background_color?: string;
                    text_color?: string;
                };
            };
        } | {
            /** @constant */
            type: "authn_context_update";
            id: components["schemas"]["ChallengeId"];
            /** @enum {string} */
            authentication_method: "oidc" | "saml";
            options: {
                target_org_id: components["schemas"]["OrganizationId"];
                factor: components["schemas"]["Factor"];
            };
        } | {
            /** @constant */
            type: "proxy";
            id: components["schemas"]["ChallengeId"];
            /** @enum {string} */
            authentication_method: "email_link" | "sms_link" | "oidc" | "saml";
            options: {
                challenge_id: components["schemas"]["ChallengeId"];
                /**
                 * @description Present (true) when the e-mail with the code or link could not be handed to the mail server yet: the server keeps it and retries, and it arrives as soon as the mail server answers (until the code or link expires). Tell the person it is delayed rather than failed.
                 * @constant
                 */
                delivery_delayed?: true;
            };
        } | {
            /** @constant */
            type: "webauthn_create";
            id: components["schemas"]["ChallengeId"];
            /** @constant */
            authentication_method: "webauthn";
            options: components["schemas"]["WebAuthnCreateOptions"];
        } | {
            /** @constant */
            type: "webauthn_get";
            id: components["schemas"]["ChallengeId"];
            /** @constant */
            authentication_method: "webauthn";
            options: components["schemas"]["WebAuthnGetOptions"];
        } | {
            /** @constant */
            type: "nonce";
            id: components["schemas"]["ChallengeId"];
            /** @enum {string} */
            authentication_method: "email_link" | "sms_link" | "direct_id" | "impersonate" | "api";
            options: {
                challenge: string;
            };
        } | {
            /** @constant */
            type: "otp";
            id: components["schemas"]["ChallengeId"];
            /** @enum {string} */
            authentication_method: "otp_via_email" | "otp_via_sms";
            /** @description No options, except `delivery_delayed` when the code has not reached the mail server yet. */
            options: {
                /**
                 * @description Present (true) when the e-mail with the code or link could not be handed to the mail server yet: the server keeps it and retries, and it arrives as soon as the mail server answers (until the code or link expires). Tell the person it is delayed rather than failed.
                 * @constant
                 */
                delivery_delayed?: true;
            };
        } | {
            /** @constant */
            type: "oidc";
            id: components["schemas"]["ChallengeId"];
            /** @constant */
            authentication_method: "oidc";
            options: {
                /** Format: uri */
                auth_code_url: string;
            };
        } | {
            /** @constant */
            type: "saml";
            id: components["schemas"]["ChallengeId"];
            /** @constant */
            authentication_method: "saml";
            options: {
                /** Format: uri */
                start_authentication_url: string;
            };
        } | {
            /** @constant */
            type: "password_set";
            id: components["schemas"]["ChallengeId"];
            /** @constant */
            authentication_method: "password";
            options: {
                validation_rules: components["schemas"]["PasswordRules"];
            };
        } | {
            /** @constant */
            type: "password_verify";
            id: components["schemas"]["ChallengeId"];
            /** @constant */
            authentication_method: "password";
            /** @description This challenge type carries no options. */
            options: Record<string, never>;
        } | {
            /** @constant */
            type: "password_reset";
            id: components["schemas"]["ChallengeId"];
            /** @constant */
            authentication_method: "password";
            options: {
                validation_rules: components["schemas"]["PasswordRules"];
            };
        } | {
            /** @constant */
            type: "totp_register";
            id: components["schemas"]["ChallengeId"];
            /** @constant */
            authentication_method: "totp";
            options: {
                key_uri: string;
                qr_code_data_b64: string;
                recovery_codes: string[];
            };
        } | {
            /** @constant */
            type: "totp_verify";
            id: components["schemas"]["ChallengeId"];
            /** @constant */
            authentication_method: "totp";
            /** @description This challenge type carries no options. */
            options: Record<string, never>;
        };
        /** @description Challenges to complete, in order. */
        ChallengeList: components["schemas"]["Challenge"][];
        /** @description The rules a new password must meet, in the shape clients check before sending one: every `must_match` expression matches and no `must_not_match` one does. */
        PasswordRules: {
            regular_expressions: components["schemas"]["PasswordRuleExpression"][];
        };
        PasswordRuleExpression: {
            /** @description Reported back to the person when the rule fails, e.g. min_length. */
            name: string;
            /** Format: regex */
            pattern: string;
            /** @enum {string} */
            match_type: "must_match" | "must_not_match";
            pattern_qualifiers?: "case_insensitive"[];
        };
        PasswordValidationRule: {
            /** @description Reported back to the person when the rule fails, e.g. min_length. */
            name: string;
            /** Format: regex */
            pattern: string;
            /** @enum {string} */
            match_type: "must_match" | "must_not_match";
            qualifiers?: "case_insensitive"[];
        };
        WebAuthnCreateOptions: {
            /** @description base64url */
            challenge: string;
            rp: {
                id: string;
                name?: string;
            };
            user: {
                id: string;
                name: string;
                displayName: string;
            };
            pubKeyCredParams: {
                /** @constant */
                type: "public-key";
                alg: number;
            }[];
            authenticatorSelection?: {
                /** @enum {string} */
                authenticatorAttachment?: "platform" | "cross-platform";
                /** @enum {string} */
                residentKey?: "required" | "preferred" | "discouraged";
                /** @enum {string} */
                userVerification?: "required" | "preferred" | "discouraged";
            };
            timeout?: number;
            /** @description WebAuthn extension inputs, passed to the browser as they are (e.g. `credProps`). */
            extensions?: {
                [key: string]: unknown;
            };
            /** @enum {string} */
            attestation?: "none" | "indirect" | "direct" | "enterprise";
            excludeCredentials?: {
                /** @description base64url credential id */
                id: string;
                /** @constant */
                type: "public-key";
                transports?: ("usb" | "nfc" | "ble" | "internal" | "hybrid" | "smart-card" | "cable")[];
            }[];
        };
        WebAuthnGetOptions: {
            /** @description base64url */
            challenge: string;
            rpId: string;
            timeout?: number;
            /** @enum {string} */
            userVerification?: "required" | "preferred" | "discouraged";
            allowCredentials?: {
                /** @description base64url credential id */
                id: string;
                /** @constant */
                type: "public-key";
                transports?: ("usb" | "nfc" | "ble" | "internal" | "hybrid" | "smart-card" | "cable")[];
            }[];
            /** @description WebAuthn extension inputs, passed to the browser as they are (e.g. `credProps`). */
            extensions?: {
                [key: string]: unknown;
            };
        };
        /** @description The answer to one challenge. `data` depends on `challenge_type`. */
        Attestation: {
            /** @constant */
            challenge_type: "nonce";
            challenge_id: components["schemas"]["ChallengeId"];
            data: {
                challenge: string;
            };
        } | {
            /** @constant */
            challenge_type: "otp";
            challenge_id: components["schemas"]["ChallengeId"];
            data: {
                otp: components["schemas"]["EnteredCode"];
            };
        } | {
            /** @constant */
            challenge_type: "totp_verify";
            challenge_id: components["schemas"]["ChallengeId"];
            data: {
                /** @description Current TOTP code or an unused recovery code. */
                otp: components["schemas"]["EnteredCode"];
            };
        } | {
            /** @constant */
            challenge_type: "totp_register";
            challenge_id: components["schemas"]["ChallengeId"];
            data: {
                otp: components["schemas"]["EnteredCode"];
            };
        } | {
            /** @constant */
            challenge_type: "password_set";
            challenge_id: components["schemas"]["ChallengeId"];
            data: {
                password: string;
            };
        } | {
            /** @constant */
            challenge_type: "password_verify";
            challenge_id: components["schemas"]["ChallengeId"];
            data: {
                password: string;
            };
        } | {
            /** @constant */
            challenge_type: "password_reset";
            challenge_id: components["schemas"]["ChallengeId"];
            data: {
                password: string;
            };
        } | {
            /** @constant */
            challenge_type: "webauthn_create";
            challenge_id: components["schemas"]["ChallengeId"];
            data: components["schemas"]["WebAuthnCredentialData"];
        } | {
            /** @constant */
            challenge_type: "webauthn_get";
            challenge_id: components["schemas"]["ChallengeId"];
            data: components["schemas"]["WebAuthnCredentialData"];
        };
        /** @description The PublicKeyCredential produced by the browser, binary fields base64url-encoded. */
        WebAuthnCredentialData: {
            id: string;
            rawId: string;
            /** @constant */
            type: "public-key";
            response: {
                clientDataJSON: string;
                attestationObject?: string;
                authenticatorData?: string;
                signature?: string;
                userHandle?: string | null;
                transports?: string[];
            };
            authenticatorAttachment?: ("platform" | "cross-platform") | null;
            clientExtensionResults?: Record<string, never>;
        };
        /** @description The code as the person typed it. Any non-empty value is accepted here so that a wrong code is answered 401 (ask again), not 400. */
        EnteredCode: string;
        TokenResult: {
            token: components["schemas"]["UserToken"];
        };
        /** challenge_list */
        ChallengeListResult: {
            /** @constant */
            type: "challenge_list";
            challenges: components["schemas"]["ChallengeList"];
        };
        TokenOrChallengeList: {
            /** @constant */
            type: "token";
            token: components["schemas"]["UserToken"];
        } | components["schemas"]["ChallengeListResult"];
        TokenRequest: {
            /** @description The token as held by the client. Anything that is not a valid Keyway token is answered as invalid, not rejected. */
            token: string;
        };
        TokenValidationResult: {
            valid: boolean;
            /** @description Why the token is not valid (absent when valid). */
            invalidity_reason?: string;
            expires_in_seconds?: number;
            /** Format: date-time */
            expires_at?: string;
            claims?: components["schemas"]["TokenClaims"];
        };
        /** @description Claims of a user token (the groups claim name may be overridden by the token template). */
        TokenClaims: {
            person_id: components["schemas"]["PersonId"];
            oid: components["schemas"]["OrganizationId"];
            first_token?: boolean;
            authenticated_methods?: components["schemas"]["AuthenticationMethod"][];
            authentications?: {
                method: components["schemas"]["AuthenticationMethod"];
                handle?: components["schemas"]["PersonHandle"];
                /** Format: date-time */
                timestamp?: string;
            }[];
            person_type?: components["schemas"]["PersonType"];
            groups?: string[];
        };
        MintTokenRequest: {
            authenticated_methods?: components["schemas"]["AuthenticationMethod"][];
            /** @description Extra claims; reserved claim names are rejected. */
            custom_claims?: {
                [key: string]: unknown;
            };
            expiry_seconds?: number;
        };
        ImpersonateRequest: {
            /**
             * Format: uri
             * @description Page of your application to open as the person.
             */
            target_url?: string;
        };
        ImpersonateResult: {
            token: components["schemas"]["UserToken"];
            /**
             * Format: uri
             * @description `target_url` with a `challenge_pack_id` parameter that signs the person in there (only when target_url was given).
             */
            url?: string;
        };
        AnonymousPersonRequest: {
            region?: components["schemas"]["RegionInput"];
        };
        /** @enum {string} */
        ConsentLevel: "none" | "necessary" | "analytics" | "marketing" | "retargeting" | "tracking";
        GdprConsent: {
            consent_level: components["schemas"]["ConsentLevel"];
            /** Format: date-time */
            created_at: string;
        };
        GdprConsentRequest: {
            consent_levels: components["schemas"]["ConsentLevel"][];
        };
        GdprConsentList: {
            consents: components["schemas"]["GdprConsent"][];
        };
        /** @description The events of the spec; the SDK-loaded event carries the name of the SDK that sent it (`KeywaySDKLoaded_v1` from ours). */
        AnalyticsEventName: ("AuthenticationSucceeded_v1" | "AuthenticationFailed_v1" | "PersonIdentified_v1" | "PersonLoggedOut_v1" | "KeywaySDKLoaded_v1" | "VirtualPageLoaded_v1") | string;
        /** @description An analytics event. The organization is `organization_id`, or the Keyway-OrgID header when absent. The event's name is `event_data.event_name` (spec §3: the event is organization_id, analytics_correlation_id, window_location, user_agent and event_data) or, as older clients send it, `event_name`. */
        AnalyticsEvent: {
            event_name?: components["schemas"]["AnalyticsEventName"];
            organization_id?: components["schemas"]["OrganizationId"];
            analytics_correlation_id?: string;
            window_location?: string;
            user_agent?: string;
            /** Format: date-time */
            timestamp?: string;
            /** @description Data of the event (with its name, as the published client sends it); the fields listed are those of the authentication events. */
            event_data?: {
                event_name?: components["schemas"]["AnalyticsEventName"];
                person_id?: string;
                success_authn_method?: string;
                authenticated_methods?: string[];
                handle?: components["schemas"]["PersonHandle"] | string;
                failed_authn_method?: string;
                failure_reason?: string;
                failure_detail?: string;
                challenge_id?: string;
            };
        } | {
            event_name: components["schemas"]["AnalyticsEventName"];
        } | {
            event_data: {
                event_name: components["schemas"]["AnalyticsEventName"];
            };
        };
        /** @description One event, or up to 100 events at once. */
        AnalyticsEventBatch: components["schemas"]["AnalyticsEvent"] | components["schemas"]["AnalyticsEvent"][];
        StoredEvent: {
            id: number | string;
            /**
             * @description Received on /actions/sdk or on /events.
             * @enum {string}
             */
            source: "sdk" | "events";
            event_name: string;
            person_id?: string | null;
            /** Format: date-time */
            created_at: string;
            event: components["schemas"]["AnalyticsEvent"];
        };
        /** @description OAuth2 client id. */
        OAuthClientId: string;
        /** @description Form fields of a token request; the fields used depend on grant_type. Other fields are ignored (RFC 6749 §3.2). */
        OAuth2TokenRequest: {
            /** @constant */
            grant_type: "authorization_code";
            code: string;
            /** Format: uri */
            redirect_uri: string;
            code_verifier?: string;
            client_id?: string;
            client_secret?: string;
        } | {
            /** @constant */
            grant_type: "client_credentials";
            /** @description Space-separated scopes. */
            scope?: string;
            client_id?: string;
            client_secret?: string;
        } | {
            /** @constant */
            grant_type: "refresh_token";
            refresh_token: string;
            scope?: string;
            client_id?: string;
            client_secret?: string;
        };
        OAuth2TokenResponse: {
            access_token: string;
            /**
             * @description Always `bearer` (RFC 6749 §7.1: compare it case-insensitively).
             * @constant
             */
            token_type: "bearer";
            expires_in: number;
            refresh_token?: string;
            id_token?: components["schemas"]["UserToken"];
            scope?: string;
        };
        /** @description RFC 6749 error answer of the protocol endpoints. */
        OAuth2Error: {
            /** @enum {string} */
            error: "invalid_request" | "invalid_client" | "invalid_grant" | "unauthorized_client" | "unsupported_grant_type" | "invalid_scope" | "invalid_token";
            error_description?: string;
        };
        /** @description Confidential clients authenticate with HTTP Basic or `client_id` + `client_secret`; public clients send their `client_id`. */
        OAuth2TokenRevokeRequest: {
            token: string;
            token_type_hint?: components["schemas"]["OAuth2TokenTypeHint"];
            client_id?: string;
            client_secret?: string;
        };
        /**
         * @description A hint only (RFC 7009 §2.1): every kind of token is looked up whatever it says.
         * @enum {string}
         */
        OAuth2TokenTypeHint: "access_token" | "refresh_token" | "authorize_code" | "id_token";
        /** @description Confidential clients authenticate with HTTP Basic or `client_id` + `client_secret`; public clients send their `client_id`. */
        OAuth2IntrospectRequest: {
            token: string;
            token_type_hint?: components["schemas"]["OAuth2TokenTypeHint"];
            /** @description Space-separated scopes the token must carry: if one is missing, the answer is `active: false`. */
            scope?: string;
            client_id?: string;
            client_secret?: string;
        };
        /** @description Give `person_id` (or its older name `subject`). */
        OAuth2RevokeAllRequest: {
            /** @description Revoke every token issued to this person (or, for client credentials tokens, to this client id). */
            person_id?: string;
            /** @description Older name of `person_id`; give one of the two. */
            subject?: string;
            /**
             * Format: date-time
             * @description Revoke only the tokens issued before this time (RFC 3339, not in the future). Default: now, every token issued so far.
             */
            until?: string;
            client_id?: string;
            client_secret?: string;
        };
        OAuth2IntrospectionResult: {
            active: boolean;
            scope?: string;
            client_id?: string;
            sub?: string;
            exp?: number;
            iat?: number;
            /** Format: uri */
            iss?: string;
            token_type?: string;
        };
        UserInfo: {
            sub: string;
            /**
             * Format: uri
             * @description This server's public URL.
             */
            iss: string;
            /** @description The client the access token was issued to (the organization id for a plain user token). */
            aud: string;
            /** @description The person's organization. */
            org_id: string;
            /** @description The person's username handle, when it has one (also as `preferred_username`). */
            username?: string;
            /** Format: email */
            email?: string;
            email_verified?: boolean;
            phone_number?: string;
            phone_number_verified?: boolean;
            preferred_username?: string;
            groups?: string[];
        };
        OpenIdConfiguration: {
            /** Format: uri */
            issuer: string;
            /** Format: uri */
            authorization_endpoint: string;
            /** Format: uri */
            token_endpoint: string;
            /** Format: uri */
            userinfo_endpoint?: string;
            /** Format: uri */
            jwks_uri: string;
            /** Format: uri */
            revocation_endpoint?: string;
            /** Format: uri */
            introspection_endpoint?: string;
            response_types_supported: string[];
            grant_types_supported?: string[];
            subject_types_supported: string[];
            id_token_signing_alg_values_supported: string[];
            scopes_supported?: string[];
            token_endpoint_auth_methods_supported?: string[];
            code_challenge_methods_supported?: string[];
            claims_supported?: string[];
            response_modes_supported?: string[];
            /** Format: uri */
            end_session_endpoint?: string;
            authorization_response_iss_parameter_supported?: boolean;
            request_parameter_supported?: boolean;
            request_uri_parameter_supported?: boolean;
            claims_parameter_supported?: boolean;
            prompt_values_supported?: string[];
            revocation_endpoint_auth_methods_supported?: string[];
            introspection_endpoint_auth_methods_supported?: string[];
        };
        Jwk: {
            /** @enum {string} */
            kty: "EC" | "RSA" | "OKP";
            kid: string;
            /** @enum {string} */
            use?: "sig";
            alg?: string;
            crv?: string;
            x?: string;
            y?: string;
            n?: string;
            e?: string;
        };
        Jwks: {
            keys: components["schemas"]["Jwk"][];
        };
        /** @description Group name, unique in the organization. */
        GroupName: string;
        /** @description Role name, unique in the organization. */
        RoleName: string;
        /** @description Permission name, e.g. `docs:write`. */
        PermissionName: string;
        /**
         * @description Template name: `email_*` e-mails, `text_*` SMS; `authn_challenge` the sign-in link, `otp_message` the one-time code, `password_reset` the reset link, `password_change_notify` the notice of a changed password (stored; not sent by this server yet).
         * @enum {string}
         */
        EmailTemplateName: "email_authn_challenge" | "email_otp_message" | "email_password_change_notify" | "email_password_reset" | "text_authn_challenge" | "text_otp_message" | "text_password_change_notify" | "text_password_reset";
        /**
         * @description Template name; the former names `email_link`, `otp_via_email` and `password_reset` still name `email_authn_challenge`, `email_otp_message` and `email_password_reset`.
         * @enum {string}
         */
        EmailTemplatePathName: "email_authn_challenge" | "email_otp_message" | "email_password_change_notify" | "email_password_reset" | "text_authn_challenge" | "text_otp_message" | "text_password_change_notify" | "text_password_reset" | "email_link" | "otp_via_email" | "password_reset";
        PersonCreate: {
            /** @default true */
            active: boolean;
            region?: components["schemas"]["RegionInput"];
            /** @description Optional: a person without handles can be given them later (`POST /persons/{person_id}/handles`). Without handles, `PUT /persons` has nothing to find a person by and creates one. */
            handles?: components["schemas"]["PersonHandle"][];
            groups?: components["schemas"]["GroupName"][];
            roles?: components["schemas"]["RoleName"][];
            attributes?: components["schemas"]["AttributesByBucket"];
            /** @description Credentials another system made, imported with the person (`PUT /persons`: added to the person found; a password or TOTP replaces the one it has). All are checked before anything is stored: one this server cannot verify answers 400 naming it. */
            credentials?: components["schemas"]["CredentialImport"][];
        };
        /**
         * imported credential
         * @description A credential as the public reference imports it: a password hash, a passkey (public key) or a TOTP record. Secrets are stored hashed or as given to verify, never read back.
         */
        CredentialImport: {
            /**
             * @description Absent: told by the params (`password_hash`: password; `public_key`/`webauthn_credential_id`: public-key; `key_uri`: totp).
             * @enum {string}
             */
            type?: "password" | "public-key" | "totp";
            label?: string;
            params?: {
                /** @description password: bcrypt (`$2a$`, `$2b$`, `$2y$`) or scrypt PHC string; other formats answer 400 naming the format. Replaced by a hash of this server at the first sign-in; never read back. */
                password_hash?: string;
                /** @description public-key: the credential id (base64url, as browsers give `id`; standard base64 accepted). */
                webauthn_credential_id?: string;
                /** @description public-key: the credential public key, as a COSE key (base64url or base64, as WebAuthn gives it) or an SPKI public key (PEM or base64 DER) of type EC P-256/P-384/P-521, Ed25519 or RSA. */
                public_key?: string;
                /** @description public-key: shown back as given (`none` when absent). */
                attestation_type?: string;
                authenticator?: {
                    /** @description The authenticator model (UUID). */
                    aaguid: string;
                    /** @description The last signature counter seen; a later sign-in with a lower non-zero counter is refused (clone detection). Default 0. */
                    sign_count?: number;
                    /** @description Shown back as given. */
                    clone_warning?: boolean;
                };
                /** @description totp: the otpauth://totp/ URI (secret, and optionally algorithm SHA1/SHA256/SHA512, digits 6-8, period); the codes are checked with those settings. */
                key_uri?: string;
                /** @description totp: how many recovery codes were issued (default: the number of `unused_recovery_codes`). */
                recovery_codes_total?: number;
                /** @description totp: recovery codes still valid; each signs in once instead of a code (stored hashed, never read back). */
                unused_recovery_codes?: string[];
            };
        };
        PersonPatch: {
            active?: boolean;
            region?: components["schemas"]["RegionInput"];
        };
        PersonOrganization: {
            id: components["schemas"]["OrganizationId"];
            org_name: string;
            tenant_name: string;
            /** @description The parent organization, for a suborganization. */
            parent_id?: string;
            person_id: components["schemas"]["PersonId"];
            /** @description The organizations this organization manages: its direct suborganizations. */
            managed_organizations: {
                id: components["schemas"]["OrganizationId"];
                org_name: string;
                tenant_name: string;
                parent_id?: string;
            }[];
        };
        /** @description The handles to add: a list (as the public reference sends them), or `{handles: [...]}` (accepted too). */
        HandleList: components["schemas"]["PersonHandle"][] | {
            handles: components["schemas"]["PersonHandle"][];
        };
        GroupNameList: {
            /** @description Absent: no groups. */
            groups?: components["schemas"]["GroupName"][];
        };
        RoleNameList: {
            roles: components["schemas"]["RoleName"][];
        };
        PermissionNameList: {
            permissions: components["schemas"]["PermissionName"][];
        };
        PersonIdList: {
            persons: components["schemas"]["PersonId"][];
        };
        /** @description A credential to store for the person; secrets are hashed before storage and never returned. */
        CredentialCreate: {
            /** @constant */
            type: "password";
            label?: string;
            password: string;
        } | {
            /** @constant */
            type: "totp";
            label?: string;
            /** @description Base32 TOTP secret. */
            secret: string;
        } | components["schemas"]["CredentialImport"];
        /** @description The password itself (hashed here), or a password credential as the public reference sends it, with the hash another system made (`params.password_hash`). */
        PasswordSet: {
            password: string;
            /**
             * @description Store even if the password breaks the organization rules (imports).
             * @default false
             */
            skip_validation: boolean;
            label?: string;
        } | {
            /**
             * @description Only `password` is accepted by this call (400 otherwise).
             * @enum {string}
             */
            type: "password" | "public-key" | "totp";
            label?: string;
            params: {
                /** @description bcrypt (`$2a$`, `$2b$`, `$2y$`) or scrypt PHC string; other formats answer 400 naming the format. Replaced by a hash of this server at the first sign-in; never read back. */
                password_hash: string;
            };
        };
        PasswordResetRequest: {
            reset_handle?: components["schemas"]["PersonHandle"];
            /** @description Earlier name of `reset_handle`. */
            handle?: components["schemas"]["PersonHandle"];
            /** @description Also refuse sign-ins with the current password until it is reset (as `password-rotate` does). */
            force_change?: boolean;
            /**
             * Format: uri
             * @description Page of your application that completes the reset with the SDK (on its allowed domains). Absent: the identity server's own reset page, `<server URL>/password-reset`, where the person chooses the new password.
             */
            redirect_target?: string;
        };
        PasswordRotateRequest: {
            handle?: components["schemas"]["PersonHandle"];
            reason?: string;
            /**
             * Format: uri
             * @description Page of your application that completes the reset (required with `handle`).
             */
            redirect_target?: string;
        };
        BulkImportResult: {
            /** @description Rows imported (persons created or updated). */
            successful_imports: number;
            /** @description Rows refused. */
            failed_imports: number;
            /** @description The header and the refused rows as sent (present when some were refused): fix them and send this file again. */
            failed_csv?: string;
            /** @description Why each row was refused (the header is row 1). */
            failures: {
                row: number;
                message: string;
            }[];
        };
        Group: {
            name: components["schemas"]["GroupName"];
            description?: string;
            /** Format: date-time */
            created: string;
            /** @description Number of persons in the group. */
            members_count: number;
        };
        GroupCreate: {
            name: components["schemas"]["GroupName"];
            description?: string;
        };
        Permission: {
            name: components["schemas"]["PermissionName"];
            description?: string;
            /** Format: date-time */
            created: string;
        };
        PermissionCreate: {
            name: components["schemas"]["PermissionName"];
            description?: string;
        };
        PermissionPatch: {
            description?: string;
        };
        Role: {
            name: components["schemas"]["RoleName"];
            description?: string;
            permissions: components["schemas"]["PermissionName"][];
            /** Format: date-time */
            created: string;
        };
        RoleCreate: {
            name: components["schemas"]["RoleName"];
            description?: string;
            permissions?: components["schemas"]["PermissionName"][];
        };
        RolePatch: {
            description?: string;
            permissions?: components["schemas"]["PermissionName"][];
        };
        /** @description `permission_name` (the public reference's name); Keyway's earlier `permission` is accepted too. */
        RbacCheckRequest: {
            person_id: components["schemas"]["PersonId"];
            permission_name: components["schemas"]["PermissionName"];
        } | {
            person_id: components["schemas"]["PersonId"];
            permission: components["schemas"]["PermissionName"];
        };
        RbacCheckResult: {
            granted: boolean;
            granted_by?: string[];
        };
        OAuth2Client: {
            client_id: components["schemas"]["OAuthClientId"];
            client_name: string;
            scopes: string[];
            grant_types: ("authorization_code" | "client_credentials" | "refresh_token")[];
            /** @description The response type combinations the client may ask for; Keyway offers one, `[["code"]]`. */
            response_types: "code"[][];
            redirect_uris?: string[];
            /** @description Where RP-Initiated Logout may send the browser back (`post_logout_redirect_uri` of `/oauth2/logout`). */
            post_logout_redirect_uris?: string[];
            /**
             * @description Algorithm of the id_tokens issued to this client (OpenID Connect Registration: RS256 unless set).
             * @enum {string}
             */
            id_token_signed_response_alg?: "RS256" | "ES256";
            /** @description Public clients (browsers, mobile apps) hold no secret and must use PKCE. */
            public: boolean;
            /** @description Seconds. */
            access_token_duration?: number;
            /** @description Seconds; 0 disables refresh tokens. */
            refresh_token_duration?: number;
            /** @description Last 4 characters of the secret of a confidential client, to tell secrets apart; the secret itself is shown once, when created or rotated, and never read back. */
            client_secret_last4?: string;
            /** Format: date-time */
            created_at?: string;
            /**
             * Format: date-time
             * @description When the client last obtained tokens (code exchange, refresh, client credentials or mint), exact to the minute; absent before its first token.
             */
            last_used?: string;
        };
        OAuth2ClientWithSecret: components["schemas"]["OAuth2Client"] & {
            /** @description Shown once; store it now. */
            client_secret: string;
        };
        OAuth2ClientCreate: {
            client_name: string;
            scopes: string[];
            grant_types: ("authorization_code" | "client_credentials" | "refresh_token")[];
            redirect_uris?: string[];
            /** @description Where `/oauth2/logout` may send the browser back after signing the person out (exact match). */
            post_logout_redirect_uris?: string[];
            /**
             * @description Algorithm of the id_tokens issued to this client; RS256 unless set, as OpenID Connect Registration says.
             * @default RS256
             * @enum {string}
             */
            id_token_signed_response_alg: "RS256" | "ES256";
            /** @default false */
            public: boolean;
            /** @default 3600 */
            access_token_duration: number;
            /** @description Seconds a refresh token stays usable (each rotation starts it again); default 2592000 (30 days) when `grant_types` has `refresh_token`, else 0. 0 disables refresh tokens. */
            refresh_token_duration?: number;
        };
        OAuth2ClientPatch: {
            client_name?: string;
            scopes?: string[];
            /** @description Replaces the grants (same rules as on creation). */
            grant_types?: ("authorization_code" | "client_credentials" | "refresh_token")[];
            redirect_uris?: string[];
            post_logout_redirect_uris?: string[];
            /** @enum {string} */
            id_token_signed_response_alg?: "RS256" | "ES256";
            access_token_duration?: number;
            refresh_token_duration?: number;
        };
        /** @description The look of the hosted sign-in page of a client. Answers carry both spellings of the three renamed fields. */
        UiConfiguration: {
            /** Format: uri */
            logoUrl?: string;
            /** @description Heading and window title of the hosted sign-in page. */
            pageTitle?: string;
            /** @description A CSS colour: `#rgb`, `#rrggbb`(`aa`) or a colour name. */
            pageBackgroundColor?: string;
            /** Format: uri */
            faviconUrl?: string;
            /**
             * Format: uri
             * @description Shown as a "Need help?" link.
             */
            supportURL?: string;
            /**
             * Format: uri
             * @description Shown as a "Sign in another way" link.
             */
            alternativeAuthURL?: string;
            /** @description Show "Secured by Keyway" under the form. */
            showBadge?: boolean;
            /** @description CSS custom properties of the page (`--<name>: <value>`); the page reads `--kw-accent` (buttons), `--kw-text` and `--kw-font`. */
            themeVars?: {
                [key: string]: string;
            };
            /** @description Texts of the page by key: `intro`, `emailLabel`, `sendCode`, `codeIntro`, `codeLabel`, `verify`. */
            textOverrides?: {
                [key: string]: string;
            };
            /** @description The hosted page signs in by email address: the list must contain `email_address`. */
            handleTypes?: ("email_address" | "phone_number" | "username")[];
            /** @description Stored and read back; the hosted page has one factor (email code), so there is nothing to remember yet. */
            storeLastFactor?: boolean;
            /** @description Stored and read back; the hosted page runs one fixed flow. */
            dynamicFlowEnabled?: boolean;
            /** @description Stored and read back. */
            dynamicFlowConfig?: {
                [key: string]: unknown;
            };
            /** @description Older name of `logoUrl` (`null`: no logo). */
            logo_url?: string | null;
            /** @description Button colour (older form of `themeVars["kw-accent"]`). */
            primary_color?: string;
            /** @description Older name of `pageTitle`. */
            title?: string;
            factors?: components["schemas"]["AuthenticationMethod"][];
            /** @description Older name of `showBadge`. */
            show_keyway_branding?: boolean;
        };
        MintOAuthTokensRequest: {
            client_id: components["schemas"]["OAuthClientId"];
            person_id: components["schemas"]["PersonId"];
            scopes?: string[];
            /** @default true */
            include_id_token: boolean;
            /** @description Extra claims of the access token; reserved claim names answer 400. */
            custom_claims?: {
                [key: string]: unknown;
            };
        };
        SuborganizationCreate: {
            /** @description Name of the new organization (required, or its former name `org_name`). */
            sub_org_name?: string;
            /** @description Handles of the administrators of the new organization: each becomes an active person of it, in its group `admins` (found in its person pool when that already has the handle). */
            admins?: components["schemas"]["PersonHandle"][];
            persons_org_id?: components["schemas"]["OrganizationId"];
            groups_org_id?: components["schemas"]["OrganizationId"];
            /**
             * @description Roles and permissions of the parent apply.
             * @default false
             */
            inherit_rbac_pools: boolean;
            /** @description Former name of `sub_org_name`. */
            org_name?: string;
            tenant_name?: string;
            /**
             * @description Persons of the parent can sign in to the new organization (the same as `persons_org_id` = the parent).
             * @default false
             */
            share_person_pool: boolean;
            /**
             * @description Refused when true: this server shares no group pools.
             * @default false
             */
            share_group_pool: boolean;
            /**
             * @description Former name of `inherit_rbac_pools`.
             * @default false
             */
            inherits_rbac_pools: boolean;
        };
        SuborganizationCreated: components["schemas"]["Organization"] & {
            /** @description Management API key of the new organization; shown once. */
            api_key: string;
        };
        ApiKeyResult: {
            api_key: string;
            /** Format: date-time */
            created_at?: string;
        };
        OrganizationConfig: {
            /** @description Unknown handles cannot sign up by signing in (403 `self-registration not allowed for this organization`). */
            deny_self_registration: boolean;
            /** @description Handles must match one pattern to register. */
            new_person_handle_patterns: string[];
            /** @description Lifetime of user tokens, in seconds. */
            token_duration: number;
            /** @description Factors `/id` accepts (every factor when empty). */
            allowed_factor_methods: components["schemas"]["AuthenticationMethod"][];
            /** @description New persons start inactive (403 `person is not active`) until activated. */
            requires_manual_approval: boolean;
            /** @description Redirect targets of sign-in links accepted besides the allowed domains: same origin, and the path equal to or below the listed path. */
            authn_link_allowed_redirect_uris: string[];
            authn_redirect_page_ui_config?: components["schemas"]["RedirectPageUiConfig"];
            /** @description Seconds (stored and served; this server has no sudo mode yet). */
            sudo_mode_duration: number;
            /** @description Stored and served; this server does no identity matching. */
            canonical_identity_ai_matching_enabled?: boolean;
            /** @description Sender address of e-mails (the SMTP `from`; empty when the server keeps e-mails in its mailbox only). */
            from_email: string;
            /** @description Sender of SMS (empty: this server has no SMS gateway). */
            from_phone_number_sms: string;
            /** @description Former name: the opposite of `deny_self_registration`. */
            allow_self_registration?: boolean;
            /** @description Former name of `new_person_handle_patterns`. */
            handle_patterns?: string[];
            /** @description Former name of `token_duration`. */
            token_duration_seconds?: number;
            /** @description Former name of `allowed_factor_methods`. */
            allowed_factors?: components["schemas"]["AuthenticationMethod"][];
            /** @description Former name of `requires_manual_approval`. */
            require_approval_for_new_persons?: boolean;
            password_validation_rules?: components["schemas"]["PasswordValidationRule"][];
            /** @default groups */
            groups_claim_name: string;
            /** @description When true, `/id` with the password or passkey factor signs up a handle that has no password (or passkey) even without `sign_up`: a sign-in link to the handle first, then `password_set` or `webauthn_create`. The answers then tell whether a handle has a password or passkey (a person who has one is asked for it), so it is off by default: without it every handle gets the same answer. For clients that cannot send `sign_up`, such as apps written for the published client that sign people up with `id(handle, {method: "password"})`. */
            implicit_credential_sign_up?: boolean;
        };
        OrganizationConfigPatch: {
            deny_self_registration?: boolean;
            new_person_handle_patterns?: string[];
            /** @description Seconds. */
            token_duration?: number;
            allowed_factor_methods?: components["schemas"]["AuthenticationMethod"][];
            requires_manual_approval?: boolean;
            authn_link_allowed_redirect_uris?: string[];
            authn_redirect_page_ui_config?: components["schemas"]["RedirectPageUiConfig"];
            /** @description Seconds. */
            sudo_mode_duration?: number;
            canonical_identity_ai_matching_enabled?: boolean;
            /** @description Former name: the opposite of `deny_self_registration`. */
            allow_self_registration?: boolean;
            /** @description Former name of `new_person_handle_patterns`. */
            handle_patterns?: string[];
            /** @description Former name of `token_duration`. */
            token_duration_seconds?: number;
            /** @description Former name of `allowed_factor_methods`. */
            allowed_factors?: components["schemas"]["AuthenticationMethod"][];
            /** @description Former name of `requires_manual_approval`. */
            require_approval_for_new_persons?: boolean;
            password_validation_rules?: components["schemas"]["PasswordValidationRule"][];
            groups_claim_name?: string;
            /** @description When true, `/id` with the password or passkey factor signs up a handle that has no password (or passkey) even without `sign_up`: a sign-in link to the handle first, then `password_set` or `webauthn_create`. The answers then tell whether a handle has a password or passkey (a person who has one is asked for it), so it is off by default: without it every handle gets the same answer. For clients that cannot send `sign_up`, such as apps written for the published client that sign people up with `id(handle, {method: "password"})`. */
            implicit_credential_sign_up?: boolean;
        };
        /** @description Branding of the page a sign-in link opens. */
        RedirectPageUiConfig: {
            /** Format: uri */
            logo_url?: string;
            title?: string;
            background_color?: string;
            text_color?: string;
        };
        PricingTier: {
            name: string;
            monthly_active_persons: number;
            suborganizations?: number;
            api_calls_per_minute?: number;
            price_per_month_usd?: number;
            /** @description The same as `suborganizations`. */
            max_suborganizations?: number;
            /** @description Message templates can be replaced (every tier on this server). */
            custom_templates_allowed: boolean;
            /** @description Non-human identity connections (none on this server). */
            nhi_external_connections_allowed: boolean;
        };
        QuotaUsage: {
            /** Format: date-time */
            period_start: string;
            /** Format: date-time */
            period_end: string;
            organizations: {
                id: components["schemas"]["OrganizationId"];
                monthly_active_persons?: number;
                persons?: number;
            }[];
            total_monthly_active_persons?: number;
            /** @description Persons of the organization and every organization below it. */
            num_persons: number;
            /** @description Groups of the organization and every organization below it. */
            num_groups: number;
            /** @description Organizations below this one, at every depth. */
            num_suborganizations: number;
            pricing_tier_details?: components["schemas"]["PricingTier"];
        };
        AttributeBucket: {
            name: components["schemas"]["AttributeBucketName"];
            /**
             * @description What the end person may do with the bucket.
             * @enum {string}
             */
            end_user_permissions: "read_write" | "read_only" | "no_access";
            /**
             * @description `person_pool` buckets are shared by every organization of the person pool.
             * @enum {string}
             */
            sharing_scope: "organization" | "person_pool";
            owner_organization_id?: components["schemas"]["OrganizationId"];
            /**
             * @description Former name of `end_user_permissions`.
             * @enum {string}
             */
            end_user_access: "read_write" | "read_only" | "no_access";
            /** @description Former form of `sharing_scope`. */
            shared_with_person_pool: boolean;
        };
        DomainList: {
            domains: string[];
        };
        DomainAdd: {
            /** @description Domains to add (with `overwrite=true`: the whole list; none clears it). */
            domains?: string[];
        };
        EmailTemplate: {
            name: components["schemas"]["EmailTemplateName"];
            /** @description E-mail subject (absent for SMS). */
            subject?: string;
            /** @description HTML of an e-mail; the text of an SMS. */
            body: string;
            /** @description Plain-text alternative of an e-mail (derived from `body` when absent). */
            text_body?: string;
            /** @description Display name of the e-mail sender (the `From` name when SMTP is configured). */
            sender_name?: string;
            /** @description Whether the organization replaced the built-in template. */
            customized?: boolean;
            /** Format: date-time */
            updated_at?: string;
        };
        EmailTemplateUpdate: {
            subject?: string;
            /** @description HTML of an e-mail; the text of an SMS. */
            body?: string;
            /**
             * @deprecated
             * @description Former name of `body`, still accepted.
             */
            html_body?: string;
            text_body?: string;
            sender_name?: string;
        };
        /** @enum {string} */
        ExternalCredentialType: "smtp" | "sms_gateway" | "oidc_client" | "apple_signin";
        /**
         * @description Service the credential is for.
         * @enum {string}
         */
        ExternalCredentialProvider: "generic" | "google" | "onfido" | "shopify";
        /**
         * @description Kind of secret.
         * @enum {string}
         */
        ExternalCredentialKind: "access_token" | "api_id_access" | "api_key" | "client_credentials" | "json_credentials" | "user_pass";
        ExternalCredential: {
            external_cred_id: components["schemas"]["ResourceId"];
            organization_id: components["schemas"]["OrganizationId"];
            extcred_label: string;
            extcred_provider: components["schemas"]["ExternalCredentialProvider"];
            extcred_type: components["schemas"]["ExternalCredentialKind"];
            id: components["schemas"]["ResourceId"];
            label: string;
            type?: components["schemas"]["ExternalCredentialType"];
            /** @description Non-secret settings (host, port, sender, client id …). */
            public_fields?: {
                [key: string]: string | number | boolean;
            };
            /** @description Names of the secret fields stored (top-level keys of `json_blob`); the values are never returned. */
            secret_field_names?: string[];
            /** Format: date-time */
            created_at?: string;
        };
        ExternalCredentialCreate: {
            extcred_provider?: components["schemas"]["ExternalCredentialProvider"];
            extcred_type?: components["schemas"]["ExternalCredentialKind"];
            /** @description Default: provider and type, e.g. `google api_key`. */
            extcred_label?: string;
            /** @description The secret (any JSON object): encrypted at rest, never returned. */
            json_blob?: {
                [key: string]: unknown;
            };
            /** @description Former name of `extcred_label`. */
            label?: string;
            type?: components["schemas"]["ExternalCredentialType"];
            public_fields?: {
                [key: string]: string | number | boolean;
            };
            /** @description Former form of `json_blob`: encrypted at rest, never returned. */
            secret_fields?: {
                [key: string]: string;
            };
        };
        ExternalCredentialPatch: {
            extcred_label?: string;
            /** @description Replaces the stored secret. */
            json_blob?: {
                [key: string]: unknown;
            };
            label?: string;
            public_fields?: {
                [key: string]: string | number | boolean;
            };
            /** @description Merged into the stored secret. */
            secret_fields?: {
                [key: string]: string;
            };
        };
        KycConfig: {
            /**
             * Format: uri
             * @description Where a mobile verification flow returns to (stored and served; this server calls no KYC provider).
             */
            mobile_redirect_base_url?: string;
            enabled: boolean;
            /** @enum {string} */
            provider?: "none" | "document_check" | "bank_id";
            required_for_registration?: boolean;
            allowed_document_countries?: string[];
        };
        KycConfigPatch: {
            /** Format: uri */
            mobile_redirect_base_url?: string;
            enabled?: boolean;
            /** @enum {string} */
            provider?: "none" | "document_check" | "bank_id";
            required_for_registration?: boolean;
            allowed_document_countries?: string[];
        };
        TokenTemplate: {
            /** @description JSON object template; `{{ person.attributes.<bucket>.<name> }}` placeholders are filled per token. */
            content: string;
        };
        SamlProviderCredentials: {
            id: components["schemas"]["ResourceId"];
            label: string;
            /** Format: uri */
            idp_metadata_url?: string;
            idp_entity_id: string;
            sp_entity_id?: string;
            /** Format: uri */
            sp_acs_url: string;
            /** @description SAML attribute → person attribute name. */
            attribute_mapping?: {
                [key: string]: string;
            };
            /** @description Assertion attributes read first, in this order, for the e-mail address that names the person. */
            email_claims?: string[];
            /** @description Stored and served; the hosted login of this server offers e-mail codes only, no SSO buttons yet. */
            enable_in_slashid_oidc_authz_server?: boolean;
            /** @description Whether the organization trusts this identity provider for the e-mail addresses it asserts (default false: SAML has no verified claim, so a new subject proves its address with a code sent to it once, before it signs in or reaches a person who already has the address). Set it for the organization's own directory. */
            trust_email_verification?: boolean;
            /** Format: date-time */
            created_at?: string;
        };
        SamlProviderCredentialsCreate: {
            /** @description Default: the entity id of the identity provider. */
            label?: string;
            /** Format: uri */
            idp_metadata_url?: string;
            idp_metadata_xml?: string;
            attribute_mapping?: {
                [key: string]: string;
            };
            email_claims?: string[];
            enable_in_slashid_oidc_authz_server?: boolean;
            /** @description Whether the organization trusts this identity provider for the e-mail addresses it asserts (default false: SAML has no verified claim, so a new subject proves its address with a code sent to it once, before it signs in or reaches a person who already has the address). Set it for the organization's own directory. */
            trust_email_verification?: boolean;
        };
        SamlProviderCredentialsPatch: {
            label?: string;
            /** Format: uri */
            idp_metadata_url?: string;
            idp_metadata_xml?: string;
            attribute_mapping?: {
                [key: string]: string;
            };
            email_claims?: string[];
            enable_in_slashid_oidc_authz_server?: boolean;
            /** @description Whether the organization trusts this identity provider for the e-mail addresses it asserts (default false: SAML has no verified claim, so a new subject proves its address with a code sent to it once, before it signs in or reaches a person who already has the address). Set it for the organization's own directory. */
            trust_email_verification?: boolean;
        };
        /** @description Per-provider options, under the name of the configuration's provider (another provider's name is a 400). */
        OidcProviderOptions: {
            google?: {
                /** @description Scopes requested at the provider besides the default ones (`openid email profile`, or the configuration's `scopes`), which are always requested. */
                authorize_scopes?: string[];
            };
            apple?: {
                /** @description Scopes requested at the provider besides the default ones (`openid email profile`, or the configuration's `scopes`), which are always requested. */
                authorize_scopes?: string[];
                /** @description The ES256 key (PKCS #8 PEM) Keyway signs the client secret JWT with (Apple's client secret is such a JWT). Never read back; may come from the external credential instead (`private_key` of its `json_blob`). */
                private_key?: string;
                /** @description The Apple team id: `iss` of the client secret JWT. */
                team_id: string;
                /** @description The id of the key: `kid` of the client secret JWT. */
                key_id: string;
                /** @description How long each client secret JWT lasts: seconds (`"3600"`, `"3600s"`) or hours (`"24h"`), at most 15777000 seconds (six months, Apple's limit). */
                secret_lifetime: string;
            };
            azuread?: {
                /** @description Scopes requested at the provider besides the default ones (`openid email profile`, or the configuration's `scopes`), which are always requested. */
                authorize_scopes?: string[];
                /** @description The Entra ID tenant (GUID or domain): the issuer becomes `https://login.microsoftonline.com/<tenant>/v2.0`. The pseudo tenants `common`, `organizations`, `consumers` are refused (400): an ID token's issuer is then the person's own tenant, which cannot be checked. */
                tenant?: string;
            };
            facebook?: {
                /** @description Scopes requested at the provider besides the default ones (`openid email profile`, or the configuration's `scopes`), which are always requested. */
                authorize_scopes?: string[];
            };
            github?: {
                /** @description Scopes requested at the provider besides the default ones (`openid email profile`, or the configuration's `scopes`), which are always requested. */
                authorize_scopes?: string[];
            };
            gitlab?: {
                /** @description Scopes requested at the provider besides the default ones (`openid email profile`, or the configuration's `scopes`), which are always requested. */
                authorize_scopes?: string[];
            };
            line?: {
                /** @description Scopes requested at the provider besides the default ones (`openid email profile`, or the configuration's `scopes`), which are always requested. */
                authorize_scopes?: string[];
            };
            bitbucket?: {
                /** @description Scopes requested at the provider besides the default ones (`openid email profile`, or the configuration's `scopes`), which are always requested. */
                authorize_scopes?: string[];
            };
            okta?: {
                /** @description Scopes requested at the provider besides the default ones (`openid email profile`, or the configuration's `scopes`), which are always requested. */
                authorize_scopes?: string[];
                /**
                 * Format: uri
                 * @description The Okta organization URL, e.g. `https://acme.okta.com`: the issuer (Okta's org authorization server).
                 */
                organization_url?: string;
            };
        };
        OidcProviderCredentials: {
            client_id: string;
            label: string;
            /**
             * @description Microsoft Entra ID is `azuread` (registered as `azure` before).
             * @enum {string}
             */
            provider: "google" | "apple" | "azuread" | "facebook" | "github" | "gitlab" | "line" | "bitbucket" | "okta" | "keycloak" | "generic";
            /** Format: uri */
            issuer?: string;
            scopes?: string[];
            options?: components["schemas"]["OidcProviderOptions"];
            /** @description The external credential the client secret (Apple: the private key) is read from at each sign-in. */
            external_cred_id?: string;
            /** @description Stored and served; the hosted login of this server offers e-mail codes only, no SSO buttons yet. */
            enable_in_slashid_oidc_authz_server: boolean;
            /** @description Whether the organization trusts this provider's `email_verified` (default true): an address the provider asserts with `email_verified: true` then signs its subject in (or links to the person who has it) without a code; an address it does not assert verified is always proved with a code once per subject. Set false for a provider that does not verify addresses. */
            trust_email_verification?: boolean;
            /** Format: date-time */
            created_at?: string;
        };
        OidcProviderCredentialsCreate: {
            client_id: string;
            /** @description Used unless an external credential gives one (`external_cred_id`). */
            client_secret: string;
            /** @description Default: the client id. */
            label?: string;
            /**
             * @description `azure` is a former name of `azuread`.
             * @enum {string}
             */
            provider: "google" | "apple" | "azuread" | "azure" | "facebook" | "github" | "gitlab" | "line" | "bitbucket" | "okta" | "keycloak" | "generic";
            /**
             * Format: uri
             * @description Required for keycloak and generic providers, and for azuread and okta unless `options` give the tenant or organization URL.
             */
            issuer?: string;
            scopes?: string[];
            options?: components["schemas"]["OidcProviderOptions"];
            /** @description An external credential of the organization (`/organizations/config/external-credentials`) whose `json_blob` holds `client_secret` (Apple: `private_key`): it is read at each sign-in instead of `client_secret`, so rotating the credential rotates the secret. Unknown: 400. */
            external_cred_id?: string;
            /**
             * @deprecated
             * @description Former name of `external_cred_id`.
             */
            external_cred?: string;
            /** @description Stored and served (default false); the hosted login of this server offers e-mail codes only, no SSO buttons yet. */
            enable_in_slashid_oidc_authz_server?: boolean;
            /** @description Whether the organization trusts this provider's `email_verified` (default true): an address the provider asserts with `email_verified: true` then signs its subject in (or links to the person who has it) without a code; an address it does not assert verified is always proved with a code once per subject. Set false for a provider that does not verify addresses. */
            trust_email_verification?: boolean;
        };
        OidcProviderCredentialsPatch: {
            client_secret?: string;
            label?: string;
            scopes?: string[];
            options?: components["schemas"]["OidcProviderOptions"];
            /** @description As on creation; an empty string detaches the external credential (the stored `client_secret` is used again). */
            external_cred_id?: string;
            /**
             * @deprecated
             * @description Former name of `external_cred_id`.
             */
            external_cred?: string;
            enable_in_slashid_oidc_authz_server?: boolean;
            /** @description Whether the organization trusts this provider's `email_verified` (default true): an address the provider asserts with `email_verified: true` then signs its subject in (or links to the person who has it) without a code; an address it does not assert verified is always proved with a code once per subject. Set false for a provider that does not verify addresses. */
            trust_email_verification?: boolean;
        };
        /**
         * @description Which token the provider issued: the access token, the ID token, the refresh token.
         * @enum {string}
         */
        SsoOidcTokenType: "access" | "id" | "refresh";
        /** @description A token an OIDC identity provider issued to a person at an SSO sign-in, one entry per token. The latest sign-in per client replaces them. Stored encrypted. */
        SsoOidcToken: {
            /** @description The token value, as the provider issued it. */
            token: string;
            token_type: components["schemas"]["SsoOidcTokenType"];
            /**
             * Format: date-time
             * @description When the token expires: the provider's `expires_in` for an access token (`refresh_expires_in` for a refresh token, when it gives one), the `exp` claim of an ID token. `0001-01-01T00:00:00Z` when the provider stated no lifetime (a refresh token usually).
             */
            expiry: string;
            /** @description The provider of the OIDC client (`google`, `azuread`, … or Keyway's `generic`, `keycloak`). */
            provider: string;
            /** @description The OIDC client (provider credentials) the token was obtained with. */
            client_id: string;
            /** @description The SSO sign-in that obtained the token (the id of its challenge). A later sign-in through the same client replaces the tokens and the authentication id. */
            authentication_id: string;
            person_id: components["schemas"]["PersonId"];
            organization_id: components["schemas"]["OrganizationId"];
            /** @description The other parameters the provider sent to the callback together with the authorization code (e.g. `iss`, `session_state`); `code` and `state` are not kept. */
            extra_callback_values?: {
                [key: string]: string;
            };
            /**
             * Format: uri
             * @description Issuer of the identity provider.
             */
            issuer: string;
            /** @description `sub` of the person at the identity provider. */
            subject: string;
            /** @description Scopes the provider granted. */
            scopes: string[];
            /**
             * Format: date-time
             * @description When the sign-in stored the token.
             */
            created_at: string;
        };
        SsoOidcTokenQuery: {
            person_id: components["schemas"]["PersonId"];
            /** @description Only the tokens of these sign-ins (all when absent). */
            authentication_ids?: string[];
            /** @description Only these kinds of token (all when absent). */
            token_types?: components["schemas"]["SsoOidcTokenType"][];
            /** @description Only the tokens obtained with this OIDC client. */
            client_id?: string;
            /** @description Only the tokens of this provider. */
            provider?: string;
        };
        SsoOidcTokenRevoke: {
            person_id: components["schemas"]["PersonId"];
            /** @description The sign-in whose tokens are revoked (`authentication_id` of the listed tokens). */
            authentication_id: string;
            /** @description Which of its tokens to revoke; all when absent. An ID token is only forgotten (providers do not revoke ID tokens). */
            token_types?: components["schemas"]["SsoOidcTokenType"][];
            /** @description When given, the OIDC client the sign-in used (404 otherwise). */
            client_id?: string;
        };
        SsoOidcTokenRevokeLegacy: {
            token: string;
            client_id: string;
            /**
             * @description Which token `token` is; when absent, either.
             * @enum {string}
             */
            token_type?: "access_token" | "refresh_token";
        };
        Webhook: {
            id: components["schemas"]["ResourceId"];
            name: string;
            description?: string;
            /**
             * Format: uri
             * @description https URL; plain http is accepted for localhost receivers of a development server only.
             */
            target_url: string;
            custom_headers?: {
                [key: string]: string[];
            };
            /** @description Seconds Keyway waits for the receiver, e.g. `"10s"`. */
            timeout?: string;
            /** Format: date-time */
            created_at?: string;
        };
        WebhookCreate: {
            name: string;
            description?: string;
            /**
             * Format: uri
             * @description https URL; plain http is accepted for localhost receivers of a development server only.
             */
            target_url: string;
            custom_headers?: {
                [key: string]: string[];
            };
            /**
             * @description Seconds Keyway waits for the receiver, 1 to 30: `"10s"`, or the number `10`. Answered as `"10s"`.
             * @default 10s
             */
            timeout: string | number;
        };
        WebhookPatch: {
            name?: string;
            description?: string;
            /**
             * Format: uri
             * @description https URL; plain http is accepted for localhost receivers of a development server only.
             */
            target_url?: string;
            custom_headers?: {
                [key: string]: string[];
            };
            /** @description Seconds Keyway waits for the receiver, 1 to 30: `"10s"`, or the number `10`. Answered as `"10s"`. */
            timeout?: string | number;
        };
        WebhookTrigger: {
            /** @enum {string} */
            trigger_type: "event" | "sync_hook";
            /** @description Event name (e.g. PersonCreated_v1) or sync hook point (`token_minted`). */
            trigger_name: string;
        };
        WebhookDelivery: {
            id: components["schemas"]["ResourceId"];
            webhook_id: components["schemas"]["ResourceId"];
            /** @description The `id` of the event: the same in every attempt and replay of it, and sent as the `Keyway-Idempotency-Key` header, so a receiver handles each event once. */
            event_id: string;
            /** @description Type of the event, e.g. `PersonCreated_v1`. */
            event_type: string;
            /**
             * @description `pending`: queued or waiting for its next attempt; `delivered`: the receiver answered 2xx; `failed`: the attempts ran out (a dead letter, which `POST …/replay` queues again).
             * @enum {string}
             */
            status: "pending" | "delivered" | "failed";
            /** @description Attempts made so far (since the last replay). */
            attempts: number;
            /** @description HTTP status of the last answer, when the receiver answered. */
            last_status?: number;
            /** @description Why the last attempt failed: the status answered, the timeout, or the connection error. */
            last_error?: string;
            /**
             * Format: date-time
             * @description When a pending delivery is due next.
             */
            next_attempt_at?: string;
            /**
             * Format: date-time
             * @description When the event was queued.
             */
            created_at: string;
            /**
             * Format: date-time
             * @description When the receiver accepted it.
             */
            delivered_at?: string;
        };
        TestEventsRequest: {
            /** @description Type of the event to generate, e.g. `PersonCreated_v1` (any name: webhooks whose `event` trigger has that name receive it). */
            event_name: string;
            /**
             * @description How many events of that type to generate.
             * @default 1
             */
            count: number;
            /**
             * @description Deliver every generated event twice, with the same `id`, as a retry after a lost acknowledgement would: shows whether a receiver handles each event once.
             * @default false
             */
            duplicates: boolean;
            /** @description Copied into each generated event's `data`, to find them in your logs. */
            analytics_correlation_id?: string;
        }[];
        TestEvent: {
            /**
             * Format: uuid
             * @description The `id` of the event in the delivered payload.
             */
            event_id: string;
            event_name: string;
            organization_id: string;
            /** Format: date-time */
            timestamp: string;
        };
    };
    responses: {
        /** @description The request is malformed: invalid JSON, a wrong type, an unknown or missing field. The message names the field. */
        BadRequest: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description The request or its handle is not acceptable. */
        IdBadRequest: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description The answer is malformed, or the new password breaks a validation rule. */
        AttestationBadRequest: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description Credentials are missing or invalid. */
        Unauthorized: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description The answer is wrong; the client may ask the person again (at most 5 attempts per challenge). */
        AttestationUnauthorized: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description The caller may not perform this operation. */
        Forbidden: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description The person may not authenticate or register with this request. */
        IdForbidden: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description The person may not complete this authentication. */
        AttestationForbidden: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description The e-mail with the code or link could not be handed to the mail server; nothing was sent. */
        MessageNotSent: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description The identity provider could not be reached or refused the call; nothing was changed, try again later. */
        ProviderUnavailable: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description The object does not exist in this organization. */
        NotFound: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description The object already exists or the change conflicts with the current state. */
        Conflict: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description The object changed since the ETag given in If-Match was read; nothing was changed. Read it again. */
        PreconditionFailed: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description A person with one of the given handles already exists. */
        PersonExists: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description The consistency requested by Keyway-Required-Consistency was not reached in time. */
        RequestTimeout: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description The body is larger than the server accepts (1 MiB). */
        PayloadTooLarge: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description The Content-Type is not the one this operation accepts. */
        UnsupportedMediaType: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description Too many requests from this IP address or for this handle; retry later. */
        TooManyRequests: {
            headers: {
                /** @description Seconds until a new attempt may succeed. */
                "Retry-After"?: number;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorResponse"];
            };
        };
        /** @description The token request is invalid (RFC 6749 §5.2). */
        OAuth2BadRequest: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["OAuth2Error"];
            };
        };
        /** @description Client authentication failed, or the access token is invalid. */
        OAuth2Unauthorized: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["OAuth2Error"];
            };
        };
    };
    parameters: {
        /** @description The person the operation applies to. */
        PersonIdPath: components["schemas"]["PersonId"];
        /** @description Attribute bucket. */
        BucketNamePath: components["schemas"]["AttributeBucketName"];
        /** @description Challenge returned earlier by an ID request. */
        ChallengeIdPath: components["schemas"]["ChallengeId"];
        /** @description Challenge pack id received in a URL parameter. */
        ChallengePackIdPath: components["schemas"]["ResourceId"];
        /** @description Name of the group. */
        GroupNamePath: components["schemas"]["GroupName"];
        /** @description Name of the role. */
        RoleNamePath: components["schemas"]["RoleName"];
        /** @description Name of the permission. */
        PermissionNamePath: components["schemas"]["PermissionName"];
        /** @description OAuth2 client id. */
        OAuthClientIdPath: components["schemas"]["OAuthClientId"];
        /**
         * @description The client id held at the OIDC provider (e.g. Google's `….apps.googleusercontent.com`, Apple's `com.example.web`).
         * @example 1234567890-abc.apps.example.com
         */
        OidcProviderClientIdPath: string;
        /** @description Credential id. */
        CredentialIdPath: components["schemas"]["ResourceId"];
        /** @description External credential id. */
        CredIdPath: components["schemas"]["ResourceId"];
        /**
         * @description Handle as `type:value`, URL-encoded, e.g. `email_address:ada%40example.com`.
         * @example email_address:ada@example.com
         */
        HandlePath: string;
        /**
         * @description Template name.
         * @example email_otp_message
         */
        TemplateNamePath: components["schemas"]["EmailTemplatePathName"];
        /** @description Webhook id. */
        WebhookIdPath: components["schemas"]["ResourceId"];
        /** @description Delivery id (`id` of a listed delivery, also sent as the `Keyway-Delivery-Id` header). */
        WebhookDeliveryIdPath: components["schemas"]["ResourceId"];
        /** @description SAML provider credentials id. */
        SamlCredentialsIdPath: components["schemas"]["ResourceId"];
        /** @description SCIM-style filter on `id`, `org_name` and `tenant_name`, e.g. `org_name eq "Acme Docs EU"` or `tenant_name sw "ac"`; operators eq, ne, co, sw, pr, and, or (case-insensitive). */
        OrgFilter: string;
        /**
         * @description Comma-separated parts of the person to include besides its id, activity, type and region: `handles`, `groups`, `roles`, `attributes` (all when absent).
         * @example [
         *       "handles",
         *       "groups"
         *     ]
         */
        PersonFields: ("handles" | "groups" | "roles" | "attributes")[];
        /** @description Page size (at most 1000). */
        Limit: number;
        /** @description Number of items to skip. */
        Offset: number;
        /** @description Where to continue: `meta.cursor_pagination.cursor` of the previous page. An empty cursor is the first page. Not together with `offset`. On `GET /persons` and `GET /events` a cursor is a place in the order: it keeps its place when items are added or removed before it, and a page costs the same at any depth. On the other lists it stands for an offset. */
        Cursor: string;
        /** @description Comma-joined list of buckets to read; all readable buckets when absent. */
        BucketsQuery: components["schemas"]["AttributeBucketName"][];
        /** @description Comma-joined attribute names; all attributes of the bucket when absent. */
        AttributesQuery: string[];
        /** @description Wait until the change is visible in the local region or in all regions before answering. */
        RequiredConsistency: "local_region" | "all_regions";
        /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
        RequiredConsistencyTimeout: number;
        /** @description The `ETag` of the object as last read (`*`: any). When the object changed since, nothing is changed and the answer is 412. */
        IfMatch: string;
        /** @description Id of the organization the call acts on (sent by the SDK; required where the security of the operation names it). */
        OrgIdHeader: string;
        /** @description Version of the calling SDK, e.g. 3.29.3. */
        SdkVersion: string;
        /** @description Set by the SDK when it retries a call whose network request failed (1–5). */
        SdkRetryCount: number;
    };
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    postId: {
        parameters: {
            query?: never;
            header?: {
                /** @description Id of the organization the call acts on (sent by the SDK; required where the security of the operation names it). */
                "Keyway-OrgID"?: components["parameters"]["OrgIdHeader"];
                /** @description Version of the calling SDK, e.g. 3.29.3. */
                "Keyway-SdkVersion"?: components["parameters"]["SdkVersion"];
                /** @description Set by the SDK when it retries a call whose network request failed (1–5). */
                "Keyway-SdkRetryCount"?: components["parameters"]["SdkRetryCount"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "handle": "ada@example.com",
                 *       "factor": {
                 *         "method": "otp_via_email",
                 *         "options": {}
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["IdRequest"];
            };
        };
        responses: {
            /** @description Challenges to complete, in order (`result` is the list itself). */
            200: {
                headers: {
                    /** @description Always `no-store`: challenges are single-use. */
                    "Cache-Control"?: "no-store";
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": [
                     *         {
                     *           "id": "ch_01JD8Z6X2K9Q4M7R3T5V8W1Y0A",
                     *           "type": "otp",
                     *           "authentication_method": "otp_via_email",
                     *           "options": {}
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["ChallengeList"];
                    };
                };
            };
            400: components["responses"]["IdBadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["IdForbidden"];
            409: components["responses"]["PersonExists"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            502: components["responses"]["MessageNotSent"];
        };
    };
    postIdV2: {
        parameters: {
            query?: never;
            header?: {
                /** @description Id of the organization the call acts on (sent by the SDK; required where the security of the operation names it). */
                "Keyway-OrgID"?: components["parameters"]["OrgIdHeader"];
                /** @description Version of the calling SDK, e.g. 3.29.3. */
                "Keyway-SdkVersion"?: components["parameters"]["SdkVersion"];
                /** @description Set by the SDK when it retries a call whose network request failed (1–5). */
                "Keyway-SdkRetryCount"?: components["parameters"]["SdkRetryCount"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "handle": {
                 *         "type": "email_address",
                 *         "value": "ada@example.com"
                 *       },
                 *       "factor": {
                 *         "method": "email_link",
                 *         "options": {
                 *           "redirect_target": "http://localhost:3000/login"
                 *         }
                 *       },
                 *       "metadata": {
                 *         "csrf_token": "b6c1e0f2a9d84c7e91f3",
                 *         "pkce_code_challenge": "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["IdRequestV2"];
            };
        };
        responses: {
            /** @description Challenges to complete, in order (`result` is the list itself). */
            200: {
                headers: {
                    /** @description Always `no-store`: challenges are single-use. */
                    "Cache-Control"?: "no-store";
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": [
                     *         {
                     *           "id": "ch_01JD8Z6X2K9Q4M7R3T5V8W1Y0B",
                     *           "type": "proxy",
                     *           "authentication_method": "email_link",
                     *           "options": {
                     *             "challenge_id": "ch_01JD8Z6X2K9Q4M7R3T5V8W1Y0C"
                     *           }
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["ChallengeList"];
                    };
                };
            };
            400: components["responses"]["IdBadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["IdForbidden"];
            409: components["responses"]["PersonExists"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            502: components["responses"]["MessageNotSent"];
        };
    };
    postAttestation: {
        parameters: {
            query?: never;
            header?: {
                /** @description Id of the organization the call acts on (sent by the SDK; required where the security of the operation names it). */
                "Keyway-OrgID"?: components["parameters"]["OrgIdHeader"];
                /** @description Version of the calling SDK, e.g. 3.29.3. */
                "Keyway-SdkVersion"?: components["parameters"]["SdkVersion"];
                /** @description Set by the SDK when it retries a call whose network request failed (1–5). */
                "Keyway-SdkRetryCount"?: components["parameters"]["SdkRetryCount"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "challenge_id": "ch_01JD8Z6X2K9Q4M7R3T5V8W1Y0A",
                 *       "challenge_type": "otp",
                 *       "data": {
                 *         "otp": "482913"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Attestation"];
            };
        };
        responses: {
            /** @description The user token. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "token": "eyJhbGciOiJFUzI1NiIsImtpZCI6ImstMjAyNi0wMyIsInR5cCI6IkpXVCJ9.eyJwZXJzb25faWQiOiJwaWQ6MDE5M2ExZjJjNGI4N2QzZTlmMTBhMmIzYzRkNWU2ZjciLCJvaWQiOiIzZjZhMGMxZS01YjdkLTRlMmEtOWM0MS0wZDJlN2Y4YTliMTAiLCJmaXJzdF90b2tlbiI6ZmFsc2UsImF1dGhlbnRpY2F0ZWRfbWV0aG9kcyI6WyJvdHBfdmlhX2VtYWlsIl0sInBlcnNvbl90eXBlIjoicmVndWxhciIsImdyb3VwcyI6WyJlZGl0b3JzIl0sImV4cCI6MTc3MzQ4MzYxM30.q3Yw8n2JxT0bV5cP1sK7mR9dL4fH6gE2aZ0uN8iC3oWkXy1tQ5vB7jM9pS4eR2hD6lA0fG8zU3cY1nK5wT7xQ"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["TokenResult"];
                    };
                };
            };
            400: components["responses"]["AttestationBadRequest"];
            401: components["responses"]["AttestationUnauthorized"];
            403: components["responses"]["AttestationForbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    postAttestationV2: {
        parameters: {
            query?: never;
            header?: {
                /** @description Id of the organization the call acts on (sent by the SDK; required where the security of the operation names it). */
                "Keyway-OrgID"?: components["parameters"]["OrgIdHeader"];
                /** @description Version of the calling SDK, e.g. 3.29.3. */
                "Keyway-SdkVersion"?: components["parameters"]["SdkVersion"];
                /** @description Set by the SDK when it retries a call whose network request failed (1–5). */
                "Keyway-SdkRetryCount"?: components["parameters"]["SdkRetryCount"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "challenge_id": "ch_01JD8Z6X2K9Q4M7R3T5V8W1Y0A",
                 *       "challenge_type": "otp",
                 *       "data": {
                 *         "otp": "482913"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Attestation"];
            };
        };
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "token": "eyJhbGciOiJFUzI1NiIsImtpZCI6ImstMjAyNi0wMyIsInR5cCI6IkpXVCJ9.eyJwZXJzb25faWQiOiJwaWQ6MDE5M2ExZjJjNGI4N2QzZTlmMTBhMmIzYzRkNWU2ZjciLCJvaWQiOiIzZjZhMGMxZS01YjdkLTRlMmEtOWM0MS0wZDJlN2Y4YTliMTAiLCJmaXJzdF90b2tlbiI6ZmFsc2UsImF1dGhlbnRpY2F0ZWRfbWV0aG9kcyI6WyJvdHBfdmlhX2VtYWlsIl0sInBlcnNvbl90eXBlIjoicmVndWxhciIsImdyb3VwcyI6WyJlZGl0b3JzIl0sImV4cCI6MTc3MzQ4MzYxM30.q3Yw8n2JxT0bV5cP1sK7mR9dL4fH6gE2aZ0uN8iC3oWkXy1tQ5vB7jM9pS4eR2hD6lA0fG8zU3cY1nK5wT7xQ"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["TokenResult"];
                    };
                };
            };
            400: components["responses"]["AttestationBadRequest"];
            401: components["responses"]["AttestationUnauthorized"];
            403: components["responses"]["AttestationForbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    postAttestationV3: {
        parameters: {
            query?: never;
            header?: {
                /** @description Id of the organization the call acts on (sent by the SDK; required where the security of the operation names it). */
                "Keyway-OrgID"?: components["parameters"]["OrgIdHeader"];
                /** @description Version of the calling SDK, e.g. 3.29.3. */
                "Keyway-SdkVersion"?: components["parameters"]["SdkVersion"];
                /** @description Set by the SDK when it retries a call whose network request failed (1–5). */
                "Keyway-SdkRetryCount"?: components["parameters"]["SdkRetryCount"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "challenge_id": "ch_01JD8Z6X2K9Q4M7R3T5V8W1Y0A",
                 *       "challenge_type": "otp",
                 *       "data": {
                 *         "otp": "482913"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["Attestation"];
            };
        };
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "token": "eyJhbGciOiJFUzI1NiIsImtpZCI6ImstMjAyNi0wMyIsInR5cCI6IkpXVCJ9.eyJwZXJzb25faWQiOiJwaWQ6MDE5M2ExZjJjNGI4N2QzZTlmMTBhMmIzYzRkNWU2ZjciLCJvaWQiOiIzZjZhMGMxZS01YjdkLTRlMmEtOWM0MS0wZDJlN2Y4YTliMTAiLCJmaXJzdF90b2tlbiI6ZmFsc2UsImF1dGhlbnRpY2F0ZWRfbWV0aG9kcyI6WyJvdHBfdmlhX2VtYWlsIl0sInBlcnNvbl90eXBlIjoicmVndWxhciIsImdyb3VwcyI6WyJlZGl0b3JzIl0sImV4cCI6MTc3MzQ4MzYxM30.q3Yw8n2JxT0bV5cP1sK7mR9dL4fH6gE2aZ0uN8iC3oWkXy1tQ5vB7jM9pS4eR2hD6lA0fG8zU3cY1nK5wT7xQ"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["TokenResult"];
                    };
                };
            };
            400: components["responses"]["AttestationBadRequest"];
            401: components["responses"]["AttestationUnauthorized"];
            403: components["responses"]["AttestationForbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getChallenge: {
        parameters: {
            query?: never;
            header?: {
                /** @description Id of the organization the call acts on (sent by the SDK; required where the security of the operation names it). */
                "Keyway-OrgID"?: components["parameters"]["OrgIdHeader"];
                /** @description Version of the calling SDK, e.g. 3.29.3. */
                "Keyway-SdkVersion"?: components["parameters"]["SdkVersion"];
                /** @description Set by the SDK when it retries a call whose network request failed (1–5). */
                "Keyway-SdkRetryCount"?: components["parameters"]["SdkRetryCount"];
            };
            path: {
                /** @description Challenge returned earlier by an ID request. */
                challenge_id: components["parameters"]["ChallengeIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The challenge is completed: `result` is the user token. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": "eyJhbGciOiJFUzI1NiIsImtpZCI6ImstMjAyNi0wMyIsInR5cCI6IkpXVCJ9.eyJwZXJzb25faWQiOiJwaWQ6MDE5M2ExZjJjNGI4N2QzZTlmMTBhMmIzYzRkNWU2ZjciLCJvaWQiOiIzZjZhMGMxZS01YjdkLTRlMmEtOWM0MS0wZDJlN2Y4YTliMTAiLCJmaXJzdF90b2tlbiI6ZmFsc2UsImF1dGhlbnRpY2F0ZWRfbWV0aG9kcyI6WyJvdHBfdmlhX2VtYWlsIl0sInBlcnNvbl90eXBlIjoicmVndWxhciIsImdyb3VwcyI6WyJlZGl0b3JzIl0sImV4cCI6MTc3MzQ4MzYxM30.q3Yw8n2JxT0bV5cP1sK7mR9dL4fH6gE2aZ0uN8iC3oWkXy1tQ5vB7jM9pS4eR2hD6lA0fG8zU3cY1nK5wT7xQ"
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["UserToken"];
                    };
                };
            };
            /** @description The proxy challenge is not completed yet; poll again in a second. */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "errors": [
                     *         {
                     *           "httpcode": 202,
                     *           "message": "challenge not completed yet"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getChallengeV2: {
        parameters: {
            query?: never;
            header?: {
                /** @description Id of the organization the call acts on (sent by the SDK; required where the security of the operation names it). */
                "Keyway-OrgID"?: components["parameters"]["OrgIdHeader"];
                /** @description Version of the calling SDK, e.g. 3.29.3. */
                "Keyway-SdkVersion"?: components["parameters"]["SdkVersion"];
                /** @description Set by the SDK when it retries a call whose network request failed (1–5). */
                "Keyway-SdkRetryCount"?: components["parameters"]["SdkRetryCount"];
            };
            path: {
                /** @description Challenge returned earlier by an ID request. */
                challenge_id: components["parameters"]["ChallengeIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The challenge is completed: `result` is the user token. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": "eyJhbGciOiJFUzI1NiIsImtpZCI6ImstMjAyNi0wMyIsInR5cCI6IkpXVCJ9.eyJwZXJzb25faWQiOiJwaWQ6MDE5M2ExZjJjNGI4N2QzZTlmMTBhMmIzYzRkNWU2ZjciLCJvaWQiOiIzZjZhMGMxZS01YjdkLTRlMmEtOWM0MS0wZDJlN2Y4YTliMTAiLCJmaXJzdF90b2tlbiI6ZmFsc2UsImF1dGhlbnRpY2F0ZWRfbWV0aG9kcyI6WyJvdHBfdmlhX2VtYWlsIl0sInBlcnNvbl90eXBlIjoicmVndWxhciIsImdyb3VwcyI6WyJlZGl0b3JzIl0sImV4cCI6MTc3MzQ4MzYxM30.q3Yw8n2JxT0bV5cP1sK7mR9dL4fH6gE2aZ0uN8iC3oWkXy1tQ5vB7jM9pS4eR2hD6lA0fG8zU3cY1nK5wT7xQ"
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["UserToken"];
                    };
                };
            };
            /** @description The proxy challenge is not completed yet; poll again in a second. */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "errors": [
                     *         {
                     *           "httpcode": 202,
                     *           "message": "challenge not completed yet"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getChallengePack: {
        parameters: {
            query?: never;
            header?: {
                /** @description Id of the organization the call acts on (sent by the SDK; required where the security of the operation names it). */
                "Keyway-OrgID"?: components["parameters"]["OrgIdHeader"];
                /** @description Version of the calling SDK, e.g. 3.29.3. */
                "Keyway-SdkVersion"?: components["parameters"]["SdkVersion"];
                /** @description Set by the SDK when it retries a call whose network request failed (1–5). */
                "Keyway-SdkRetryCount"?: components["parameters"]["SdkRetryCount"];
            };
            path: {
                /** @description Challenge pack id received in a URL parameter. */
                challenge_pack_id: components["parameters"]["ChallengePackIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The challenges of the pack (`result` is the list itself). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": [
                     *         {
                     *           "id": "ch_01JD8Z6X2K9Q4M7R3T5V8W1Y0A",
                     *           "type": "nonce",
                     *           "authentication_method": "direct_id",
                     *           "options": {
                     *             "challenge": "Zq3vT8kB1xR6nW0p"
                     *           }
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["ChallengeList"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getMe: {
        parameters: {
            query?: never;
            header?: {
                /** @description Version of the calling SDK, e.g. 3.29.3. */
                "Keyway-SdkVersion"?: components["parameters"]["SdkVersion"];
                /** @description Set by the SDK when it retries a call whose network request failed (1–5). */
                "Keyway-SdkRetryCount"?: components["parameters"]["SdkRetryCount"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "person": {
                     *           "person_id": "pid:0193a1f2c4b87d3e9f10a2b3c4d5e6f7",
                     *           "active": true,
                     *           "person_type": "regular",
                     *           "region": "europe-belgium",
                     *           "handles": [
                     *             {
                     *               "type": "email_address",
                     *               "value": "ada@example.com"
                     *             },
                     *             {
                     *               "type": "phone_number",
                     *               "value": "+447700900123"
                     *             }
                     *           ],
                     *           "groups": [
                     *             "editors"
                     *           ],
                     *           "attributes": {
                     *             "end_user_read_write": {
                     *               "theme": "dark",
                     *               "newsletter": true
                     *             }
                     *           }
                     *         },
                     *         "organizations": [
                     *           {
                     *             "id": "3f6a0c1e-5b7d-4e2a-9c41-0d2e7f8a9b10",
                     *             "parent_id": null,
                     *             "org_name": "Acme Docs",
                     *             "tenant_name": "acme",
                     *             "persons_pool_org_ids": [],
                     *             "group_pool_org_ids": [
                     *               "3f6a0c1e-5b7d-4e2a-9c41-0d2e7f8a9b10"
                     *             ],
                     *             "inherits_rbac_pools": false,
                     *             "managed_organizations": [
                     *               {
                     *                 "id": "7c2d9e41-1a3b-4c5d-8e6f-a0b1c2d3e4f5",
                     *                 "parent_id": "3f6a0c1e-5b7d-4e2a-9c41-0d2e7f8a9b10",
                     *                 "org_name": "Acme Docs EU",
                     *                 "tenant_name": "acme"
                     *               }
                     *             ]
                     *           }
                     *         ],
                     *         "handles": [
                     *           {
                     *             "type": "email_address",
                     *             "value": "ada@example.com"
                     *           },
                     *           {
                     *             "type": "phone_number",
                     *             "value": "+447700900123"
                     *           }
                     *         ],
                     *         "credentials": [
                     *           {
                     *             "id": "cred_01JD8ZA1",
                     *             "type": "password",
                     *             "label": "Password",
                     *             "last_used": "2026-03-14T09:20:00Z",
                     *             "params": {
                     *               "hash_algorithm": "scrypt"
                     *             }
                     *           },
                     *           {
                     *             "id": "cred_01JD8ZA2",
                     *             "type": "totp",
                     *             "label": "Authenticator app",
                     *             "last_used": null,
                     *             "params": {
                     *               "recovery_codes_total": 10,
                     *               "recovery_codes_unused": 9
                     *             }
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["MeResponse"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getMeOrgs: {
        parameters: {
            query?: never;
            header?: {
                /** @description Version of the calling SDK, e.g. 3.29.3. */
                "Keyway-SdkVersion"?: components["parameters"]["SdkVersion"];
                /** @description Set by the SDK when it retries a call whose network request failed (1–5). */
                "Keyway-SdkRetryCount"?: components["parameters"]["SdkRetryCount"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "org_hierarchy": [
                     *           {
                     *             "id": "3f6a0c1e-5b7d-4e2a-9c41-0d2e7f8a9b10",
                     *             "parent_id": null,
                     *             "name": "Acme Docs",
                     *             "tenant_name": "acme",
                     *             "children_ids": [
                     *               "7c2d9e41-1a3b-4c5d-8e6f-a0b1c2d3e4f5"
                     *             ],
                     *             "person_pool_orgs_ids": [
                     *               "3f6a0c1e-5b7d-4e2a-9c41-0d2e7f8a9b10",
                     *               "7c2d9e41-1a3b-4c5d-8e6f-a0b1c2d3e4f5"
                     *             ],
                     *             "group_pool_orgs_ids": [
                     *               "3f6a0c1e-5b7d-4e2a-9c41-0d2e7f8a9b10"
                     *             ],
                     *             "manager_org_id": null,
                     *             "person_in_manager_org": true,
                     *             "inherits_rbac_pools": false
                     *           },
                     *           {
                     *             "id": "7c2d9e41-1a3b-4c5d-8e6f-a0b1c2d3e4f5",
                     *             "parent_id": "3f6a0c1e-5b7d-4e2a-9c41-0d2e7f8a9b10",
                     *             "name": "Acme Docs EU",
                     *             "tenant_name": "acme",
                     *             "children_ids": [],
                     *             "person_pool_orgs_ids": [
                     *               "3f6a0c1e-5b7d-4e2a-9c41-0d2e7f8a9b10",
                     *               "7c2d9e41-1a3b-4c5d-8e6f-a0b1c2d3e4f5"
                     *             ],
                     *             "group_pool_orgs_ids": [
                     *               "7c2d9e41-1a3b-4c5d-8e6f-a0b1c2d3e4f5"
                     *             ],
                     *             "manager_org_id": "3f6a0c1e-5b7d-4e2a-9c41-0d2e7f8a9b10",
                     *             "person_in_manager_org": true,
                     *             "inherits_rbac_pools": true
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["MeOrgsResponse"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getToken: {
        parameters: {
            query?: never;
            header?: {
                /** @description Id of the organization the call acts on (sent by the SDK; required where the security of the operation names it). */
                "Keyway-OrgID"?: components["parameters"]["OrgIdHeader"];
                /** @description Version of the calling SDK, e.g. 3.29.3. */
                "Keyway-SdkVersion"?: components["parameters"]["SdkVersion"];
                /** @description Set by the SDK when it retries a call whose network request failed (1–5). */
                "Keyway-SdkRetryCount"?: components["parameters"]["SdkRetryCount"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "type": "token",
                     *         "token": "eyJhbGciOiJFUzI1NiIsImtpZCI6ImstMjAyNi0wMyIsInR5cCI6IkpXVCJ9.eyJwZXJzb25faWQiOiJwaWQ6MDE5M2ExZjJjNGI4N2QzZTlmMTBhMmIzYzRkNWU2ZjciLCJvaWQiOiIzZjZhMGMxZS01YjdkLTRlMmEtOWM0MS0wZDJlN2Y4YTliMTAiLCJmaXJzdF90b2tlbiI6ZmFsc2UsImF1dGhlbnRpY2F0ZWRfbWV0aG9kcyI6WyJvdHBfdmlhX2VtYWlsIl0sInBlcnNvbl90eXBlIjoicmVndWxhciIsImdyb3VwcyI6WyJlZGl0b3JzIl0sImV4cCI6MTc3MzQ4MzYxM30.q3Yw8n2JxT0bV5cP1sK7mR9dL4fH6gE2aZ0uN8iC3oWkXy1tQ5vB7jM9pS4eR2hD6lA0fG8zU3cY1nK5wT7xQ"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["TokenOrChallengeList"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getTokenV2: {
        parameters: {
            query?: never;
            header?: {
                /** @description Id of the organization the call acts on (sent by the SDK; required where the security of the operation names it). */
                "Keyway-OrgID"?: components["parameters"]["OrgIdHeader"];
                /** @description Version of the calling SDK, e.g. 3.29.3. */
                "Keyway-SdkVersion"?: components["parameters"]["SdkVersion"];
                /** @description Set by the SDK when it retries a call whose network request failed (1–5). */
                "Keyway-SdkRetryCount"?: components["parameters"]["SdkRetryCount"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "type": "token",
                     *         "token": "eyJhbGciOiJFUzI1NiIsImtpZCI6ImstMjAyNi0wMyIsInR5cCI6IkpXVCJ9.eyJwZXJzb25faWQiOiJwaWQ6MDE5M2ExZjJjNGI4N2QzZTlmMTBhMmIzYzRkNWU2ZjciLCJvaWQiOiIzZjZhMGMxZS01YjdkLTRlMmEtOWM0MS0wZDJlN2Y4YTliMTAiLCJmaXJzdF90b2tlbiI6ZmFsc2UsImF1dGhlbnRpY2F0ZWRfbWV0aG9kcyI6WyJvdHBfdmlhX2VtYWlsIl0sInBlcnNvbl90eXBlIjoicmVndWxhciIsImdyb3VwcyI6WyJlZGl0b3JzIl0sImV4cCI6MTc3MzQ4MzYxM30.q3Yw8n2JxT0bV5cP1sK7mR9dL4fH6gE2aZ0uN8iC3oWkXy1tQ5vB7jM9pS4eR2hD6lA0fG8zU3cY1nK5wT7xQ"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["TokenOrChallengeList"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    postTokenV2: {
        parameters: {
            query?: never;
            header?: {
                /** @description Id of the organization the call acts on (sent by the SDK; required where the security of the operation names it). */
                "Keyway-OrgID"?: components["parameters"]["OrgIdHeader"];
                /** @description Version of the calling SDK, e.g. 3.29.3. */
                "Keyway-SdkVersion"?: components["parameters"]["SdkVersion"];
                /** @description Set by the SDK when it retries a call whose network request failed (1–5). */
                "Keyway-SdkRetryCount"?: components["parameters"]["SdkRetryCount"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "metadata": {
                 *         "csrf_token": "b6c1e0f2a9d84c7e91f3",
                 *         "pkce_code_challenge": "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["TokenForOrganizationRequest"];
            };
        };
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "type": "token",
                     *         "token": "eyJhbGciOiJFUzI1NiIsImtpZCI6ImstMjAyNi0wMyIsInR5cCI6IkpXVCJ9.eyJwZXJzb25faWQiOiJwaWQ6MDE5M2ExZjJjNGI4N2QzZTlmMTBhMmIzYzRkNWU2ZjciLCJvaWQiOiIzZjZhMGMxZS01YjdkLTRlMmEtOWM0MS0wZDJlN2Y4YTliMTAiLCJmaXJzdF90b2tlbiI6ZmFsc2UsImF1dGhlbnRpY2F0ZWRfbWV0aG9kcyI6WyJvdHBfdmlhX2VtYWlsIl0sInBlcnNvbl90eXBlIjoicmVndWxhciIsImdyb3VwcyI6WyJlZGl0b3JzIl0sImV4cCI6MTc3MzQ4MzYxM30.q3Yw8n2JxT0bV5cP1sK7mR9dL4fH6gE2aZ0uN8iC3oWkXy1tQ5vB7jM9pS4eR2hD6lA0fG8zU3cY1nK5wT7xQ"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["TokenOrChallengeList"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    postRecover: {
        parameters: {
            query?: never;
            header?: {
                /** @description Id of the organization the call acts on (sent by the SDK; required where the security of the operation names it). */
                "Keyway-OrgID"?: components["parameters"]["OrgIdHeader"];
                /** @description Version of the calling SDK, e.g. 3.29.3. */
                "Keyway-SdkVersion"?: components["parameters"]["SdkVersion"];
                /** @description Set by the SDK when it retries a call whose network request failed (1–5). */
                "Keyway-SdkRetryCount"?: components["parameters"]["SdkRetryCount"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "handle": {
                 *         "type": "email_address",
                 *         "value": "ada@example.com"
                 *       },
                 *       "factor": {
                 *         "method": "password"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["RecoverRequest"];
            };
        };
        responses: {
            /** @description Challenges to complete, in order (`result` is the list itself): the code or link, then the new password. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": [
                     *         {
                     *           "id": "ch_01JD8Z6X2K9Q4M7R3T5V8W1Y0A",
                     *           "type": "otp",
                     *           "authentication_method": "otp_via_email",
                     *           "options": {}
                     *         },
                     *         {
                     *           "id": "a3f1c2d4-5b6e-4f70-8a9b-0c1d2e3f4a5b",
                     *           "type": "password_reset",
                     *           "authentication_method": "password",
                     *           "options": {
                     *             "validation_rules": {
                     *               "regular_expressions": []
                     *             }
                     *           }
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["ChallengeList"];
                    };
                };
            };
            400: components["responses"]["IdBadRequest"];
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            502: components["responses"]["MessageNotSent"];
        };
    };
    postSsoResolve: {
        parameters: {
            query?: never;
            header?: {
                /** @description Id of the organization the call acts on (sent by the SDK; required where the security of the operation names it). */
                "Keyway-OrgID"?: components["parameters"]["OrgIdHeader"];
                /** @description Version of the calling SDK, e.g. 3.29.3. */
                "Keyway-SdkVersion"?: components["parameters"]["SdkVersion"];
                /** @description Set by the SDK when it retries a call whose network request failed (1–5). */
                "Keyway-SdkRetryCount"?: components["parameters"]["SdkRetryCount"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "challenge_id": "ch_01JD8Z6X2K9Q4M7R3T5V8W1Y0A",
                 *       "code": "sso_6f1b2c9d0e",
                 *       "pkce_code_verifier": "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
                 *     }
                 */
                "application/json": components["schemas"]["SsoResolveRequest"];
            };
        };
        responses: {
            /** @description The challenge is completed. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["AttestationUnauthorized"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    postPersonsAnonymous: {
        parameters: {
            query?: never;
            header?: {
                /** @description Id of the organization the call acts on (sent by the SDK; required where the security of the operation names it). */
                "Keyway-OrgID"?: components["parameters"]["OrgIdHeader"];
                /** @description Version of the calling SDK, e.g. 3.29.3. */
                "Keyway-SdkVersion"?: components["parameters"]["SdkVersion"];
                /** @description Set by the SDK when it retries a call whose network request failed (1–5). */
                "Keyway-SdkRetryCount"?: components["parameters"]["SdkRetryCount"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "region": "europe-belgium"
                 *     }
                 */
                "application/json": components["schemas"]["AnonymousPersonRequest"];
            };
        };
        responses: {
            /** @description `result` is the anonymous person's token. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": "eyJhbGciOiJFUzI1NiIsImtpZCI6ImstMjAyNi0wMyIsInR5cCI6IkpXVCJ9.eyJwZXJzb25faWQiOiJwaWQ6MDE5M2ExZjJjNGI4N2QzZTlmMTBhMmIzYzRkNWU2ZjciLCJvaWQiOiIzZjZhMGMxZS01YjdkLTRlMmEtOWM0MS0wZDJlN2Y4YTliMTAiLCJmaXJzdF90b2tlbiI6ZmFsc2UsImF1dGhlbnRpY2F0ZWRfbWV0aG9kcyI6WyJvdHBfdmlhX2VtYWlsIl0sInBlcnNvbl90eXBlIjoicmVndWxhciIsImdyb3VwcyI6WyJlZGl0b3JzIl0sImV4cCI6MTc3MzQ4MzYxM30.q3Yw8n2JxT0bV5cP1sK7mR9dL4fH6gE2aZ0uN8iC3oWkXy1tQ5vB7jM9pS4eR2hD6lA0fG8zU3cY1nK5wT7xQ"
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["UserToken"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    postPersonImpersonate: {
        parameters: {
            query?: never;
            header?: {
                /** @description Id of the organization the call acts on (sent by the SDK; required where the security of the operation names it). */
                "Keyway-OrgID"?: components["parameters"]["OrgIdHeader"];
                /** @description Version of the calling SDK, e.g. 3.29.3. */
                "Keyway-SdkVersion"?: components["parameters"]["SdkVersion"];
                /** @description Set by the SDK when it retries a call whose network request failed (1–5). */
                "Keyway-SdkRetryCount"?: components["parameters"]["SdkRetryCount"];
            };
            path: {
                /** @description The person the operation applies to. */
                person_id: components["parameters"]["PersonIdPath"];
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "target_url": "https://app.example.com/"
                 *     }
                 */
                "application/json": components["schemas"]["ImpersonateRequest"];
            };
        };
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "token": "eyJhbGciOiJFUzI1NiIsImtpZCI6ImstMjAyNi0wMyIsInR5cCI6IkpXVCJ9.eyJwZXJzb25faWQiOiJwaWQ6MDE5M2ExZjJjNGI4N2QzZTlmMTBhMmIzYzRkNWU2ZjciLCJvaWQiOiIzZjZhMGMxZS01YjdkLTRlMmEtOWM0MS0wZDJlN2Y4YTliMTAiLCJmaXJzdF90b2tlbiI6ZmFsc2UsImF1dGhlbnRpY2F0ZWRfbWV0aG9kcyI6WyJvdHBfdmlhX2VtYWlsIl0sInBlcnNvbl90eXBlIjoicmVndWxhciIsImdyb3VwcyI6WyJlZGl0b3JzIl0sImV4cCI6MTc3MzQ4MzYxM30.q3Yw8n2JxT0bV5cP1sK7mR9dL4fH6gE2aZ0uN8iC3oWkXy1tQ5vB7jM9pS4eR2hD6lA0fG8zU3cY1nK5wT7xQ",
                     *         "url": "https://app.example.com/?challenge_pack_id=cp_01JD8ZC4"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["ImpersonateResult"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    postPersonImpersonateV2: {
        parameters: {
            query?: never;
            header?: {
                /** @description Id of the organization the call acts on (sent by the SDK; required where the security of the operation names it). */
                "Keyway-OrgID"?: components["parameters"]["OrgIdHeader"];
                /** @description Version of the calling SDK, e.g. 3.29.3. */
                "Keyway-SdkVersion"?: components["parameters"]["SdkVersion"];
                /** @description Set by the SDK when it retries a call whose network request failed (1–5). */
                "Keyway-SdkRetryCount"?: components["parameters"]["SdkRetryCount"];
            };
            path: {
                /** @description The person the operation applies to. */
                person_id: components["parameters"]["PersonIdPath"];
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "target_url": "https://app.example.com/"
                 *     }
                 */
                "application/json": components["schemas"]["ImpersonateRequest"];
            };
        };
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "token": "eyJhbGciOiJFUzI1NiIsImtpZCI6ImstMjAyNi0wMyIsInR5cCI6IkpXVCJ9.eyJwZXJzb25faWQiOiJwaWQ6MDE5M2ExZjJjNGI4N2QzZTlmMTBhMmIzYzRkNWU2ZjciLCJvaWQiOiIzZjZhMGMxZS01YjdkLTRlMmEtOWM0MS0wZDJlN2Y4YTliMTAiLCJmaXJzdF90b2tlbiI6ZmFsc2UsImF1dGhlbnRpY2F0ZWRfbWV0aG9kcyI6WyJvdHBfdmlhX2VtYWlsIl0sInBlcnNvbl90eXBlIjoicmVndWxhciIsImdyb3VwcyI6WyJlZGl0b3JzIl0sImV4cCI6MTc3MzQ4MzYxM30.q3Yw8n2JxT0bV5cP1sK7mR9dL4fH6gE2aZ0uN8iC3oWkXy1tQ5vB7jM9pS4eR2hD6lA0fG8zU3cY1nK5wT7xQ",
                     *         "url": "https://app.example.com/?challenge_pack_id=cp_01JD8ZC4"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["ImpersonateResult"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    postDirectId: {
        parameters: {
            query?: never;
            header?: {
                /** @description Version of the calling SDK, e.g. 3.29.3. */
                "Keyway-SdkVersion"?: components["parameters"]["SdkVersion"];
                /** @description Set by the SDK when it retries a call whose network request failed (1–5). */
                "Keyway-SdkRetryCount"?: components["parameters"]["SdkRetryCount"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description `result` is the direct id. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": "eyJvaWQiOiIzZjZhMGMxZSJ9.c2lnbmF0dXJl"
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        /** @description Opaque single-use value; pass it to the SDK (URL parameter) to sign the person in. */
                        result: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getMyAttributes: {
        parameters: {
            query?: {
                /** @description Comma-joined list of buckets to read; all readable buckets when absent. */
                buckets?: components["parameters"]["BucketsQuery"];
            };
            header?: {
                /** @description Version of the calling SDK, e.g. 3.29.3. */
                "Keyway-SdkVersion"?: components["parameters"]["SdkVersion"];
                /** @description Set by the SDK when it retries a call whose network request failed (1–5). */
                "Keyway-SdkRetryCount"?: components["parameters"]["SdkRetryCount"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "end_user_read_write": {
                     *           "theme": "dark"
                     *         },
                     *         "end_user_read_only": {
                     *           "plan": "pro"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["AttributesByBucket"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    putMyAttributes: {
        parameters: {
            query?: never;
            header?: {
                /** @description Version of the calling SDK, e.g. 3.29.3. */
                "Keyway-SdkVersion"?: components["parameters"]["SdkVersion"];
                /** @description Set by the SDK when it retries a call whose network request failed (1–5). */
                "Keyway-SdkRetryCount"?: components["parameters"]["SdkRetryCount"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "end_user_read_write": {
                 *         "theme": "light",
                 *         "locale": "en-GB"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["AttributesByBucket"];
            };
        };
        responses: {
            /** @description The stored attributes of the written buckets. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "end_user_read_write": {
                     *           "theme": "light",
                     *           "locale": "en-GB",
                     *           "newsletter": true
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["AttributesByBucket"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    patchMyAttributes: {
        parameters: {
            query?: never;
            header?: {
                /** @description Version of the calling SDK, e.g. 3.29.3. */
                "Keyway-SdkVersion"?: components["parameters"]["SdkVersion"];
                /** @description Set by the SDK when it retries a call whose network request failed (1–5). */
                "Keyway-SdkRetryCount"?: components["parameters"]["SdkRetryCount"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "end_user_read_write": {
                 *         "theme": "light",
                 *         "locale": "en-GB"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["AttributesByBucket"];
            };
        };
        responses: {
            /** @description The stored attributes of the written buckets. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "end_user_read_write": {
                     *           "theme": "light",
                     *           "locale": "en-GB",
                     *           "newsletter": true
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["AttributesByBucket"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getMyBucketAttributes: {
        parameters: {
            query?: {
                /** @description Comma-joined attribute names; all attributes of the bucket when absent. */
                attributes?: components["parameters"]["AttributesQuery"];
            };
            header?: {
                /** @description Version of the calling SDK, e.g. 3.29.3. */
                "Keyway-SdkVersion"?: components["parameters"]["SdkVersion"];
                /** @description Set by the SDK when it retries a call whose network request failed (1–5). */
                "Keyway-SdkRetryCount"?: components["parameters"]["SdkRetryCount"];
            };
            path: {
                /** @description Attribute bucket. */
                bucket_name: components["parameters"]["BucketNamePath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "theme": "dark",
                     *         "newsletter": true
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["Attributes"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    putMyBucketAttributes: {
        parameters: {
            query?: never;
            header?: {
                /** @description Version of the calling SDK, e.g. 3.29.3. */
                "Keyway-SdkVersion"?: components["parameters"]["SdkVersion"];
                /** @description Set by the SDK when it retries a call whose network request failed (1–5). */
                "Keyway-SdkRetryCount"?: components["parameters"]["SdkRetryCount"];
            };
            path: {
                /** @description Attribute bucket. */
                bucket_name: components["parameters"]["BucketNamePath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "theme": "light"
                 *     }
                 */
                "application/json": components["schemas"]["Attributes"];
            };
        };
        responses: {
            /** @description The stored attributes of the bucket. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "theme": "light",
                     *         "newsletter": true
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["Attributes"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    deleteMyBucketAttributes: {
        parameters: {
            query: {
                /** @description Comma-joined names of the attributes to delete. */
                attributes: string[];
            };
            header?: {
                /** @description Version of the calling SDK, e.g. 3.29.3. */
                "Keyway-SdkVersion"?: components["parameters"]["SdkVersion"];
                /** @description Set by the SDK when it retries a call whose network request failed (1–5). */
                "Keyway-SdkRetryCount"?: components["parameters"]["SdkRetryCount"];
            };
            path: {
                /** @description Attribute bucket. */
                bucket_name: components["parameters"]["BucketNamePath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The attributes left in the bucket. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "newsletter": true
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["Attributes"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    patchMyBucketAttributes: {
        parameters: {
            query?: never;
            header?: {
                /** @description Version of the calling SDK, e.g. 3.29.3. */
                "Keyway-SdkVersion"?: components["parameters"]["SdkVersion"];
                /** @description Set by the SDK when it retries a call whose network request failed (1–5). */
                "Keyway-SdkRetryCount"?: components["parameters"]["SdkRetryCount"];
            };
            path: {
                /** @description Attribute bucket. */
                bucket_name: components["parameters"]["BucketNamePath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "theme": "light"
                 *     }
                 */
                "application/json": components["schemas"]["Attributes"];
            };
        };
        responses: {
            /** @description The stored attributes of the bucket. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "theme": "light",
                     *         "newsletter": true
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["Attributes"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getMyGdprConsent: {
        parameters: {
            query?: never;
            header?: {
                /** @description Version of the calling SDK, e.g. 3.29.3. */
                "Keyway-SdkVersion"?: components["parameters"]["SdkVersion"];
                /** @description Set by the SDK when it retries a call whose network request failed (1–5). */
                "Keyway-SdkRetryCount"?: components["parameters"]["SdkRetryCount"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "consents": [
                     *           {
                     *             "consent_level": "necessary",
                     *             "created_at": "2026-03-14T09:26:53Z"
                     *           },
                     *           {
                     *             "consent_level": "analytics",
                     *             "created_at": "2026-03-14T09:26:53Z"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["GdprConsentList"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    putMyGdprConsent: {
        parameters: {
            query?: never;
            header?: {
                /** @description Version of the calling SDK, e.g. 3.29.3. */
                "Keyway-SdkVersion"?: components["parameters"]["SdkVersion"];
                /** @description Set by the SDK when it retries a call whose network request failed (1–5). */
                "Keyway-SdkRetryCount"?: components["parameters"]["SdkRetryCount"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "consent_levels": [
                 *         "necessary",
                 *         "analytics"
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["GdprConsentRequest"];
            };
        };
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "consents": [
                     *           {
                     *             "consent_level": "necessary",
                     *             "created_at": "2026-03-14T09:26:53Z"
                     *           },
                     *           {
                     *             "consent_level": "analytics",
                     *             "created_at": "2026-03-14T09:26:53Z"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["GdprConsentList"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    postMyGdprConsent: {
        parameters: {
            query?: never;
            header?: {
                /** @description Version of the calling SDK, e.g. 3.29.3. */
                "Keyway-SdkVersion"?: components["parameters"]["SdkVersion"];
                /** @description Set by the SDK when it retries a call whose network request failed (1–5). */
                "Keyway-SdkRetryCount"?: components["parameters"]["SdkRetryCount"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "consent_levels": [
                 *         "analytics"
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["GdprConsentRequest"];
            };
        };
        responses: {
            /** @description Created. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "consents": [
                     *           {
                     *             "consent_level": "necessary",
                     *             "created_at": "2026-03-14T09:26:53Z"
                     *           },
                     *           {
                     *             "consent_level": "analytics",
                     *             "created_at": "2026-03-14T09:26:53Z"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["GdprConsentList"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    deleteMyGdprConsent: {
        parameters: {
            query?: {
                /**
                 * @description Levels to remove, the parameter repeated (`consent_levels=analytics&consent_levels=marketing`, as the published client sends them); one comma-joined value is accepted too.
                 * @example [
                 *       "marketing"
                 *     ]
                 */
                consent_levels?: components["schemas"]["ConsentLevel"][];
                /** @description Remove every level; use instead of consent_levels. */
                deleteAll?: boolean;
            };
            header?: {
                /** @description Version of the calling SDK, e.g. 3.29.3. */
                "Keyway-SdkVersion"?: components["parameters"]["SdkVersion"];
                /** @description Set by the SDK when it retries a call whose network request failed (1–5). */
                "Keyway-SdkRetryCount"?: components["parameters"]["SdkRetryCount"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Removed. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    postTokenValidate: {
        parameters: {
            query?: never;
            header?: {
                /** @description Id of the organization the call acts on (sent by the SDK; required where the security of the operation names it). */
                "Keyway-OrgID"?: components["parameters"]["OrgIdHeader"];
                /** @description Version of the calling SDK, e.g. 3.29.3. */
                "Keyway-SdkVersion"?: components["parameters"]["SdkVersion"];
                /** @description Set by the SDK when it retries a call whose network request failed (1–5). */
                "Keyway-SdkRetryCount"?: components["parameters"]["SdkRetryCount"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "token": "eyJhbGciOiJFUzI1NiIsImtpZCI6ImstMjAyNi0wMyIsInR5cCI6IkpXVCJ9.eyJwZXJzb25faWQiOiJwaWQ6MDE5M2ExZjJjNGI4N2QzZTlmMTBhMmIzYzRkNWU2ZjciLCJvaWQiOiIzZjZhMGMxZS01YjdkLTRlMmEtOWM0MS0wZDJlN2Y4YTliMTAiLCJmaXJzdF90b2tlbiI6ZmFsc2UsImF1dGhlbnRpY2F0ZWRfbWV0aG9kcyI6WyJvdHBfdmlhX2VtYWlsIl0sInBlcnNvbl90eXBlIjoicmVndWxhciIsImdyb3VwcyI6WyJlZGl0b3JzIl0sImV4cCI6MTc3MzQ4MzYxM30.q3Yw8n2JxT0bV5cP1sK7mR9dL4fH6gE2aZ0uN8iC3oWkXy1tQ5vB7jM9pS4eR2hD6lA0fG8zU3cY1nK5wT7xQ"
                 *     }
                 */
                "application/json": components["schemas"]["TokenRequest"];
            };
        };
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "valid": true,
                     *         "expires_in_seconds": 3540,
                     *         "expires_at": "2026-03-14T10:26:53Z"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["TokenValidationResult"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    postTokenRevoke: {
        parameters: {
            query?: never;
            header?: {
                /** @description Id of the organization the call acts on (sent by the SDK; required where the security of the operation names it). */
                "Keyway-OrgID"?: components["parameters"]["OrgIdHeader"];
                /** @description Version of the calling SDK, e.g. 3.29.3. */
                "Keyway-SdkVersion"?: components["parameters"]["SdkVersion"];
                /** @description Set by the SDK when it retries a call whose network request failed (1–5). */
                "Keyway-SdkRetryCount"?: components["parameters"]["SdkRetryCount"];
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "token": "eyJhbGciOiJFUzI1NiIsImtpZCI6ImstMjAyNi0wMyIsInR5cCI6IkpXVCJ9.eyJwZXJzb25faWQiOiJwaWQ6MDE5M2ExZjJjNGI4N2QzZTlmMTBhMmIzYzRkNWU2ZjciLCJvaWQiOiIzZjZhMGMxZS01YjdkLTRlMmEtOWM0MS0wZDJlN2Y4YTliMTAiLCJmaXJzdF90b2tlbiI6ZmFsc2UsImF1dGhlbnRpY2F0ZWRfbWV0aG9kcyI6WyJvdHBfdmlhX2VtYWlsIl0sInBlcnNvbl90eXBlIjoicmVndWxhciIsImdyb3VwcyI6WyJlZGl0b3JzIl0sImV4cCI6MTc3MzQ4MzYxM30.q3Yw8n2JxT0bV5cP1sK7mR9dL4fH6gE2aZ0uN8iC3oWkXy1tQ5vB7jM9pS4eR2hD6lA0fG8zU3cY1nK5wT7xQ"
                 *     }
                 */
                "application/json": components["schemas"]["TokenRequest"];
            };
        };
        responses: {
            /** @description The token is revoked (or was already invalid). */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    postSdkAction: {
        parameters: {
            query?: never;
            header?: {
                /** @description Version of the calling SDK, e.g. 3.29.3. */
                "Keyway-SdkVersion"?: components["parameters"]["SdkVersion"];
                /** @description Set by the SDK when it retries a call whose network request failed (1–5). */
                "Keyway-SdkRetryCount"?: components["parameters"]["SdkRetryCount"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "event_name": "AuthenticationSucceeded_v1",
                 *       "organization_id": "org_keyway_dev",
                 *       "analytics_correlation_id": "c0rr-5e1f-4b2a",
                 *       "window_location": "https://docs.example.com/login",
                 *       "user_agent": "Mozilla/5.0 (X11; Linux x86_64)",
                 *       "event_data": {
                 *         "person_id": "pid:0193a1f2c4b87d3e9f10a2b3c4d5e6f7",
                 *         "success_authn_method": "otp_via_email",
                 *         "authenticated_methods": [
                 *           "otp_via_email"
                 *         ],
                 *         "handle": {
                 *           "type": "email_address",
                 *           "value": "ada@example.com"
                 *         }
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["AnalyticsEvent"];
            };
        };
        responses: {
            /** @description Stored. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "accepted": 1
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: {
                            accepted: number;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listEvents: {
        parameters: {
            query?: {
                /** @description Only events of this name. */
                event_name?: string;
                /** @description Page size (at most 1000). */
                limit?: components["parameters"]["Limit"];
                /** @description Number of items to skip. */
                offset?: components["parameters"]["Offset"];
                /** @description Where to continue: `meta.cursor_pagination.cursor` of the previous page. An empty cursor is the first page. Not together with `offset`. On `GET /persons` and `GET /events` a cursor is a place in the order: it keeps its place when items are added or removed before it, and a page costs the same at any depth. On the other lists it stands for an offset. */
                cursor?: components["parameters"]["Cursor"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": [
                     *         {
                     *           "id": 42,
                     *           "source": "sdk",
                     *           "event_name": "AuthenticationSucceeded_v1",
                     *           "person_id": "pid:0193a1f2c4b87d3e9f10a2b3c4d5e6f7",
                     *           "created_at": "2026-03-14T09:26:53Z",
                     *           "event": {
                     *             "event_name": "AuthenticationSucceeded_v1",
                     *             "organization_id": "org_keyway_dev",
                     *             "analytics_correlation_id": "c0rr-5e1f-4b2a",
                     *             "event_data": {
                     *               "person_id": "pid:0193a1f2c4b87d3e9f10a2b3c4d5e6f7",
                     *               "success_authn_method": "otp_via_email"
                     *             }
                     *           }
                     *         }
                     *       ],
                     *       "meta": {
                     *         "pagination": {
                     *           "limit": 100,
                     *           "offset": 0,
                     *           "total_count": 1
                     *         },
                     *         "cursor_pagination": {
                     *           "cursor": "",
                     *           "limit": 100,
                     *           "total_count": 1
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["StoredEvent"][];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    postEvents: {
        parameters: {
            query?: never;
            header?: {
                /** @description Version of the calling SDK, e.g. 3.29.3. */
                "Keyway-SdkVersion"?: components["parameters"]["SdkVersion"];
                /** @description Set by the SDK when it retries a call whose network request failed (1–5). */
                "Keyway-SdkRetryCount"?: components["parameters"]["SdkRetryCount"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example [
                 *       {
                 *         "event_name": "VirtualPageLoaded_v1",
                 *         "organization_id": "org_keyway_dev",
                 *         "analytics_correlation_id": "c0rr-5e1f-4b2a",
                 *         "window_location": "https://docs.example.com/docs/intro"
                 *       }
                 *     ]
                 */
                "application/json": components["schemas"]["AnalyticsEventBatch"];
            };
        };
        responses: {
            /** @description Stored. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "accepted": 1
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: {
                            accepted: number;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getOAuth2Authorize: {
        parameters: {
            query: {
                /**
                 * @description Registered OAuth2 client.
                 * @example keyway-dev-client
                 */
                client_id: components["schemas"]["OAuthClientId"];
                /**
                 * @description Must equal one of the client's registered redirect URIs (in development, any URI on an allowed browser origin).
                 * @example http://localhost:3000/callback
                 */
                redirect_uri: string;
                /** @description Only the authorization code flow is offered. */
                response_type: "code";
                /**
                 * @description Space-separated; must contain `openid`.
                 * @example openid email
                 */
                scope: string;
                /**
                 * @description CSRF token of the client, returned unchanged. Optional (it protects the client, which should send one).
                 * @example Zq3v9LkT2xW8
                 */
                state?: string;
                /**
                 * @description PKCE S256 code challenge (base64url of the SHA-256 of the `code_verifier` the token request sends). Required of public clients; a confidential client may leave PKCE out and authenticate with its secret at the token endpoint.
                 * @example E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM
                 */
                code_challenge?: string;
                /**
                 * @description Only S256, and it must be sent: without it RFC 7636 reads the challenge as `plain`, which Keyway refuses (the browser goes back to `redirect_uri` with `error=invalid_request`).
                 * @example S256
                 */
                code_challenge_method?: "S256";
                /** @description Copied into the id_token. */
                nonce?: string;
                /** @description Development servers only (ignored in production, where a bearer token never travels in a URL): a valid user token of the client's organization (not anonymous) skips the hosted page, as the session cookie does. */
                token?: string;
                /** @description An id_token this server issued to the client (it may have expired): with `prompt=none`, a signed-in person other than its subject answers `login_required`. */
                id_token_hint?: string;
                /** @description Not supported (request objects): answered with `error=request_not_supported`. */
                request?: string;
                /** @description Not supported: answered with `error=request_uri_not_supported`. */
                request_uri?: string;
                /**
                 * @description Space-separated OpenID Connect prompts: `none` (no page: back at once with a code when the browser has a session at this server, else with `error=login_required`), `login` and `select_account` (always the sign-in page, even with a session), `consent` (nothing to ask: clients belong to the organization).
                 * @example login
                 */
                prompt?: string;
                /**
                 * @description The e-mail address to prefill (also as `email_address:<address>`).
                 * @example ada@example.com
                 */
                login_hint?: string;
                /**
                 * @description Seconds: a session whose sign-in (`auth_time`) is older than this shows the sign-in page (with `prompt=none`: `login_required`).
                 * @example 3600
                 */
                max_age?: number;
                /**
                 * @description How the answer reaches `redirect_uri`: query parameters (default), the fragment, or a form posted to it.
                 * @example query
                 */
                response_mode?: "query" | "fragment" | "form_post";
                /**
                 * @description Handle types the page may offer (comma- or space-separated); the hosted page signs in by `email_address`, which must be among them.
                 * @example email_address
                 */
                handle_types?: string;
                /** @description Accepted; the page is responsive, so every display gets the same one. */
                display?: string;
                /** @description Accepted; the page is in English. */
                ui_locales?: string;
                /** @description Accepted; every sign-in has one assurance level (an e-mail code). */
                acr_values?: string;
            };
            header?: {
                /** @description Version of the calling SDK, e.g. 3.29.3. */
                "Keyway-SdkVersion"?: components["parameters"]["SdkVersion"];
                /** @description Set by the SDK when it retries a call whose network request failed (1–5). */
                "Keyway-SdkRetryCount"?: components["parameters"]["SdkRetryCount"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The hosted login page. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /** @example <!doctype html><title>Sign in</title> */
                    "text/html": string;
                };
            };
            /** @description Redirect to the hosted login page or, once signed in, back to redirect_uri with code and state. */
            302: {
                headers: {
                    /** @description Where the browser goes next. */
                    Location?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    postOAuth2Authorize: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "response_type": "code",
                 *       "client_id": "keyway-dev-client",
                 *       "redirect_uri": "http://localhost:3000/callback",
                 *       "scope": "openid",
                 *       "code_challenge": "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
                 *       "code_challenge_method": "S256"
                 *     }
                 */
                "application/x-www-form-urlencoded": {
                    /** @description Registered OAuth2 client. */
                    client_id?: components["schemas"]["OAuthClientId"];
                    /**
                     * Format: uri
                     * @description Must equal one of the client's registered redirect URIs (in development, any URI on an allowed browser origin).
                     */
                    redirect_uri?: string;
                    /**
                     * @description Only the authorization code flow is offered.
                     * @constant
                     */
                    response_type?: "code";
                    /** @description Space-separated; must contain `openid`. */
                    scope?: string;
                    /** @description CSRF token of the client, returned unchanged. Optional (it protects the client, which should send one). */
                    state?: string;
                    /** @description PKCE S256 code challenge (base64url of the SHA-256 of the `code_verifier` the token request sends). Required of public clients; a confidential client may leave PKCE out and authenticate with its secret at the token endpoint. */
                    code_challenge?: string;
                    /**
                     * @description Only S256, and it must be sent: without it RFC 7636 reads the challenge as `plain`, which Keyway refuses (the browser goes back to `redirect_uri` with `error=invalid_request`).
                     * @constant
                     */
                    code_challenge_method?: "S256";
                    /** @description Copied into the id_token. */
                    nonce?: string;
                    /** @description Development servers only (ignored in production, where a bearer token never travels in a URL): a valid user token of the client's organization (not anonymous) skips the hosted page, as the session cookie does. */
                    token?: string;
                    /** @description An id_token this server issued to the client (it may have expired): with `prompt=none`, a signed-in person other than its subject answers `login_required`. */
                    id_token_hint?: string;
                    /** @description Not supported (request objects): answered with `error=request_not_supported`. */
                    request?: string;
                    /** @description Not supported: answered with `error=request_uri_not_supported`. */
                    request_uri?: string;
                    /** @description Space-separated OpenID Connect prompts: `none` (no page: back at once with a code when the browser has a session at this server, else with `error=login_required`), `login` and `select_account` (always the sign-in page, even with a session), `consent` (nothing to ask: clients belong to the organization). */
                    prompt?: string;
                    /** @description The e-mail address to prefill (also as `email_address:<address>`). */
                    login_hint?: string;
                    /** @description Seconds: a session whose sign-in (`auth_time`) is older than this shows the sign-in page (with `prompt=none`: `login_required`). */
                    max_age?: string;
                    /**
                     * @description How the answer reaches `redirect_uri`: query parameters (default), the fragment, or a form posted to it.
                     * @enum {string}
                     */
                    response_mode?: "query" | "fragment" | "form_post";
                    /** @description Handle types the page may offer (comma- or space-separated); the hosted page signs in by `email_address`, which must be among them. */
                    handle_types?: string;
                    /** @description Accepted; the page is responsive, so every display gets the same one. */
                    display?: string;
                    /** @description Accepted; the page is in English. */
                    ui_locales?: string;
                    /** @description Accepted; every sign-in has one assurance level (an e-mail code). */
                    acr_values?: string;
                };
            };
        };
        responses: {
            /** @description The hosted login page. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /** @example <!doctype html><title>Sign in</title> */
                    "text/html": string;
                };
            };
            /** @description Redirect to the hosted login page or, once signed in, back to redirect_uri with code and state. */
            302: {
                headers: {
                    /** @description Where the browser goes next. */
                    Location?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getOAuth2Logout: {
        parameters: {
            query?: {
                /** @description An id_token this server issued (it may have expired): names the client and the person, and ends the session without asking. */
                id_token_hint?: string;
                /** @description Where to send the browser afterwards; must be one of the client's `post_logout_redirect_uris` (in development, also any address on an allowed browser origin). */
                post_logout_redirect_uri?: string;
                /**
                 * @description The client, when no id_token_hint names it.
                 * @example keyway-dev-client
                 */
                client_id?: components["schemas"]["OAuthClientId"];
                /** @description Returned unchanged with the redirect. */
                state?: string;
                /** @description Accepted; the session named by the cookie is the one ended. */
                logout_hint?: string;
                /** @description Accepted; the page is in English. */
                ui_locales?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The "signed out" page, or the page that asks to confirm. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /** @example <!doctype html><title>Signed out</title> */
                    "text/html": string;
                };
            };
            /** @description Signed out: back to post_logout_redirect_uri with state. */
            302: {
                headers: {
                    /** @description post_logout_redirect_uri with state. */
                    Location?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    postOAuth2Logout: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "state": "x1y2z3"
                 *     }
                 */
                "application/x-www-form-urlencoded": {
                    /** @description An id_token this server issued (it may have expired): names the client and the person, and ends the session without asking. */
                    id_token_hint?: string;
                    /**
                     * Format: uri
                     * @description Where to send the browser afterwards; must be one of the client's `post_logout_redirect_uris` (in development, also any address on an allowed browser origin).
                     */
                    post_logout_redirect_uri?: string;
                    /** @description The client, when no id_token_hint names it. */
                    client_id?: components["schemas"]["OAuthClientId"];
                    /** @description Returned unchanged with the redirect. */
                    state?: string;
                    /** @description Accepted; the session named by the cookie is the one ended. */
                    logout_hint?: string;
                    /** @description Accepted; the page is in English. */
                    ui_locales?: string;
                    /**
                     * @description Sent by the confirmation page: the person asked to sign out.
                     * @enum {string}
                     */
                    confirm?: "yes";
                };
            };
        };
        responses: {
            /** @description The "signed out" page, or the page that asks to confirm. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /** @example <!doctype html><title>Signed out</title> */
                    "text/html": string;
                };
            };
            /** @description Signed out: back to post_logout_redirect_uri with state. */
            302: {
                headers: {
                    /** @description post_logout_redirect_uri with state. */
                    Location?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    postOAuth2Tokens: {
        parameters: {
            query?: never;
            header?: {
                /** @description Version of the calling SDK, e.g. 3.29.3. */
                "Keyway-SdkVersion"?: components["parameters"]["SdkVersion"];
                /** @description Set by the SDK when it retries a call whose network request failed (1–5). */
                "Keyway-SdkRetryCount"?: components["parameters"]["SdkRetryCount"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "grant_type": "client_credentials",
                 *       "scope": "invoices:read"
                 *     }
                 */
                "application/x-www-form-urlencoded": components["schemas"]["OAuth2TokenRequest"];
            };
        };
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description Always `no-store`. */
                    "Cache-Control"?: "no-store";
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "access_token": "eyJhbGciOiJFUzI1NiIsImtpZCI6ImstMjAyNi0wMyIsInR5cCI6IkpXVCJ9.eyJwZXJzb25faWQiOiJwaWQ6MDE5M2ExZjJjNGI4N2QzZTlmMTBhMmIzYzRkNWU2ZjciLCJvaWQiOiIzZjZhMGMxZS01YjdkLTRlMmEtOWM0MS0wZDJlN2Y4YTliMTAiLCJmaXJzdF90b2tlbiI6ZmFsc2UsImF1dGhlbnRpY2F0ZWRfbWV0aG9kcyI6WyJvdHBfdmlhX2VtYWlsIl0sInBlcnNvbl90eXBlIjoicmVndWxhciIsImdyb3VwcyI6WyJlZGl0b3JzIl0sImV4cCI6MTc3MzQ4MzYxM30.q3Yw8n2JxT0bV5cP1sK7mR9dL4fH6gE2aZ0uN8iC3oWkXy1tQ5vB7jM9pS4eR2hD6lA0fG8zU3cY1nK5wT7xQ",
                     *       "token_type": "bearer",
                     *       "expires_in": 3600,
                     *       "scope": "invoices:read"
                     *     }
                     */
                    "application/json": components["schemas"]["OAuth2TokenResponse"];
                };
            };
            400: components["responses"]["OAuth2BadRequest"];
            401: components["responses"]["OAuth2Unauthorized"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    postOAuth2TokensRevoke: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "token": "eyJhbGciOiJFUzI1NiIsImtpZCI6ImstMjAyNi0wMyIsInR5cCI6IkpXVCJ9.eyJwZXJzb25faWQiOiJwaWQ6MDE5M2ExZjJjNGI4N2QzZTlmMTBhMmIzYzRkNWU2ZjciLCJvaWQiOiIzZjZhMGMxZS01YjdkLTRlMmEtOWM0MS0wZDJlN2Y4YTliMTAiLCJmaXJzdF90b2tlbiI6ZmFsc2UsImF1dGhlbnRpY2F0ZWRfbWV0aG9kcyI6WyJvdHBfdmlhX2VtYWlsIl0sInBlcnNvbl90eXBlIjoicmVndWxhciIsImdyb3VwcyI6WyJlZGl0b3JzIl0sImV4cCI6MTc3MzQ4MzYxM30.q3Yw8n2JxT0bV5cP1sK7mR9dL4fH6gE2aZ0uN8iC3oWkXy1tQ5vB7jM9pS4eR2hD6lA0fG8zU3cY1nK5wT7xQ",
                 *       "token_type_hint": "access_token"
                 *     }
                 */
                "application/x-www-form-urlencoded": components["schemas"]["OAuth2TokenRevokeRequest"];
            };
        };
        responses: {
            /** @description Revoked (or nothing to revoke). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["OAuth2BadRequest"];
            401: components["responses"]["OAuth2Unauthorized"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    postOAuth2TokensRevokeAll: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "person_id": "pid:0193a1f2c4b87d3e9f10a2b3c4d5e6f7"
                 *     }
                 */
                "application/x-www-form-urlencoded": components["schemas"]["OAuth2RevokeAllRequest"];
            };
        };
        responses: {
            /** @description Revoked. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["OAuth2BadRequest"];
            401: components["responses"]["OAuth2Unauthorized"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    postOAuth2TokensIntrospect: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "token": "eyJhbGciOiJFUzI1NiIsImtpZCI6ImstMjAyNi0wMyIsInR5cCI6IkpXVCJ9.eyJwZXJzb25faWQiOiJwaWQ6MDE5M2ExZjJjNGI4N2QzZTlmMTBhMmIzYzRkNWU2ZjciLCJvaWQiOiIzZjZhMGMxZS01YjdkLTRlMmEtOWM0MS0wZDJlN2Y4YTliMTAiLCJmaXJzdF90b2tlbiI6ZmFsc2UsImF1dGhlbnRpY2F0ZWRfbWV0aG9kcyI6WyJvdHBfdmlhX2VtYWlsIl0sInBlcnNvbl90eXBlIjoicmVndWxhciIsImdyb3VwcyI6WyJlZGl0b3JzIl0sImV4cCI6MTc3MzQ4MzYxM30.q3Yw8n2JxT0bV5cP1sK7mR9dL4fH6gE2aZ0uN8iC3oWkXy1tQ5vB7jM9pS4eR2hD6lA0fG8zU3cY1nK5wT7xQ"
                 *     }
                 */
                "application/x-www-form-urlencoded": components["schemas"]["OAuth2IntrospectRequest"];
            };
        };
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "active": true,
                     *       "scope": "openid",
                     *       "client_id": "docs-portal",
                     *       "sub": "pid:0193a1f2c4b87d3e9f10a2b3c4d5e6f7",
                     *       "exp": 1773483613,
                     *       "iat": 1773480013,
                     *       "iss": "https://api.keyway.dev",
                     *       "token_type": "bearer"
                     *     }
                     */
                    "application/json": components["schemas"]["OAuth2IntrospectionResult"];
                };
            };
            400: components["responses"]["OAuth2BadRequest"];
            401: components["responses"]["OAuth2Unauthorized"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getOAuth2Userinfo: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "sub": "pid:0193a1f2c4b87d3e9f10a2b3c4d5e6f7",
                     *       "iss": "http://localhost:8787",
                     *       "aud": "docs-portal",
                     *       "org_id": "org_keyway_dev",
                     *       "email": "ada@example.com",
                     *       "email_verified": true,
                     *       "groups": [
                     *         "editors"
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["UserInfo"];
                };
            };
            401: components["responses"]["OAuth2Unauthorized"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    postOAuth2Userinfo: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "sub": "pid:0193a1f2c4b87d3e9f10a2b3c4d5e6f7",
                     *       "iss": "http://localhost:8787",
                     *       "aud": "docs-portal",
                     *       "org_id": "org_keyway_dev",
                     *       "email": "ada@example.com",
                     *       "email_verified": true,
                     *       "groups": [
                     *         "editors"
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["UserInfo"];
                };
            };
            401: components["responses"]["OAuth2Unauthorized"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getOpenIdConfiguration: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "issuer": "https://api.keyway.dev",
                     *       "authorization_endpoint": "https://api.keyway.dev/oauth2/authorize",
                     *       "token_endpoint": "https://api.keyway.dev/oauth2/tokens",
                     *       "userinfo_endpoint": "https://api.keyway.dev/oauth2/userinfo",
                     *       "jwks_uri": "https://api.keyway.dev/.well-known/jwks.json",
                     *       "revocation_endpoint": "https://api.keyway.dev/oauth2/tokens/revoke",
                     *       "introspection_endpoint": "https://api.keyway.dev/oauth2/tokens/introspect",
                     *       "response_types_supported": [
                     *         "code"
                     *       ],
                     *       "grant_types_supported": [
                     *         "authorization_code",
                     *         "client_credentials",
                     *         "refresh_token"
                     *       ],
                     *       "end_session_endpoint": "https://api.keyway.dev/oauth2/logout",
                     *       "response_modes_supported": [
                     *         "query",
                     *         "fragment",
                     *         "form_post"
                     *       ],
                     *       "subject_types_supported": [
                     *         "public"
                     *       ],
                     *       "id_token_signing_alg_values_supported": [
                     *         "RS256",
                     *         "ES256"
                     *       ],
                     *       "scopes_supported": [
                     *         "openid",
                     *         "email"
                     *       ],
                     *       "token_endpoint_auth_methods_supported": [
                     *         "none",
                     *         "client_secret_basic",
                     *         "client_secret_post"
                     *       ],
                     *       "code_challenge_methods_supported": [
                     *         "S256"
                     *       ],
                     *       "claims_supported": [
                     *         "sub",
                     *         "auth_time",
                     *         "amr",
                     *         "email",
                     *         "email_verified",
                     *         "person_id",
                     *         "oid",
                     *         "person_type"
                     *       ],
                     *       "authorization_response_iss_parameter_supported": true,
                     *       "request_parameter_supported": false,
                     *       "request_uri_parameter_supported": false
                     *     }
                     */
                    "application/json": components["schemas"]["OpenIdConfiguration"];
                };
            };
            429: components["responses"]["TooManyRequests"];
        };
    };
    getJwks: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "keys": [
                     *         {
                     *           "kty": "EC",
                     *           "kid": "k-2026-03",
                     *           "use": "sig",
                     *           "alg": "ES256",
                     *           "crv": "P-256",
                     *           "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
                     *           "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["Jwks"];
                };
            };
            429: components["responses"]["TooManyRequests"];
        };
    };
    listPersons: {
        parameters: {
            query?: {
                /** @description SCIM-style filter, e.g. `handles.value eq "ada@example.com"` or `groups co "edit"`; operators eq, ne, co, sw, pr, and, or. */
                filter?: string;
                /** @description Only the person with this handle, as `type:value` (e.g. `email_address:ada@example.com`). */
                handle?: string;
                /** @description Only these persons (comma-separated ids, at most 100). */
                ids?: components["schemas"]["PersonId"][];
                /**
                 * @description Comma-separated parts of the person to include besides its id, activity, type and region: `handles`, `groups`, `roles`, `attributes` (all when absent).
                 * @example [
                 *       "handles",
                 *       "groups"
                 *     ]
                 */
                fields?: components["parameters"]["PersonFields"];
                /** @description Persons of every region. This server keeps every region in one store, so every region is local and the listing always covers them all; the parameter is accepted for clients of the regional service. */
                all_regions?: boolean;
                /** @description With `false`, regular persons only; absent or `true`, anonymous persons too. */
                all_person_types?: boolean;
                /** @description Page size (at most 1000). */
                limit?: components["parameters"]["Limit"];
                /** @description Number of items to skip. */
                offset?: components["parameters"]["Offset"];
                /** @description Where to continue: `meta.cursor_pagination.cursor` of the previous page. An empty cursor is the first page. Not together with `offset`. On `GET /persons` and `GET /events` a cursor is a place in the order: it keeps its place when items are added or removed before it, and a page costs the same at any depth. On the other lists it stands for an offset. */
                cursor?: components["parameters"]["Cursor"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": [
                     *         {
                     *           "person_id": "pid:0193a1f2c4b87d3e9f10a2b3c4d5e6f7",
                     *           "active": true,
                     *           "person_type": "regular",
                     *           "region": "europe-belgium",
                     *           "handles": [
                     *             {
                     *               "type": "email_address",
                     *               "value": "ada@example.com"
                     *             },
                     *             {
                     *               "type": "phone_number",
                     *               "value": "+447700900123"
                     *             }
                     *           ],
                     *           "groups": [
                     *             "editors"
                     *           ],
                     *           "attributes": {
                     *             "end_user_read_write": {
                     *               "theme": "dark",
                     *               "newsletter": true
                     *             }
                     *           }
                     *         },
                     *         {
                     *           "person_id": "pid:0193a1f2c4b87d3e9f10a2b3c4d5e6f8",
                     *           "active": true,
                     *           "person_type": "regular",
                     *           "region": "europe-belgium",
                     *           "handles": [
                     *             {
                     *               "type": "email_address",
                     *               "value": "grace@example.com"
                     *             }
                     *           ],
                     *           "groups": [
                     *             "editors"
                     *           ],
                     *           "attributes": {}
                     *         }
                     *       ],
                     *       "meta": {
                     *         "pagination": {
                     *           "limit": 100,
                     *           "offset": 0,
                     *           "total_count": 2
                     *         },
                     *         "cursor_pagination": {
                     *           "cursor": "",
                     *           "limit": 100,
                     *           "total_count": 2
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["Person"][];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    upsertPerson: {
        parameters: {
            query?: never;
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "handles": [
                 *         {
                 *           "type": "email_address",
                 *           "value": "ada@example.com"
                 *         },
                 *         {
                 *           "type": "phone_number",
                 *           "value": "+447700900123"
                 *         }
                 *       ],
                 *       "groups": [
                 *         "editors"
                 *       ],
                 *       "attributes": {
                 *         "end_user_read_write": {
                 *           "theme": "dark",
                 *           "newsletter": true
                 *         }
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["PersonCreate"];
            };
        };
        responses: {
            /** @description The created or updated person. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "person_id": "pid:0193a1f2c4b87d3e9f10a2b3c4d5e6f7",
                     *         "active": true,
                     *         "person_type": "regular",
                     *         "region": "europe-belgium",
                     *         "handles": [
                     *           {
                     *             "type": "email_address",
                     *             "value": "ada@example.com"
                     *           },
                     *           {
                     *             "type": "phone_number",
                     *             "value": "+447700900123"
                     *           }
                     *         ],
                     *         "groups": [
                     *           "editors"
                     *         ],
                     *         "attributes": {
                     *           "end_user_read_write": {
                     *             "theme": "dark",
                     *             "newsletter": true
                     *           }
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["Person"];
                    };
                };
            };
            400: components["responses"]["IdBadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            408: components["responses"]["RequestTimeout"];
            409: components["responses"]["PersonExists"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    createPerson: {
        parameters: {
            query?: never;
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "handles": [
                 *         {
                 *           "type": "email_address",
                 *           "value": "ada@example.com"
                 *         },
                 *         {
                 *           "type": "phone_number",
                 *           "value": "+447700900123"
                 *         }
                 *       ],
                 *       "region": "europe-belgium",
                 *       "groups": [
                 *         "editors"
                 *       ],
                 *       "attributes": {
                 *         "end_user_read_write": {
                 *           "theme": "dark",
                 *           "newsletter": true
                 *         }
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["PersonCreate"];
            };
        };
        responses: {
            /** @description Created. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "person_id": "pid:0193a1f2c4b87d3e9f10a2b3c4d5e6f7",
                     *         "active": true,
                     *         "person_type": "regular",
                     *         "region": "europe-belgium",
                     *         "handles": [
                     *           {
                     *             "type": "email_address",
                     *             "value": "ada@example.com"
                     *           },
                     *           {
                     *             "type": "phone_number",
                     *             "value": "+447700900123"
                     *           }
                     *         ],
                     *         "groups": [
                     *           "editors"
                     *         ],
                     *         "attributes": {
                     *           "end_user_read_write": {
                     *             "theme": "dark",
                     *             "newsletter": true
                     *           }
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["Person"];
                    };
                };
            };
            400: components["responses"]["IdBadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            408: components["responses"]["RequestTimeout"];
            409: components["responses"]["PersonExists"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getPerson: {
        parameters: {
            query?: {
                /**
                 * @description Comma-separated parts of the person to include besides its id, activity, type and region: `handles`, `groups`, `roles`, `attributes` (all when absent).
                 * @example [
                 *       "handles",
                 *       "groups"
                 *     ]
                 */
                fields?: components["parameters"]["PersonFields"];
            };
            header?: never;
            path: {
                /** @description The person the operation applies to. */
                person_id: components["parameters"]["PersonIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "person_id": "pid:0193a1f2c4b87d3e9f10a2b3c4d5e6f7",
                     *         "active": true,
                     *         "person_type": "regular",
                     *         "region": "europe-belgium",
                     *         "handles": [
                     *           {
                     *             "type": "email_address",
                     *             "value": "ada@example.com"
                     *           },
                     *           {
                     *             "type": "phone_number",
                     *             "value": "+447700900123"
                     *           }
                     *         ],
                     *         "groups": [
                     *           "editors"
                     *         ],
                     *         "attributes": {
                     *           "end_user_read_write": {
                     *             "theme": "dark",
                     *             "newsletter": true
                     *           }
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["Person"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    deletePerson: {
        parameters: {
            query?: never;
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path: {
                /** @description The person the operation applies to. */
                person_id: components["parameters"]["PersonIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            408: components["responses"]["RequestTimeout"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    patchPerson: {
        parameters: {
            query?: never;
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path: {
                /** @description The person the operation applies to. */
                person_id: components["parameters"]["PersonIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "active": false
                 *     }
                 */
                "application/json": components["schemas"]["PersonPatch"];
            };
        };
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "person_id": "pid:0193a1f2c4b87d3e9f10a2b3c4d5e6f7",
                     *         "active": false,
                     *         "person_type": "regular",
                     *         "region": "europe-belgium",
                     *         "handles": [
                     *           {
                     *             "type": "email_address",
                     *             "value": "ada@example.com"
                     *           },
                     *           {
                     *             "type": "phone_number",
                     *             "value": "+447700900123"
                     *           }
                     *         ],
                     *         "groups": [
                     *           "editors"
                     *         ],
                     *         "attributes": {
                     *           "end_user_read_write": {
                     *             "theme": "dark",
                     *             "newsletter": true
                     *           }
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["Person"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getPersonOrganizations: {
        parameters: {
            query?: {
                /** @description SCIM-style filter on `id`, `org_name` and `tenant_name`, e.g. `org_name eq "Acme Docs EU"` or `tenant_name sw "ac"`; operators eq, ne, co, sw, pr, and, or (case-insensitive). */
                filter?: components["parameters"]["OrgFilter"];
            };
            header?: never;
            path: {
                /** @description The person the operation applies to. */
                person_id: components["parameters"]["PersonIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": [
                     *         {
                     *           "id": "3f6a0c1e-5b7d-4e2a-9c41-0d2e7f8a9b10",
                     *           "org_name": "Acme Docs",
                     *           "tenant_name": "acme",
                     *           "person_id": "pid:0193a1f2c4b87d3e9f10a2b3c4d5e6f7",
                     *           "managed_organizations": [
                     *             {
                     *               "id": "7c2d9e41-1a3b-4c5d-8e6f-a0b1c2d3e4f5",
                     *               "org_name": "Acme Docs EU",
                     *               "tenant_name": "acme",
                     *               "parent_id": "3f6a0c1e-5b7d-4e2a-9c41-0d2e7f8a9b10"
                     *             }
                     *           ]
                     *         },
                     *         {
                     *           "id": "7c2d9e41-1a3b-4c5d-8e6f-a0b1c2d3e4f5",
                     *           "org_name": "Acme Docs EU",
                     *           "tenant_name": "acme",
                     *           "parent_id": "3f6a0c1e-5b7d-4e2a-9c41-0d2e7f8a9b10",
                     *           "person_id": "pid:0193a1f2c4b87d3e9f10a2b3c4d5e6f7",
                     *           "managed_organizations": []
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["PersonOrganization"][];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    createPersonDirectId: {
        parameters: {
            query?: never;
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path: {
                /** @description The person the operation applies to. */
                person_id: components["parameters"]["PersonIdPath"];
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "duration_secs": 300
                 *     }
                 */
                "application/json": {
                    /**
                     * @description How long the Direct-ID stays valid, in seconds.
                     * @default 300
                     */
                    duration_secs?: number;
                };
            };
        };
        responses: {
            /** @description Created. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": "eyJvaWQiOiIzZjZhMGMxZSJ9.c2lnbmF0dXJl"
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        /** @description Opaque single-use value; pass it to the SDK (URL parameter) to sign the person in. */
                        result: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    mintPersonToken: {
        parameters: {
            query?: never;
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path: {
                /** @description The person the operation applies to. */
                person_id: components["parameters"]["PersonIdPath"];
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "custom_claims": {
                 *         "plan": "pro"
                 *       },
                 *       "expiry_seconds": 3600
                 *     }
                 */
                "application/json": components["schemas"]["MintTokenRequest"];
            };
        };
        responses: {
            /** @description Created. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": "eyJhbGciOiJFUzI1NiIsImtpZCI6ImstMjAyNi0wMyIsInR5cCI6IkpXVCJ9.eyJwZXJzb25faWQiOiJwaWQ6MDE5M2ExZjJjNGI4N2QzZTlmMTBhMmIzYzRkNWU2ZjciLCJvaWQiOiIzZjZhMGMxZS01YjdkLTRlMmEtOWM0MS0wZDJlN2Y4YTliMTAiLCJmaXJzdF90b2tlbiI6ZmFsc2UsImF1dGhlbnRpY2F0ZWRfbWV0aG9kcyI6WyJvdHBfdmlhX2VtYWlsIl0sInBlcnNvbl90eXBlIjoicmVndWxhciIsImdyb3VwcyI6WyJlZGl0b3JzIl0sImV4cCI6MTc3MzQ4MzYxM30.q3Yw8n2JxT0bV5cP1sK7mR9dL4fH6gE2aZ0uN8iC3oWkXy1tQ5vB7jM9pS4eR2hD6lA0fG8zU3cY1nK5wT7xQ"
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["UserToken"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getPersonGroups: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The person the operation applies to. */
                person_id: components["parameters"]["PersonIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": [
                     *         "editors",
                     *         "beta-testers"
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["GroupName"][];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    setPersonGroups: {
        parameters: {
            query?: never;
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path: {
                /** @description The person the operation applies to. */
                person_id: components["parameters"]["PersonIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "groups": [
                 *         "editors"
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["GroupNameList"];
            };
        };
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": [
                     *         "editors"
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["GroupName"][];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getPersonPermissions: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The person the operation applies to. */
                person_id: components["parameters"]["PersonIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": [
                     *         "docs:read",
                     *         "docs:write"
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["PermissionName"][];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getPersonAdditionalPermissions: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The person the operation applies to. */
                person_id: components["parameters"]["PersonIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description Version of the object; send it back in `If-Match` to change it only if nobody changed it meanwhile. */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": [
                     *         "docs:write"
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["PermissionName"][];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    setPersonAdditionalPermissions: {
        parameters: {
            query?: never;
            header?: {
                /** @description The `ETag` of the object as last read (`*`: any). When the object changed since, nothing is changed and the answer is 412. */
                "If-Match"?: components["parameters"]["IfMatch"];
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path: {
                /** @description The person the operation applies to. */
                person_id: components["parameters"]["PersonIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "permissions": [
                 *         "docs:write"
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["PermissionNameList"];
            };
        };
        responses: {
            /** @description Replaced. */
            204: {
                headers: {
                    /** @description Version of the object; send it back in `If-Match` to change it only if nobody changed it meanwhile. */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            408: components["responses"]["RequestTimeout"];
            412: components["responses"]["PreconditionFailed"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getPersonRoles: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The person the operation applies to. */
                person_id: components["parameters"]["PersonIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description Version of the object; send it back in `If-Match` to change it only if nobody changed it meanwhile. */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": [
                     *         "reader"
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["RoleName"][];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    setPersonRoles: {
        parameters: {
            query?: never;
            header?: {
                /** @description The `ETag` of the object as last read (`*`: any). When the object changed since, nothing is changed and the answer is 412. */
                "If-Match"?: components["parameters"]["IfMatch"];
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path: {
                /** @description The person the operation applies to. */
                person_id: components["parameters"]["PersonIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "roles": [
                 *         "reader",
                 *         "editor"
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["RoleNameList"];
            };
        };
        responses: {
            /** @description Replaced. */
            204: {
                headers: {
                    /** @description Version of the object; send it back in `If-Match` to change it only if nobody changed it meanwhile. */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            408: components["responses"]["RequestTimeout"];
            412: components["responses"]["PreconditionFailed"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listGroups: {
        parameters: {
            query?: {
                /** @description Page size (at most 1000). */
                limit?: components["parameters"]["Limit"];
                /** @description Number of items to skip. */
                offset?: components["parameters"]["Offset"];
                /** @description Where to continue: `meta.cursor_pagination.cursor` of the previous page. An empty cursor is the first page. Not together with `offset`. On `GET /persons` and `GET /events` a cursor is a place in the order: it keeps its place when items are added or removed before it, and a page costs the same at any depth. On the other lists it stands for an offset. */
                cursor?: components["parameters"]["Cursor"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": [
                     *         "editors",
                     *         "reviewers"
                     *       ],
                     *       "meta": {
                     *         "pagination": {
                     *           "limit": 100,
                     *           "offset": 0,
                     *           "total_count": 2
                     *         },
                     *         "cursor_pagination": {
                     *           "cursor": "",
                     *           "limit": 100,
                     *           "total_count": 2
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["GroupName"][];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    createGroup: {
        parameters: {
            query?: never;
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "editors",
                 *       "description": "May edit the docs"
                 *     }
                 */
                "application/json": components["schemas"]["GroupCreate"];
            };
        };
        responses: {
            /** @description Created. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "name": "editors",
                     *         "description": "May edit the docs",
                     *         "created": "2026-03-14T09:26:53Z",
                     *         "members_count": 2
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["Group"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            408: components["responses"]["RequestTimeout"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getGroup: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Name of the group. */
                group_name: components["parameters"]["GroupNamePath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "name": "editors",
                     *         "description": "May edit the docs",
                     *         "created": "2026-03-14T09:26:53Z",
                     *         "members_count": 2
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["Group"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    deleteGroup: {
        parameters: {
            query?: never;
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path: {
                /** @description Name of the group. */
                group_name: components["parameters"]["GroupNamePath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /** @example {} */
                    "application/json": components["schemas"]["Envelope"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            408: components["responses"]["RequestTimeout"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listGroupPersons: {
        parameters: {
            query?: {
                /** @description Page size (at most 1000). */
                limit?: components["parameters"]["Limit"];
                /** @description Number of items to skip. */
                offset?: components["parameters"]["Offset"];
                /** @description Where to continue: `meta.cursor_pagination.cursor` of the previous page. An empty cursor is the first page. Not together with `offset`. On `GET /persons` and `GET /events` a cursor is a place in the order: it keeps its place when items are added or removed before it, and a page costs the same at any depth. On the other lists it stands for an offset. */
                cursor?: components["parameters"]["Cursor"];
            };
            header?: never;
            path: {
                /** @description Name of the group. */
                group_name: components["parameters"]["GroupNamePath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": [
                     *         "pid:0193a1f2c4b87d3e9f10a2b3c4d5e6f7"
                     *       ],
                     *       "meta": {
                     *         "pagination": {
                     *           "limit": 100,
                     *           "offset": 0,
                     *           "total_count": 1
                     *         },
                     *         "cursor_pagination": {
                     *           "cursor": "",
                     *           "limit": 100,
                     *           "total_count": 1
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["PersonId"][];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    addPersonsToGroup: {
        parameters: {
            query?: never;
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path: {
                /** @description Name of the group. */
                group_name: components["parameters"]["GroupNamePath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "persons": [
                 *         "pid:0193a1f2c4b87d3e9f10a2b3c4d5e6f7"
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["PersonIdList"];
            };
        };
        responses: {
            /** @description Added. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /** @example {} */
                    "application/json": components["schemas"]["Envelope"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    removePersonFromGroup: {
        parameters: {
            query?: never;
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path: {
                /** @description Name of the group. */
                group_name: components["parameters"]["GroupNamePath"];
                /** @description The person the operation applies to. */
                person_id: components["parameters"]["PersonIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Removed. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /** @example {} */
                    "application/json": components["schemas"]["Envelope"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            408: components["responses"]["RequestTimeout"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getPersonHandles: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The person the operation applies to. */
                person_id: components["parameters"]["PersonIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": [
                     *         {
                     *           "type": "email_address",
                     *           "value": "ada@example.com"
                     *         },
                     *         {
                     *           "type": "phone_number",
                     *           "value": "+447700900123"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["PersonHandle"][];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    addPersonHandles: {
        parameters: {
            query?: never;
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path: {
                /** @description The person the operation applies to. */
                person_id: components["parameters"]["PersonIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example [
                 *       {
                 *         "type": "phone_number",
                 *         "value": "+447700900123"
                 *       }
                 *     ]
                 */
                "application/json": components["schemas"]["HandleList"];
            };
        };
        responses: {
            /** @description Added. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["IdBadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            408: components["responses"]["RequestTimeout"];
            409: components["responses"]["PersonExists"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    deletePersonHandle: {
        parameters: {
            query?: never;
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path: {
                /** @description The person the operation applies to. */
                person_id: components["parameters"]["PersonIdPath"];
                /**
                 * @description Handle as `type:value`, URL-encoded, e.g. `email_address:ada%40example.com`.
                 * @example email_address:ada@example.com
                 */
                handle: components["parameters"]["HandlePath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Removed. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            408: components["responses"]["RequestTimeout"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getPersonCredentials: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The person the operation applies to. */
                person_id: components["parameters"]["PersonIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": [
                     *         {
                     *           "id": "cred_01JD8ZA1",
                     *           "type": "password",
                     *           "label": "Password",
                     *           "last_used": "2026-03-14T09:20:00Z",
                     *           "params": {
                     *             "hash_algorithm": "scrypt"
                     *           }
                     *         },
                     *         {
                     *           "id": "cred_01JD8ZA2",
                     *           "type": "totp",
                     *           "label": "Authenticator app",
                     *           "last_used": null,
                     *           "params": {
                     *             "recovery_codes_total": 10,
                     *             "recovery_codes_unused": 9
                     *           }
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["Credential"][];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    createPersonCredential: {
        parameters: {
            query?: never;
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path: {
                /** @description The person the operation applies to. */
                person_id: components["parameters"]["PersonIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "totp",
                 *       "label": "Migrated authenticator",
                 *       "secret": "JBSWY3DPEHPK3PXPJBSWY3DP"
                 *     }
                 */
                "application/json": components["schemas"]["CredentialCreate"];
            };
        };
        responses: {
            /** @description Created. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "id": "cred_01JD8ZA2",
                     *         "type": "totp",
                     *         "label": "Authenticator app",
                     *         "last_used": null,
                     *         "params": {
                     *           "recovery_codes_total": 10,
                     *           "recovery_codes_unused": 9
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["Credential"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            408: components["responses"]["RequestTimeout"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    deletePersonCredentials: {
        parameters: {
            query?: never;
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path: {
                /** @description The person the operation applies to. */
                person_id: components["parameters"]["PersonIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            408: components["responses"]["RequestTimeout"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    deletePersonCredential: {
        parameters: {
            query?: never;
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path: {
                /** @description The person the operation applies to. */
                person_id: components["parameters"]["PersonIdPath"];
                /** @description Credential id. */
                credential_id: components["parameters"]["CredentialIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            408: components["responses"]["RequestTimeout"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    setPersonPassword: {
        parameters: {
            query?: never;
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path: {
                /** @description The person the operation applies to. */
                person_id: components["parameters"]["PersonIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "password": "correct horse battery staple"
                 *     }
                 */
                "application/json": components["schemas"]["PasswordSet"];
            };
        };
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "id": "cred_01JD8ZA1",
                     *         "type": "password",
                     *         "label": "Password",
                     *         "last_used": "2026-03-14T09:20:00Z",
                     *         "params": {
                     *           "hash_algorithm": "scrypt"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["Credential"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    resetPersonPassword: {
        parameters: {
            query?: never;
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path: {
                /** @description The person the operation applies to. */
                person_id: components["parameters"]["PersonIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "reset_handle": {
                 *         "type": "email_address",
                 *         "value": "ada@example.com"
                 *       },
                 *       "redirect_target": "https://app.example.com/reset"
                 *     }
                 */
                "application/json": components["schemas"]["PasswordResetRequest"];
            };
        };
        responses: {
            /** @description Accepted. */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "sent_to": {
                     *           "type": "email_address",
                     *           "value": "ada@example.com"
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: {
                            sent_to: components["schemas"]["PersonHandle"];
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    rotatePersonPassword: {
        parameters: {
            query?: never;
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path: {
                /** @description The person the operation applies to. */
                person_id: components["parameters"]["PersonIdPath"];
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "reason": "found in a breach corpus",
                 *       "handle": {
                 *         "type": "email_address",
                 *         "value": "ada@example.com"
                 *       },
                 *       "redirect_target": "https://app.example.com/reset"
                 *     }
                 */
                "application/json": components["schemas"]["PasswordRotateRequest"];
            };
        };
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "rotation_required": true
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: {
                            /** @constant */
                            rotation_required: true;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getPersonGdprConsent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The person the operation applies to. */
                person_id: components["parameters"]["PersonIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "consents": [
                     *           {
                     *             "consent_level": "necessary",
                     *             "created_at": "2026-03-14T09:26:53Z"
                     *           },
                     *           {
                     *             "consent_level": "analytics",
                     *             "created_at": "2026-03-14T09:26:53Z"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["GdprConsentList"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    setPersonGdprConsent: {
        parameters: {
            query?: never;
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path: {
                /** @description The person the operation applies to. */
                person_id: components["parameters"]["PersonIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "consent_levels": [
                 *         "necessary"
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["GdprConsentRequest"];
            };
        };
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "consents": [
                     *           {
                     *             "consent_level": "necessary",
                     *             "created_at": "2026-03-14T09:26:53Z"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["GdprConsentList"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    addPersonGdprConsent: {
        parameters: {
            query?: never;
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path: {
                /** @description The person the operation applies to. */
                person_id: components["parameters"]["PersonIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "consent_levels": [
                 *         "marketing"
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["GdprConsentRequest"];
            };
        };
        responses: {
            /** @description Created. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "consents": [
                     *           {
                     *             "consent_level": "necessary",
                     *             "created_at": "2026-03-14T09:26:53Z"
                     *           },
                     *           {
                     *             "consent_level": "analytics",
                     *             "created_at": "2026-03-14T09:26:53Z"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["GdprConsentList"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    deletePersonGdprConsent: {
        parameters: {
            query?: {
                /**
                 * @description Comma-joined levels to remove.
                 * @example [
                 *       "marketing"
                 *     ]
                 */
                consent_levels?: components["schemas"]["ConsentLevel"][];
                /** @description Remove every level; use instead of consent_levels. */
                deleteAll?: boolean;
            };
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path: {
                /** @description The person the operation applies to. */
                person_id: components["parameters"]["PersonIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Removed. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            408: components["responses"]["RequestTimeout"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getBulkImportTemplate: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example handle_type,handle_value,active,region,groups,roles,attr:end_user_read_only:plan
                     *     email_address,ada@example.com,true,europe-belgium,editors;reviewers,reader,pro
                     */
                    "text/csv": string;
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    bulkImportPersons: {
        parameters: {
            query?: never;
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "persons": "handle_type,handle_value,region,groups,roles\nemail_address,ada@example.com,europe-belgium,editors,reader\n"
                 *     }
                 */
                "multipart/form-data": {
                    /** @description The CSV file (a part named `file`, the earlier name, is accepted too). */
                    persons: string;
                };
            };
        };
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "successful_imports": 1,
                     *         "failed_imports": 1,
                     *         "failed_csv": "handle_type,handle_value\nemail_address,ada@\n",
                     *         "failures": [
                     *           {
                     *             "row": 3,
                     *             "message": "malformed e-mail address"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["BulkImportResult"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getPersonAttributes: {
        parameters: {
            query?: {
                /** @description Comma-joined list of buckets to read; all readable buckets when absent. */
                buckets?: components["parameters"]["BucketsQuery"];
            };
            header?: never;
            path: {
                /** @description The person the operation applies to. */
                person_id: components["parameters"]["PersonIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "end_user_read_write": {
                     *           "theme": "dark"
                     *         },
                     *         "end_user_no_access": {
                     *           "risk_score": 12
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["AttributesByBucket"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    putPersonAttributes: {
        parameters: {
            query?: never;
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path: {
                /** @description The person the operation applies to. */
                person_id: components["parameters"]["PersonIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "end_user_read_write": {
                 *         "theme": "dark"
                 *       },
                 *       "end_user_no_access": {
                 *         "risk_score": 12
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["AttributesByBucket"];
            };
        };
        responses: {
            /** @description Stored; read them back with the GET of the same path. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    patchPersonAttributes: {
        parameters: {
            query?: never;
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path: {
                /** @description The person the operation applies to. */
                person_id: components["parameters"]["PersonIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "end_user_read_write": {
                 *         "theme": "dark"
                 *       },
                 *       "end_user_no_access": {
                 *         "risk_score": 12
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["AttributesByBucket"];
            };
        };
        responses: {
            /** @description Stored; read them back with the GET of the same path. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getPersonBucketAttributes: {
        parameters: {
            query?: {
                /** @description Comma-joined attribute names; all attributes of the bucket when absent. */
                attributes?: components["parameters"]["AttributesQuery"];
            };
            header?: never;
            path: {
                /** @description The person the operation applies to. */
                person_id: components["parameters"]["PersonIdPath"];
                /** @description Attribute bucket. */
                bucket_name: components["parameters"]["BucketNamePath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "risk_score": 12,
                     *         "reviewed": true
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["Attributes"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    putPersonBucketAttributes: {
        parameters: {
            query?: never;
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path: {
                /** @description The person the operation applies to. */
                person_id: components["parameters"]["PersonIdPath"];
                /** @description Attribute bucket. */
                bucket_name: components["parameters"]["BucketNamePath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "risk_score": 12,
                 *       "reviewed": true
                 *     }
                 */
                "application/json": components["schemas"]["Attributes"];
            };
        };
        responses: {
            /** @description Stored; read them back with the GET of the same path. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    deletePersonBucketAttributes: {
        parameters: {
            query?: {
                /** @description Comma-joined attribute names; all attributes of the bucket when absent. */
                attributes?: components["parameters"]["AttributesQuery"];
            };
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path: {
                /** @description The person the operation applies to. */
                person_id: components["parameters"]["PersonIdPath"];
                /** @description Attribute bucket. */
                bucket_name: components["parameters"]["BucketNamePath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            408: components["responses"]["RequestTimeout"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    patchPersonBucketAttributes: {
        parameters: {
            query?: never;
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path: {
                /** @description The person the operation applies to. */
                person_id: components["parameters"]["PersonIdPath"];
                /** @description Attribute bucket. */
                bucket_name: components["parameters"]["BucketNamePath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "risk_score": 12,
                 *       "reviewed": true
                 *     }
                 */
                "application/json": components["schemas"]["Attributes"];
            };
        };
        responses: {
            /** @description Stored; read them back with the GET of the same path. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getOrganizationAttributes: {
        parameters: {
            query?: {
                /** @description Comma-joined list of buckets to read; all readable buckets when absent. */
                buckets?: components["parameters"]["BucketsQuery"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "end_user_read_write": {
                     *           "theme": "dark"
                     *         },
                     *         "end_user_no_access": {
                     *           "risk_score": 12
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["AttributesByBucket"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    putOrganizationAttributes: {
        parameters: {
            query?: never;
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "end_user_read_write": {
                 *         "theme": "dark"
                 *       },
                 *       "end_user_no_access": {
                 *         "risk_score": 12
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["AttributesByBucket"];
            };
        };
        responses: {
            /** @description Stored; read them back with the GET of the same path. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    patchOrganizationAttributes: {
        parameters: {
            query?: never;
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "end_user_read_write": {
                 *         "theme": "dark"
                 *       },
                 *       "end_user_no_access": {
                 *         "risk_score": 12
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["AttributesByBucket"];
            };
        };
        responses: {
            /** @description Stored; read them back with the GET of the same path. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getOrganizationBucketAttributes: {
        parameters: {
            query?: {
                /** @description Comma-joined attribute names; all attributes of the bucket when absent. */
                attributes?: components["parameters"]["AttributesQuery"];
            };
            header?: never;
            path: {
                /** @description Attribute bucket. */
                bucket_name: components["parameters"]["BucketNamePath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "risk_score": 12,
                     *         "reviewed": true
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["Attributes"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    putOrganizationBucketAttributes: {
        parameters: {
            query?: never;
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path: {
                /** @description Attribute bucket. */
                bucket_name: components["parameters"]["BucketNamePath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "risk_score": 12,
                 *       "reviewed": true
                 *     }
                 */
                "application/json": components["schemas"]["Attributes"];
            };
        };
        responses: {
            /** @description Stored; read them back with the GET of the same path. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    deleteOrganizationBucketAttributes: {
        parameters: {
            query?: {
                /** @description Comma-joined attribute names; all attributes of the bucket when absent. */
                attributes?: components["parameters"]["AttributesQuery"];
            };
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path: {
                /** @description Attribute bucket. */
                bucket_name: components["parameters"]["BucketNamePath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            408: components["responses"]["RequestTimeout"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    patchOrganizationBucketAttributes: {
        parameters: {
            query?: never;
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path: {
                /** @description Attribute bucket. */
                bucket_name: components["parameters"]["BucketNamePath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "risk_score": 12,
                 *       "reviewed": true
                 *     }
                 */
                "application/json": components["schemas"]["Attributes"];
            };
        };
        responses: {
            /** @description Stored; read them back with the GET of the same path. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listAttributeBuckets: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": [
                     *         {
                     *           "name": "end_user_read_write",
                     *           "end_user_permissions": "read_write",
                     *           "sharing_scope": "organization",
                     *           "owner_organization_id": "3f6a0c1e-5b7d-4e2a-9c41-0d2e7f8a9b10",
                     *           "end_user_access": "read_write",
                     *           "shared_with_person_pool": false
                     *         },
                     *         {
                     *           "name": "end_user_read_only",
                     *           "end_user_permissions": "read_only",
                     *           "sharing_scope": "organization",
                     *           "owner_organization_id": "3f6a0c1e-5b7d-4e2a-9c41-0d2e7f8a9b10",
                     *           "end_user_access": "read_only",
                     *           "shared_with_person_pool": false
                     *         },
                     *         {
                     *           "name": "end_user_no_access",
                     *           "end_user_permissions": "no_access",
                     *           "sharing_scope": "organization",
                     *           "owner_organization_id": "3f6a0c1e-5b7d-4e2a-9c41-0d2e7f8a9b10",
                     *           "end_user_access": "no_access",
                     *           "shared_with_person_pool": false
                     *         },
                     *         {
                     *           "name": "person_pool-end_user_read_write",
                     *           "end_user_permissions": "read_write",
                     *           "sharing_scope": "person_pool",
                     *           "owner_organization_id": "3f6a0c1e-5b7d-4e2a-9c41-0d2e7f8a9b10",
                     *           "end_user_access": "read_write",
                     *           "shared_with_person_pool": true
                     *         },
                     *         {
                     *           "name": "person_pool-end_user_read_only",
                     *           "end_user_permissions": "read_only",
                     *           "sharing_scope": "person_pool",
                     *           "owner_organization_id": "3f6a0c1e-5b7d-4e2a-9c41-0d2e7f8a9b10",
                     *           "end_user_access": "read_only",
                     *           "shared_with_person_pool": true
                     *         },
                     *         {
                     *           "name": "person_pool-end_user_no_access",
                     *           "end_user_permissions": "no_access",
                     *           "sharing_scope": "person_pool",
                     *           "owner_organization_id": "3f6a0c1e-5b7d-4e2a-9c41-0d2e7f8a9b10",
                     *           "end_user_access": "no_access",
                     *           "shared_with_person_pool": true
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["AttributeBucket"][];
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getOrganization: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "id": "3f6a0c1e-5b7d-4e2a-9c41-0d2e7f8a9b10",
                     *         "parent_id": null,
                     *         "org_name": "Acme Docs",
                     *         "tenant_name": "acme",
                     *         "persons_pool_org_ids": [],
                     *         "group_pool_org_ids": [
                     *           "3f6a0c1e-5b7d-4e2a-9c41-0d2e7f8a9b10"
                     *         ],
                     *         "inherits_rbac_pools": false,
                     *         "managed_organizations": [
                     *           {
                     *             "id": "7c2d9e41-1a3b-4c5d-8e6f-a0b1c2d3e4f5",
                     *             "parent_id": "3f6a0c1e-5b7d-4e2a-9c41-0d2e7f8a9b10",
                     *             "org_name": "Acme Docs EU",
                     *             "tenant_name": "acme"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["OrganizationWithPools"];
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    deleteOrganization: {
        parameters: {
            query?: {
                /** @description When the deletion was confirmed (RFC 3339); refused when more than five minutes away from now. */
                confirmation_timestamp?: string;
                /** @description Also delete every suborganization below this one, deepest first. */
                delete_suborganizations?: boolean;
            };
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            408: components["responses"]["RequestTimeout"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listSuborganizations: {
        parameters: {
            query?: {
                /** @description SCIM-style filter on `id`, `org_name` and `tenant_name`, e.g. `org_name eq "Acme Docs EU"` or `tenant_name sw "ac"`; operators eq, ne, co, sw, pr, and, or (case-insensitive). */
                filter?: components["parameters"]["OrgFilter"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": [
                     *         "7c2d9e41-1a3b-4c5d-8e6f-a0b1c2d3e4f5"
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["OrganizationId"][];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    createSuborganization: {
        parameters: {
            query?: never;
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "sub_org_name": "Acme Docs EU",
                 *       "tenant_name": "acme",
                 *       "admins": [
                 *         {
                 *           "type": "email_address",
                 *           "value": "it@acme.example"
                 *         }
                 *       ],
                 *       "inherit_rbac_pools": true
                 *     }
                 */
                "application/json": components["schemas"]["SuborganizationCreate"];
            };
        };
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "id": "7c2d9e41-1a3b-4c5d-8e6f-a0b1c2d3e4f5",
                     *         "parent_id": "3f6a0c1e-5b7d-4e2a-9c41-0d2e7f8a9b10",
                     *         "org_name": "Acme Docs EU",
                     *         "tenant_name": "acme",
                     *         "api_key": "kw_live_2f9c7a1e5b3d4f60a8e1c2b3d4e5f6a7b8c9d0e1"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["SuborganizationCreated"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    rotateApiKey: {
        parameters: {
            query?: never;
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "api_key": "kw_live_8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b",
                     *         "created_at": "2026-03-14T09:26:53Z"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["ApiKeyResult"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            408: components["responses"]["RequestTimeout"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getOrganizationConfig: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "deny_self_registration": false,
                     *         "new_person_handle_patterns": [
                     *           "@example\\.com$"
                     *         ],
                     *         "token_duration": 3600,
                     *         "allowed_factor_methods": [
                     *           "otp_via_email",
                     *           "email_link",
                     *           "webauthn",
                     *           "password",
                     *           "totp"
                     *         ],
                     *         "requires_manual_approval": false,
                     *         "authn_link_allowed_redirect_uris": [
                     *           "https://app.example.com/auth"
                     *         ],
                     *         "authn_redirect_page_ui_config": {
                     *           "title": "Acme",
                     *           "background_color": "#0b1f3a"
                     *         },
                     *         "sudo_mode_duration": 0,
                     *         "canonical_identity_ai_matching_enabled": false,
                     *         "from_email": "no-reply@example.com",
                     *         "from_phone_number_sms": "",
                     *         "allow_self_registration": true,
                     *         "handle_patterns": [
                     *           "@example\\.com$"
                     *         ],
                     *         "token_duration_seconds": 3600,
                     *         "allowed_factors": [
                     *           "otp_via_email",
                     *           "email_link",
                     *           "webauthn",
                     *           "password",
                     *           "totp"
                     *         ],
                     *         "require_approval_for_new_persons": false,
                     *         "password_validation_rules": [
                     *           {
                     *             "name": "min_length",
                     *             "pattern": "^.{10,}$",
                     *             "match_type": "must_match"
                     *           },
                     *           {
                     *             "name": "no_common_word",
                     *             "pattern": "password",
                     *             "match_type": "must_not_match",
                     *             "qualifiers": [
                     *               "case_insensitive"
                     *             ]
                     *           }
                     *         ],
                     *         "groups_claim_name": "groups"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["OrganizationConfig"];
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    patchOrganizationConfig: {
        parameters: {
            query?: never;
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "deny_self_registration": true,
                 *       "token_duration": 7200
                 *     }
                 */
                "application/json": components["schemas"]["OrganizationConfigPatch"];
            };
        };
        responses: {
            /** @description Changed; `GET /organizations/config` reads the settings back. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getCurrentPricingTier: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "name": "growth",
                     *         "monthly_active_persons": 10000,
                     *         "suborganizations": 10,
                     *         "api_calls_per_minute": 6000,
                     *         "price_per_month_usd": 240,
                     *         "max_suborganizations": 10,
                     *         "custom_templates_allowed": true,
                     *         "nhi_external_connections_allowed": false
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["PricingTier"];
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listPricingTiers: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": [
                     *         {
                     *           "name": "free",
                     *           "monthly_active_persons": 1000,
                     *           "suborganizations": 0,
                     *           "api_calls_per_minute": 600,
                     *           "price_per_month_usd": 0,
                     *           "max_suborganizations": 0,
                     *           "custom_templates_allowed": true,
                     *           "nhi_external_connections_allowed": false
                     *         },
                     *         {
                     *           "name": "growth",
                     *           "monthly_active_persons": 10000,
                     *           "suborganizations": 10,
                     *           "api_calls_per_minute": 6000,
                     *           "price_per_month_usd": 240,
                     *           "max_suborganizations": 10,
                     *           "custom_templates_allowed": true,
                     *           "nhi_external_connections_allowed": false
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["PricingTier"][];
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getQuotaUsage: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "period_start": "2026-03-01T00:00:00Z",
                     *         "period_end": "2026-04-01T00:00:00Z",
                     *         "organizations": [
                     *           {
                     *             "id": "3f6a0c1e-5b7d-4e2a-9c41-0d2e7f8a9b10",
                     *             "monthly_active_persons": 412,
                     *             "persons": 1290
                     *           },
                     *           {
                     *             "id": "7c2d9e41-1a3b-4c5d-8e6f-a0b1c2d3e4f5",
                     *             "monthly_active_persons": 37,
                     *             "persons": 88
                     *           }
                     *         ],
                     *         "total_monthly_active_persons": 449,
                     *         "num_persons": 1378,
                     *         "num_groups": 12,
                     *         "num_suborganizations": 1,
                     *         "pricing_tier_details": {
                     *           "name": "growth",
                     *           "monthly_active_persons": 10000,
                     *           "suborganizations": 10,
                     *           "api_calls_per_minute": 6000,
                     *           "price_per_month_usd": 240,
                     *           "max_suborganizations": 10,
                     *           "custom_templates_allowed": true,
                     *           "nhi_external_connections_allowed": false
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["QuotaUsage"];
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listAllowedDomains: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": [
                     *         "docs.example.com",
                     *         "app.example.com"
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: string[];
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    addAllowedDomains: {
        parameters: {
            query?: {
                /** @description Replace the whole list by the given domains instead of adding them. */
                overwrite?: boolean;
            };
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "domains": [
                 *         "app.example.com"
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["DomainAdd"];
            };
        };
        responses: {
            /** @description Added; `GET /organizations/config/domains` lists them. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    removeAllowedDomains: {
        parameters: {
            query?: {
                /** @description A domain to remove. */
                domain?: string;
                /** @description Remove every allowed domain. */
                deleteAll?: boolean;
            };
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "domains": [
                 *         "app.example.com"
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["DomainList"];
            };
        };
        responses: {
            /** @description Removed. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listEmailTemplates: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": [
                     *         "email_authn_challenge",
                     *         "email_otp_message",
                     *         "email_password_change_notify",
                     *         "email_password_reset",
                     *         "text_authn_challenge",
                     *         "text_otp_message",
                     *         "text_password_change_notify",
                     *         "text_password_reset"
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["EmailTemplateName"][];
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getEmailTemplate: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description Template name.
                 * @example email_otp_message
                 */
                template_name: components["parameters"]["TemplateNamePath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "name": "email_otp_message",
                     *         "subject": "Your Acme sign-in code",
                     *         "body": "<p>Your code is <b>{{ code }}</b>.</p>",
                     *         "text_body": "Your code is {{ code }}.",
                     *         "sender_name": "Acme",
                     *         "customized": true,
                     *         "updated_at": "2026-03-14T09:26:53Z"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["EmailTemplate"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    setEmailTemplate: {
        parameters: {
            query?: never;
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path: {
                /**
                 * @description Template name.
                 * @example email_otp_message
                 */
                template_name: components["parameters"]["TemplateNamePath"];
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "subject": "Your Acme sign-in code",
                 *       "body": "<p>Your code is <b>{{ code }}</b>.</p>",
                 *       "sender_name": "Acme"
                 *     }
                 */
                "application/json": components["schemas"]["EmailTemplateUpdate"];
            };
        };
        responses: {
            /** @description Stored; the GET of the same path reads it back. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listExternalCredentials: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": [
                     *         {
                     *           "external_cred_id": "xc_01JD8ZD1",
                     *           "organization_id": "3f6a0c1e-5b7d-4e2a-9c41-0d2e7f8a9b10",
                     *           "extcred_label": "Transactional SMTP",
                     *           "extcred_provider": "generic",
                     *           "extcred_type": "user_pass",
                     *           "id": "xc_01JD8ZD1",
                     *           "label": "Transactional SMTP",
                     *           "type": "smtp",
                     *           "public_fields": {
                     *             "host": "smtp.example.com",
                     *             "port": 587,
                     *             "from": "no-reply@example.com"
                     *           },
                     *           "secret_field_names": [
                     *             "password",
                     *             "username"
                     *           ],
                     *           "created_at": "2026-03-14T09:26:53Z"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["ExternalCredential"][];
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    createExternalCredential: {
        parameters: {
            query?: never;
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "extcred_provider": "generic",
                 *       "extcred_type": "user_pass",
                 *       "extcred_label": "Transactional SMTP",
                 *       "json_blob": {
                 *         "username": "mailer",
                 *         "password": "s3cr3t-app-password"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["ExternalCredentialCreate"];
            };
        };
        responses: {
            /** @description Created. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": [
                     *         "xc_01JD8ZD1"
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["ResourceId"][];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            408: components["responses"]["RequestTimeout"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    deleteExternalCredential: {
        parameters: {
            query?: {
                /**
                 * @description External credential to remove (required unless `deleteAll=true`).
                 * @example xc_01JD8ZD1
                 */
                credentialId?: components["schemas"]["ResourceId"];
                /**
                 * @deprecated
                 * @description Former name of `credentialId`, still accepted.
                 */
                cred_id?: components["schemas"]["ResourceId"];
                /** @description Remove every external credential of the organization. */
                deleteAll?: boolean;
            };
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            408: components["responses"]["RequestTimeout"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getExternalCredential: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description External credential id. */
                cred_id: components["parameters"]["CredIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "external_cred_id": "xc_01JD8ZD1",
                     *         "organization_id": "3f6a0c1e-5b7d-4e2a-9c41-0d2e7f8a9b10",
                     *         "extcred_label": "Transactional SMTP",
                     *         "extcred_provider": "generic",
                     *         "extcred_type": "user_pass",
                     *         "id": "xc_01JD8ZD1",
                     *         "label": "Transactional SMTP",
                     *         "type": "smtp",
                     *         "public_fields": {
                     *           "host": "smtp.example.com",
                     *           "port": 587,
                     *           "from": "no-reply@example.com"
                     *         },
                     *         "secret_field_names": [
                     *           "password",
                     *           "username"
                     *         ],
                     *         "created_at": "2026-03-14T09:26:53Z"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["ExternalCredential"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    patchExternalCredential: {
        parameters: {
            query?: never;
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path: {
                /** @description External credential id. */
                cred_id: components["parameters"]["CredIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "extcred_label": "Primary SMTP"
                 *     }
                 */
                "application/json": components["schemas"]["ExternalCredentialPatch"];
            };
        };
        responses: {
            /** @description Changed; the GET of the same path reads it back. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getKycConfig: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "enabled": true,
                     *         "provider": "document_check",
                     *         "required_for_registration": false,
                     *         "allowed_document_countries": [
                     *           "GB",
                     *           "DE",
                     *           "FR"
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["KycConfig"];
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    patchKycConfig: {
        parameters: {
            query?: never;
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "required_for_registration": true
                 *     }
                 */
                "application/json": components["schemas"]["KycConfigPatch"];
            };
        };
        responses: {
            /** @description Changed; `GET /organizations/config/kyc` reads the settings back. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listSamlProviderCredentialss: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": [
                     *         {
                     *           "id": "spc_01JD8ZE7",
                     *           "label": "Corporate IdP",
                     *           "idp_entity_id": "https://idp.example.com/saml",
                     *           "sp_entity_id": "https://api.keyway.dev/sso/saml/metadata",
                     *           "sp_acs_url": "https://api.keyway.dev/sso/saml/acs",
                     *           "attribute_mapping": {
                     *             "mail": "email"
                     *           },
                     *           "created_at": "2026-03-14T09:26:53Z"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["SamlProviderCredentials"][];
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    createSamlProviderCredentials: {
        parameters: {
            query?: never;
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "label": "Corporate IdP",
                 *       "idp_metadata_xml": "<EntityDescriptor xmlns=\"urn:oasis:names:tc:SAML:2.0:metadata\" xmlns:ds=\"http://www.w3.org/2000/09/xmldsig#\" entityID=\"https://idp.example.com/saml\">\n  <IDPSSODescriptor protocolSupportEnumeration=\"urn:oasis:names:tc:SAML:2.0:protocol\">\n    <KeyDescriptor use=\"signing\">\n      <ds:KeyInfo><ds:X509Data><ds:X509Certificate>MIIBiTCCAS+gAwIBAgIUL8iNH8LMBNWj4SPHz4Jg/wgJWYgwCgYIKoZIzj0EAwIwGjEYMBYGA1UEAwwPaWRwLmV4YW1wbGUuY29tMB4XDTI2MTEyNTE1NDUwOFoXDTM2MTEyMjE1NDUwOFowGjEYMBYGA1UEAwwPaWRwLmV4YW1wbGUuY29tMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEAyeV7ckxf/QZq5j0IFOVCksI2JS/HEZKciT6zP1Szxzz8rSYfuGtMNydpci5RR38gSf3ujl0m7NfkHpd/okmUaNTMFEwHQYDVR0OBBYEFLvWmG6yMz3yHC+Th/QXYjnb4zCEMB8GA1UdIwQYMBaAFLvWmG6yMz3yHC+Th/QXYjnb4zCEMA8GA1UdEwEB/wQFMAMBAf8wCgYIKoZIzj0EAwIDSAAwRQIgYcJDyXtrJrlWfBrUTqwNj3OQni3SYspk2ubEP5kfgUICIQC1gmumgPo4BCzePEFxVx2V1kQpLj1rq19zBW4XR6tzHw==</ds:X509Certificate></ds:X509Data></ds:KeyInfo>\n    </KeyDescriptor>\n    <SingleSignOnService Binding=\"urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect\" Location=\"https://idp.example.com/saml/sso\"/>\n  </IDPSSODescriptor>\n</EntityDescriptor>\n",
                 *       "attribute_mapping": {
                 *         "mail": "email"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["SamlProviderCredentialsCreate"];
            };
        };
        responses: {
            /** @description Created. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "id": "spc_01JD8ZE7",
                     *         "label": "Corporate IdP",
                     *         "idp_entity_id": "https://idp.example.com/saml",
                     *         "sp_entity_id": "https://api.keyway.dev/sso/saml/metadata",
                     *         "sp_acs_url": "https://api.keyway.dev/sso/saml/acs",
                     *         "attribute_mapping": {
                     *           "mail": "email"
                     *         },
                     *         "created_at": "2026-03-14T09:26:53Z"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["SamlProviderCredentials"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            408: components["responses"]["RequestTimeout"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getSamlProviderCredentials: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description SAML provider credentials id. */
                saml_provider_credentials_id: components["parameters"]["SamlCredentialsIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "id": "spc_01JD8ZE7",
                     *         "label": "Corporate IdP",
                     *         "idp_entity_id": "https://idp.example.com/saml",
                     *         "sp_entity_id": "https://api.keyway.dev/sso/saml/metadata",
                     *         "sp_acs_url": "https://api.keyway.dev/sso/saml/acs",
                     *         "attribute_mapping": {
                     *           "mail": "email"
                     *         },
                     *         "created_at": "2026-03-14T09:26:53Z"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["SamlProviderCredentials"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    deleteSamlProviderCredentials: {
        parameters: {
            query?: never;
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path: {
                /** @description SAML provider credentials id. */
                saml_provider_credentials_id: components["parameters"]["SamlCredentialsIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            408: components["responses"]["RequestTimeout"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    patchSamlProviderCredentials: {
        parameters: {
            query?: never;
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path: {
                /** @description SAML provider credentials id. */
                saml_provider_credentials_id: components["parameters"]["SamlCredentialsIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "label": "Corporate IdP (EU)"
                 *     }
                 */
                "application/json": components["schemas"]["SamlProviderCredentialsPatch"];
            };
        };
        responses: {
            /** @description Changed; the GET of the same path reads it back. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listOidcProviderCredentialss: {
        parameters: {
            query?: {
                /** @description Only the configurations of this provider (`azure` is a former name of `azuread`). */
                oauth_provider?: "google" | "apple" | "azure" | "azuread" | "facebook" | "github" | "gitlab" | "line" | "bitbucket" | "okta" | "keycloak" | "generic";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": [
                     *         {
                     *           "client_id": "1234567890-abc.apps.example.com",
                     *           "label": "Google",
                     *           "provider": "google",
                     *           "issuer": "https://accounts.google.com",
                     *           "scopes": [
                     *             "openid",
                     *             "email"
                     *           ],
                     *           "options": {
                     *             "google": {
                     *               "authorize_scopes": [
                     *                 "https://www.googleapis.com/auth/calendar.readonly"
                     *               ]
                     *             }
                     *           },
                     *           "enable_in_slashid_oidc_authz_server": false,
                     *           "created_at": "2026-03-14T09:26:53Z"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["OidcProviderCredentials"][];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    createOidcProviderCredentials: {
        parameters: {
            query?: never;
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "client_id": "1234567890-abc.apps.example.com",
                 *       "client_secret": "GOCSPX-example-secret",
                 *       "label": "Google",
                 *       "provider": "google",
                 *       "scopes": [
                 *         "openid",
                 *         "email"
                 *       ],
                 *       "options": {
                 *         "google": {
                 *           "authorize_scopes": [
                 *             "https://www.googleapis.com/auth/calendar.readonly"
                 *           ]
                 *         }
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["OidcProviderCredentialsCreate"];
            };
        };
        responses: {
            /** @description Created. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "client_id": "1234567890-abc.apps.example.com",
                     *         "label": "Google",
                     *         "provider": "google",
                     *         "issuer": "https://accounts.google.com",
                     *         "scopes": [
                     *           "openid",
                     *           "email"
                     *         ],
                     *         "options": {
                     *           "google": {
                     *             "authorize_scopes": [
                     *               "https://www.googleapis.com/auth/calendar.readonly"
                     *             ]
                     *           }
                     *         },
                     *         "enable_in_slashid_oidc_authz_server": false,
                     *         "created_at": "2026-03-14T09:26:53Z"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["OidcProviderCredentials"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            408: components["responses"]["RequestTimeout"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getOidcProviderCredentials: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The client id held at the OIDC provider (e.g. Google's `….apps.googleusercontent.com`, Apple's `com.example.web`).
                 * @example 1234567890-abc.apps.example.com
                 */
                oauth_client_id: components["parameters"]["OidcProviderClientIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "client_id": "1234567890-abc.apps.example.com",
                     *         "label": "Google",
                     *         "provider": "google",
                     *         "issuer": "https://accounts.google.com",
                     *         "scopes": [
                     *           "openid",
                     *           "email"
                     *         ],
                     *         "options": {
                     *           "google": {
                     *             "authorize_scopes": [
                     *               "https://www.googleapis.com/auth/calendar.readonly"
                     *             ]
                     *           }
                     *         },
                     *         "enable_in_slashid_oidc_authz_server": false,
                     *         "created_at": "2026-03-14T09:26:53Z"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["OidcProviderCredentials"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    deleteOidcProviderCredentials: {
        parameters: {
            query?: never;
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path: {
                /**
                 * @description The client id held at the OIDC provider (e.g. Google's `….apps.googleusercontent.com`, Apple's `com.example.web`).
                 * @example 1234567890-abc.apps.example.com
                 */
                oauth_client_id: components["parameters"]["OidcProviderClientIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted; the configuration as it was. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "client_id": "1234567890-abc.apps.example.com",
                     *         "label": "Google",
                     *         "provider": "google",
                     *         "issuer": "https://accounts.google.com",
                     *         "scopes": [
                     *           "openid",
                     *           "email"
                     *         ],
                     *         "options": {
                     *           "google": {
                     *             "authorize_scopes": [
                     *               "https://www.googleapis.com/auth/calendar.readonly"
                     *             ]
                     *           }
                     *         },
                     *         "enable_in_slashid_oidc_authz_server": false,
                     *         "created_at": "2026-03-14T09:26:53Z"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["OidcProviderCredentials"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            408: components["responses"]["RequestTimeout"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    patchOidcProviderCredentials: {
        parameters: {
            query?: never;
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path: {
                /**
                 * @description The client id held at the OIDC provider (e.g. Google's `….apps.googleusercontent.com`, Apple's `com.example.web`).
                 * @example 1234567890-abc.apps.example.com
                 */
                oauth_client_id: components["parameters"]["OidcProviderClientIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "label": "Google Workspace"
                 *     }
                 */
                "application/json": components["schemas"]["OidcProviderCredentialsPatch"];
            };
        };
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "client_id": "1234567890-abc.apps.example.com",
                     *         "label": "Google Workspace",
                     *         "provider": "google",
                     *         "issuer": "https://accounts.google.com",
                     *         "scopes": [
                     *           "openid",
                     *           "email"
                     *         ],
                     *         "options": {
                     *           "google": {
                     *             "authorize_scopes": [
                     *               "https://www.googleapis.com/auth/calendar.readonly"
                     *             ]
                     *           }
                     *         },
                     *         "enable_in_slashid_oidc_authz_server": false,
                     *         "created_at": "2026-03-14T09:26:53Z"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["OidcProviderCredentials"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getTokenTemplate: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "content": "{\"plan\": \"{{ person.attributes.end_user_read_only.plan }}\"}"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["TokenTemplate"];
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    setTokenTemplate: {
        parameters: {
            query?: never;
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "content": "{\"roles\": \"{{ person.roles }}\", \"plan\": \"{{ person.attributes.end_user_read_only.plan }}\"}"
                 *     }
                 */
                "application/json": components["schemas"]["TokenTemplate"];
            };
        };
        responses: {
            /** @description Stored. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listWebhooks: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": [
                     *         {
                     *           "id": "wh_01JD8ZF2",
                     *           "name": "Audit sink",
                     *           "description": "Sends sign-in events to the audit service",
                     *           "target_url": "https://audit.example.com/keyway",
                     *           "custom_headers": {
                     *             "X-Team": [
                     *               "identity"
                     *             ]
                     *           },
                     *           "timeout": "10s",
                     *           "created_at": "2026-03-14T09:26:53Z"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["Webhook"][];
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    createWebhook: {
        parameters: {
            query?: never;
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "Audit sink",
                 *       "description": "Sends sign-in events to the audit service",
                 *       "target_url": "https://audit.example.com/keyway",
                 *       "custom_headers": {
                 *         "X-Team": [
                 *           "identity"
                 *         ]
                 *       },
                 *       "timeout": "10s"
                 *     }
                 */
                "application/json": components["schemas"]["WebhookCreate"];
            };
        };
        responses: {
            /** @description Created. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "id": "wh_01JD8ZF2",
                     *         "name": "Audit sink",
                     *         "description": "Sends sign-in events to the audit service",
                     *         "target_url": "https://audit.example.com/keyway",
                     *         "custom_headers": {
                     *           "X-Team": [
                     *             "identity"
                     *           ]
                     *         },
                     *         "timeout": "10s",
                     *         "created_at": "2026-03-14T09:26:53Z"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["Webhook"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            408: components["responses"]["RequestTimeout"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Webhook id. */
                webhook_id: components["parameters"]["WebhookIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "id": "wh_01JD8ZF2",
                     *         "name": "Audit sink",
                     *         "description": "Sends sign-in events to the audit service",
                     *         "target_url": "https://audit.example.com/keyway",
                     *         "custom_headers": {
                     *           "X-Team": [
                     *             "identity"
                     *           ]
                     *         },
                     *         "timeout": "10s",
                     *         "created_at": "2026-03-14T09:26:53Z"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["Webhook"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    deleteWebhook: {
        parameters: {
            query?: never;
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path: {
                /** @description Webhook id. */
                webhook_id: components["parameters"]["WebhookIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            408: components["responses"]["RequestTimeout"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    patchWebhook: {
        parameters: {
            query?: never;
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path: {
                /** @description Webhook id. */
                webhook_id: components["parameters"]["WebhookIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "timeout": "20s"
                 *     }
                 */
                "application/json": components["schemas"]["WebhookPatch"];
            };
        };
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "id": "wh_01JD8ZF2",
                     *         "name": "Audit sink",
                     *         "description": "Sends sign-in events to the audit service",
                     *         "target_url": "https://audit.example.com/keyway",
                     *         "custom_headers": {
                     *           "X-Team": [
                     *             "identity"
                     *           ]
                     *         },
                     *         "timeout": "20s",
                     *         "created_at": "2026-03-14T09:26:53Z"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["Webhook"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listWebhookTriggers: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Webhook id. */
                webhook_id: components["parameters"]["WebhookIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": [
                     *         {
                     *           "trigger_type": "event",
                     *           "trigger_name": "AuthenticationSucceeded_v1"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["WebhookTrigger"][];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    createWebhookTrigger: {
        parameters: {
            query?: never;
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path: {
                /** @description Webhook id. */
                webhook_id: components["parameters"]["WebhookIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "trigger_type": "event",
                 *       "trigger_name": "AuthenticationSucceeded_v1"
                 *     }
                 */
                "application/json": components["schemas"]["WebhookTrigger"];
            };
        };
        responses: {
            /** @description Created. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "trigger_type": "event",
                     *         "trigger_name": "AuthenticationSucceeded_v1"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["WebhookTrigger"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            408: components["responses"]["RequestTimeout"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    deleteWebhookTrigger: {
        parameters: {
            query?: {
                /** @description Type of the trigger to detach (with `trigger_name`). */
                trigger_type?: "event" | "sync_hook";
                /** @description Name of the trigger to detach (with `trigger_type`). */
                trigger_name?: string;
            };
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path: {
                /** @description Webhook id. */
                webhook_id: components["parameters"]["WebhookIdPath"];
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "trigger_type": "event",
                 *       "trigger_name": "AuthenticationSucceeded_v1"
                 *     }
                 */
                "application/json": components["schemas"]["WebhookTrigger"];
            };
        };
        responses: {
            /** @description Deleted. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listWebhookDeliveries: {
        parameters: {
            query?: {
                /** @description Only deliveries in this state (`failed`: the dead letters); all when absent. */
                status?: "pending" | "delivered" | "failed";
                /** @description Page size (at most 1000). */
                limit?: components["parameters"]["Limit"];
                /** @description Number of items to skip. */
                offset?: components["parameters"]["Offset"];
                /** @description Where to continue: `meta.cursor_pagination.cursor` of the previous page. An empty cursor is the first page. Not together with `offset`. On `GET /persons` and `GET /events` a cursor is a place in the order: it keeps its place when items are added or removed before it, and a page costs the same at any depth. On the other lists it stands for an offset. */
                cursor?: components["parameters"]["Cursor"];
            };
            header?: never;
            path: {
                /** @description Webhook id. */
                webhook_id: components["parameters"]["WebhookIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": [
                     *         {
                     *           "id": "a3e1c0d2-5b7f-4e19-9c8a-1d2e3f4a5b6c",
                     *           "webhook_id": "wh_01JD8ZF2",
                     *           "event_id": "0f3c5c2e-8c1b-4a53-9d7e-2b6f1a9c4e10",
                     *           "event_type": "AuthenticationSucceeded_v1",
                     *           "status": "failed",
                     *           "attempts": 8,
                     *           "last_status": 503,
                     *           "last_error": "receiver answered 503",
                     *           "created_at": "2026-11-26T10:00:00.000Z"
                     *         }
                     *       ],
                     *       "meta": {
                     *         "pagination": {
                     *           "limit": 100,
                     *           "offset": 0,
                     *           "total_count": 1
                     *         },
                     *         "cursor_pagination": {
                     *           "cursor": "",
                     *           "limit": 100,
                     *           "total_count": 1
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["WebhookDelivery"][];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    replayWebhookDelivery: {
        parameters: {
            query?: never;
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path: {
                /** @description Webhook id. */
                webhook_id: components["parameters"]["WebhookIdPath"];
                /** @description Delivery id (`id` of a listed delivery, also sent as the `Keyway-Delivery-Id` header). */
                delivery_id: components["parameters"]["WebhookDeliveryIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "id": "a3e1c0d2-5b7f-4e19-9c8a-1d2e3f4a5b6c",
                     *         "webhook_id": "wh_01JD8ZF2",
                     *         "event_id": "0f3c5c2e-8c1b-4a53-9d7e-2b6f1a9c4e10",
                     *         "event_type": "AuthenticationSucceeded_v1",
                     *         "status": "pending",
                     *         "attempts": 0,
                     *         "last_status": 503,
                     *         "last_error": "receiver answered 503",
                     *         "created_at": "2026-11-26T10:00:00.000Z",
                     *         "next_attempt_at": "2026-11-26T10:05:00.000Z"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["WebhookDelivery"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            408: components["responses"]["RequestTimeout"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getWebhookVerificationJwks: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "keys": [
                     *         {
                     *           "kty": "EC",
                     *           "kid": "wh-2026-03",
                     *           "use": "sig",
                     *           "alg": "ES256",
                     *           "crv": "P-256",
                     *           "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
                     *           "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["Jwks"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    generateTestEvents: {
        parameters: {
            query?: never;
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example [
                 *       {
                 *         "event_name": "AuthenticationSucceeded_v1",
                 *         "count": 2,
                 *         "analytics_correlation_id": "try-1"
                 *       }
                 *     ]
                 */
                "application/json": components["schemas"]["TestEventsRequest"];
            };
        };
        responses: {
            /** @description Created. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": [
                     *         {
                     *           "event_id": "0f3c5c2e-8c1b-4a53-9d7e-2b6f1a9c4e10",
                     *           "event_name": "AuthenticationSucceeded_v1",
                     *           "organization_id": "b6a8f9e2-3c1d-4e5f-8a7b-9c0d1e2f3a4b",
                     *           "timestamp": "2026-11-26T10:00:00.000Z"
                     *         },
                     *         {
                     *           "event_id": "5d2a7b91-64e0-4f8c-b3a2-7e9d0c1f2b35",
                     *           "event_name": "AuthenticationSucceeded_v1",
                     *           "organization_id": "b6a8f9e2-3c1d-4e5f-8a7b-9c0d1e2f3a4b",
                     *           "timestamp": "2026-11-26T10:00:00.000Z"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["TestEvent"][];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listPermissions: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": [
                     *         "docs:read",
                     *         "docs:write"
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["PermissionName"][];
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    createPermission: {
        parameters: {
            query?: never;
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "docs:write",
                 *       "description": "Edit documentation pages"
                 *     }
                 */
                "application/json": components["schemas"]["PermissionCreate"];
            };
        };
        responses: {
            /** @description Created. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            408: components["responses"]["RequestTimeout"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getPermission: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Name of the permission. */
                permission_name: components["parameters"]["PermissionNamePath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description Version of the object; send it back in `If-Match` to change it only if nobody changed it meanwhile. */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "name": "docs:write",
                     *         "description": "Edit documentation pages",
                     *         "created": "2026-03-14T09:26:53Z"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["Permission"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    deletePermission: {
        parameters: {
            query?: never;
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path: {
                /** @description Name of the permission. */
                permission_name: components["parameters"]["PermissionNamePath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            408: components["responses"]["RequestTimeout"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    patchPermission: {
        parameters: {
            query?: never;
            header?: {
                /** @description The `ETag` of the object as last read (`*`: any). When the object changed since, nothing is changed and the answer is 412. */
                "If-Match"?: components["parameters"]["IfMatch"];
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path: {
                /** @description Name of the permission. */
                permission_name: components["parameters"]["PermissionNamePath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "description": "Edit and publish documentation pages"
                 *     }
                 */
                "application/json": components["schemas"]["PermissionPatch"];
            };
        };
        responses: {
            /** @description Changed. */
            204: {
                headers: {
                    /** @description Version of the object; send it back in `If-Match` to change it only if nobody changed it meanwhile. */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            408: components["responses"]["RequestTimeout"];
            412: components["responses"]["PreconditionFailed"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listRoles: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": [
                     *         "editor",
                     *         "reader"
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["RoleName"][];
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    createRole: {
        parameters: {
            query?: never;
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "editor",
                 *       "description": "Writes the docs",
                 *       "permissions": [
                 *         "docs:write"
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["RoleCreate"];
            };
        };
        responses: {
            /** @description Created. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            408: components["responses"]["RequestTimeout"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getRole: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Name of the role. */
                role_name: components["parameters"]["RoleNamePath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    /** @description Version of the object; send it back in `If-Match` to change it only if nobody changed it meanwhile. */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "name": "editor",
                     *         "description": "Writes the docs",
                     *         "permissions": [
                     *           "docs:read",
                     *           "docs:write"
                     *         ],
                     *         "created": "2026-03-14T09:26:53Z"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["Role"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    deleteRole: {
        parameters: {
            query?: never;
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path: {
                /** @description Name of the role. */
                role_name: components["parameters"]["RoleNamePath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            408: components["responses"]["RequestTimeout"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    patchRole: {
        parameters: {
            query?: never;
            header?: {
                /** @description The `ETag` of the object as last read (`*`: any). When the object changed since, nothing is changed and the answer is 412. */
                "If-Match"?: components["parameters"]["IfMatch"];
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path: {
                /** @description Name of the role. */
                role_name: components["parameters"]["RoleNamePath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "permissions": [
                 *         "docs:read",
                 *         "docs:write",
                 *         "docs:publish"
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["RolePatch"];
            };
        };
        responses: {
            /** @description Changed. */
            204: {
                headers: {
                    /** @description Version of the object; send it back in `If-Match` to change it only if nobody changed it meanwhile. */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            408: components["responses"]["RequestTimeout"];
            412: components["responses"]["PreconditionFailed"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    checkPermission: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "person_id": "pid:0193a1f2c4b87d3e9f10a2b3c4d5e6f7",
                 *       "permission_name": "docs:write"
                 *     }
                 */
                "application/json": components["schemas"]["RbacCheckRequest"];
            };
        };
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "granted": true,
                     *         "granted_by": [
                     *           "editor"
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["RbacCheckResult"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listOAuth2Clients: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": [
                     *         {
                     *           "client_id": "docs-portal",
                     *           "client_name": "Docs portal",
                     *           "scopes": [
                     *             "openid",
                     *             "email"
                     *           ],
                     *           "grant_types": [
                     *             "authorization_code",
                     *             "refresh_token"
                     *           ],
                     *           "response_types": [
                     *             [
                     *               "code"
                     *             ]
                     *           ],
                     *           "redirect_uris": [
                     *             "https://docs.example.com/login"
                     *           ],
                     *           "public": true,
                     *           "access_token_duration": 3600,
                     *           "refresh_token_duration": 2592000,
                     *           "created_at": "2026-03-14T09:26:53Z"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["OAuth2Client"][];
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    createOAuth2Client: {
        parameters: {
            query?: never;
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "client_name": "Docs portal",
                 *       "scopes": [
                 *         "openid",
                 *         "email"
                 *       ],
                 *       "grant_types": [
                 *         "authorization_code",
                 *         "refresh_token"
                 *       ],
                 *       "redirect_uris": [
                 *         "https://docs.example.com/login"
                 *       ],
                 *       "public": true
                 *     }
                 */
                "application/json": components["schemas"]["OAuth2ClientCreate"];
            };
        };
        responses: {
            /** @description Created. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "client_id": "docs-portal",
                     *         "client_name": "Docs portal",
                     *         "scopes": [
                     *           "openid",
                     *           "email"
                     *         ],
                     *         "grant_types": [
                     *           "authorization_code",
                     *           "refresh_token"
                     *         ],
                     *         "response_types": [
                     *           [
                     *             "code"
                     *           ]
                     *         ],
                     *         "redirect_uris": [
                     *           "https://docs.example.com/login"
                     *         ],
                     *         "public": true,
                     *         "access_token_duration": 3600,
                     *         "refresh_token_duration": 2592000,
                     *         "created_at": "2026-03-14T09:26:53Z",
                     *         "client_secret": "kwcs_5c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["OAuth2ClientWithSecret"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            408: components["responses"]["RequestTimeout"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getOAuth2Client: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description OAuth2 client id. */
                oauth_client_id: components["parameters"]["OAuthClientIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "client_id": "docs-portal",
                     *         "client_name": "Docs portal",
                     *         "scopes": [
                     *           "openid",
                     *           "email"
                     *         ],
                     *         "grant_types": [
                     *           "authorization_code",
                     *           "refresh_token"
                     *         ],
                     *         "response_types": [
                     *           [
                     *             "code"
                     *           ]
                     *         ],
                     *         "redirect_uris": [
                     *           "https://docs.example.com/login"
                     *         ],
                     *         "public": true,
                     *         "access_token_duration": 3600,
                     *         "refresh_token_duration": 2592000,
                     *         "created_at": "2026-03-14T09:26:53Z"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["OAuth2Client"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    deleteOAuth2Client: {
        parameters: {
            query?: never;
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path: {
                /** @description OAuth2 client id. */
                oauth_client_id: components["parameters"]["OAuthClientIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            408: components["responses"]["RequestTimeout"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    patchOAuth2Client: {
        parameters: {
            query?: never;
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path: {
                /** @description OAuth2 client id. */
                oauth_client_id: components["parameters"]["OAuthClientIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "redirect_uris": [
                 *         "https://docs.example.com/login",
                 *         "http://localhost:3000/login"
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["OAuth2ClientPatch"];
            };
        };
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "client_id": "docs-portal",
                     *         "client_name": "Docs portal",
                     *         "scopes": [
                     *           "openid",
                     *           "email"
                     *         ],
                     *         "grant_types": [
                     *           "authorization_code",
                     *           "refresh_token"
                     *         ],
                     *         "response_types": [
                     *           [
                     *             "code"
                     *           ]
                     *         ],
                     *         "redirect_uris": [
                     *           "https://docs.example.com/login",
                     *           "http://localhost:3000/login"
                     *         ],
                     *         "public": true,
                     *         "access_token_duration": 3600,
                     *         "refresh_token_duration": 2592000,
                     *         "created_at": "2026-03-14T09:26:53Z"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["OAuth2Client"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    rotateOAuth2ClientSecret: {
        parameters: {
            query?: never;
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path: {
                /** @description OAuth2 client id. */
                oauth_client_id: components["parameters"]["OAuthClientIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "client_id": "docs-portal",
                     *         "client_name": "Docs portal",
                     *         "scopes": [
                     *           "openid",
                     *           "email"
                     *         ],
                     *         "grant_types": [
                     *           "authorization_code",
                     *           "refresh_token"
                     *         ],
                     *         "response_types": [
                     *           [
                     *             "code"
                     *           ]
                     *         ],
                     *         "redirect_uris": [
                     *           "https://docs.example.com/login"
                     *         ],
                     *         "public": false,
                     *         "access_token_duration": 3600,
                     *         "refresh_token_duration": 2592000,
                     *         "created_at": "2026-03-14T09:26:53Z",
                     *         "client_secret": "kwcs_9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["OAuth2ClientWithSecret"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            408: components["responses"]["RequestTimeout"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getOAuth2ClientUiConfiguration: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description OAuth2 client id. */
                oauth_client_id: components["parameters"]["OAuthClientIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "logoUrl": "https://cdn.example.com/logo.svg",
                     *         "pageTitle": "Sign in to Acme Docs",
                     *         "pageBackgroundColor": "#f6f8fa",
                     *         "supportURL": "https://acme.example.com/help",
                     *         "showBadge": false,
                     *         "themeVars": {
                     *           "kw-accent": "#1f6feb"
                     *         },
                     *         "factors": [
                     *           "otp_via_email",
                     *           "webauthn"
                     *         ],
                     *         "logo_url": "https://cdn.example.com/logo.svg",
                     *         "title": "Sign in to Acme Docs",
                     *         "show_keyway_branding": false
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["UiConfiguration"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    setOAuth2ClientUiConfiguration: {
        parameters: {
            query?: never;
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path: {
                /** @description OAuth2 client id. */
                oauth_client_id: components["parameters"]["OAuthClientIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "logoUrl": "https://cdn.example.com/logo.svg",
                 *       "pageTitle": "Sign in to Acme Docs",
                 *       "pageBackgroundColor": "#f6f8fa",
                 *       "supportURL": "https://acme.example.com/help",
                 *       "showBadge": false,
                 *       "themeVars": {
                 *         "kw-accent": "#1f6feb"
                 *       },
                 *       "factors": [
                 *         "otp_via_email",
                 *         "webauthn"
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["UiConfiguration"];
            };
        };
        responses: {
            /** @description Created. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "logoUrl": "https://cdn.example.com/logo.svg",
                     *         "pageTitle": "Sign in to Acme Docs",
                     *         "pageBackgroundColor": "#f6f8fa",
                     *         "supportURL": "https://acme.example.com/help",
                     *         "showBadge": false,
                     *         "themeVars": {
                     *           "kw-accent": "#1f6feb"
                     *         },
                     *         "factors": [
                     *           "otp_via_email",
                     *           "webauthn"
                     *         ],
                     *         "logo_url": "https://cdn.example.com/logo.svg",
                     *         "title": "Sign in to Acme Docs",
                     *         "show_keyway_branding": false
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["UiConfiguration"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    mintOAuth2Tokens: {
        parameters: {
            query?: never;
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "client_id": "docs-portal",
                 *       "person_id": "pid:0193a1f2c4b87d3e9f10a2b3c4d5e6f7",
                 *       "scopes": [
                 *         "openid",
                 *         "email"
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["MintOAuthTokensRequest"];
            };
        };
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": {
                     *         "access_token": "eyJhbGciOiJFUzI1NiIsImtpZCI6ImstMjAyNi0wMyIsInR5cCI6IkpXVCJ9.eyJwZXJzb25faWQiOiJwaWQ6MDE5M2ExZjJjNGI4N2QzZTlmMTBhMmIzYzRkNWU2ZjciLCJvaWQiOiIzZjZhMGMxZS01YjdkLTRlMmEtOWM0MS0wZDJlN2Y4YTliMTAiLCJmaXJzdF90b2tlbiI6ZmFsc2UsImF1dGhlbnRpY2F0ZWRfbWV0aG9kcyI6WyJvdHBfdmlhX2VtYWlsIl0sInBlcnNvbl90eXBlIjoicmVndWxhciIsImdyb3VwcyI6WyJlZGl0b3JzIl0sImV4cCI6MTc3MzQ4MzYxM30.q3Yw8n2JxT0bV5cP1sK7mR9dL4fH6gE2aZ0uN8iC3oWkXy1tQ5vB7jM9pS4eR2hD6lA0fG8zU3cY1nK5wT7xQ",
                     *         "token_type": "bearer",
                     *         "expires_in": 3600,
                     *         "id_token": "eyJhbGciOiJFUzI1NiIsImtpZCI6ImstMjAyNi0wMyIsInR5cCI6IkpXVCJ9.eyJwZXJzb25faWQiOiJwaWQ6MDE5M2ExZjJjNGI4N2QzZTlmMTBhMmIzYzRkNWU2ZjciLCJvaWQiOiIzZjZhMGMxZS01YjdkLTRlMmEtOWM0MS0wZDJlN2Y4YTliMTAiLCJmaXJzdF90b2tlbiI6ZmFsc2UsImF1dGhlbnRpY2F0ZWRfbWV0aG9kcyI6WyJvdHBfdmlhX2VtYWlsIl0sInBlcnNvbl90eXBlIjoicmVndWxhciIsImdyb3VwcyI6WyJlZGl0b3JzIl0sImV4cCI6MTc3MzQ4MzYxM30.q3Yw8n2JxT0bV5cP1sK7mR9dL4fH6gE2aZ0uN8iC3oWkXy1tQ5vB7jM9pS4eR2hD6lA0fG8zU3cY1nK5wT7xQ",
                     *         "scope": "openid email"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["OAuth2TokenResponse"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listSsoOidcTokens: {
        parameters: {
            query?: {
                /**
                 * @description Whose provider tokens to return, instead of `Keyway-Token` (both: they must name the same person).
                 * @example pid:0193a1f2c4b87d3e9f10a2b3c4d5e6f7
                 */
                person_id?: components["schemas"]["PersonId"];
                /** @description Page size (at most 1000). */
                limit?: components["parameters"]["Limit"];
                /** @description Number of items to skip. */
                offset?: components["parameters"]["Offset"];
                /** @description Where to continue: `meta.cursor_pagination.cursor` of the previous page. An empty cursor is the first page. Not together with `offset`. On `GET /persons` and `GET /events` a cursor is a place in the order: it keeps its place when items are added or removed before it, and a page costs the same at any depth. On the other lists it stands for an offset. */
                cursor?: components["parameters"]["Cursor"];
            };
            header?: {
                /** @description A user token of the person, issued by this organization (as the public reference names the person). Expired, revoked or other organizations' tokens answer 401. */
                "Keyway-Token"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": [
                     *         {
                     *           "token": "ya29.a0AfB_example",
                     *           "token_type": "access",
                     *           "expiry": "2026-03-14T10:26:53Z",
                     *           "provider": "google",
                     *           "client_id": "1234567890-abc.apps.example.com",
                     *           "authentication_id": "ch_01JD8Z6X2K9Q4M7R3T5V8W1Y0A",
                     *           "person_id": "pid:0193a1f2c4b87d3e9f10a2b3c4d5e6f7",
                     *           "organization_id": "3f6a0c1e-5b7d-4e2a-9c41-0d2e7f8a9b10",
                     *           "extra_callback_values": {
                     *             "authuser": "0",
                     *             "prompt": "consent"
                     *           },
                     *           "issuer": "https://accounts.google.com",
                     *           "subject": "110248495921238986420",
                     *           "scopes": [
                     *             "openid",
                     *             "email",
                     *             "https://www.googleapis.com/auth/calendar.readonly"
                     *           ],
                     *           "created_at": "2026-03-14T09:26:53Z"
                     *         }
                     *       ],
                     *       "meta": {
                     *         "pagination": {
                     *           "limit": 100,
                     *           "offset": 0,
                     *           "total_count": 1
                     *         },
                     *         "cursor_pagination": {
                     *           "cursor": "",
                     *           "limit": 100,
                     *           "total_count": 1
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["SsoOidcToken"][];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    querySsoOidcTokens: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "person_id": "pid:0193a1f2c4b87d3e9f10a2b3c4d5e6f7",
                 *       "token_types": [
                 *         "access",
                 *         "refresh"
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["SsoOidcTokenQuery"];
            };
        };
        responses: {
            /** @description Success. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": [
                     *         {
                     *           "token": "ya29.a0AfB_example",
                     *           "token_type": "access",
                     *           "expiry": "2026-03-14T10:26:53Z",
                     *           "provider": "google",
                     *           "client_id": "1234567890-abc.apps.example.com",
                     *           "authentication_id": "ch_01JD8Z6X2K9Q4M7R3T5V8W1Y0A",
                     *           "person_id": "pid:0193a1f2c4b87d3e9f10a2b3c4d5e6f7",
                     *           "organization_id": "3f6a0c1e-5b7d-4e2a-9c41-0d2e7f8a9b10",
                     *           "extra_callback_values": {
                     *             "authuser": "0",
                     *             "prompt": "consent"
                     *           },
                     *           "issuer": "https://accounts.google.com",
                     *           "subject": "110248495921238986420",
                     *           "scopes": [
                     *             "openid",
                     *             "email",
                     *             "https://www.googleapis.com/auth/calendar.readonly"
                     *           ],
                     *           "created_at": "2026-03-14T09:26:53Z"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["Envelope"] & {
                        result: components["schemas"]["SsoOidcToken"][];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    revokeSsoOidcTokenLegacy: {
        parameters: {
            query?: never;
            header?: {
                /** @description Version of the calling SDK, e.g. 3.29.3. */
                "Keyway-SdkVersion"?: components["parameters"]["SdkVersion"];
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "token": "ya29.a0AfB_example",
                 *       "client_id": "1234567890-abc.apps.example.com",
                 *       "token_type": "access_token"
                 *     }
                 */
                "application/json": components["schemas"]["SsoOidcTokenRevokeLegacy"];
            };
        };
        responses: {
            /** @description Revoked. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            502: components["responses"]["ProviderUnavailable"];
        };
    };
    revokeSsoOidcTokens: {
        parameters: {
            query?: never;
            header?: {
                /** @description Wait until the change is visible in the local region or in all regions before answering. */
                "Keyway-Required-Consistency"?: components["parameters"]["RequiredConsistency"];
                /** @description Seconds to wait for the requested consistency; 408 when it is not reached in time. */
                "Keyway-Required-Consistency-Timeout"?: components["parameters"]["RequiredConsistencyTimeout"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "person_id": "pid:0193a1f2c4b87d3e9f10a2b3c4d5e6f7",
                 *       "authentication_id": "ch_01JD8Z6X2K9Q4M7R3T5V8W1Y0A",
                 *       "token_types": [
                 *         "access",
                 *         "refresh"
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["SsoOidcTokenRevoke"];
            };
        };
        responses: {
            /** @description Revoked (or nothing was live). */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            502: components["responses"]["ProviderUnavailable"];
        };
    };
}
