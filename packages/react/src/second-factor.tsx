import type { Factor, Flow, User, WebAuthnFactorOptions } from '@keyway/sdk';
import { useEffect, useId, useRef, type ReactNode } from 'react';
import { normalizeFactors, sdkFactor, useConfiguration, type FactorConfig, type LabelledFactor } from './configuration.js';
import { Form, type FormProps } from './form.js';
import { useKeyway, type KeywayState } from './provider.js';
import { BackButton, FlowSteps, useStepFocus } from './steps.js';
import { KeywayStyles } from './styles.js';
import { useFlow } from './use-flow.js';

const HANDLE_KIND: Record<string, string> = { otp_via_email: 'email_address', email_link: 'email_address', otp_via_sms: 'phone_number', sms_link: 'phone_number' };

/** Starts a step-up with `factor` for the signed-in person; factors sent to a handle use the person's own (`/me`). */
async function stepUp(k: KeywayState, factor: Factor): Promise<Flow> {
  const kind = HANDLE_KIND[factor.method];
  if (!kind) {
    if (factor.method === 'webauthn') return k.sdk.stepUp({ method: 'webauthn', options: factor.options as WebAuthnFactorOptions });
    return k.sdk.stepUp(factor);
  }
  const me = await k.user!.me();
  const handle = me.handles.find((h) => h.type === kind)?.value;
  if (!handle) throw new Error(`You have no ${kind === 'email_address' ? 'email address' : 'phone number'} to send a code to. Choose another way.`);
  return k.sdk.stepUp(factor, handle);
}

interface FactorFlowProps {
  factors: LabelledFactor[];
  title: string;
  subtitle: string;
  autoStart: boolean;
  onSuccess?: (user: User) => void;
  onError?: (error: unknown) => void;
  errorMessages?: Record<string, string>;
  onCancel?: () => void;
  success?: ReactNode;
}

/** Runs a step-up with one of `factors` for the signed-in person and shows its prompts. */
function FactorFlow({ factors, title, subtitle, autoStart, onSuccess, onError, errorMessages, onCancel, success }: FactorFlowProps) {
  const k = useKeyway();
  const { text } = useConfiguration();
  const flow = useFlow({ onSuccess, onError, errorMessages, incorrect: { code: text('otp.incorrect'), password: text('password.incorrect'), refused: text('password.refused') } });
  const id = useId();
  const ref = useStepFocus<HTMLDivElement>(flow.state.step === 'idle');
  const start = (labelled: LabelledFactor) => {
    const f = sdkFactor(labelled);
    // Factors without a handle start synchronously (popups and passkey prompts need the click).
    if (!HANDLE_KIND[f.method]) return flow.run(() => k.sdk.stepUp(f), { factor: f });
    void stepUp(k, f).then(
      (fl) => flow.run(() => fl, { factor: f }),
      (e: unknown) => flow.run(() => { throw e; }),
    );
  };
  const started = useRef(false);
  const first = factors[0];
  useEffect(() => {
    if (autoStart && first && factors.length === 1 && !started.current && !['oidc', 'saml', 'webauthn'].includes(first.method)) {
      started.current = true;
      start(first);
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [autoStart, first]);
  if (flow.state.step !== 'idle')
    return <FlowSteps state={flow.state} onCancel={onCancel ? () => { flow.reset(); onCancel(); } : flow.reset} success={success} />;
  return (
    <div ref={ref} className="kw-step" role="group" aria-labelledby={id}>
      <h2 id={id} className="kw-title" tabIndex={-1} data-kw-focus>
        {title}
      </h2>
      <p className="kw-subtitle">{subtitle}</p>
      {factors.map((f, i) => (
        <button key={f.method + i} className={i === 0 ? 'kw-button kw-button-primary' : 'kw-button'} type="button" onClick={() => start(f)}>
          {text(`factor.${f.method}` as 'factor.totp', { provider: f.label ?? String((f.options as { provider?: string } | undefined)?.provider ?? 'single sign-on') })}
        </button>
      ))}
      <BackButton onClick={onCancel} />
    </div>
  );
}

/** Props of {@link MultiFactorAuth}. */
export interface MultiFactorAuthProps extends Omit<FormProps, 'factors' | 'getFactor' | 'onSuccess'> {
  /** Factors of the first step (default: the configuration's). */
  firstFactors?: FactorConfig[];
  /** Second factors; the person uses one of them (default `['totp']`: an authenticator app, registered on first use). */
  factors?: FactorConfig[];
  /** Called once both steps are done. */
  onSuccess?: (user: User) => void;
}

/**
 * Sign-in with two factors: the {@link Form} for the first, then one of `factors` as a step-up of the
 * same person (a first TOTP use shows the registration with QR code and recovery codes). A signed-in
 * person whose token lacks a second factor starts at the second step. Gate content on both with
 * `<LoggedIn withFactors={[…]}>`.
 */
export function MultiFactorAuth({ firstFactors, factors = ['totp'], onSuccess, onError, errorMessages, className, unstyled, children, handles, initialMode, allowSignUp }: MultiFactorAuthProps) {
  const { isAuthenticated, isLoading, user } = useKeyway();
  const config = useConfiguration();
  const second = normalizeFactors(factors);
  if (isLoading) return null;
  if (!isAuthenticated)
    return (
      <Form factors={firstFactors} handles={handles} onError={onError} errorMessages={errorMessages} className={className} unstyled={unstyled} initialMode={initialMode} allowSignUp={allowSignUp}>
        {children}
      </Form>
    );
  const done = second.some((f) => user?.authenticatedMethods.includes(f.method));
  return (
    <div className={['kw-root', 'kw-mfa', className].filter(Boolean).join(' ')} style={config.style}>
      {!unstyled && <KeywayStyles />}
      {done ? (
        <p className="kw-status kw-success" role="status">
          {config.text('success.title')}
        </p>
      ) : (
        <FactorFlow
          factors={second}
          title={config.text('mfa.title')}
          subtitle={config.text('mfa.subtitle')}
          autoStart
          onSuccess={onSuccess}
          onError={onError}
          errorMessages={errorMessages}
        />
      )}
    </div>
  );
}

/** Props of {@link StepUpAuth}. */
export interface StepUpAuthProps {
  /** Factors the person may confirm with (default: the configuration's). */
  factors?: FactorConfig[];
  /** Called with the user of the new, stepped-up token. */
  onSuccess?: (user: User) => void;
  onError?: (error: unknown) => void;
  /** Shows a “Back” button that calls this. */
  onCancel?: () => void;
  /** Replaces the default title. */
  title?: string;
  errorMessages?: Record<string, string>;
  className?: string;
  unstyled?: boolean;
}

/**
 * Asks the signed-in person to confirm with another factor before a sensitive action. The new
 * token (with the factor added) replaces the current one. Renders nothing while logged out.
 */
export function StepUpAuth({ factors, onSuccess, onError, onCancel, title, errorMessages, className, unstyled }: StepUpAuthProps) {
  const { isAuthenticated } = useKeyway();
  const config = useConfiguration();
  if (!isAuthenticated) return null;
  const list = factors ? normalizeFactors(factors) : config.factors;
  return (
    <div className={['kw-root', 'kw-step-up', className].filter(Boolean).join(' ')} style={config.style}>
      {!unstyled && <KeywayStyles />}
      <FactorFlow
        factors={list}
        title={title ?? config.text('stepUp.title')}
        subtitle={config.text('stepUp.subtitle')}
        autoStart={false}
        onSuccess={onSuccess}
        onError={onError}
        errorMessages={errorMessages}
        onCancel={onCancel}
      />
    </div>
  );
}
