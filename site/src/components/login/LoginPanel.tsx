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

/** Wording of the docs' sign-in (the form's other texts are the @keyway/react defaults). */
const TEXT = {
  'initial.title': 'Sign in with your work e-mail',
  'initial.subtitle': 'We e-mail you a one-time code; no password needed.',
  'initial.handle.email': 'Work e-mail address',
  'initial.submit': 'Send me a code',
  'otp.label': 'Code from the e-mail',
  'otp.submit': 'Sign in',
} as const;

const target = () => safeRedirect(new URLSearchParams(window.location.search).get('redirect_to'), window.location.origin);

/**
 * The body of /login: resumes a stored valid token, else shows the @keyway/react sign-in form (e-mailed code) for the
 * docs organization, analytics off, the token kept in local storage under `keyway.docs.token`. After sign-in the docs
 * server opens its session and the visitor returns to `redirect_to` (same-origin paths only).
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
          <ConfigurationProvider factors={['otp_via_email']} handles={['email']} text={TEXT} theme={{ primary: 'var(--ifm-color-primary)' }}>
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
