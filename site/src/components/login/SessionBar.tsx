import React, { useEffect, useState } from 'react';
import { readToken, signedInAs } from './storage';
import styles from './styles.module.css';

/** Shown above gated pages: who is signed in, and a way to sign out (which ends the docs session and revokes the token). */
export default function SessionBar(): React.ReactElement | null {
  const [who, setWho] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    const token = readToken();
    if (token) setWho(signedInAs(token));
  }, []);

  if (!who) return null;
  return (
    <div className={styles.bar} data-testid="session-bar">
      <span>
        Signed in as <strong>{who}</strong>
      </span>
      <button
        type="button"
        className="button button--sm button--secondary"
        disabled={busy}
        onClick={() => {
          setBusy(true);
          void import('./session')
            .then(({ signOut }) => signOut())
            .finally(() => window.location.assign('/docs/identity-protection/onboarding'));
        }}
      >
        {busy ? 'Signing out…' : 'Sign out'}
      </button>
    </div>
  );
}
