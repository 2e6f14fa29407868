import React, { useCallback, useEffect, useId, useRef, useState } from 'react';
import { useHistory } from '@docusaurus/router';
import useBaseUrl from '@docusaurus/useBaseUrl';
import type MiniSearch from 'minisearch';
import type { SearchResult } from 'minisearch';
import { SEARCH_OPTIONS } from '../../../plugins/search-index/options';
import type { SearchDoc } from '../../../plugins/search-index/extract';
import styles from './styles.module.css';

type Hit = Pick<SearchDoc, 'url' | 'title' | 'heading' | 'text'> & { terms: string[] };

let indexPromise: Promise<MiniSearch<SearchDoc>> | undefined;

/** Loads the search library and the index on first use only, so pages carry no search weight until someone searches. */
function loadIndex(indexUrl: string): Promise<MiniSearch<SearchDoc>> {
  indexPromise ??= Promise.all([import('minisearch'), fetch(indexUrl)]).then(async ([mod, res]) => {
    if (!res.ok) throw new Error(`The search index could not be loaded (HTTP ${res.status}).`);
    return mod.default.loadJSON<SearchDoc>(await res.text(), SEARCH_OPTIONS);
  });
  indexPromise.catch(() => {
    indexPromise = undefined; // let a later attempt retry
  });
  return indexPromise;
}

function snippet(text: string, terms: string[]): React.ReactNode {
  const lower = text.toLowerCase();
  const at = terms.map((t) => lower.indexOf(t.toLowerCase())).filter((i) => i >= 0).sort((a, b) => a - b)[0] ?? 0;
  const start = Math.max(0, at - 40);
  const piece = (start > 0 ? '…' : '') + text.slice(start, start + 160) + (text.length > start + 160 ? '…' : '');
  if (!terms.length) return piece;
  const pattern = new RegExp(`(${terms.map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})`, 'gi');
  return piece.split(pattern).map((part, i) => (i % 2 === 1 ? <mark key={i}>{part}</mark> : part));
}

export default function SearchBar(): React.ReactElement {
  const [open, setOpen] = useState(false);
  const [query, setQuery] = useState('');
  const [hits, setHits] = useState<Hit[]>([]);
  const [active, setActive] = useState(0);
  const [status, setStatus] = useState<'idle' | 'loading' | 'ready' | 'error'>('idle');
  const [error, setError] = useState('');
  const index = useRef<MiniSearch<SearchDoc>>();
  const input = useRef<HTMLInputElement>(null);
  const history = useHistory();
  const indexUrl = useBaseUrl('/search-index.json');
  const listId = useId();
  const isMac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform);

  const openDialog = useCallback(() => {
    setOpen(true);
    if (index.current) return;
    setStatus('loading');
    loadIndex(indexUrl).then(
      (loaded) => {
        index.current = loaded;
        setStatus('ready');
      },
      (e: unknown) => {
        setStatus('error');
        setError(e instanceof Error ? e.message : String(e));
      },
    );
  }, [indexUrl]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.metaKey || e.ctrlKey) && e.key.toLowerCase() === 'k') {
        e.preventDefault();
        openDialog();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [openDialog]);

  useEffect(() => {
    if (open) input.current?.focus();
  }, [open]);

  useEffect(() => {
    if (!index.current || !query.trim()) {
      setHits([]);
      return;
    }
    const results = index.current.search(query).slice(0, 12) as (SearchResult & Hit)[];
    setHits(results.map((r) => ({ url: r.url, title: r.title, heading: r.heading, text: r.text, terms: r.terms })));
    setActive(0);
  }, [query, status]);

  const close = () => {
    setOpen(false);
    setQuery('');
  };
  const go = (hit: Hit | undefined) => {
    if (!hit) return;
    close();
    history.push(hit.url);
  };

  return (
    <>
      <button type="button" className={styles.trigger} onClick={openDialog} aria-label="Search the docs" aria-keyshortcuts="Control+K Meta+K">
        <svg width="16" height="16" viewBox="0 0 20 20" aria-hidden="true">
          <path d="M14.4 12.9a7 7 0 1 0-1.5 1.5l4.4 4.4 1.5-1.5-4.4-4.4ZM8.5 13.5a5 5 0 1 1 0-10 5 5 0 0 1 0 10Z" fill="currentColor" />
        </svg>
        <span className={styles.triggerLabel}>Search</span>
        <kbd className={styles.kbd}>{isMac ? '⌘' : 'Ctrl'} K</kbd>
      </button>
      {open && (
        <div className={styles.backdrop} onMouseDown={(e) => e.target === e.currentTarget && close()}>
          <div role="dialog" aria-modal="true" aria-label="Search the docs" className={styles.dialog}>
            <div className={styles.inputRow}>
              <input
                ref={input}
                type="search"
                className={styles.input}
                placeholder="Search"
                value={query}
                role="combobox"
                aria-expanded={hits.length > 0}
                aria-controls={listId}
                aria-activedescendant={hits.length ? `${listId}-${active}` : undefined}
                aria-autocomplete="list"
                onChange={(e) => setQuery(e.target.value)}
                onKeyDown={(e) => {
                  if (e.key === 'Escape') close();
                  else if (e.key === 'ArrowDown') {
                    e.preventDefault();
                    setActive((a) => Math.min(a + 1, hits.length - 1));
                  } else if (e.key === 'ArrowUp') {
                    e.preventDefault();
                    setActive((a) => Math.max(a - 1, 0));
                  } else if (e.key === 'Enter') go(hits[active]);
                }}
              />
              <button type="button" className={styles.close} onClick={close}>
                Esc
              </button>
            </div>
            <ul id={listId} role="listbox" className={styles.results} aria-label="Search results">
              {hits.map((hit, i) => (
                <li
                  key={hit.url}
                  id={`${listId}-${i}`}
                  role="option"
                  aria-selected={i === active}
                  className={styles.result}
                  onMouseEnter={() => setActive(i)}
                  onClick={() => go(hit)}
                >
                  <span className={styles.resultTitle}>
                    {hit.title}
                    {hit.heading && <span className={styles.resultHeading}> › {hit.heading}</span>}
                  </span>
                  <span className={styles.resultText}>{snippet(hit.text, hit.terms)}</span>
                </li>
              ))}
            </ul>
            <p className={styles.status} role="status">
              {status === 'loading' && 'Loading the search index…'}
              {status === 'error' && error}
              {status === 'ready' && query.trim() !== '' && hits.length === 0 && `No results for “${query}”.`}
              {status === 'ready' && query.trim() === '' && 'Type to search every page and section. ↑↓ to move, Enter to open.'}
            </p>
          </div>
        </div>
      )}
    </>
  );
}
