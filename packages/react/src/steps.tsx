import { checkPassword, type PasswordValidationRule, type TOTPRegisterOptions } from '@keyway/sdk';
import { useEffect, useId, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { useConfiguration } from './configuration.js';
import type { FlowState } from './use-flow.js';

/**
 * Moves keyboard focus to the first field (or the heading) of a step when it appears. With
 * `skipFirst`, the first appearance (page load) leaves the focus where it is.
 */
export function useStepFocus<T extends HTMLElement>(key: unknown, skipFirst = false) {
  const ref = useRef<T>(null);
  const first = useRef(true);
  useEffect(() => {
    const skip = skipFirst && first.current;
    first.current = false;
    const root = ref.current;
    if (!root || skip) return;
    const target = root.querySelector<HTMLElement>('input:not([type=hidden]):not([disabled]), select, [data-kw-focus]');
    target?.focus();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key]);
  return ref;
}

/** An error message read out by screen readers as soon as it appears. */
export function ErrorMessage({ id, children }: { id?: string; children?: ReactNode }) {
  if (!children) return null;
  return (
    <p id={id} className="kw-error" role="alert">
      {children}
    </p>
  );
}

/** “Back”: cancels the running flow and returns to the start. */
export function BackButton({ onClick }: { onClick?: () => void }) {
  const { text } = useConfiguration();
  if (!onClick) return null;
  return (
    <button className="kw-button kw-button-link" type="button" onClick={onClick}>
      {text('authenticating.cancel')}
    </button>
  );
}

/** The code step: OTP sent by email/SMS, or TOTP (with the QR code and recovery codes on registration). */
function CodeStep({ state, onCancel, onResend, resent }: { state: Extract<FlowState, { step: 'code' }>; onCancel?: () => void; onResend?: () => void; resent?: boolean }) {
  const { text } = useConfiguration();
  const [code, setCode] = useState('');
  const id = useId();
  const ref = useStepFocus<HTMLFormElement>(state);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (code.trim()) state.submit(code.trim());
  };
  const title = state.kind === 'otp' ? text('otp.title') : state.registration ? text('totp.register.title') : text('totp.title');
  return (
    <form ref={ref} className="kw-step kw-step-code" onSubmit={submit} aria-labelledby={id + 't'} noValidate>
      <h2 id={id + 't'} className="kw-title">
        {title}
      </h2>
      {state.kind === 'otp' && state.sentTo && (
        <p className="kw-status" role="status">
          {text(resent ? 'otp.resent' : 'authenticating.codeSent', { handle: state.sentTo })}
          {state.delayed && <DelayedNotice />}
        </p>
      )}
      {state.registration && <TOTPRegistration registration={state.registration} />}
      <label className="kw-label" htmlFor={id}>
        {text('otp.label')}
      </label>
      <input
        id={id}
        className="kw-input kw-input-code"
        name="code"
        value={code}
        onChange={(e) => setCode(e.target.value)}
        inputMode={state.kind === 'otp' ? 'numeric' : 'text'}
        autoComplete="one-time-code"
        autoCapitalize="off"
        spellCheck={false}
        required
        aria-invalid={state.error ? true : undefined}
        aria-describedby={state.error ? id + 'e' : state.kind === 'totp' && !state.registration ? id + 'h' : undefined}
      />
      {state.kind === 'totp' && !state.registration && (
        <p id={id + 'h'} className="kw-hint">
          {text('totp.recoveryHint')}
        </p>
      )}
      <ErrorMessage id={id + 'e'}>{state.error}</ErrorMessage>
      <button className="kw-button kw-button-primary" type="submit" disabled={!code.trim()}>
        {text('otp.submit')}
      </button>
      {state.kind === 'otp' && onResend && (
        <button className="kw-button kw-button-link" type="button" onClick={onResend}>
          {text('otp.resend')}
        </button>
      )}
      <BackButton onClick={onCancel} />
    </form>
  );
}

/** Key, QR code and recovery codes of a new authenticator app registration. */
export function TOTPRegistration({ registration }: { registration: TOTPRegisterOptions }) {
  const { text } = useConfiguration();
  const [copied, setCopied] = useState(false);
  let secret = '';
  try {
    secret = new URL(registration.key_uri).searchParams.get('secret') ?? '';
  } catch {
    /* a malformed URI still shows the QR code */
  }
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(registration.recovery_codes.join('\n'));
      setCopied(true);
    } catch {
      setCopied(false);
    }
  };
  return (
    <div className="kw-totp">
      <p className="kw-hint">{text('totp.register.scan')}</p>
      {registration.qr_code_data_b64 && (
        <img className="kw-qr" src={`data:image/png;base64,${registration.qr_code_data_b64}`} alt={text('totp.register.qrAlt')} width={180} height={180} />
      )}
      {secret && (
        <p className="kw-totp-key">
          {text('totp.register.key')}: <code>{secret.replace(/(.{4})/g, '$1 ').trim()}</code>
        </p>
      )}
      {registration.recovery_codes.length > 0 && (
        <div className="kw-recovery">
          <p className="kw-hint">{text('totp.register.recovery')}</p>
          <ul className="kw-recovery-codes">
            {registration.recovery_codes.map((c) => (
              <li key={c}>
                <code>{c}</code>
              </li>
            ))}
          </ul>
          <button className="kw-button kw-button-secondary" type="button" onClick={copy}>
            {text('totp.register.copy')}
          </button>
          <span className="kw-status" role="status">
            {copied ? text('totp.register.copied') : ''}
          </span>
        </div>
      )}
    </div>
  );
}

/** The password rules of the server, ticked off live while the person types. */
export function PasswordRules({ rules, password, id }: { rules: PasswordValidationRule[]; password: string; id?: string }) {
  const { text } = useConfiguration();
  if (!rules.length) return null;
  const failed = new Set(checkPassword(password, rules));
  return (
    <div id={id} className="kw-rules">
      <p className="kw-hint">{text('password.rules')}</p>
      <ul>
        {rules.map((r) => {
          const ok = !failed.has(r.name);
          return (
            <li key={r.name} className={ok ? 'kw-rule kw-rule-met' : 'kw-rule'} data-met={ok}>
              <span aria-hidden="true">{ok ? '✓' : '•'}</span> {ruleLabel(r)}
              <span className="kw-visually-hidden"> ({ok ? text('password.rule.met') : text('password.rule.unmet')})</span>
            </li>
          );
        })}
      </ul>
    </div>
  );
}

const RULE_LABELS: Record<string, string> = {
  letter: 'a letter',
  lowercase: 'a lowercase letter',
  uppercase: 'an uppercase letter',
  digit: 'a digit',
  number: 'a digit',
  special_character: 'a special character',
  symbol: 'a special character',
  no_whitespace: 'no spaces',
  no_surrounding_spaces: 'no space at the start or end',
  not_common: 'not a common password',
};

/**
 * A readable label of a server rule: lengths are read from the pattern (`^.{10,}$` → “at least 10
 * characters”), known names get a sentence, other names are spelled out.
 */
export function ruleLabel(rule: PasswordValidationRule | string, rules: PasswordValidationRule[] = []): string {
  const r = typeof rule === 'string' ? (rules.find((x) => x.name === rule) ?? { name: rule, pattern: '', match_type: 'must_match' as const }) : rule;
  const n = /^\^\.\{(\d+),\}\$$/.exec(r.pattern)?.[1];
  if (n) return r.match_type === 'must_match' ? `at least ${n} characters` : `at most ${Number(n) - 1} characters`;
  return RULE_LABELS[r.name] ?? r.name.replace(/_/g, ' ');
}

function PasswordStep({
  state,
  onCancel,
  onForgot,
  onSignUp,
}: {
  state: Extract<FlowState, { step: 'password' }>;
  onCancel?: () => void;
  onForgot?: () => void;
  onSignUp?: () => void;
}) {
  const { text, showPasswordRecovery } = useConfiguration();
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [show, setShow] = useState(false);
  const [local, setLocal] = useState<string>();
  const id = useId();
  const ref = useStepFocus<HTMLFormElement>(state);
  const isNew = state.mode !== 'verify';
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!password) return;
    if (isNew) {
      const failed = checkPassword(password, state.rules);
      if (failed.length) return setLocal(text('password.invalid', { rules: failed.map((n) => ruleLabel(n, state.rules)).join(', ') }));
      if (password !== confirm) return setLocal(text('password.mismatch'));
    }
    setLocal(undefined);
    state.submit(password);
  };
  const error =
    local ?? state.error ?? (state.failedRules?.length ? text('password.invalid', { rules: state.failedRules.map((n) => ruleLabel(n, state.rules)).join(', ') }) : undefined);
  const title = text(state.mode === 'verify' ? 'password.verify.title' : state.mode === 'set' ? 'password.set.title' : 'password.reset.title');
  const describedBy = [error ? id + 'e' : '', isNew && state.rules.length ? id + 'r' : ''].filter(Boolean).join(' ') || undefined;
  return (
    <form ref={ref} className="kw-step kw-step-password" onSubmit={submit} aria-labelledby={id + 't'} noValidate>
      <h2 id={id + 't'} className="kw-title">
        {title}
      </h2>
      {state.proved && (
        <p className="kw-status kw-success" role="status">
          {text('password.proved', { handle: state.proved })}
        </p>
      )}
      <label className="kw-label" htmlFor={id}>
        {text(isNew ? 'password.new.label' : 'password.label')}
      </label>
      <input
        id={id}
        className="kw-input"
        type={show ? 'text' : 'password'}
        name="password"
        value={password}
        onChange={(e) => setPassword(e.target.value)}
        autoComplete={isNew ? 'new-password' : 'current-password'}
        required
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy}
      />
      {isNew && (
        <>
          <label className="kw-label" htmlFor={id + 'c'}>
            {text('password.confirm.label')}
          </label>
          <input
            id={id + 'c'}
            className="kw-input"
            type={show ? 'text' : 'password'}
            name="confirm"
            value={confirm}
            onChange={(e) => setConfirm(e.target.value)}
            autoComplete="new-password"
            required
          />
        </>
      )}
      <label className="kw-checkbox">
        <input type="checkbox" checked={show} onChange={(e) => setShow(e.target.checked)} /> {text('password.show')}
      </label>
      {isNew && <PasswordRules id={id + 'r'} rules={state.rules} password={password} />}
      <ErrorMessage id={id + 'e'}>{error}</ErrorMessage>
      <button className="kw-button kw-button-primary" type="submit" disabled={!password}>
        {text('password.submit')}
      </button>
      {state.mode === 'verify' && onForgot && showPasswordRecovery && (
        <button className="kw-button kw-button-link" type="button" onClick={onForgot}>
          {text('password.forgot')}
        </button>
      )}
      {state.mode === 'verify' && onSignUp && (
        <button className="kw-button kw-button-link" type="button" onClick={onSignUp}>
          {text('password.signUp')}
        </button>
      )}
      <BackButton onClick={onCancel} />
    </form>
  );
}

/** Said after “We sent …” when the mail server has not taken the message yet (the server retries it). */
function DelayedNotice() {
  const { text } = useConfiguration();
  return <span className="kw-delayed"> {text('authenticating.delayed')}</span>;
}

function WorkingStep({ state, onCancel }: { state: Extract<FlowState, { step: 'working' }>; onCancel?: () => void }) {
  const { text } = useConfiguration();
  const ref = useStepFocus<HTMLDivElement>('working');
  const m = state.method ?? '';
  const proofKey = m === 'password' || m === 'webauthn' ? (`authenticating.proofLink.${m}` as const) : 'authenticating.proofLink';
  const status = state.link
    ? text(state.link.proof ? proofKey : 'authenticating.linkSent', { handle: state.handle ?? '' })
    : m === 'oidc' || m === 'saml'
      ? text('authenticating.sso')
      : m === 'webauthn'
        ? text('authenticating.passkey')
        : text('authenticating.title');
  return (
    <div ref={ref} className="kw-step kw-step-working" aria-busy="true">
      <p className="kw-status" role="status" tabIndex={-1} data-kw-focus>
        <span className="kw-spinner" aria-hidden="true" /> {status}
        {state.link?.delayed && <DelayedNotice />}
      </p>
      <BackButton onClick={onCancel} />
    </div>
  );
}

/** Props of {@link FlowSteps}. */
export interface FlowStepsProps {
  state: FlowState;
  /** Back to the start (cancels the flow). */
  onCancel?: () => void;
  /** “Forgot your password?” in the password step. */
  onForgot?: () => void;
  /** “Create an account” in the step that verifies a password (a sign-in that may have been meant as a sign-up). */
  onSignUp?: () => void;
  /** “Send a new code” in the step of a code sent by email or SMS. */
  onResend?: () => void;
  /** The code of the current step was sent again (“Send a new code”): its status line confirms it. */
  resent?: boolean;
  /** Replaces the success view. */
  success?: ReactNode;
  /** Replaces the error view. */
  error?: (p: { message: string; error: unknown; retry: () => void }) => ReactNode;
}

/** Renders the step a running flow is at (code, password, waiting, success or error). */
export function FlowSteps({ state, onCancel, onForgot, onSignUp, onResend, resent, success, error }: FlowStepsProps) {
  const { text } = useConfiguration();
  const ref = useStepFocus<HTMLDivElement>(state.step);
  switch (state.step) {
    case 'working':
      return <WorkingStep state={state} onCancel={onCancel} />;
    case 'code':
      return <CodeStep state={state} onCancel={onCancel} onResend={onResend} resent={resent} />;
    case 'password':
      return <PasswordStep state={state} onCancel={onCancel} onForgot={onForgot} onSignUp={onSignUp} />;
    case 'success':
      return (
        <div ref={ref} className="kw-step kw-step-success">
          {success ?? (
            <p className="kw-status kw-success" role="status" tabIndex={-1} data-kw-focus>
              {text('success.title')}
            </p>
          )}
        </div>
      );
    case 'error': {
      const retry = () => onCancel?.();
      return (
        <div ref={ref} className="kw-step kw-step-error">
          {error ? (
            error({ message: state.message, error: state.error, retry })
          ) : (
            <>
              <h2 className="kw-title">{text('error.title')}</h2>
              <ErrorMessage>{state.message}</ErrorMessage>
              <button className="kw-button kw-button-primary" type="button" onClick={retry} data-kw-focus>
                {text('error.retry')}
              </button>
            </>
          )}
        </div>
      );
    }
    default:
      return null;
  }
}
