import React, { useEffect, useState } from 'react';
import Layout from '@theme/Layout';
import Head from '@docusaurus/Head';
import Link from '@docusaurus/Link';
import { useHistory, useLocation } from '@docusaurus/router';
import useIsBrowser from '@docusaurus/useIsBrowser';
import Highlight from '@site/src/components/search/Highlight';
import { useSearch } from '@site/src/components/search/useSearch';
import { openAssistant } from '@site/src/components/assistant/open';

const LIMIT = 50;

/**
 * The full results page (/search?q=…): every match, page and section, from the same index as the search box (and,
 * for a signed-in visitor, the gated pages from the docs server).
 */
export default function SearchPage(): React.ReactElement {
  const location = useLocation();
  const history = useHistory();
  // The build renders the page without a query; hydration must render the same, so the query applies after it.
  const isBrowser = useIsBrowser();
  const query = isBrowser ? (new URLSearchParams(location.search).get('q') ?? '') : '';
  const [draft, setDraft] = useState(query);
  const { hits, status: state, error, pending, corrected } = useSearch(query, LIMIT);

  useEffect(() => setDraft(query), [query]);

  const title = query ? `Search results for “${query}”` : 'Search the docs';
  return (
    <Layout title={title} description="Search every page and section of the Keyway docs.">
      <Head>
        <meta name="robots" content="noindex" />
      </Head>
      <main className="container margin-vert--lg">
        <h1>{title}</h1>
        <form
          role="search"
          className="margin-bottom--md"
          style={{ display: 'flex', gap: '0.5rem', maxWidth: '40rem' }}
          onSubmit={(e) => {
            e.preventDefault();
            history.push(`?q=${encodeURIComponent(draft.trim())}`);
          }}
        >
          <input
            type="search"
            aria-label="Search the docs"
            placeholder="Search"
            value={draft}
            maxLength={500}
            onChange={(e) => setDraft(e.target.value)}
            style={{ flex: 1, font: 'inherit', padding: '0.5rem 0.75rem' }}
          />
          <button type="submit" className="button button--primary">
            Search
          </button>
        </form>
        <p role="status">
          {state === 'loading' && 'Loading the search index…'}
          {state === 'error' && error}
          {state === 'ready' && query.trim() && (pending && !hits.length ? 'Searching…' : `${corrected ? `No results for “${query.trim()}”. Showing results for “${corrected}”: ` : ''}${hits.length}${hits.length >= LIMIT ? '+' : ''} result${hits.length === 1 ? '' : 's'}.`)}
        </p>
        {query.trim() && (
          <p>
            <button type="button" className="button button--secondary button--sm" onClick={() => openAssistant(query)}>
              Ask the assistant about “{query}”
            </button>
          </p>
        )}
        <ol aria-label="Search results" style={{ listStyle: 'none', padding: 0 }}>
          {hits.map((hit) => (
            <li key={hit.url} className="margin-bottom--md">
              <Link to={hit.url} style={{ fontWeight: 600 }}>
                {hit.title}
                {hit.heading && ` › ${hit.heading}`}
              </Link>
              <div style={{ fontSize: '0.8rem', color: 'var(--ifm-color-emphasis-700)' }}>{hit.url}</div>
              <div>
                <Highlight text={hit.snippet} terms={hit.terms} />
              </div>
            </li>
          ))}
        </ol>
      </main>
    </Layout>
  );
}
