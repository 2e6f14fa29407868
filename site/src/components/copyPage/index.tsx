import React, { lazy, Suspense, useState, type ReactNode } from 'react';
import styles from './styles.module.css';

// The menu itself (copy, view, open in an assistant) is its own chunk, fetched on first hover, focus or click: the doc
// page's first load carries only this button.
const load = () => import('./CopyPageMenu');
const CopyPageMenu = lazy(load);

/** "Copy page" beside a doc or API page's title: a menu of the page's Markdown twin (`<path>.md`). */
export default function CopyPage({ pathname }: { pathname: string }): ReactNode {
  const [open, setOpen] = useState(false);
  return (
    <div className={styles.copyPage}>
      <button
        type="button"
        className={styles.trigger}
        aria-haspopup="menu"
        aria-expanded={open}
        onPointerEnter={() => void load()}
        onFocus={() => void load()}
        onClick={() => setOpen((o) => !o)}
      >
        Copy page
      </button>
      {open && (
        <Suspense fallback={null}>
          <CopyPageMenu pathname={pathname} onClose={() => setOpen(false)} />
        </Suspense>
      )}
    </div>
  );
}
