import React, { useState } from 'react';
import clsx from 'clsx';
import Link from '@docusaurus/Link';
import Heading from '@theme/Heading';
import { PageMetadata } from '@docusaurus/theme-common';
import { useHistory } from '@docusaurus/router';
import type { Props } from '@theme/NotFound/Content';
import styles from './styles.module.css';

const SECTIONS = [
  { to: '/docs/intro', label: 'Introduction', text: 'What Keyway is and where to start.' },
  { to: '/docs/access', label: 'Identity Management', text: 'Sign-in, persons, organizations, the SDKs.' },
  { to: '/docs/identity-protection/onboarding', label: 'Identity Protection', text: 'Inventory and detections for your identity providers.' },
  { to: '/docs/gate/getting-started', label: 'Gate', text: 'The identity-aware gateway and its plugins.' },
  { to: '/docs/api', label: 'API Reference', text: 'Every operation of the Keyway REST API.' },
  { to: '/docs/access/sdk/modules', label: 'SDK reference', text: 'The classes and functions of @keyway/sdk.' },
] as const;

/**
 * The not-found content, on the site's 404 page and on unknown addresses under /docs (where the docs plugin renders
 * only this component, so the tab title is set here too): a search box that opens the full results page, and the
 * sections of the docs. The search form works without JavaScript (a plain GET to /search).
 */
export default function NotFoundContent({ className }: Props): React.ReactElement {
  const history = useHistory();
  const [query, setQuery] = useState('');
  return (
    <>
      <PageMetadata title="Page Not Found" />
      <main className={clsx('container margin-vert--xl', className)}>
        <div className="row">
          <div className="col col--8 col--offset-2">
            <Heading as="h1" className="hero__title">
              Page Not Found
            </Heading>
            <p>There is no page at this address. It may have moved, or the link that brought you here may be mistyped.</p>
            <form
              role="search"
              action="/search"
              method="get"
              className={styles.search}
              onSubmit={(e) => {
                e.preventDefault();
                history.push(`/search?q=${encodeURIComponent(query.trim())}`);
              }}
            >
              <input
                type="search"
                name="q"
                aria-label="Search the docs"
                placeholder="Search the docs"
                value={query}
                maxLength={500}
                onChange={(e) => setQuery(e.target.value)}
              />
              <button type="submit" className="button button--primary">
                Search
              </button>
            </form>
            <Heading as="h2" className={styles.sectionsTitle}>
              Or start from a section
            </Heading>
            <ul className={styles.sections}>
              {SECTIONS.map((s) => (
                <li key={s.to}>
                  <Link to={s.to}>{s.label}</Link>
                  <span>{s.text}</span>
                </li>
              ))}
            </ul>
          </div>
        </div>
      </main>
    </>
  );
}
