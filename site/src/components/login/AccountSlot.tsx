import React, { useEffect, useState, type ComponentType } from 'react';
import { readToken, TOKEN_KEY } from './storage';

interface Props {
  mobile?: boolean;
}

let menu: Promise<ComponentType<Props>> | undefined;

/**
 * The navbar's `custom-account` item on every page. A visitor who is not signed in (most readers of the public docs)
 * never loads the account menu's code: it is imported once a token is stored, at load or later from another tab.
 */
export default function AccountSlot(props: Props): React.ReactElement | null {
  const [Menu, setMenu] = useState<ComponentType<Props>>();
  useEffect(() => {
    let live = true;
    const load = () => {
      if (!readToken()) return;
      menu ??= import('./AccountNavbarItem').then((m) => m.default);
      menu.then(
        (component) => live && setMenu(() => component),
        () => {
          menu = undefined;
        },
      );
    };
    load();
    const onStorage = (e: StorageEvent) => e.key === TOKEN_KEY && load();
    window.addEventListener('storage', onStorage);
    return () => {
      live = false;
      window.removeEventListener('storage', onStorage);
    };
  }, []);
  return Menu ? <Menu {...props} /> : null;
}
