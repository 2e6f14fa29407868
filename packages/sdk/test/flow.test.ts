import { describe, expect, it, vi } from 'vitest';
import { basicChallenges, checkPassword, passwordRules } from '../src/challenges.js';
import * as errors from '../src/errors.js';
import { authenticate, recover } from '../src/flow.js';
import { rememberedHandles } from '../src/storage.js';
import type { SDKEventName } from '../src/types.js';
import { analytics, client, fail, route, TOKEN } from './fake.js';

const handlers = basicChallenges;
const ch = (id: string, type: string, options: object = {}) => ({ id, type, options });

function record(c: ReturnType<typeof client>, ...names: SDKEventName[]) {
  const log: Array<[string, any]> = [];
  for (const n of names) c.events.on(n, (p) => log.push([n, p]));
  return log;
}

describe('sign-in flow', () => {
  it('runs nonce + OTP: ID request, code prompt, attestations, token, remembered handle, events', async () => {
    const id = route('POST', '/id/v2', { challenges: [ch('c1', 'nonce', { challenge: 'n-1' }), ch('c2', 'otp')] });
    const att = route('POST', '/attestation/v3', {}, { token: TOKEN });
    const c = client();
    const log = record(c, 'idFlowStarted', 'codeSent', 'codeRequested', 'idFlowSucceeded');
    c.events.on('codeRequested', (e) => e.submit('123456'));
    const flow = authenticate(c, { handle: 'ada@example.com', factor: { method: 'otp_via_email' } }, handlers);
    await expect(flow.result).resolves.toBe(TOKEN);
    expect(id[0]!.body).toEqual({ handle: 'ada@example.com', factor: { method: 'otp_via_email' } });
    expect(id[0]!.headers.get('keyway-orgid')).toBe('org1');
    expect(att.map((a) => a.body)).toEqual([
      { challenge_id: 'c1', challenge_type: 'nonce', data: { challenge: 'n-1' } },
      { challenge_id: 'c2', challenge_type: 'otp', data: { otp: '123456' } },
    ]);
    expect(log.map(([n]) => n)).toEqual(['idFlowStarted', 'codeSent', 'codeRequested', 'idFlowSucceeded']);
    expect(log.every(([, p]) => p.flowId === flow.id)).toBe(true);
    expect(log[3]![1]).toMatchObject({ token: TOKEN, handle: 'ada@example.com', factor: { method: 'otp_via_email' } });
    expect(c.token).toBe(TOKEN);
    expect(rememberedHandles()).toEqual(['ada@example.com']);
  });

  it('asks again after a wrong code (401) and reports incorrect_otp_code_via_sms', async () => {
    route('POST', '/id/v2', { challenges: [ch('c2', 'otp')] });
    const att = route('POST', '/attestation/v3', () => fail(401, 'wrong code'), { token: TOKEN });
    const c = client({ analytics: true });
    const ev = analytics();
    const codes = ['111111', '222222'];
    const log = record(c, 'incorrectCodeSubmitted');
    c.events.on('codeRequested', (e) => e.submit(codes.shift()!));
    const flow = authenticate(c, { handle: '+15551234567', factor: { method: 'otp_via_sms' } }, handlers);
    await expect(flow.result).resolves.toBe(TOKEN);
    expect(att.map((a) => a.body.data.otp)).toEqual(['111111', '222222']);
    expect(log[0]![1]).toMatchObject({ challengeId: 'c2', failureDetail: 'incorrect_otp_code_via_sms' });
    await vi.waitFor(() => expect(ev.map((e) => e.body.event_name)).toContain('AuthenticationSucceeded_v1'));
    expect(ev.find((e) => e.body.event_name === 'AuthenticationFailed_v1')!.body.event_data.failure_reason).toBe(
      'incorrect_otp_code_via_sms',
    );
  });

  it('fails with idFlowFailed carrying the error, factor, handle, previous token and challenge id', async () => {
    route('POST', '/id/v2', { challenges: [ch('c9', 'otp')] });
    route('POST', '/attestation/v3', () => fail(401, 'authentication has expired'));
    const c = client();
    const log = record(c, 'idFlowFailed');
    c.events.on('codeRequested', (e) => e.submit('1'));
    const flow = authenticate(c, { handle: 'ada@example.com', factor: { method: 'otp_via_email' }, previousToken: 'prev' }, handlers);
    await expect(flow.result).rejects.toBeInstanceOf(errors.TimeoutError);
    expect(log[0]![1]).toMatchObject({
      errorText: 'Authentication has expired',
      handle: 'ada@example.com',
      previousToken: 'prev',
      challengeId: 'c9',
      failureDetail: 'timeout',
    });
  });

  it('sends the previous token as bearer for MFA and step-up', async () => {
    const id = route('POST', '/id/v2', { token: TOKEN });
    const c = client();
    await authenticate(c, { factor: { method: 'totp' }, previousToken: 'first' }, handlers).result;
    expect(id[0]!.headers.get('authorization')).toBe('Bearer first');
  });

  it('validates handles: email factors need an email, SMS factors a phone', async () => {
    const c = client();
    await expect(authenticate(c, { handle: 'ada', factor: { method: 'email_link' } }, handlers).result).rejects.toBeInstanceOf(
      errors.InvalidEmailAddressFormatError,
    );
    await expect(
      authenticate(c, { handle: 'ada@example.com', factor: { method: 'otp_via_sms' } }, handlers).result,
    ).rejects.toThrow(/otp_via_sms needs a phone number handle/);
  });

  it('fails without challenges or without a final token', async () => {
    route('POST', '/id/v2', []);
    await expect(authenticate(client(), { handle: 'u', factor: { method: 'password' } }, handlers).result).rejects.toThrow(
      'no challenges in ID response',
    );
    route('POST', '/id/v2', { challenges: [ch('c1', 'nonce', { challenge: 'x' })] });
    route('POST', '/attestation/v3', {});
    await expect(authenticate(client(), { handle: 'u', factor: { method: 'password' } }, handlers).result).rejects.toThrow(
      'no user token in attestation response',
    );
  });

  it('ignores unknown challenge types with a warning to update the SDK', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    route('POST', '/id/v2', { challenges: [ch('c0', 'quantum_proof'), ch('c1', 'nonce', { challenge: 'x' })] });
    route('POST', '/attestation/v3', { token: TOKEN });
    await expect(authenticate(client(), { handle: 'u', factor: { method: 'password' } }, handlers).result).resolves.toBe(TOKEN);
    expect(warn).toHaveBeenCalledWith(expect.stringMatching(/unsupported challenge type "quantum_proof", please update the SDK/));
  });

  it('a new flow cancels the running one and drops its events', async () => {
    route('POST', '/id/v2', { challenges: [ch('c1', 'otp')] });
    route('POST', '/attestation/v3', { token: TOKEN });
    const c = client();
    const log = record(c, 'codeRequested', 'idFlowFailed', 'idFlowSucceeded');
    const first = authenticate(c, { handle: 'a@example.com', factor: { method: 'otp_via_email' } }, handlers);
    await vi.waitFor(() => expect(log).toHaveLength(1));
    const second = authenticate(c, { handle: 'b@example.com', factor: { method: 'otp_via_email' } }, handlers);
    await expect(first.result).rejects.toBeInstanceOf(errors.FlowCancelledError);
    await vi.waitFor(() => expect(log).toHaveLength(2));
    first.submit('late');
    (log[1]![1] as { submit(v: string): void }).submit('42');
    await expect(second.result).resolves.toBe(TOKEN);
    expect(log.map(([n, p]) => [n, p.flowId])).toEqual([
      ['codeRequested', first.id],
      ['codeRequested', second.id],
      ['idFlowSucceeded', second.id],
    ]);
  });

  it('cancel() rejects with "The flow has been cancelled!"', async () => {
    route('POST', '/id/v2', { challenges: [ch('c1', 'otp')] });
    const c = client();
    const flow = authenticate(c, { handle: 'a@example.com', factor: { method: 'otp_via_email' } }, handlers);
    c.events.on('codeRequested', () => flow.cancel());
    await expect(flow.result).rejects.toThrow('The flow has been cancelled!');
  });

  it('an empty OTP/TOTP code or password is refused', async () => {
    route('POST', '/id/v2', { challenges: [ch('c1', 'totp_verify')] });
    const c = client();
    c.events.on('codeRequested', (e) => e.submit(''));
    await expect(authenticate(c, { factor: { method: 'totp' } }, handlers).result).rejects.toThrow('no TOTP code provided');
    route('POST', '/id/v2', { challenges: [ch('c1', 'password_verify')] });
    c.events.on('passwordVerifyReady', (e) => e.submit(''));
    await expect(authenticate(c, { handle: 'u', factor: { method: 'password' } }, handlers).result).rejects.toThrow(
      'No password provided',
    );
  });
});

describe('passwords', () => {
  const rules = [
    { name: 'length', pattern: '^.{8,}$', match_type: 'must_match' as const },
    { name: 'digit', pattern: '\\d', match_type: 'must_match' as const },
    { name: 'no_password_word', pattern: 'password', match_type: 'must_not_match' as const, qualifiers: ['case_insensitive' as const] },
  ];
  it('evaluates must_match / must_not_match rules with qualifiers', () => {
    expect(checkPassword('abc', rules)).toEqual(['length', 'digit']);
    expect(checkPassword('MyPassWord1', rules)).toEqual(['no_password_word']);
    expect(checkPassword('correct horse 9', rules)).toEqual([]);
  });

  it('reads the rules in the wire shape (validation_rules.regular_expressions, pattern_qualifiers) and in the earlier bare list', () => {
    const wire = { regular_expressions: rules.map(({ qualifiers, ...r }) => ({ ...r, ...(qualifiers ? { pattern_qualifiers: qualifiers } : {}) })) };
    expect(passwordRules({ validation_rules: wire })).toEqual(rules);
    expect(passwordRules({ validation_rules: rules })).toEqual(rules);
    expect(passwordRules({})).toEqual([]);
    expect(checkPassword('MyPassWord1', passwordRules({ validation_rules: wire }))).toEqual(['no_password_word']);
  });

  it('password_set reports failing rules, asks again, and retries after a 400', async () => {
    const wire = { regular_expressions: rules.map(({ qualifiers, ...r }) => ({ ...r, ...(qualifiers ? { pattern_qualifiers: qualifiers } : {}) })) };
    route('POST', '/id/v2', { challenges: [ch('c1', 'password_set', { validation_rules: wire })] });
    const att = route('POST', '/attestation/v3', () => fail(400, 'password too common'), { token: TOKEN });
    const c = client();
    const answers = ['short', 'breached 123', 'good horse 42'];
    const log = record(c, 'passwordSetReady', 'invalidPasswordSubmitted');
    c.events.on('passwordSetReady', (e) => e.submit(answers.shift()!));
    await expect(authenticate(c, { handle: 'ada@example.com', factor: { method: 'password' } }, handlers).result).resolves.toBe(TOKEN);
    expect(att.map((a) => a.body.data.password)).toEqual(['breached 123', 'good horse 42']);
    expect(log.map(([n, p]) => (n === 'invalidPasswordSubmitted' ? p.failedRules : n))).toEqual([
      'passwordSetReady',
      ['length', 'digit'],
      'passwordSetReady',
      [],
      'passwordSetReady',
    ]);
    expect(log[0]![1].rules).toEqual(rules);
  });

  it('password_verify asks again after 401 with incorrectPasswordSubmitted', async () => {
    route('POST', '/id/v2', { challenges: [ch('c1', 'password_verify')] });
    route('POST', '/attestation/v3', () => fail(401, 'wrong password'), { token: TOKEN });
    const c = client();
    const log = record(c, 'incorrectPasswordSubmitted');
    const answers = ['nope', 'right'];
    c.events.on('passwordVerifyReady', (e) => e.submit(answers.shift()!));
    await expect(authenticate(c, { handle: 'ada', factor: { method: 'password' } }, handlers).result).resolves.toBe(TOKEN);
    expect(log[0]![1]).toMatchObject({ failureDetail: 'incorrect_password' });
  });

  it('a 403 no password set ends the flow with NoPasswordSetError', async () => {
    route('POST', '/id/v2', () => fail(403, 'no password set'));
    await expect(authenticate(client(), { handle: 'ada', factor: { method: 'password' } }, handlers).result).rejects.toBeInstanceOf(
      errors.NoPasswordSetError,
    );
  });
});

describe('TOTP, proxy and UI customization', () => {
  it('totp_register shows the key, then verifies a code', async () => {
    const opts = { key_uri: 'otpauth://totp/x', qr_code_data_b64: 'iVBOR', recovery_codes: ['a', 'b'] };
    route('POST', '/id/v2', { challenges: [ch('t1', 'totp_register', opts)] });
    const att = route('POST', '/attestation/v3', () => fail(401, 'bad'), { token: TOKEN });
    const c = client();
    const log = record(c, 'totpKeyGenerated', 'codeRequested', 'incorrectCodeSubmitted');
    const codes = ['000000', '123456'];
    c.events.on('codeRequested', (e) => e.submit(codes.shift()!));
    await expect(authenticate(c, { factor: { method: 'totp' }, previousToken: 'p' }, handlers).result).resolves.toBe(TOKEN);
    expect(log[0]![1]).toMatchObject({ challengeId: 't1', ...opts });
    expect(log.map(([n]) => n)).toEqual(['totpKeyGenerated', 'codeRequested', 'incorrectCodeSubmitted', 'codeRequested']);
    expect(log[1]![1].kind).toBe('totp');
    expect(att[0]!.body).toEqual({ challenge_id: 't1', challenge_type: 'totp_register', data: { otp: '000000' } });
  });

  it('proxy polls every 1000 ms while the answer is 202, then takes the token', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    route('POST', '/id/v2', { challenges: [ch('c1', 'proxy', { challenge_id: 'px' })] });
    const polls = route('GET', '/challenge/px/v2', () => fail(202, 'pending', 202), () => fail(202, 'pending', 202), { token: TOKEN });
    const flow = authenticate(client(), { handle: 'ada@example.com', factor: { method: 'email_link' } }, handlers);
    await vi.advanceTimersByTimeAsync(10);
    expect(polls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(999);
    expect(polls).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1000);
    await expect(flow.result).resolves.toBe(TOKEN);
    expect(polls).toHaveLength(3);
  });

  it('a link proving the handle before a password: linkSent (proof), linkConfirmed, then the password step', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    const id = route('POST', '/id/v2', [
      { id: 'px', type: 'proxy', authentication_method: 'email_link', options: { challenge_id: 'px' } },
      { id: 'ps', type: 'password_set', authentication_method: 'password', options: { validation_rules: { regular_expressions: [] } } },
    ]);
    route('GET', '/challenge/px/v2', () => fail(202, 'pending', 202), 'proof-token');
    const att = route('POST', '/attestation/v3', { token: TOKEN });
    const c = client();
    const log = record(c, 'linkSent', 'linkConfirmed', 'passwordSetReady');
    c.events.on('passwordSetReady', (e) => e.submit('a new password 1'));
    const flow = authenticate(c, { handle: 'ada@example.com', factor: { method: 'password', options: { sign_up: true } } }, handlers);
    await vi.advanceTimersByTimeAsync(10);
    expect(log.map(([n]) => n)).toEqual(['linkSent']);
    expect(log[0]![1]).toMatchObject({ challengeId: 'px', method: 'email_link', handle: 'ada@example.com', proof: true, flowId: flow.id });
    await vi.advanceTimersByTimeAsync(1000);
    await expect(flow.result).resolves.toBe(TOKEN);
    expect(log.map(([n]) => n)).toEqual(['linkSent', 'linkConfirmed', 'passwordSetReady']);
    expect(id[0]!.body.factor).toEqual({ method: 'password', options: { sign_up: true } });
    expect(att.map((a) => a.body.challenge_type)).toEqual(['password_set']);
  });

  it('a sign-in link of its own is no proof; an SSO proxy is no link', async () => {
    route('POST', '/id/v2', [{ id: 'px', type: 'proxy', authentication_method: 'email_link', options: { challenge_id: 'px' } }]);
    route('GET', '/challenge/px/v2', TOKEN);
    const c = client();
    const log = record(c, 'linkSent', 'linkConfirmed');
    await authenticate(c, { handle: 'ada@example.com', factor: { method: 'email_link' } }, handlers).result;
    expect(log.map(([n, p]) => [n, p.proof])).toEqual([['linkSent', false], ['linkConfirmed', undefined]]);
    route('POST', '/id/v2', [{ id: 'sx', type: 'proxy', authentication_method: 'oidc', options: { challenge_id: 'sx' } }]);
    route('GET', '/challenge/sx/v2', TOKEN);
    await authenticate(c, { factor: { method: 'oidc' } }, handlers).result;
    expect(log).toHaveLength(2);
  });

  it('cancelling stops the polling', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    route('POST', '/id/v2', { challenges: [ch('c1', 'proxy', { challenge_id: 'px' })] });
    const polls = route('GET', '/challenge/px/v2', () => fail(202, 'pending', 202));
    const flow = authenticate(client(), { handle: 'ada@example.com', factor: { method: 'email_link' } }, handlers);
    await vi.advanceTimersByTimeAsync(1500);
    flow.cancel();
    await expect(flow.result).rejects.toBeInstanceOf(errors.FlowCancelledError);
    await vi.advanceTimersByTimeAsync(5000);
    expect(polls).toHaveLength(2);
  });

  it('ui_customization emits its config; a missing one is an error', async () => {
    route('POST', '/id/v2', { challenges: [ch('u', 'ui_customization', { authn_redirect_page_ui_config: { color: 'red' } }), ch('n', 'nonce', { challenge: 'x' })] });
    route('POST', '/attestation/v3', { token: TOKEN });
    const c = client();
    const log = record(c, 'uiCustomizationReceived');
    await authenticate(c, { handle: 'u', factor: { method: 'password' } }, handlers).result;
    expect(log[0]![1].config).toEqual({ color: 'red' });
    route('POST', '/id/v2', { challenges: [ch('u', 'ui_customization', {})] });
    await expect(authenticate(c, { handle: 'u', factor: { method: 'password' } }, handlers).result).rejects.toThrow(
      'No customization properties provided!',
    );
  });
});

describe('recovery flow', () => {
  it('recovers by email: code, then a new password', async () => {
    const rec = route('POST', '/recover', { challenges: [ch('o', 'otp'), ch('r', 'password_reset', { validation_rules: [] })] });
    route('POST', '/attestation/v3', {}, { token: TOKEN });
    const c = client();
    const log = record(c, 'recoveryFlowStarted', 'passwordResetReady', 'recoveryFlowSucceeded');
    c.events.on('codeRequested', (e) => e.submit('123'));
    c.events.on('passwordResetReady', (e) => e.submit('new secret'));
    const flow = recover(c, { handle: 'ada@example.com', factor: { method: 'email_link' } }, handlers);
    await expect(flow.result).resolves.toBe(TOKEN);
    expect(rec[0]!.body).toEqual({ handle: 'ada@example.com', factor: { method: 'email_link' } });
    expect(rec[0]!.headers.get('keyway-orgid')).toBe('org1');
    expect(log.map(([n]) => n)).toEqual(['recoveryFlowStarted', 'passwordResetReady', 'recoveryFlowSucceeded']);
  });
  it('refuses usernames and reports recovery_failed', async () => {
    const c = client();
    const log = record(c, 'recoveryFlowFailed');
    await expect(recover(c, { handle: 'ada', factor: { method: 'email_link' } }, handlers).result).rejects.toBeInstanceOf(
      errors.RecoverNonReachableHandleTypeError,
    );
    expect(log[0]![1]).toMatchObject({ errorText: 'recovery_failed', failureDetail: 'recovery_failed' });
  });
  it('needs an organization id and a result', async () => {
    const noOrg = client({ oid: undefined });
    await expect(recover(noOrg, { handle: 'a@example.com', factor: { method: 'email_link' } }, handlers).result).rejects.toThrow(
      /oid is required/,
    );
    route('POST', '/recover', null);
    await expect(recover(client(), { handle: 'a@example.com', factor: { method: 'email_link' } }, handlers).result).rejects.toThrow(
      'no result in recover response',
    );
  });
  it('one recovery flow and one auth flow can run at the same time', async () => {
    route('POST', '/recover', { challenges: [ch('o', 'otp')] });
    route('POST', '/id/v2', { challenges: [ch('p', 'otp')] });
    const c = client();
    const r = recover(c, { handle: 'a@example.com', factor: { method: 'email_link' } }, handlers);
    const a = authenticate(c, { handle: 'a@example.com', factor: { method: 'otp_via_email' } }, handlers);
    expect(r.stale).toBe(false);
    expect(a.stale).toBe(false);
    r.cancel();
    a.cancel();
    await expect(Promise.allSettled([r.result, a.result])).resolves.toHaveLength(2);
  });
});

describe('flow waits', () => {
  it('forgets finished waits, so a long poll does not pile up cancellers', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    route('POST', '/id/v2', [ch('c1', 'proxy', { challenge_id: 'px' })]);
    const polls = route('GET', '/challenge/px/v2', () => fail(202, 'pending', 202));
    const flow = authenticate(client(), { handle: 'ada@example.com', factor: { method: 'email_link' } }, handlers);
    await vi.advanceTimersByTimeAsync(10_500);
    expect(polls.length).toBeGreaterThanOrEqual(10);
    expect((flow as unknown as { stops: Set<unknown> }).stops.size).toBeLessThanOrEqual(1);
    flow.cancel();
    await expect(flow.result).rejects.toBeInstanceOf(errors.FlowCancelledError);
  });
});
