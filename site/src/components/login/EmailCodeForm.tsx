import React, { useEffect, useRef, useState } from 'react';
import { authenticate, nonce, otp, errors, type Flow, type KeywayClient } from '@keyway/sdk';

type Step = { kind: 'email' } | { kind: 'code'; email: string } | { kind: 'busy'; label: string };

/** Plain words for the errors a visitor can meet while signing in with an e-mailed code (spec §8). */
export function describeSignInError(error: unknown): string {
  if (error instanceof errors.RateLimitError) return 'Too many attempts. Wait a minute, then try again.';
  if (error instanceof errors.InvalidEmailAddressFormatError) return 'That e-mail address is not valid. Check it and try again.';
  if (error instanceof errors.TimeoutError) return 'The code has expired. Ask for a new one.';
  if (error instanceof errors.SelfRegistrationNotAllowed) return 'This e-mail address has no Keyway account. Ask your administrator for access.';
  if (error instanceof errors.SignInAwaitingApprovalError || error instanceof errors.SignUpAwaitingApprovalError)
    return 'Your account is waiting for approval by an administrator.';
  if (error instanceof errors.HandlePatternNotAllowedError) return 'This e-mail address is not allowed to sign in here.';
  if (error instanceof errors.UnexpectedError && /network error/.test(error.message))
    return 'The sign-in service cannot be reached. Check your connection and try again.';
  return error instanceof Error && error.message ? `Sign-in failed: ${error.message}` : 'Sign-in failed. Try again.';
}

/**
 * Sign-in with a one-time code sent by e-mail, driven by the SDK: the e-mail address, then the code (asked again
 * after a wrong one). Calls `onToken` with the user token.
 */
export default function EmailCodeForm({ client, onToken }: { client: KeywayClient; onToken: (token: string) => Promise<void> }): React.ReactElement {
  const [step, setStep] = useState<Step>({ kind: 'email' });
  const [error, setError] = useState<string | null>(null);
  const [email, setEmail] = useState('');
  const [code, setCode] = useState('');
  const submitCode = useRef<((code: string) => void) | null>(null);
  const flow = useRef<Flow | null>(null);
  const codeInput = useRef<HTMLInputElement>(null);

  useEffect(() => {
    const offs = [
      client.events.on('codeRequested', (e) => {
        submitCode.current = e.submit;
        setStep((s) => (s.kind === 'code' ? s : { kind: 'code', email: flow.current?.request.handle ?? '' }));
      }),
      client.events.on('incorrectCodeSubmitted', () => {
        setCode('');
        setError('That code is not right. Check the e-mail and enter the code again.');
        setStep((s) => (s.kind === 'busy' ? { kind: 'code', email: flow.current?.request.handle ?? '' } : s));
      }),
    ];
    return () => {
      offs.forEach((off) => off());
      flow.current?.cancel();
    };
  }, [client]);

  useEffect(() => {
    if (step.kind === 'code') codeInput.current?.focus();
  }, [step.kind]);

  const start = (event: React.FormEvent) => {
    event.preventDefault();
    setError(null);
    setStep({ kind: 'busy', label: 'Sending a code…' });
    const f = authenticate(client, { handle: email.trim(), factor: { method: 'otp_via_email' } }, { nonce, otp });
    flow.current = f;
    f.result.then(
      async (token) => {
        setStep({ kind: 'busy', label: 'Signing in…' });
        try {
          await onToken(token);
        } catch (e) {
          setError(e instanceof Error ? e.message : String(e));
          setStep({ kind: 'email' });
        }
      },
      (e: unknown) => {
        if (flow.current !== f || e instanceof errors.FlowCancelledError) return;
        setError(describeSignInError(e));
        setStep({ kind: 'email' });
      },
    );
  };

  const verify = (event: React.FormEvent) => {
    event.preventDefault();
    setError(null);
    setStep({ kind: 'busy', label: 'Checking the code…' });
    submitCode.current?.(code.trim());
  };

  const restart = () => {
    flow.current?.cancel();
    flow.current = null;
    setCode('');
    setError(null);
    setStep({ kind: 'email' });
  };

  const errorBox = error ? (
    <div className="alert alert--danger margin-bottom--md" role="alert" id="login-error">
      {error}
    </div>
  ) : null;

  if (step.kind === 'busy') {
    return (
      <p role="status" aria-live="polite">
        {step.label}
      </p>
    );
  }
  if (step.kind === 'code') {
    return (
      <form onSubmit={verify} aria-describedby={error ? 'login-error' : undefined} noValidate>
        {errorBox}
        <p>
          We sent a code to <strong>{step.email}</strong>. It is valid for 10 minutes.
        </p>
        <label htmlFor="login-code" className="login__label">
          Code from the e-mail
        </label>
        <input
          id="login-code"
          ref={codeInput}
          className="login__input"
          name="code"
          inputMode="numeric"
          autoComplete="one-time-code"
          pattern="[0-9]*"
          required
          value={code}
          onChange={(e) => setCode(e.target.value)}
        />
        <div className="login__actions">
          <button type="submit" className="button button--primary" disabled={!code.trim()}>
            Sign in
          </button>
          <button type="button" className="button button--link" onClick={restart}>
            Use another e-mail address
          </button>
        </div>
      </form>
    );
  }
  return (
    <form onSubmit={start} aria-describedby={error ? 'login-error' : undefined} noValidate>
      {errorBox}
      <label htmlFor="login-email" className="login__label">
        Work e-mail address
      </label>
      <input
        id="login-email"
        className="login__input"
        type="email"
        name="email"
        autoComplete="email"
        required
        autoFocus
        value={email}
        onChange={(e) => setEmail(e.target.value)}
      />
      <div className="login__actions">
        <button type="submit" className="button button--primary" disabled={!email.trim()}>
          Send me a code
        </button>
      </div>
    </form>
  );
}
