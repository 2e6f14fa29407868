import React from 'react';
import Layout from '@theme/Layout';
import Heading from '@theme/Heading';
import BrowserOnly from '@docusaurus/BrowserOnly';
import LoginPanel from '@site/src/components/login/LoginPanel';
import styles from '@site/src/components/login/styles.module.css';

// /login?redirect_to=<path, search and hash>: sign in, then back to that page of this site (never elsewhere).
export default function Login(): React.ReactElement {
  return (
    <Layout title="Sign in" description="Sign in to read the Keyway Identity Protection detections and queries guides." noFooter>
      <main className={styles.panel}>
        <Heading as="h1">Sign in</Heading>
        <p>The Identity Protection detections and queries guides are for signed-in Keyway customers. Every other page of these docs is public.</p>
        <BrowserOnly fallback={<p role="status">Loading sign-in…</p>}>{() => <LoginPanel />}</BrowserOnly>
      </main>
    </Layout>
  );
}
