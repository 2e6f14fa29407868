/** An answer the API gives on purpose: HTTP status plus the message the SDK reads from `errors[0].message`. */
export class ApiError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
  }
}

export const badRequest = (message: string) => new ApiError(400, message);
export const unauthorized = (message: string) => new ApiError(401, message);
export const forbidden = (message: string) => new ApiError(403, message);
export const notFound = (message: string) => new ApiError(404, message);
export const conflict = (message: string) => new ApiError(409, message);

/** An answer of the catalogue: HTTP status, message (`{name}` placeholders are filled when thrown) and the SDK error it becomes. */
export interface ServerAnswer {
  status: number;
  message: string;
  /** `name` of the `@keyway/sdk` error this answer maps to (spec §8 "Mapping of server answers"). */
  sdkError: string;
}

/**
 * The server answers the SDK turns into its own errors (spec §8 "Mapping of server answers"). The server throws them
 * from this table only ({@link answer}); `@keyway/sdk`'s mapping is tested against it (`@keyway/identity-server/errors`,
 * packages/sdk/test/server-answers.test.ts), so changing a message here without the SDK fails a test.
 */
export const SERVER_ANSWERS = {
  rateLimited: { status: 429, message: 'rate limit exceeded: too many {what}; retry in {seconds} s', sdkError: 'RateLimitError' },
  factorLocked: {
    status: 429,
    message: 'too many failed attempts for this account with this factor: try again in {wait}, or sign in with a link sent by e-mail (email_link) or recover the account',
    sdkError: 'RateLimitError',
  },
  noPasswordSet: { status: 403, message: 'no password set', sdkError: 'NoPasswordSetError' },
  selfRegistrationNotAllowed: { status: 403, message: 'self-registration not allowed for this organization', sdkError: 'SelfRegistrationNotAllowed' },
  handlePatternNotAllowed: { status: 403, message: 'person cannot be registered', sdkError: 'HandlePatternNotAllowedError' },
  signUpAwaitingApproval: { status: 403, message: 'person is not active', sdkError: 'SignUpAwaitingApprovalError' },
  signInAwaitingApproval: { status: 403, message: 'Person {person_id} is inactive', sdkError: 'SignInAwaitingApprovalError' },
  authenticationExpired: { status: 401, message: 'authentication has expired', sdkError: 'TimeoutError' },
  badPasskeyScope: { status: 400, message: 'passkey scope is not a registrable domain suffix of the origin', sdkError: 'BadPasskeyScopeError' },
  personExists: { status: 409, message: 'person exists', sdkError: 'PersonExistsError' },
  malformedEmail: { status: 400, message: 'malformed e-mail address: "{handle}"', sdkError: 'InvalidEmailAddressFormatError' },
  malformedPhone: { status: 400, message: 'malformed phone number', sdkError: 'InvalidPhoneNumberFormatError' },
  unreachablePhone: { status: 400, message: 'unreachable phone number', sdkError: 'UnreachablePhoneNumberError' },
} as const satisfies Record<string, ServerAnswer>;

export type ServerAnswerName = keyof typeof SERVER_ANSWERS;

/** The message of a catalogue answer with its placeholders filled. */
export function answerMessage(name: ServerAnswerName, values: Record<string, string | number> = {}): string {
  return SERVER_ANSWERS[name].message.replace(/\{(\w+)\}/g, (_m, key: string) => String(values[key] ?? ''));
}

/** The error to throw for a catalogue answer. */
export function answer(name: ServerAnswerName, values: Record<string, string | number> = {}): ApiError {
  return new ApiError(SERVER_ANSWERS[name].status, answerMessage(name, values));
}

/** Envelope of every JSON answer: `{ result, errors?, meta? }`. */
export interface Envelope<T> {
  result: T | null;
  errors?: Array<{ httpcode: number; message: string }>;
  meta?: {
    pagination?: { limit: number; offset: number; total_count: number };
    cursor_pagination?: { cursor: string; limit: number; total_count: number };
  };
}

export function errorEnvelope(status: number, message: string): Envelope<never> {
  return { result: null, errors: [{ httpcode: status, message }] };
}
