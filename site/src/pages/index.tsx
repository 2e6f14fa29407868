import React from 'react';
import Link from '@docusaurus/Link';
import Layout from '@theme/Layout';
import Heading from '@theme/Heading';
import styles from './index.module.css';
import { command, output } from '../data/landing-sample';
import { useFollowedText } from '../components/runtimeConfig';

interface Product {
  name: string;
  to: string;
  tagline: string;
  points: string[];
  cta: string;
  icon: React.ReactNode;
}

const products: Product[] = [
  {
    name: 'Identity Management',
    to: '/docs/access',
    tagline: 'Sign people in to your apps and keep what you know about them.',
    points: ['Passwordless codes, passkeys, passwords, TOTP and SSO', 'Browser SDK and React components', 'Attributes, consents, groups and RBAC'],
    cta: 'Explore Identity Management',
    icon: (
      <path d="M12 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8Zm-7 8a7 7 0 0 1 14 0" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />
    ),
  },
  {
    name: 'Gate',
    to: '/docs/gate/getting-started',
    tagline: 'An identity-aware gateway in front of every service.',
    points: ['Reverse proxy, Envoy ext_authz or Lambda authorizer', 'Validate, translate and re-mint tokens', 'Rate limits, OPA policies and PII detection'],
    cta: 'Get started with Gate',
    icon: <path d="M4 20V9l8-5 8 5v11M9 20v-6h6v6" fill="none" stroke="currentColor" strokeWidth="2" strokeLinejoin="round" />,
  },
  {
    name: 'Identity Protection',
    to: '/docs/identity-protection/onboarding',
    tagline: 'See every identity across your providers and catch attacks early.',
    points: ['Okta, Entra, Google Workspace, AWS and more', 'Detections with signed webhooks', 'Query the identity graph'],
    cta: 'Onboard a provider',
    icon: <path d="M12 3 5 6v5c0 4.5 3 8.3 7 10 4-1.7 7-5.5 7-10V6l-7-3Zm-3 9 2 2 4-4" fill="none" stroke="currentColor" strokeWidth="2" strokeLinejoin="round" />,
  },
];

const entryPoints = [
  { title: 'React quickstart', to: '/docs/access/react-sdk/tutorials/quickstart', text: 'A passwordless sign-in in a React app against a local server.' },
  { title: 'Single sign-on in five minutes', to: '/docs/access/guides/sso/sso_5min', text: 'OIDC sign-in with popup or redirect.' },
  { title: 'Machine-to-machine', to: '/docs/access/guides/m2m', text: 'Client credentials for services that call your APIs.' },
  { title: 'Webhooks', to: '/docs/access/guides/webhooks/introduction', text: 'Receive events and verify their signatures.' },
  { title: 'Validate JWTs at the gateway', to: '/docs/gate/plugins/validate-jwt', text: 'Check every request’s token before it reaches your service.' },
  { title: 'API reference', to: '/docs/api', text: 'Persons, organizations, tokens, OAuth 2.0 and more.' },
];

const curl = `${command}\n\n${output}`;

export default function Home(): React.ReactElement {
  // The example runs against the API this docs server is configured with.
  const example = useFollowedText(curl);
  return (
    <Layout
      title="Developer documentation"
      description="Keyway developer docs: sign-in SDKs, the identity-aware Gate, Identity Protection and the REST API reference."
    >
      <header className={styles.hero}>
        <div className={`container ${styles.heroInner}`}>
          <div className={styles.heroText}>
            <p className={styles.eyebrow}>Keyway developer portal</p>
            <Heading as="h1" className={styles.title}>
              Identity and access, documented end to end
            </Heading>
            <p className={styles.lead}>
              Guides, references and runnable examples for signing people in, protecting your services at the gateway and watching your
              identity providers for attacks.
            </p>
            <div className={styles.actions}>
              <Link className={`button button--primary button--lg ${styles.primary}`} to="/docs/intro">
                Read the docs
              </Link>
              <Link className="button button--secondary button--lg" to="/docs/api">
                API reference
              </Link>
            </div>
          </div>
          <div className={styles.code} role="group" aria-label="Example: validate a token on the local server">
            <div className={styles.codeBar} aria-hidden="true">
              <span />
              <span />
              <span />
              <em>Validate a token (after npm start)</em>
            </div>
            <pre>
              <code>{example}</code>
            </pre>
          </div>
        </div>
      </header>
      <main>
        <section className={`container ${styles.section}`} aria-labelledby="products">
          <Heading as="h2" id="products" className={styles.sectionTitle}>
            Three products, one platform
          </Heading>
          <div className={styles.products}>
            {products.map((p) => (
              <Link key={p.name} to={p.to} className={styles.card}>
                <svg className={styles.icon} viewBox="0 0 24 24" width="28" height="28" aria-hidden="true">
                  {p.icon}
                </svg>
                <Heading as="h3" className={styles.cardTitle}>
                  {p.name}
                </Heading>
                <p>{p.tagline}</p>
                <ul>
                  {p.points.map((point) => (
                    <li key={point}>{point}</li>
                  ))}
                </ul>
                <span className={styles.cardCta}>{p.cta} →</span>
              </Link>
            ))}
          </div>
        </section>
        <section className={`container ${styles.section}`} aria-labelledby="start">
          <Heading as="h2" id="start" className={styles.sectionTitle}>
            Popular starting points
          </Heading>
          <div className={styles.entries}>
            {entryPoints.map((e) => (
              <Link key={e.to} to={e.to} className={styles.entry}>
                <strong>{e.title}</strong>
                <span>{e.text}</span>
              </Link>
            ))}
          </div>
        </section>
        <section className={`container ${styles.section} ${styles.local}`} aria-labelledby="local">
          <div>
            <Heading as="h2" id="local" className={styles.sectionTitle}>
              Run it all on your laptop
            </Heading>
            <p>
              This portal comes with a real Keyway identity server (the Keyway API on port 8787, with a development organization), a
              dev mailbox and the docs server. Sign in on the docs with any email address, and run the Access and API examples
              against the local API; Gate and Identity Protection are hosted parts of Keyway, documented here but not run locally.
            </p>
          </div>
          <pre className={styles.terminal}>
            <code>{'npm start   # build and run the portal\nnpm test    # every unit and browser test'}</code>
          </pre>
        </section>
      </main>
    </Layout>
  );
}
