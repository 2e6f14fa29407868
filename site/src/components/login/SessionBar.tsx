import React, { useEffect, useState } from 'react';
import { readToken } from './storage';
import styles from './styles.module.css';

/** Shown above gated pages: who is signed in, and a way to sign out (which ends the docs session and revokes the token). */
export default function SessionBar(): React.ReactElement | null {
  const [who, setWho] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    const token = readToken();
    if (!token) return;
    try {
      // Display only (the server validated the token): the payload of the JWT, base64url.
      const payload = token.split('.')[1] ?? '';
      const claims = JSON.parse(atob(payload.replace(/-/g, '+').replace(/_/g, '/'))) as {
        authentications?: { handle?: string }[];
        person_id?: string;
      };
      setWho(claims.authentications?.find((a) => a.handle)?.handle ?? claims.person_id ?? 'a Keyway customer');
    } catch {
      setWho('a Keyway customer');
    }
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
