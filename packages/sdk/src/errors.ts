/**
 * Every error the SDK throws or reports. Each class carries a stable `slug` that is also
 * used as the `failure_reason` of analytics events.
 *
 * ```ts
 * import { errors } from '@keyway/sdk';
 * try { await flow.result; } catch (e) { if (e instanceof errors.FlowCancelledError) return; }
 * ```
 * @module
 */

/** Base class of every error thrown by the SDK. */
export class KeywayError extends Error {
  /** Stable machine-readable identifier of the error kind. */
  readonly slug: string = 'unspecified';
  override name = 'KeywayError';
}

/** Something went wrong that has no more specific error (slug `unspecified`). */
export class UnexpectedError extends KeywayError {
  override readonly slug: string = 'unspecified';
  override name = 'UnexpectedError';
}
/** The person has no password credential yet (server: 403 `no password set`). */
export class NoPasswordSetError extends KeywayError {
  override readonly slug: string = 'no_password_set';
  override name = 'NoPasswordSetError';
}
/** The flow was cancelled by the caller or replaced by a newer flow. */
export class FlowCancelledError extends KeywayError {
  override readonly slug: string = 'flow_cancelled';
  override name = 'FlowCancelledError';
  constructor(message = 'The flow has been cancelled!') {
    super(message);
  }
}
/** The organization does not allow this handle (server: 403 `person cannot be registered`). */
export class HandlePatternNotAllowedError extends KeywayError {
  override readonly slug: string = 'handle_pattern_not_allowed';
  override name = 'HandlePatternNotAllowedError';
}
/** The sign-up waits for an administrator's approval (server: 403 `person is not active`). */
export class SignUpAwaitingApprovalError extends KeywayError {
  override readonly slug: string = 'sign_up_awaiting_approval';
  override name = 'SignUpAwaitingApprovalError';
}
/** The person is inactive and waits for approval (server: 403 `Person … is inactive`). */
export class SignInAwaitingApprovalError extends KeywayError {
  override readonly slug: string = 'sign_in_awaiting_approval';
  override name = 'SignInAwaitingApprovalError';
}
/** The organization does not allow self-registration. */
export class SelfRegistrationNotAllowed extends KeywayError {
  override readonly slug: string = 'self_registration_not_allowed';
  override name = 'SelfRegistrationNotAllowed';
}
/** Recovery was asked for a handle type that cannot receive messages (only email and phone can). */
export class RecoverNonReachableHandleTypeError extends KeywayError {
  override readonly slug: string = 'recover_non_reachable_handle_type';
  override name = 'RecoverNonReachableHandleTypeError';
}
/** The authentication took too long (`Authentication has expired`). */
export class TimeoutError extends KeywayError {
  override readonly slug: string = 'timeout';
  override name = 'TimeoutError';
}
/** The server refused the call because too many were made (HTTP 429). */
export class RateLimitError extends KeywayError {
  override readonly slug: string = 'rate_limit_exceeded';
  override name = 'RateLimitError';
}
/** The passkey scope is not a registrable suffix of the current domain (`Passkey scope is invalid`). */
export class BadPasskeyScopeError extends KeywayError {
  override readonly slug: string = 'passkey_bad_scope';
  override name = 'BadPasskeyScopeError';
}
/** The passkey prompt was dismissed, cancelled, aborted or unavailable (`Passkey prompt was dismissed`). */
export class PasskeyPromptError extends KeywayError {
  override readonly slug: string = 'passkey_prompt_failed';
  override name = 'PasskeyPromptError';
  constructor(message = 'Passkey prompt was dismissed') {
    super(message);
  }
}
/** Any other error answer of the API; carries the HTTP code and the server's correlation id. */
export class APIResponseError extends KeywayError {
  override readonly slug: string = 'api_response_error';
  override name = 'APIResponseError';
  constructor(
    message: string,
    /** `errors[0].httpcode` of the answer, or the HTTP status when the body had none. */
    readonly httpcode: number,
    /** Value of the `Keyway-Correlation-Id` response header, when present. */
    readonly correlationId?: string,
  ) {
    super(message);
  }
}
/** The SDK configuration is invalid; the message names the offending option. */
export class InvalidKeywayConfigurationError extends KeywayError {
  override readonly slug: string = 'invalid_configuration';
  override name = 'InvalidKeywayConfigurationError';
}
/** The URL the page was opened with has an invalid combination of Keyway parameters. */
export class InvalidKeywayURLParamsError extends KeywayError {
  override readonly slug: string = 'invalid_url_params';
  override name = 'InvalidKeywayURLParamsError';
}
/** The factor, handle or options of an authentication request do not fit together. */
export class InvalidAuthenticationMethodError extends KeywayError {
  override readonly slug: string = 'invalid_authentication_method';
  override name = 'InvalidAuthenticationMethodError';
}
/** The action is not possible in the current state (for example on an unauthenticated user). */
export class InvalidActionError extends KeywayError {
  override readonly slug: string = 'invalid_action';
  override name = 'InvalidActionError';
}
/** The email address is malformed (`Email address is malformed`). */
export class InvalidEmailAddressFormatError extends KeywayError {
  override readonly slug: string = 'invalid_email_address_format';
  override name = 'InvalidEmailAddressFormatError';
}
/** The phone number is malformed (`Phone number is malformed`). */
export class InvalidPhoneNumberFormatError extends KeywayError {
  override readonly slug: string = 'invalid_phone_number_format';
  override name = 'InvalidPhoneNumberFormatError';
}
/** The phone number cannot receive messages (`Phone number is unreachable`). */
export class UnreachablePhoneNumberError extends KeywayError {
  override readonly slug: string = 'unreachable_phone_number';
  override name = 'UnreachablePhoneNumberError';
}
/** A person with this handle already exists (`Person with the given handle already exists`). */
export class PersonExistsError extends KeywayError {
  override readonly slug: string = 'person_exists';
  override name = 'PersonExistsError';
}
/** An unsupported event was published or subscribed to. */
export class UnknownError extends KeywayError {
  override readonly slug: string = 'unknown_error';
  override name = 'UnknownError';
}

/** Message of the error raised when a popup window could not be opened. */
export const POPUP_BLOCKED = 'Keyway: Popup blocked, please consider redirect instead';

type Rule = [codes: number[], test: (m: string) => boolean, make: (m: string) => KeywayError];
const is = (s: string) => (m: string) => m === s;
const rules: Rule[] = [
  [[429], () => true, (m) => new RateLimitError(m || 'rate limit exceeded')],
  [[403], is('no password set'), (m) => new NoPasswordSetError(m)],
  [[403], is('self-registration not allowed for this organization'), (m) => new SelfRegistrationNotAllowed(m)],
  [[403], is('person cannot be registered'), (m) => new HandlePatternNotAllowedError(m)],
  [[403], is('person is not active'), (m) => new SignUpAwaitingApprovalError(m)],
  [[403], (m) => m.includes('person') && m.includes('is inactive'), (m) => new SignInAwaitingApprovalError(m)],
  [[401, 403], is('authentication has expired'), () => new TimeoutError('Authentication has expired')],
  [[400], (m) => m.includes('registrable') && m.includes('suffix'), () => new BadPasskeyScopeError('Passkey scope is invalid')],
  [[409], is('person exists'), () => new PersonExistsError('Person with the given handle already exists')],
  [[400], (m) => m.startsWith('malformed e-mail address'), () => new InvalidEmailAddressFormatError('Email address is malformed')],
  [[400], is('malformed phone number'), () => new InvalidPhoneNumberFormatError('Phone number is malformed')],
  [[400], is('unreachable phone number'), () => new UnreachablePhoneNumberError('Phone number is unreachable')],
];

/**
 * Turns an error answer of the API into the matching SDK error.
 * Messages are compared without regard to case.
 * @param httpcode - `errors[0].httpcode` of the answer (or the HTTP status).
 * @param message - `errors[0].message` of the answer.
 * @param correlationId - correlation id header of the answer, kept on {@link APIResponseError}.
 */
export function mapServerError(httpcode: number, message: string, correlationId?: string): KeywayError {
  const m = message.trim().toLowerCase();
  for (const [codes, test, make] of rules) if (codes.includes(httpcode) && test(m)) return make(message);
  return new APIResponseError(message, httpcode, correlationId);
}

/**
 * Analytics `failure_reason` of an error: its slug when it is an SDK error, otherwise `client_side_error`.
 */
export const failureSlug = (e: unknown): string =>
  e instanceof KeywayError && e.slug !== 'unspecified' ? e.slug : 'client_side_error';
