import React from 'react';
import ApiMethod from './ApiMethod';
import styles from './styles.module.css';

/** The method and path of an operation, at the top of its reference page. */
export default function ApiEndpoint({ method, path }: { method: string; path: string }): React.JSX.Element {
  return (
    <div className={styles.endpoint}>
      <ApiMethod method={method} />
      <code>{path}</code>
    </div>
  );
}
