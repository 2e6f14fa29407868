import React from 'react';
import Link from '@docusaurus/Link';
import Layout from '@theme/Layout';
import Heading from '@theme/Heading';

// The sign-in form itself (built on @keyway/react) arrives with the gate; this page keeps the route and explains it.
export default function Login(): React.ReactElement {
  return (
    <Layout title="Sign in" description="Sign in to read the Keyway Identity Protection detections and queries guides." noFooter>
      <main className="container margin-vert--xl" style={{ maxWidth: '36rem' }}>
        <Heading as="h1">Sign in</Heading>
        <p>
          The Identity Protection detections and queries guides are for signed-in Keyway customers. Every other page of these docs is
          public.
        </p>
        <p>
          Sign-in is not enabled on this build of the portal yet, so the gated guides cannot be opened here. You can keep reading the{' '}
          <Link to="/docs/intro">public documentation</Link>.
        </p>
      </main>
    </Layout>
  );
}
