import React from 'react';
import { SkipToContentLink } from '@docusaurus/theme-common';
import styles from './styles.module.css';

/**
 * Focuses the main content and keeps it focused. Docusaurus's link gives `main` a temporary tabindex and removes it at
 * once, after which Chromium drops the focus back to <body>; the tabindex stays here until the focus leaves.
 */
function focusMain(): void {
  const main = document.querySelector<HTMLElement>('main:first-of-type') ?? document.getElementById('__docusaurus_skipToContent_fallback');
  if (!main) return;
  if (!main.hasAttribute('tabindex')) {
    main.setAttribute('tabindex', '-1');
    main.addEventListener('blur', () => main.removeAttribute('tabindex'), { once: true });
  }
  main.focus({ preventScroll: false });
}

/** The skip-to-content link (theme's, with its reset of focus on navigation), whose activation focuses `main`. */
export default function SkipToContent(): React.ReactElement {
  return (
    // The link's own handler runs first; this one, on the same click, leaves the focus on main.
    // eslint-disable-next-line jsx-a11y/click-events-have-key-events, jsx-a11y/no-static-element-interactions
    <div onClick={focusMain}>
      <SkipToContentLink className={styles.skipToContent} />
    </div>
  );
}
