/**
 * Keyway browser sign-in SDK.
 * @module @keyway/sdk
 */
export { KeywayClient, resolveConfig, SDK_VERSION, MAX_RETRIES, retryDelay } from './client.js';
export type { KeywayConfig, KeywayHosts, ResolvedConfig, RequestOptions, RawResponse } from './client.js';
export * as errors from './errors.js';
export { EventBus } from './events.js';
export type { Listener } from './events.js';
export { Flow, authenticate, recover, validateHandle, handleType } from './flow.js';
export type { ChallengeHandler, ChallengeHandlers, FlowKind, FlowRequest } from './flow.js';
export * from './challenges.js';
export { decodeToken, normalizeToken } from './token.js';
export { sendEvent, correlationId, isFirefoxLike } from './analytics.js';
export { rememberedHandles, rememberedCredentials } from './storage.js';
export type * from './types.js';
