import { errors, handleType, validateHandle, webauthnAvailable, type Factor, type User, type WebAuthnFactorOptions } from '@keyway/sdk';
import { Children, isValidElement, useId, useRef, useState, useSyncExternalStore, type FormEvent, type ReactElement, type ReactNode } from 'react';
import { useConfiguration, normalizeFactors, handlesFor, sdkFactor, type FactorConfig, type HandleKind, type LabelledFactor, type TextKey } from './configuration.js';
import { describeError } from './messages.js';
import { useKeyway } from './provider.js';
import { ErrorMessage, FlowSteps, useStepFocus } from './steps.js';
import { KeywayStyles } from './styles.js';
import { useFlow } from './use-flow.js';

/** Names of the parts of {@link Form} a {@link Slot} can fill. */
export type SlotName = 'header' | 'initial' | 'footer' | 'success' | 'error';

/** Props of {@link Slot}. */
export interface SlotProps {
  /**
   * `header` replaces the logo and title; `initial` is added below the handle entry (terms, links);
   * `footer` is added below every step; `success` replaces the signed-in view (a function gets the user);
   * `error` replaces the error view (a function gets `{ message, error, retry }`).
   */
  name: SlotName;
  children?: ReactNode | ((props: never) => ReactNode);
}

/** Fills a named part of a {@link Form}; place it among the form's children. Renders nothing on its own. */
export function Slot(_props: SlotProps): null {
  return null;
}

type SlotMap = Partial<Record<SlotName, SlotProps['children']>>;

function slotsOf(children: ReactNode): SlotMap {
  const map: SlotMap = {};
  Children.forEach(children, (c) => {
    if (isValidElement(c) && c.type === Slot) {
      const p = (c as ReactElement<SlotProps>).props;
      map[p.name] = p.children;
    }
  });
  return map;
}

/** Props of {@link Form}. */
export interface FormProps {
  /** Called once the person is signed in (after the provider's middleware). */
  onSuccess?: (user: User) => void;
  /** Called with the error that ended a sign-in. */
  onError?: (error: unknown) => void;
  /** Factors offered (default: the {@link ConfigurationProvider}'s). */
  factors?: FactorConfig[];
  /** Handle kinds accepted (default: the {@link ConfigurationProvider}'s, or what the factors need). */
  handles?: HandleKind[];
  /** Chooses the factor from the handle instead of asking the person (see {@link DynamicFlow}). */
  getFactor?: (handle: string) => Factor | Promise<Factor>;
  /** Plain-words messages by error slug (see `ERROR_MESSAGES`). */
  errorMessages?: Record<string, string>;
  /** Extra class name of the root element. */
  className?: string;
  /** Leave out the default stylesheet. */
  unstyled?: boolean;
  /** Focus the handle field when the form first appears (default `true`; later steps always take the focus). */
  autoFocus?: boolean;
  /**
   * The mode the form opens in (default `signIn`). In `signUp` mode the password and passkey choices create an account
   * (`sign_up: true`: the server first proves an e-mail address or phone number with a sign-in link, then asks for
   * the password or passkey); a code or a link is the same in both modes.
   */
  initialMode?: FormMode;
  /** Offer “Create an account” (sign-up mode) beside signing in (default `true`). */
  allowSignUp?: boolean;
  /** {@link Slot} elements. */
  children?: ReactNode;
}

/** Whether a {@link Form} signs in or creates an account. */
export type FormMode = 'signIn' | 'signUp';

const NEEDS_HANDLE = (f: Factor) => !['oidc', 'saml', 'webauthn'].includes(f.method);

/**
 * The factor as sent in a mode: signing up with a password or a passkey says so (`sign_up: true`); other factors are
 * the same in both modes (a code or a link proves the handle itself).
 */
export function factorFor(f: Factor, mode: FormMode): Factor {
  if (mode !== 'signUp' || (f.method !== 'password' && f.method !== 'webauthn')) return f;
  return { ...f, options: { ...(f.options as Record<string, unknown> | undefined), sign_up: true } };
}
const subscribeNothing = () => () => {};

/** Whether the browser can use passkeys; `false` during server rendering. */
export const usePasskeysAvailable = () => useSyncExternalStore(subscribeNothing, webauthnAvailable, () => false);

/** Label of the handle field: the kind's own label, or e.g. “Email address or phone number” for several. */
function handleLabel(kinds: HandleKind[], text: (k: TextKey) => string): string {
  if (kinds.length >= 3) return text('initial.handle.any');
  return kinds.map((k, i) => (i ? text(`initial.handle.${k}`).replace(/^\w/, (c) => c.toLowerCase()) : text(`initial.handle.${k}`))).join(' or ');
}

/** Checks a handle against the kinds accepted and the factor. @returns an error in plain words, or `undefined`. */
export function checkHandle(handle: string, kinds: HandleKind[], factor: Factor | undefined, messages?: Record<string, string>): string | undefined {
  const isEmail = handle.includes('@');
  const isPhone = /^\+?[\d\s().-]+$/.test(handle);
  const kind: HandleKind = isEmail ? 'email' : isPhone ? 'phone' : 'username';
  const [only] = kinds;
  const ask = `Enter ${listOf(kinds.map((k) => KIND_WORDS[k]))}.`;
  if (!handle) return ask;
  if (kinds.length === 1 && only !== 'username' && !kinds.includes(kind))
    return describeError(only === 'email' ? new errors.InvalidEmailAddressFormatError('') : new errors.InvalidPhoneNumberFormatError(''), messages);
  if (!kinds.includes(kind)) return ask;
  try {
    if (factor) validateHandle(handle, factor.method);
    else if (kind === 'email') validateHandle(handle, 'otp_via_email');
    else if (kind === 'phone') validateHandle(handle, 'otp_via_sms');
  } catch (e) {
    return describeError(e, messages);
  }
  return undefined;
}

const KIND_WORDS: Record<HandleKind, string> = { email: 'your email address', phone: 'your phone number', username: 'your username' };
const listOf = (words: string[]) => (words.length > 1 ? `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}` : (words[0] ?? ''));

/** Phone numbers are sent without spaces, dashes or brackets; other handles trimmed. */
export const normalizeHandle = (h: string) => (/^\+?[\d\s().-]+$/.test(h.trim()) ? h.replace(/[\s().-]/g, '') : h.trim());

/**
 * The sign-in and sign-up form: handle entry (email, phone or username), factor choice, then whatever
 * the server asks for: a code sent by email or SMS, a password (set with the server's rules shown
 * live, verify, or reset through “Forgot your password?”), an authenticator app (registration
 * shows the QR code, key and recovery codes), plus passkey and SSO buttons. “Create an account” /
 * “Sign in instead” switch between signing in and signing up; a sign-up with a password or a passkey
 * says that a link was sent to the address and continues once its owner confirms it. Errors appear in
 * plain words with `role="alert"`; progress is announced with `role="status"`.
 */
export function Form(props: FormProps) {
  const config = useConfiguration();
  const { sdk } = useKeyway();
  const { text } = config;
  const factors = props.factors ? normalizeFactors(props.factors) : config.factors;
  const kinds = props.handles ?? (props.factors ? handlesFor(factors) : config.handles);
  const handleFactors = factors.filter(NEEDS_HANDLE);
  const passkey = factors.find((f) => f.method === 'webauthn');
  const sso = factors.filter((f) => f.method === 'oidc' || f.method === 'saml');
  const passkeys = usePasskeysAvailable();
  const [handle, setHandle] = useState('');
  const [choice, setChoice] = useState(0);
  const [handleError, setHandleError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const allowSignUp = props.allowSignUp !== false;
  const [mode, setMode] = useState<FormMode>(allowSignUp ? (props.initialMode ?? 'signIn') : 'signIn');
  const signUp = mode === 'signUp';
  const flow = useFlow({
    onSuccess: props.onSuccess,
    onError: props.onError,
    errorMessages: props.errorMessages,
    incorrect: { code: text('otp.incorrect'), password: text('password.incorrect'), refused: text('password.refused') },
  });
  const slots = slotsOf(props.children);
  const id = useId();
  const ref = useStepFocus<HTMLFormElement>(flow.state.step === 'idle' && mode, props.autoFocus === false);
  const usesHandle = handleFactors.length > 0 || !!props.getFactor;
  /** A passkey sign-up names its account: the handle field shows even when no other factor needs it. */
  const showHandle = usesHandle || (signUp && !!passkey && passkeys);
  /** Starts the last code-sending flow again (“Send a new code”). */
  const restart = useRef<() => void>(undefined);
  /** Whether the code on screen was sent again, for the confirmation under the code step's title. */
  const [resent, setResent] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!usesHandle) return passkey ? passkeyClicked() : undefined;
    setResent(false);
    const h = normalizeHandle(handle);
    let factor: LabelledFactor | undefined = props.getFactor ? undefined : handleFactors[choice];
    const problem = checkHandle(h, kinds, factor, props.errorMessages);
    if (problem) return setHandleError(problem);
    setHandleError(undefined);
    if (props.getFactor) {
      setBusy(true);
      try {
        factor = await props.getFactor(h);
      } catch (err) {
        return setHandleError(describeError(err, props.errorMessages));
      } finally {
        setBusy(false);
      }
    }
    start(factorFor(sdkFactor(factor!), mode), h);
  };

  /** Runs a sign-in (or, with `sign_up`, a sign-up) with factor `f` for handle `h`. */
  const start = (f: Factor, h: string) => {
    if (f.method === 'oidc' || f.method === 'saml') return flow.run(() => sdk.signInWithSSO(f), { factor: f });
    if (f.method === 'webauthn') return flow.run(() => sdk.signInWithPasskey({ ...(f.options as WebAuthnFactorOptions), handle: h || undefined }), { factor: f, handle: h });
    restart.current = () => flow.run(() => sdk.authenticate(h, f), { factor: f, handle: h });
    restart.current();
  };

  const passkeyClicked = () => {
    const h = normalizeHandle(handle);
    setResent(false);
    if (signUp) {
      // A passkey account is reached by its handle: ask for it first.
      const problem = checkHandle(h, kinds, undefined, props.errorMessages);
      if (problem) {
        setHandleError(problem);
        return document.getElementById(id)?.focus();
      }
    }
    setHandleError(undefined);
    start(factorFor(sdkFactor(passkey!), mode), h);
  };

  /** Switches between signing in and creating an account, keeping the handle typed so far. */
  const switchMode = (to: FormMode) => {
    setHandleError(undefined);
    setMode(to);
  };

  /** “Create an account” after a password was refused: the same handle signs up with a password. */
  const signUpInstead = () => {
    setMode('signUp');
    setResent(false);
    start(factorFor(sdkFactor(handleFactors.find((f) => f.method === 'password') ?? { method: 'password' }), 'signUp'), normalizeHandle(handle));
  };

  const forgot = () => {
    const h = normalizeHandle(handle);
    const method = h.startsWith('+') ? 'otp_via_sms' : 'otp_via_email';
    setResent(false);
    restart.current = () => flow.run(() => sdk.recover(h, method), { factor: { method }, handle: h });
    restart.current();
  };

  const success = slots.success;
  const errorSlot = slots.error;
  const header =
    slots.header !== undefined ? (
      (slots.header as ReactNode)
    ) : (
      <header className="kw-header">
        {config.logo && (typeof config.logo === 'string' ? <img className="kw-logo" src={config.logo} alt="" /> : config.logo)}
      </header>
    );

  return (
    <div className={['kw-root', 'kw-form', props.className].filter(Boolean).join(' ')} style={config.style}>
      {!props.unstyled && <KeywayStyles />}
      {header}
      {flow.state.step === 'idle' ? (
        <form ref={ref} className="kw-initial" onSubmit={submit} noValidate aria-labelledby={id + 't'}>
          <h2 id={id + 't'} className="kw-title">
            {text(signUp ? 'signUp.title' : 'initial.title')}
          </h2>
          <p className="kw-subtitle">{text(signUp ? 'signUp.subtitle' : 'initial.subtitle')}</p>
          {showHandle && (
            <>
              <label className="kw-label" htmlFor={id}>
                {handleLabel(kinds, text)}
              </label>
              <input
                id={id}
                className="kw-input"
                name="handle"
                type={kinds.length === 1 && kinds[0] === 'email' ? 'email' : kinds.length === 1 && kinds[0] === 'phone' ? 'tel' : 'text'}
                autoComplete={kinds.length === 1 && kinds[0] === 'phone' ? 'tel' : 'username'}
                autoCapitalize="off"
                spellCheck={false}
                value={handle}
                onChange={(e) => setHandle(e.target.value)}
                required
                aria-invalid={handleError ? true : undefined}
                aria-describedby={[handleError ? id + 'e' : '', kinds.includes('phone') ? id + 'h' : ''].filter(Boolean).join(' ') || undefined}
              />
              {kinds.includes('phone') && (
                <p id={id + 'h'} className="kw-hint">
                  {text('initial.handle.phone.hint')}
                </p>
              )}
              {!props.getFactor && handleFactors.length > 1 && (
                <fieldset className="kw-fieldset">
                  <legend>{text(signUp ? 'signUp.factor' : 'initial.factor')}</legend>
                  {handleFactors.map((f, i) => (
                    <label key={f.method + i} className="kw-choice">
                      <input type="radio" name={id + 'factor'} value={f.method} checked={choice === i} onChange={() => setChoice(i)} />
                      {text(`factor.${f.method}` as 'factor.password')}
                    </label>
                  ))}
                </fieldset>
              )}
              <ErrorMessage id={id + 'e'}>{handleError}</ErrorMessage>
              {usesHandle && (
                <button className="kw-button kw-button-primary" type="submit" disabled={busy}>
                  {text('initial.submit')}
                </button>
              )}
            </>
          )}
          {((passkey && passkeys) || sso.length > 0) && (
            <div className="kw-alternatives">
              {usesHandle && (
                <p className="kw-divider" role="separator">
                  {text('initial.or')}
                </p>
              )}
              {passkey && passkeys && (
                <button className="kw-button" type="button" onClick={passkeyClicked}>
                  {text(signUp ? 'signUp.webauthn' : 'factor.webauthn')}
                </button>
              )}
              {sso.map((f, i) => (
                <button key={f.method + i} className="kw-button" type="button" onClick={() => flow.run(() => sdk.signInWithSSO(sdkFactor(f)), { factor: f })}>
                  {ssoLabel(f, text)}
                </button>
              ))}
            </div>
          )}
          {allowSignUp && (
            <p className="kw-switch">
              {text(signUp ? 'signUp.toSignIn.prompt' : 'initial.toSignUp.prompt')}{' '}
              <button className="kw-button kw-button-link kw-inline" type="button" onClick={() => switchMode(signUp ? 'signIn' : 'signUp')}>
                {text(signUp ? 'signUp.toSignIn' : 'initial.toSignUp')}
              </button>
            </p>
          )}
          {slots.initial as ReactNode}
        </form>
      ) : (
        <FlowSteps
          state={flow.state}
          onCancel={() => {
            setResent(false);
            flow.reset();
          }}
          onForgot={handleType(normalizeHandle(handle)) === 'username' ? undefined : forgot}
          onSignUp={allowSignUp && !signUp && normalizeHandle(handle) ? signUpInstead : undefined}
          onResend={() => {
            setResent(true);
            restart.current?.();
          }}
          resent={resent}
          success={flow.state.step === 'success' && success !== undefined ? (typeof success === 'function' ? (success as (u: User) => ReactNode)(flow.state.user) : success) : undefined}
          error={typeof errorSlot === 'function' ? (errorSlot as (p: { message: string; error: unknown; retry: () => void }) => ReactNode) : errorSlot !== undefined ? () => errorSlot as ReactNode : undefined}
        />
      )}
      {slots.footer as ReactNode}
    </div>
  );
}

function ssoLabel(f: LabelledFactor, text: ReturnType<typeof useConfiguration>['text']) {
  const o = (f.options ?? {}) as { provider?: string };
  if (f.label) return text('factor.oidc', { provider: f.label });
  if (f.method === 'saml') return text('factor.saml');
  const p = o.provider ?? 'single sign-on';
  return text('factor.oidc', { provider: p.charAt(0).toUpperCase() + p.slice(1) });
}

/** Props of {@link DynamicFlow}. */
export interface DynamicFlowProps extends Omit<FormProps, 'getFactor' | 'factors'> {
  /** Picks the factor from the handle the person typed (e.g. SSO for a company domain, a code otherwise). */
  getFactor: (handle: string) => Factor | Promise<Factor>;
}

/** A {@link Form} that asks only for the handle and lets `getFactor` choose how that person signs in. */
export function DynamicFlow({ getFactor, ...props }: DynamicFlowProps) {
  return <Form {...props} getFactor={getFactor} />;
}
