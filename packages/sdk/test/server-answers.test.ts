import { answerMessage, SERVER_ANSWERS, type ServerAnswerName } from '@keyway/identity-server/errors';
import { describe, expect, it } from 'vitest';
import { mapServerError } from '../src/errors.js';

// The identity server throws the answers of spec §8 ("Mapping of server answers") from one table; this checks the
// SDK's mapping against that table, so a message changed on the server fails here instead of silently becoming an
// APIResponseError in applications.

/** Values for the placeholders of the table's messages (a limit, a wait, a person, a handle). */
const SAMPLES = { what: 'sign-in attempts from this address', seconds: 42, wait: '5 minutes', person_id: 'pid:0190a1b2', handle: 'not-an-address' };

/** The SDK errors spec §8 maps server answers to. */
const SPEC_ERRORS = [
  'RateLimitError',
  'NoPasswordSetError',
  'SelfRegistrationNotAllowed',
  'HandlePatternNotAllowedError',
  'SignUpAwaitingApprovalError',
  'SignInAwaitingApprovalError',
  'TimeoutError',
  'BadPasskeyScopeError',
  'PersonExistsError',
  'InvalidEmailAddressFormatError',
  'InvalidPhoneNumberFormatError',
  'UnreachablePhoneNumberError',
];

describe("the server's answers (spec §8) and the SDK's error mapping", () => {
  for (const name of Object.keys(SERVER_ANSWERS) as ServerAnswerName[]) {
    const a = SERVER_ANSWERS[name];
    it(`${name}: ${a.status} "${a.message}" becomes ${a.sdkError}`, () => {
      const error = mapServerError(a.status, answerMessage(name, SAMPLES), 'correlation-1');
      expect(error.name).toBe(a.sdkError);
    });
  }

  it('the table names every SDK error the spec maps a server answer to', () => {
    expect(new Set(Object.values(SERVER_ANSWERS).map((a) => a.sdkError))).toEqual(new Set(SPEC_ERRORS));
  });

  it('a message outside the table stays an APIResponseError with its correlation id', () => {
    const error = mapServerError(403, 'no password was set', 'correlation-2');
    expect(error.name).toBe('APIResponseError');
    expect(error).toMatchObject({ correlationId: 'correlation-2' });
  });
});
