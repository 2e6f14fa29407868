import React, { useEffect, useLayoutEffect, useRef, useState } from 'react';
import clsx from 'clsx';
import { isGatedPath, readToken, signedInAs, TOKEN_KEY } from './storage';
import styles from './styles.module.css';

interface Props {
  /** Rendered in the mobile menu (a list item) rather than the desktop navbar. */
  mobile?: boolean;
}

/** Signs out (ends the docs session, revokes the token) and stays on the page, unless it is a gated one. */
function signOutHere(setBusy: (b: boolean) => void): void {
  setBusy(true);
  void import('./session')
    .then(({ signOut }) => signOut())
    .finally(() => {
      const { pathname, search, hash } = window.location;
      window.location.assign(isGatedPath(pathname) ? '/docs/identity-protection/onboarding' : pathname + search + hash);
    });
}

/**
 * The account menu of a signed-in reader, on every page: who is signed in and "Sign out". Nothing for a visitor who is
 * not signed in. The token is in local storage, so the menu appears after hydration (the build renders no one).
 */
export default function AccountNavbarItem({ mobile }: Props): React.ReactElement | null {
  const [who, setWho] = useState<string | null>(null);
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const root = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const update = () => {
      const token = readToken();
      setWho(token ? signedInAs(token) : null);
      // What only signed-out readers need (the navbar's "Sign up") hides while this is set (see plugins/signedInMark.ts).
      document.documentElement.toggleAttribute('data-keyway-signed-in', Boolean(token));
    };
    update();
    const onStorage = (e: StorageEvent) => e.key === TOKEN_KEY && update();
    window.addEventListener('storage', onStorage);
    return () => window.removeEventListener('storage', onStorage);
  }, []);

  // A layout effect: the listeners are in place as soon as the menu is rendered. (An effect runs after the next paint,
  // so an Escape pressed the moment the menu opened was lost, and the next click on the button closed it instead.)
  useLayoutEffect(() => {
    if (!open) return undefined;
    const close = (e: MouseEvent | KeyboardEvent) => {
      if (e instanceof KeyboardEvent ? e.key === 'Escape' : !root.current?.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener('mousedown', close);
    document.addEventListener('keydown', close);
    return () => {
      document.removeEventListener('mousedown', close);
      document.removeEventListener('keydown', close);
    };
  }, [open]);

  if (!who) return null;
  const signOutButton = (
    <button type="button" className={clsx('button button--sm button--secondary', styles.signOut)} disabled={busy} onClick={() => signOutHere(setBusy)}>
      {busy ? 'Signing out…' : 'Sign out'}
    </button>
  );
  if (mobile) {
    return (
      <li className={clsx('menu__list-item', styles.accountMobile)} data-testid="account-menu">
        <span>
          Signed in as <strong>{who}</strong>
        </span>
        {signOutButton}
      </li>
    );
  }
  return (
    <div ref={root} className={clsx('navbar__item', styles.account)} data-testid="account-menu">
      <button
        type="button"
        className={styles.accountButton}
        aria-haspopup="true"
        aria-expanded={open}
        aria-label={`Account: signed in as ${who}`}
        onClick={() => setOpen((o) => !o)}
      >
        <span aria-hidden="true">{who.charAt(0).toUpperCase()}</span>
      </button>
      {open && (
        <div className={styles.accountPanel} role="group" aria-label="Account">
          <p>
            Signed in as <strong>{who}</strong>
          </p>
          {signOutButton}
        </div>
      )}
    </div>
  );
}
