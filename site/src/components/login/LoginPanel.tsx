import React, { useEffect, useState } from 'react';
import Link from '@docusaurus/Link';
import { ConfigurationProvider, Form, KeywayProvider } from '@keyway/react';
import { openDocsSession, runtimeConfig } from './session';
import { TOKEN_KEY, clearToken, readToken, safeRedirect } from './storage';

type State =
  | { kind: 'loading' }
  | { kind: 'unavailable'; reason: string }
  | { kind: 'form'; identityUrl: string; orgId: string }
  | { kind: 'leaving'; to: string };

/**
 * The ways of signing in the docs organization allows: a code sent by e-mail, a password, and a passkey. A code signs a
 * new reader up as it signs them in (it proves the address). A password or a passkey signs in only the reader who made
 * it; a new reader creates one with the form's "Create an account": the identity server first e-mails a link to the
 * address, and the form goes on once its owner confirms it. The server refuses any factor the organization does not
 * allow, with a message the form shows.
 */
const FACTORS = ['otp_via_email', 'password', 'webauthn'] as const;

/** Wording of the docs' sign-in and sign-up (the form's other texts are the @keyway/react defaults). */
const TEXT = {
  'initial.title': 'Sign in with your work e-mail',
  'initial.subtitle': 'Get a one-time code by e-mail, use your password, or use a passkey.',
  'initial.handle.email': 'Work e-mail address',
  'initial.factor': 'How do you want to sign in?',
  'factor.otp_via_email': 'E-mail me a code',
  'factor.password': 'Password',
  'factor.webauthn': 'Sign in with a passkey',
  'initial.toSignUp.prompt': 'New to the Keyway docs?',
  'signUp.title': 'Create your docs account',
  'signUp.subtitle': 'A code by e-mail creates it at once. For a password or a passkey, we first e-mail you a link to confirm that the address is yours.',
  'signUp.webauthn': 'Sign up with a passkey',
  'initial.submit': 'Continue',
  'otp.label': 'Code from the e-mail',
  'otp.submit': 'Sign in',
} as const;

const target = () => safeRedirect(new URLSearchParams(window.location.search).get('redirect_to'), window.location.origin);

/**
 * The body of /login: resumes a stored valid token, else shows the @keyway/react sign-in form (e-mailed code,
 * password or passkey, and its "Create an account" mode) for the docs organization, analytics off, the token kept in
 * local storage under `keyway.docs.token`. After sign-in the docs server opens its session and the visitor returns to
 * `redirect_to` (same-origin paths only).
 */
export default function LoginPanel(): React.ReactElement {
  const [state, setState] = useState<State>({ kind: 'loading' });
  const [error, setError] = useState<string | null>(null);

  const leave = () => {
    const to = target();
    setState({ kind: 'leaving', to });
    window.location.replace(to);
  };

  useEffect(() => {
    let cancelled = false;
    (async () => {
      const config = await runtimeConfig();
      if (!config.identityUrl || !config.orgId) {
        setState({ kind: 'unavailable', reason: 'Sign-in is not enabled on this server of the portal.' });
        return;
      }
      const stored = readToken();
      if (stored) {
        // A token from an earlier visit: the server session may have ended; it opens again if the token is still valid.
        try {
          await openDocsSession(stored);
          if (!cancelled) leave();
          return;
        } catch {
          clearToken();
        }
      }
      if (!cancelled) setState({ kind: 'form', identityUrl: config.identityUrl, orgId: config.orgId });
    })().catch((e: unknown) => {
      console.error('Keyway docs: sign-in could not start.', e);
      if (!cancelled) setState({ kind: 'unavailable', reason: 'The sign-in service cannot be reached right now. Try again in a moment.' });
    });
    return () => {
      cancelled = true;
    };
  }, []);

  switch (state.kind) {
    case 'loading':
      return <p role="status">Checking your sign-in…</p>;
    case 'leaving':
      return (
        <p role="status">
          Signed in. Taking you to <Link to={state.to}>{state.to}</Link>…
        </p>
      );
    case 'unavailable':
      return (
        <div className="alert alert--warning" role="alert">
          {state.reason} You can keep reading the <Link to="/docs/intro">public documentation</Link>.
        </div>
      );
    case 'form':
      return (
        <KeywayProvider oid={state.orgId} baseURL={state.identityUrl} analytics={false} tokenStorageKey={TOKEN_KEY} handleURL={false}>
          <ConfigurationProvider factors={[...FACTORS]} handles={['email']} text={TEXT} theme={{ primary: 'var(--ifm-color-primary)' }}>
            {error && (
              <div className="alert alert--danger margin-bottom--md" role="alert">
                {error}
              </div>
            )}
            <Form
              onSuccess={(user) => {
                setError(null);
                openDocsSession(user.token).then(leave, (e: unknown) => {
                  clearToken();
                  setError(e instanceof Error ? e.message : String(e));
                });
              }}
            />
          </ConfigurationProvider>
        </KeywayProvider>
      );
  }
}
