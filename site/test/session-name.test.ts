// Who the session bar and the account menu name (storage.ts signedInAs): the first handle of the token, as written,
// whatever its characters. Tokens are unsigned here: only the display is tested (the servers verify signatures).
import { describe, expect, it } from 'vitest';
import { signedInAs } from '../src/components/login/storage';

/** A JWT of `claims` the way the identity server encodes one: base64url of the UTF-8 JSON, no padding. */
const jwt = (claims: object) =>
  ['{"alg":"ES256","typ":"JWT"}', JSON.stringify(claims)].map((part) => Buffer.from(part, 'utf8').toString('base64url')).join('.') + '.sig';

describe('signedInAs', () => {
  it('names a handle with non-ASCII characters exactly', () => {
    expect(signedInAs(jwt({ person_id: 'pid:1', authentications: [{ method: 'email_link', handle: 'zoë@exämple.com' }] }))).toBe('zoë@exämple.com');
    expect(signedInAs(jwt({ person_id: 'pid:1', authentications: [{ method: 'otp_via_sms', handle: '+81 90 東京' }] }))).toBe('+81 90 東京');
  });

  it('names the person id when the token has no handle, and a neutral name for what is not a token', () => {
    expect(signedInAs(jwt({ person_id: 'pid:abc', authentications: [{ method: 'password' }] }))).toBe('pid:abc');
    expect(signedInAs('not a token')).toBe('a Keyway customer');
  });
});
