import { escapeHtml } from '../../http/html.js';
import { badRequest } from '../../http/errors.js';
import type { Ctx, Org } from '../../context.js';
import type { SendOutcome } from '../../email/mailer.js';
import { hashSecret, newOtpCode, newSecret, sameDigest } from '../../crypto/secrets.js';
import { assertReachable, type Handle } from '../../persons/handles.js';
import { findPersonByHandle } from '../../persons/persons.js';
import { checkAnswer, createChallenge, finishSignIn, redirectTarget, requireHandleType, type AttestationHandler, type ChallengeData, type ChallengeOut, type Factor, type FactorHandler } from '../challenges.js';

// One-time codes (otp_via_email, otp_via_sms) and sign-in links (email_link, sms_link), also used by account recovery
// and the hosted login.

/** Sends a sign-in or recovery code by e-mail or SMS (through the outbox: `delayed` when the mail server did not take it yet). */
export function sendCode(ctx: Ctx, org: Org, handle: Handle, code: string, purpose: 'sign-in' | 'recovery'): Promise<SendOutcome> {
  const minutes = Math.round(ctx.limits.codeTtlSeconds / 60);
  const what = purpose === 'sign-in' ? 'sign-in' : 'account recovery';
  if (handle.type === 'email_address') {
    return ctx.mailer.send({
      orgId: org.id,
      channel: 'email',
      to: handle.value,
      subject: `Your ${org.org_name} ${what} code: ${code}`,
      text: `Your ${what} code for ${org.org_name} is ${code}.\nIt expires in ${minutes} minutes. If you did not ask for it, ignore this message.`,
      html: `<p>Your ${what} code for <b>${escapeHtml(org.org_name)}</b> is</p><p style="font-size:28px;letter-spacing:4px"><b>${code}</b></p><p>It expires in ${minutes} minutes. If you did not ask for it, ignore this message.</p>`,
      code,
      validForSeconds: ctx.limits.codeTtlSeconds,
      ...(purpose === 'sign-in' ? { template: { name: 'email_otp_message' as const, vars: { code, org_name: org.org_name, minutes: String(minutes) } } } : {}),
    });
  }
  return ctx.mailer.send({
    orgId: org.id,
    channel: 'sms',
    to: handle.value,
    subject: 'SMS',
    text: `${code} is your ${org.org_name} ${what} code. It expires in ${minutes} min.`,
    html: `<p>${code} is your ${escapeHtml(org.org_name)} ${what} code. It expires in ${minutes} min.</p>`,
    code,
    validForSeconds: ctx.limits.codeTtlSeconds,
    ...(purpose === 'sign-in' ? { template: { name: 'text_otp_message' as const, vars: { code, org_name: org.org_name, minutes: String(minutes) } } } : {}),
  });
}

export const otpFactor = (channel: 'email' | 'sms'): FactorHandler => ({
  async start(ctx, r) {
    const handle = requireHandleType(r.handle, r.method, channel === 'email' ? 'email_address' : 'phone_number');
    assertReachable(handle);
    const code = newOtpCode();
    const data: ChallengeData = r.previous ? { previous: r.previous } : {};
    if (r.recovery) data.recovery = true;
    if (r.chain) data.chain = true;
    const row = await createChallenge(ctx, { org: r.org, type: 'otp', method: r.method, handle, secret: code, data });
    const sent = !r.recovery || (await findPersonByHandle(ctx, r.org.id, handle)) ? await sendCode(ctx, r.org, handle, code, r.recovery ? 'recovery' : 'sign-in') : undefined;
    return [{ id: row.id, type: 'otp', authentication_method: channel === 'email' ? 'otp_via_email' : 'otp_via_sms', options: delayedOption(sent) }];
  },
});

export const linkFactor = (channel: 'email' | 'sms'): FactorHandler => ({
  async start(ctx, r) {
    const handle = requireHandleType(r.handle, r.method, channel === 'email' ? 'email_address' : 'phone_number');
    assertReachable(handle);
    const secret = newSecret();
    const target = redirectTarget(ctx, r.org, r.options);
    const data: ChallengeData = {};
    if (r.previous) data.previous = r.previous;
    if (target) data.redirect_target = target;
    if (r.recovery) data.recovery = true;
    if (r.chain) data.chain = true;
    // Shown on the page the link opens, so that its owner can tell whether they asked (signin/routes.ts).
    data.requested = { at: new Date().toISOString(), ...(r.requester ? { ip: r.requester.ip, ...(r.requester.userAgent ? { user_agent: r.requester.userAgent.slice(0, 512) } : {}) } : {}) };
    const row = await createChallenge(ctx, { org: r.org, type: 'proxy', method: r.method, handle, secret, data });
    const out: ChallengeOut[] = [{ id: row.id, type: 'proxy', authentication_method: channel === 'email' ? 'email_link' : 'sms_link', options: { challenge_id: row.id } }];
    if (r.recovery && !(await findPersonByHandle(ctx, r.org.id, handle))) return out;
    const link = `${ctx.publicUrl}/challenge/${row.id}/verify?secret=${secret}`;
    const minutes = Math.round(ctx.limits.codeTtlSeconds / 60);
    const validForSeconds = ctx.limits.codeTtlSeconds;
    const sent = await ctx.mailer.send(
      channel === 'email'
        ? {
            orgId: r.org.id,
            channel: 'email',
            to: handle.value,
            subject: r.recovery ? `Recover your ${r.org.org_name} account` : `Sign in to ${r.org.org_name}`,
            text: `Open this link to sign in to ${r.org.org_name}:\n${link}\nIt expires in ${minutes} minutes. If you did not ask for it, ignore this message.`,
            html: `<p>Open this link to sign in to <b>${escapeHtml(r.org.org_name)}</b>:</p><p><a href="${escapeHtml(link)}">Sign in</a></p><p>It expires in ${minutes} minutes. If you did not ask for it, ignore this message.</p>`,
            link,
            validForSeconds,
            ...(r.recovery ? {} : { template: { name: 'email_authn_challenge' as const, vars: { link, org_name: r.org.org_name, minutes: String(minutes) } } }),
          }
        : {
            orgId: r.org.id,
            channel: 'sms',
            to: handle.value,
            subject: 'SMS',
            text: `Sign in to ${r.org.org_name}: ${link}`,
            html: `<p>Sign in to ${escapeHtml(r.org.org_name)}: <a href="${escapeHtml(link)}">${escapeHtml(link)}</a></p>`,
            link,
            validForSeconds,
            ...(r.recovery ? {} : { template: { name: 'text_authn_challenge' as const, vars: { link, org_name: r.org.org_name, minutes: String(minutes) } } }),
          },
    );
    Object.assign(out[0]!.options, delayedOption(sent));
    return out;
  },
});

/** The challenge option telling the client that the message waits for the mail server (`delivery_delayed`). */
function delayedOption(sent: SendOutcome | undefined): { delivery_delayed?: true } {
  return sent?.delivery === 'delayed' ? { delivery_delayed: true } : {};
}


/** Checks a one-time code (`otp` challenges). */
export const answerOtp: AttestationHandler = async (ctx, row, data) => {
  const otp = data.otp;
  if (typeof otp !== 'string' || otp.length === 0) throw badRequest('data.otp must be a non-empty string');
  if (otp.length > 16) throw badRequest('data.otp is longer than 16 characters');
  const correct = row.secret_hash !== null && sameDigest(hashSecret(row.id, otp.trim()), row.secret_hash);
  await checkAnswer(ctx, row, correct, 'incorrect code');
  return finishSignIn(ctx, row, row.method);
};

/** Codes and links by e-mail and SMS. */
export const otpAndLinkFactors: Factor = {
  methods: {
    otp_via_email: otpFactor('email'),
    otp_via_sms: otpFactor('sms'),
    email_link: linkFactor('email'),
    sms_link: linkFactor('sms'),
  },
  attestations: {
    otp: answerOtp,
  },
};
