// The token model: which tokens this server signs, and where each is accepted. Checked by TokenService.validate.

export interface Authentication {
  method: string;
  handle?: string | undefined;
}

/**
 * The token model (#15): every JWT this server signs says what it is in its `token_use` claim.
 * - `user`: a person's user token (sign-in, `/token`, impersonation, management mint): the bearer credential for person calls.
 * - `anonymous`: the user token of an anonymous person (`person_type: anonymous`): a bearer credential for person calls,
 *   but never an authenticated person (the docs gate, `/oauth2/authorize`).
 * - `container`: the token container of `GET /token/v2`; only its `user_token` is a credential, never the container.
 * - `id`: an OpenID Connect id_token: identifies a person to one client, never a bearer credential.
 * - `access`: an OAuth2 access token of the hosted login or the management mint: a person's token issued to a client,
 *   limited to that client and its scopes (#36): userinfo and introspection; never a first-party person call, never
 *   `/token/validate`, never exchanged (not even for a new code at `/oauth2/authorize`), never the docs gate.
 * - `client`: a client-credentials token: no person at all; introspection only.
 * Every token whose subject is a person carries `person_type`.
 */
export type TokenUse = 'user' | 'anonymous' | 'container' | 'id' | 'access' | 'client';
export const TOKEN_USES: readonly TokenUse[] = ['user', 'anonymous', 'container', 'id', 'access', 'client'];

/** Where a token is presented; each place accepts only some token uses (see {@link ACCEPTED}). */
export type TokenPurpose = 'person' | 'validate' | 'userinfo' | 'introspect' | 'revoke';

/** The one table of which token is accepted where. */
export const ACCEPTED: Record<TokenPurpose, readonly TokenUse[]> = {
  /**
   * Bearer credential of first-party person calls: `/me`, attributes, consents, `/direct-id`, `/token`, `/token/v2`,
   * the previous token of `/id` (step-up, adding a credential or a handle), impersonation. Never an OAuth2 access token
   * (#36): it is limited to its client and scopes, so it is never exchanged for a first-party token nor used to add a
   * credential or a handle.
   */
  person: ['user', 'anonymous'],
  /**
   * `POST /token/validate`: is this a user token (#36: not an access token, which a first-party backend would otherwise
   * take for a user's session; resource servers check access tokens by introspection, with their scopes).
   */
  validate: ['user', 'anonymous'],
  userinfo: ['user', 'anonymous', 'access'],
  /** RFC 7662 introspection by an authenticated client. */
  introspect: ['user', 'anonymous', 'access', 'client'],
  /** Anyone holding a token may revoke it (client tokens go through `/oauth2/tokens/revoke`, with client authentication). */
  revoke: ['user', 'anonymous', 'container', 'id', 'access'],
};

export const NOT_ACCEPTED: Record<TokenUse, string> = {
  user: 'token is a user token, which is not accepted here',
  anonymous: "token is an anonymous person's token, which is not accepted here",
  container: 'token is a token container, not a user token: send the user_token it contains',
  id: 'token is an id_token, not a user token: an id_token is never a bearer credential',
  access: 'token is an OAuth2 access token, which is not accepted here',
  client: 'token is a client token, not a user token',
};

/** Claims of a Keyway token (spec §3 for user tokens). */
export interface UserTokenClaims {
  token_use: TokenUse;
  iss: string;
  sub: string;
  aud: string;
  iat: number;
  exp: number;
  jti: string;
  person_id: string;
  oid: string;
  first_token: boolean;
  authenticated_methods: string[];
  authentications: Authentication[];
  person_type: string;
  /** Absent when the organization renames the claim (`groups_claim_name`). */
  groups?: string[];
  /** OAuth2 client the token was issued to (hosted login, minted OAuth tokens, client credentials). */
  client_id?: string;
  /** Space-separated OAuth2 scopes. */
  scope?: string;
}

