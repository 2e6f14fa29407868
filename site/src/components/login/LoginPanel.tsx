import React, { useEffect, useState } from 'react';
import Link from '@docusaurus/Link';
import type { KeywayClient } from '@keyway/sdk';
import EmailCodeForm from './EmailCodeForm';
import { docsClient, openDocsSession, runtimeConfig } from './session';
import { clearToken, readToken, safeRedirect, storeToken } from './storage';

type State =
  | { kind: 'loading' }
  | { kind: 'unavailable'; reason: string }
  | { kind: 'form'; client: KeywayClient }
  | { kind: 'leaving'; to: string };

/**
 * The body of /login: resumes a stored valid token, else signs in by e-mailed code; then stores the token under
 * `keyway.docs.token`, opens the docs server session and returns to `redirect_to` (same-origin paths only).
 */
export default function LoginPanel(): React.ReactElement {
  const [state, setState] = useState<State>({ kind: 'loading' });

  useEffect(() => {
    const target = safeRedirect(new URLSearchParams(window.location.search).get('redirect_to'), window.location.origin);
    const leave = () => {
      setState({ kind: 'leaving', to: target });
      window.location.replace(target);
    };
    let cancelled = false;
    (async () => {
      const config = await runtimeConfig();
      if (!config.identityUrl || !config.orgId) {
        setState({ kind: 'unavailable', reason: 'Sign-in is not enabled on this server of the portal.' });
        return;
      }
      const client = await docsClient();
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
      if (!cancelled) setState({ kind: 'form', client });
    })().catch((error: unknown) => {
      console.error('Keyway docs: sign-in could not start.', error);
      if (!cancelled) setState({ kind: 'unavailable', reason: 'The sign-in service cannot be reached right now. Try again in a moment.' });
    });
    return () => {
      cancelled = true;
    };
  }, []);

  const onToken = async (token: string) => {
    storeToken(token);
    try {
      await openDocsSession(token);
    } catch (error) {
      clearToken();
      throw error;
    }
    const target = safeRedirect(new URLSearchParams(window.location.search).get('redirect_to'), window.location.origin);
    setState({ kind: 'leaving', to: target });
    window.location.replace(target);
  };

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
      return <EmailCodeForm client={state.client} onToken={onToken} />;
  }
}
