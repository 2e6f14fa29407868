// The SDK's hand-written wire types against the types generated from the contract (`@keyway/api/types`). The SDK is
// published without the private contract package, so its public types stay its own; this file (type-checked by
// `npm run typecheck`) stops compiling when one of them drifts from api/openapi.yaml: what the SDK sends must be a
// request the contract accepts, and what the contract answers must fit what the SDK reads.
import type { components } from '@keyway/api/types';
import type {
  GDPRConsent,
  MeResponse,
  OrganizationsResponse,
  PasswordValidationRule,
  PersonHandle,
  SSOResolveRequest,
  TokenValidationRequest,
  UserInfo,
  WebAuthnCreateOptions,
  WebAuthnGetOptions,
} from '../src/types.js';

type S = components['schemas'];
/** `true` when every value of A is a value of B. */
type Fits<A, B> = [A] extends [B] ? true : false;
type Check<T extends true> = T;

// Not checked yet, because the SDK's request types are looser than the contract: IDRequest (its Factor takes any
// method with any options record; the contract ties each method to its options) and RecoverRequest (any
// AuthenticationMethod; the contract takes five).
export type SdkRequestsTheContractAccepts = [
  Check<Fits<SSOResolveRequest, S['SsoResolveRequest']>>,
  Check<Fits<TokenValidationRequest, S['TokenRequest']>>,
];

export type ContractAnswersTheSdkReads = [
  Check<Fits<S['PersonHandle'], PersonHandle>>,
  Check<Fits<S['MeResponse'], MeResponse>>,
  Check<Fits<S['MeOrgsResponse'], OrganizationsResponse>>,
  Check<Fits<S['GdprConsent'], GDPRConsent>>,
  Check<Fits<S['PasswordValidationRule'], PasswordValidationRule>>,
  Check<Fits<S['WebAuthnCreateOptions'], WebAuthnCreateOptions>>,
  Check<Fits<S['WebAuthnGetOptions'], WebAuthnGetOptions>>,
  Check<Fits<S['UserInfo'], UserInfo>>,
];
