import React, { lazy, Suspense, useState } from 'react';
import styles from './styles.module.css';
import type { TryItOperation } from './types';

// The panel's code is its own chunk, fetched only when the reader opens it: API pages stay light on first load.
const TryItPanel = lazy(() => import('./TryItPanel'));

export default function ApiTryIt({ operation }: { operation: TryItOperation }): React.JSX.Element {
  const [open, setOpen] = useState(false);
  return (
    <section className={styles.tryIt} aria-label="Try it">
      {open ? (
        <Suspense fallback={<p>Loading the try-it panel…</p>}>
          <TryItPanel operation={operation} />
        </Suspense>
      ) : (
        <>
          <p className={styles.note}>
            Send <code>{`${operation.method} ${operation.path}`}</code> from this page to a Keyway API server: by default the one this docs
            server is configured with (the local identity server under <code>npm start</code>). The credentials you enter stay in this
            browser tab.
          </p>
          <button type="button" className="button button--primary" onClick={() => setOpen(true)}>
            Try it
          </button>
        </>
      )}
    </section>
  );
}
