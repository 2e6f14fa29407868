/**
 * Keyway browser sign-in SDK. Use {@link Keyway} for everything in one object, or
 * {@link KeywayClient} with the feature functions to bundle only what a page needs.
 * @module @keyway/sdk
 */
export { KeywayClient, resolveConfig, SDK_VERSION, MAX_RETRIES, retryDelay } from './client.js';
export type { KeywayConfig, KeywayHosts, ResolvedConfig, RequestOptions, RawResponse } from './client.js';
export * as errors from './errors.js';
export { EventBus } from './events.js';
export type { Listener } from './events.js';
export { Flow, authenticate, recover, validateHandle, handleType } from './flow.js';
export type { ChallengeHandler, ChallengeHandlers, ChallengesOrToken, FlowKind, FlowRequest } from './flow.js';
export * from './challenges.js';
export { decodeToken, normalizeToken } from './token.js';
export { sendEvent, correlationId, isFirefoxLike } from './analytics.js';
export { rememberedHandles, rememberedCredentials } from './storage.js';
export { User, AnonymousUser, HostedLoginUser, userFromToken, createAnonymousUser, DEFAULT_BUCKET, ACCESS_TOKEN_REFUSED } from './user.js';
export type { LogoutOptions } from './user.js';
export { signInWithSSO, checkSSOFactor, completeSSO, openPopup, ssoChallenge, authnContextUpdate, ssoChallenges, POPUP_SIZE, POPUP_TEXT } from './sso.js';
export type { SSOReturn } from './sso.js';
export {
  signInWithPasskey,
  passkeyFactor,
  knownCredentials,
  webauthnChallenge,
  webauthnChallenges,
  webauthnAvailable,
  platformAuthenticatorAvailable,
  meetsPasskeyMinimums,
  PASSKEY_MINIMUMS,
} from './webauthn.js';
export { HelperChannel, HelperMessageType, HELPER_FRAME_ID, LOOP_MS, WINDOW_DELAY_MS } from './helper.js';
export type { HelperMessage } from './helper.js';
export { hostedLogin, completeHostedLogin } from './hosted.js';
export type { HostedLoginOptions } from './hosted.js';
export { pkceChallenge } from './pkce.js';
export { handleURL, URL_PARAMS } from './url.js';
export { Keyway } from './keyway.js';
export type * from './types.js';
