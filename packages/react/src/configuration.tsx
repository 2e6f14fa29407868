import type { Factor } from '@keyway/sdk';
import { createContext, useContext, useMemo, type CSSProperties, type ReactNode } from 'react';

/** Every text the components show; override any of them with {@link ConfigurationProvider}'s `text`. */
export const DEFAULT_TEXT = {
  'initial.title': 'Sign in',
  'initial.subtitle': 'Welcome back.',
  'initial.handle.email': 'Email address',
  'initial.handle.phone': 'Phone number',
  'initial.handle.username': 'Username',
  'initial.handle.any': 'Email, phone or username',
  'initial.handle.phone.hint': 'International format, e.g. +15551234567',
  'initial.factor': 'How do you want to sign in?',
  'initial.submit': 'Continue',
  'initial.or': 'or',
  'initial.toSignUp.prompt': 'New here?',
  'initial.toSignUp': 'Create an account',
  'signUp.title': 'Create an account',
  'signUp.subtitle': 'Choose how you will sign in.',
  'signUp.factor': 'How do you want to sign in from now on?',
  'signUp.webauthn': 'Sign up with a passkey',
  'signUp.toSignIn.prompt': 'Already have an account?',
  'signUp.toSignIn': 'Sign in instead',
  'factor.otp_via_email': 'Code by email',
  'factor.otp_via_sms': 'Code by text message',
  'factor.email_link': 'Link by email',
  'factor.sms_link': 'Link by text message',
  'factor.password': 'Password',
  'factor.totp': 'Authenticator app',
  'factor.webauthn': 'Sign in with a passkey',
  'factor.oidc': 'Continue with {provider}',
  'factor.saml': 'Continue with single sign-on',
  'authenticating.title': 'Signing you in…',
  'authenticating.cancel': 'Back',
  'authenticating.codeSent': 'We sent a code to {handle}.',
  'authenticating.linkSent': 'We sent a link to {handle}. Open it and confirm that it is you; this page then continues.',
  'authenticating.proofLink': 'We sent a link to {handle} to check that the address is yours. Open it and confirm that it is you; this page then continues.',
  'authenticating.proofLink.password': 'We sent a link to {handle} to check that the address is yours. Open it and confirm that it is you; this page then asks for your new password.',
  'authenticating.proofLink.webauthn': 'We sent a link to {handle} to check that the address is yours. Open it and confirm that it is you; this page then creates your passkey.',
  'authenticating.delayed': 'Sending the e-mail is taking longer than usual; it will arrive as soon as the mail server answers.',
  'authenticating.sso': 'Finish signing in with your identity provider in the window that opened.',
  'authenticating.passkey': 'Follow your browser’s passkey prompt.',
  'otp.label': 'Code',
  'otp.title': 'Enter your code',
  'otp.submit': 'Verify',
  'otp.resend': 'Send a new code',
  'otp.resent': 'We sent a new code to {handle}. Use the newest one.',
  'otp.incorrect': 'That code is not right. Check it and try again.',
  'totp.title': 'Enter the code of your authenticator app',
  'totp.recoveryHint': 'Lost your device? Enter one of your recovery codes instead.',
  'totp.register.title': 'Set up your authenticator app',
  'totp.register.scan': 'Scan this QR code with your authenticator app, or enter the key by hand.',
  'totp.register.qrAlt': 'QR code for your authenticator app',
  'totp.register.key': 'Key',
  'totp.register.recovery': 'Recovery codes: keep them somewhere safe. Each one signs you in once if you lose your device.',
  'totp.register.copy': 'Copy recovery codes',
  'totp.register.copied': 'Recovery codes copied',
  'password.label': 'Password',
  'password.verify.title': 'Enter your password',
  'password.set.title': 'Choose a password',
  'password.reset.title': 'Choose a new password',
  'password.new.label': 'New password',
  'password.confirm.label': 'Repeat the password',
  'password.mismatch': 'The two passwords are different.',
  'password.rules': 'Your password needs:',
  'password.rule.met': 'met',
  'password.rule.unmet': 'not met',
  'password.submit': 'Continue',
  'password.incorrect': 'Incorrect password. Try again, reset your password, or create an account if you have none.',
  'password.proved': '{handle} is confirmed.',
  'password.signUp': 'Create an account',
  'password.invalid': 'That password does not meet the rules: {rules}.',
  'password.refused': 'That password was refused. Choose another one.',
  'password.forgot': 'Forgot your password?',
  'password.show': 'Show password',
  'success.title': 'You are signed in',
  'error.title': 'Sign-in failed',
  'error.retry': 'Try again',
  'mfa.title': 'One more step',
  'mfa.subtitle': 'Confirm it is you with a second factor.',
  'stepUp.title': 'Confirm it is you',
  'stepUp.subtitle': 'This action needs a fresh sign-in.',
  'stepUp.start': 'Continue',
  'org.label': 'Organization',
  'org.switching': 'Switching organization…',
  'org.loading': 'Loading organizations…',
  'gdpr.title': 'Your privacy',
  'gdpr.body': 'We use cookies and similar data. Choose what you agree to; you can change it later.',
  'gdpr.acceptAll': 'Accept all',
  'gdpr.rejectAll': 'Only necessary',
  'gdpr.customize': 'Customize',
  'gdpr.save': 'Save choices',
  'gdpr.saved': 'Your choices were saved.',
  'gdpr.level.necessary': 'Necessary (always on)',
  'gdpr.level.analytics': 'Analytics',
  'gdpr.level.marketing': 'Marketing',
  'gdpr.level.retargeting': 'Retargeting',
  'gdpr.level.tracking': 'Tracking',
  'gdpr.level.none': 'None',
} as const;

/** Keys of the texts. */
export type TextKey = keyof typeof DEFAULT_TEXT;
/** Text overrides by key. */
export type TextOverrides = Partial<Record<TextKey, string>>;

/** A factor as configured: the SDK factor plus the text of its button (SSO providers, e.g. “Continue with Corp”). */
export type LabelledFactor = Factor & { label?: string };

/** A factor the form offers: a method name, or a factor with options (SSO providers, passkey scope) and an optional `label`. */
export type FactorConfig = LabelledFactor | Factor['method'];

/** The factor sent to the SDK (without the button label). */
export const sdkFactor = ({ label: _label, ...factor }: LabelledFactor): Factor => factor;

/** Kinds of handle the form accepts. */
export type HandleKind = 'email' | 'phone' | 'username';

/** Colours, radius and font of the components, written as CSS variables (`--kw-primary`, …). */
export interface Theme {
  /** Buttons and focus ring (`--kw-primary`). */
  primary?: string;
  /** Text on primary buttons (`--kw-on-primary`). */
  onPrimary?: string;
  /** Surface of the form (`--kw-surface`). */
  surface?: string;
  /** Text (`--kw-text`). */
  text?: string;
  /** Secondary text (`--kw-muted`). */
  muted?: string;
  /** Borders (`--kw-border`). */
  border?: string;
  /** Errors (`--kw-error`). */
  error?: string;
  /** Corner radius (`--kw-radius`). */
  radius?: string;
  /** Font family (`--kw-font`). */
  font?: string;
}

/** Props of {@link ConfigurationProvider}. */
export interface ConfigurationProviderProps {
  /** Factors offered by the forms, in order (default `['otp_via_email']`). */
  factors?: FactorConfig[];
  /** Handle kinds the form accepts (default: what the factors need, e.g. email for `otp_via_email`). */
  handles?: HandleKind[];
  /** Text overrides; `{handle}`, `{provider}` and `{rules}` are filled in. */
  text?: TextOverrides;
  /** Logo above the form: an image URL or any element. */
  logo?: string | ReactNode;
  /** Colours and shapes (CSS variables on the form). */
  theme?: Theme;
  /** Show the "Forgot your password?" link in the password step (default `true`). */
  showPasswordRecovery?: boolean;
  children?: ReactNode;
}

/** Resolved configuration. */
export interface Configuration {
  factors: LabelledFactor[];
  handles: HandleKind[];
  text: (key: TextKey, values?: Record<string, string>) => string;
  logo?: string | ReactNode;
  style: CSSProperties;
  showPasswordRecovery: boolean;
}

const THEME_VARS: Record<keyof Theme, string> = {
  primary: '--kw-primary',
  onPrimary: '--kw-on-primary',
  surface: '--kw-surface',
  text: '--kw-text',
  muted: '--kw-muted',
  border: '--kw-border',
  error: '--kw-error',
  radius: '--kw-radius',
  font: '--kw-font',
};

const METHODS = new Set(['webauthn', 'email_link', 'sms_link', 'otp_via_sms', 'otp_via_email', 'totp', 'oidc', 'saml', 'password']);

/** Turns method names into factors and checks them. @throws TypeError naming the unknown method. */
export function normalizeFactors(list: FactorConfig[]): LabelledFactor[] {
  return list.map((f) => {
    const factor = typeof f === 'string' ? { method: f } : f;
    if (!factor || !METHODS.has(factor.method))
      throw new TypeError(`Keyway: unsupported factor ${JSON.stringify(typeof f === 'string' ? f : factor?.method)}; use one of ${[...METHODS].join(', ')}`);
    return factor;
  });
}

/** Handle kinds the factors need: email for email factors, phone for SMS factors, email for password/TOTP. */
export function handlesFor(factors: Factor[]): HandleKind[] {
  const kinds = new Set<HandleKind>();
  for (const { method } of factors) {
    if (/email/.test(method)) kinds.add('email');
    else if (/sms/.test(method)) kinds.add('phone');
    else if (method === 'password' || method === 'totp') kinds.add('email');
  }
  return kinds.size ? [...kinds] : ['email'];
}

export function configure(p: Omit<ConfigurationProviderProps, 'children'>): Configuration {
  const factors = normalizeFactors(p.factors ?? ['otp_via_email']);
  const text = { ...DEFAULT_TEXT, ...p.text } as Record<TextKey, string>;
  const style: Record<string, string> = {};
  for (const [k, v] of Object.entries(p.theme ?? {})) if (v !== undefined && k in THEME_VARS) style[THEME_VARS[k as keyof Theme]] = v;
  return {
    factors,
    handles: p.handles ?? handlesFor(factors),
    text: (key, values = {}) => (text[key] ?? key).replace(/\{(\w+)\}/g, (m, n: string) => values[n] ?? m),
    logo: p.logo,
    style: style as CSSProperties,
    showPasswordRecovery: p.showPasswordRecovery ?? true,
  };
}

const DEFAULT = configure({});
const ConfigurationContext = createContext<Configuration>(DEFAULT);

/** Configures the forms below it: factors, accepted handles, texts, logo and theme. Optional. */
export function ConfigurationProvider({ children, factors, handles, text, logo, theme, showPasswordRecovery }: ConfigurationProviderProps) {
  const value = useMemo(
    () => configure({ factors, handles, text, logo, theme, showPasswordRecovery }),
    // Arrays and objects written inline change on every render: compare their contents.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [JSON.stringify(factors), JSON.stringify(handles), JSON.stringify(text), logo, JSON.stringify(theme), showPasswordRecovery],
  );
  return <ConfigurationContext.Provider value={value}>{children}</ConfigurationContext.Provider>;
}

/** The configuration of the nearest {@link ConfigurationProvider} (defaults without one). */
export const useConfiguration = (): Configuration => useContext(ConfigurationContext);
