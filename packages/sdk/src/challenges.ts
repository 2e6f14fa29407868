import { track } from './analytics.js';
import { failure } from './client.js';
import { InvalidActionError, UnexpectedError } from './errors.js';
import type { ChallengeHandler, Flow } from './flow.js';
import { challengesOf, otpSlug, type ChallengesOrToken } from './flow.js';
import type { Challenge, PasswordRulesOptions, PasswordValidationRule, ProxyChallenge, TOTPRegisterOptions } from './types.js';

/** Milliseconds between two polls of a proxy challenge. */
export const PROXY_POLL_MS = 1000;

/** `nonce`: answered automatically with the challenge value. */
export const nonce: ChallengeHandler = (flow, ch) =>
  flow.attest(ch, { challenge: (ch.options as { challenge: string }).challenge });

const wrong = (flow: Flow, event: 'incorrectCodeSubmitted' | 'incorrectPasswordSubmitted', slug: string) => () => {
  flow.emit(event, { challengeId: flow.challengeId ?? '', failureDetail: slug });
  track(flow.client, 'AuthenticationFailed_v1', {
    failed_authn_method: flow.request.factor.method,
    failure_reason: slug,
    handle: flow.request.handle,
    challenge_id: flow.challengeId,
  });
};

async function ask(flow: Flow, event: Parameters<Flow['prompt']>[0], payload: Record<string, unknown>, empty: string) {
  const value = await flow.prompt(event, payload);
  if (typeof value !== 'string' || !value) throw new InvalidActionError(empty);
  return value;
}

function code(kind: 'otp' | 'totp', slug: string): ChallengeHandler {
  return (flow, ch) =>
    flow.answerUntilAccepted(
      ch,
      async () => ({ otp: await ask(flow, 'codeRequested', { kind }, `no ${kind.toUpperCase()} code provided`) }),
      401,
      wrong(flow, 'incorrectCodeSubmitted', slug),
    );
}

/** `delayed: true` when the server says the message with the code or link waits for the mail server. */
const delayed = (ch: Challenge): { delayed?: true } => ('options' in ch && (ch.options as { delivery_delayed?: unknown }).delivery_delayed === true ? { delayed: true } : {});

/** `otp`: emits `codeSent`, then `codeRequested` until a code is accepted (a wrong code emits `incorrectCodeSubmitted`). */
export const otp: ChallengeHandler = (flow, ch) => {
  const { method } = flow.request.factor;
  flow.emit('codeSent', { challengeId: ch.id, method, handle: flow.request.handle, ...delayed(ch) });
  return code('otp', otpSlug(method))(flow, ch);
};

/** `totp_verify`: emits `codeRequested` until the authenticator code is accepted. */
export const totpVerify: ChallengeHandler = code('totp', 'incorrect_otp_code');

/** `totp_register`: emits `totpKeyGenerated` with the key, QR code and recovery codes, then asks for a first code. */
export const totpRegister: ChallengeHandler = (flow, ch) => {
  flow.emit('totpKeyGenerated', { challengeId: ch.id, ...(ch.options as TOTPRegisterOptions) });
  return totpVerify(flow, ch);
};

/**
 * Evaluates server-sent password rules: every `must_match` rule must match and no
 * `must_not_match` rule may match (`case_insensitive` adds the `i` flag).
 * @returns names of the failing rules; empty when the password is valid.
 */
export function checkPassword(password: string, rules: PasswordValidationRule[] = []): string[] {
  return rules
    .filter((r) => {
      let matches: boolean;
      try {
        matches = new RegExp(r.pattern, r.qualifiers?.includes('case_insensitive') ? 'i' : '').test(password);
      } catch {
        return true;
      }
      return matches !== (r.match_type === 'must_match');
    })
    .map((r) => r.name);
}

/** The rules of a password challenge, in the SDK's shape, whichever of the two wire shapes the server sent. */
export function passwordRules(options: PasswordRulesOptions | undefined): PasswordValidationRule[] {
  const given = options?.validation_rules;
  if (!given) return [];
  if (Array.isArray(given)) return given;
  return (given.regular_expressions ?? []).map((r) => ({ name: r.name, pattern: r.pattern, match_type: r.match_type, ...(r.pattern_qualifiers ? { qualifiers: r.pattern_qualifiers } : {}) }));
}

function newPassword(event: 'passwordSetReady' | 'passwordResetReady'): ChallengeHandler {
  return (flow, ch) => {
    const rules = passwordRules(ch.options as PasswordRulesOptions);
    const invalid = (failedRules: string[]) => {
      flow.emit('invalidPasswordSubmitted', { failedRules });
      track(flow.client, 'AuthenticationFailed_v1', {
        failed_authn_method: 'password',
        failure_reason: 'invalid_password',
        failure_detail: failedRules.join(','),
        handle: flow.request.handle,
        challenge_id: ch.id,
      });
    };
    return flow.answerUntilAccepted(
      ch,
      async () => {
        for (;;) {
          const password = await ask(flow, event, { rules }, 'No password provided');
          const failed = checkPassword(password, rules);
          if (!failed.length) return { password };
          invalid(failed);
        }
      },
      400,
      () => invalid([]),
    );
  };
}

/** `password_set`: emits `passwordSetReady`; passwords breaking a rule (or refused with 400) emit `invalidPasswordSubmitted` and ask again. */
export const passwordSet: ChallengeHandler = newPassword('passwordSetReady');
/** `password_reset`: like `password_set`, with `passwordResetReady`. */
export const passwordReset: ChallengeHandler = newPassword('passwordResetReady');
/** `password_verify`: emits `passwordVerifyReady`; a wrong password (401) emits `incorrectPasswordSubmitted` and asks again. */
export const passwordVerify: ChallengeHandler = (flow, ch) =>
  flow.answerUntilAccepted(
    ch,
    async () => ({ password: await ask(flow, 'passwordVerifyReady', {}, 'No password provided') }),
    401,
    wrong(flow, 'incorrectPasswordSubmitted', 'incorrect_password'),
  );

/**
 * Challenges a flow already completed by polling them: an SSO challenge is followed by a `proxy` challenge naming it
 * (for clients that poll only then), which this SDK has already polled when the SSO return was resolved.
 */
const polledChallenges = new WeakMap<Flow, Set<string>>();

/**
 * `proxy`: polls `GET /challenge/{challenge_id}/v2` every second while the answer is 202
 * (for example until a sign-in link is opened and confirmed on its page). Cancelling the flow stops the polling.
 * For a link (`email_link`, `sms_link`) it emits `linkSent` first and `linkConfirmed` once the link was confirmed;
 * `proof` says whether the link only proves the handle before another step (a password or passkey sign-up).
 */
export const proxy: ChallengeHandler = async (flow, ch) => {
  const challengeId = (ch as ProxyChallenge).options.challenge_id ?? ch.id;
  if (polledChallenges.get(flow)?.has(challengeId)) return undefined;
  const id = encodeURIComponent(challengeId);
  const { handle, factor } = flow.request;
  const link = /_link$/.test(ch.authentication_method ?? '') ? ch.authentication_method! : undefined;
  if (link) flow.emit('linkSent', { challengeId, method: link, handle, proof: factor.method !== link, ...delayed(ch) });
  for (;;) {
    flow.check();
    const r = await flow.client.call<ChallengesOrToken>('GET', `/challenge/${id}/v2`, {
      token: flow.request.previousToken ?? null,
      org: flow.request.org ?? true,
    });
    flow.check();
    const pending = r.status === 202 || r.body.errors?.[0]?.httpcode === 202;
    if (!pending) {
      const err = failure(r);
      if (err) throw err;
      const list = challengesOf(r.body.result);
      if (!list) throw new UnexpectedError('no user token in attestation response');
      polledChallenges.set(flow, (polledChallenges.get(flow) ?? new Set()).add(challengeId));
      if (link) flow.emit('linkConfirmed', { challengeId });
      return typeof list === 'string' ? list : flow.process(list);
    }
    await flow.wait(PROXY_POLL_MS);
  }
};

/** `ui_customization`: emits `uiCustomizationReceived` with the branding properties. */
export const uiCustomization: ChallengeHandler = async (flow, ch) => {
  const config = (ch.options as { authn_redirect_page_ui_config?: Record<string, unknown> }).authn_redirect_page_ui_config;
  if (!config) throw new UnexpectedError('No customization properties provided!');
  flow.emit('uiCustomizationReceived', { config });
};

/** Handlers of every challenge that needs no browser API beyond the DOM: nonce, codes, passwords, proxy, UI customization. */
export const basicChallenges = {
  nonce,
  otp,
  totp_register: totpRegister,
  totp_verify: totpVerify,
  password_set: passwordSet,
  password_verify: passwordVerify,
  password_reset: passwordReset,
  proxy,
  ui_customization: uiCustomization,
} satisfies Record<string, ChallengeHandler>;
