import React from 'react';
import clsx from 'clsx';
import styles from './styles.module.css';

/** The HTTP method as a coloured badge. Importing this module also styles the method badges of the api sidebar. */
export default function ApiMethod({ method }: { method: string }): React.JSX.Element {
  const m = method.toLowerCase();
  return <span className={clsx(styles.method, styles[m])}>{m}</span>;
}
