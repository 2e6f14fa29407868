import React, { useCallback, useEffect, useId, useRef, useState } from 'react';
import { useHistory } from '@docusaurus/router';
import useBaseUrl from '@docusaurus/useBaseUrl';
import AssistantLauncher from '@site/src/components/assistant/AssistantLauncher';
import { openAssistant } from '@site/src/components/assistant/store';
import Highlight from './Highlight';
import { loadSearch, type SearchHit } from './searchClient';
import styles from './styles.module.css';

type Option = { kind: 'hit'; hit: SearchHit } | { kind: 'ask' } | { kind: 'all' };

/** The navbar search: instant, typo-tolerant results over every page and heading, plus a way into the assistant. */
export default function SearchBar(): React.ReactElement {
  const [open, setOpen] = useState(false);
  const [query, setQuery] = useState('');
  const [hits, setHits] = useState<SearchHit[]>([]);
  const [active, setActive] = useState(0);
  const [status, setStatus] = useState<'idle' | 'loading' | 'ready' | 'error'>('idle');
  const [error, setError] = useState('');
  const search = useRef<Awaited<ReturnType<typeof loadSearch>>>(undefined);
  const input = useRef<HTMLInputElement>(null);
  const history = useHistory();
  const indexUrl = useBaseUrl('/search-index.json');
  const searchPage = useBaseUrl('/search');
  const listId = useId();
  const [isMac, setIsMac] = useState(false);
  useEffect(() => setIsMac(/Mac|iPhone|iPad/.test(navigator.platform)), []);

  const openDialog = useCallback(() => {
    setOpen(true);
    if (search.current) return;
    setStatus('loading');
    loadSearch(indexUrl).then(
      (loaded) => {
        search.current = loaded;
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
    setHits(search.current && query.trim() ? search.current.run(query, 10) : []);
    setActive(0);
  }, [query, status]);

  const options: Option[] = query.trim() ? [...hits.map((hit): Option => ({ kind: 'hit', hit })), { kind: 'ask' }, { kind: 'all' }] : [];

  const close = () => {
    setOpen(false);
    setQuery('');
  };
  const choose = (option: Option | undefined) => {
    if (!option) return;
    const q = query;
    close();
    if (option.kind === 'hit') history.push(option.hit.url);
    else if (option.kind === 'ask') openAssistant(q);
    else history.push(`${searchPage}?q=${encodeURIComponent(q)}`);
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
      <AssistantLauncher />
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
                aria-expanded={options.length > 0}
                aria-controls={listId}
                aria-activedescendant={options.length ? `${listId}-${active}` : undefined}
                aria-autocomplete="list"
                maxLength={500}
                onChange={(e) => setQuery(e.target.value)}
                onKeyDown={(e) => {
                  if (e.key === 'Escape') close();
                  else if (e.key === 'ArrowDown') {
                    e.preventDefault();
                    setActive((a) => Math.min(a + 1, options.length - 1));
                  } else if (e.key === 'ArrowUp') {
                    e.preventDefault();
                    setActive((a) => Math.max(a - 1, 0));
                  } else if (e.key === 'Enter') {
                    e.preventDefault();
                    choose(options[active]);
                  }
                }}
              />
              <button type="button" className={styles.close} onClick={close}>
                Esc
              </button>
            </div>
            <ul id={listId} role="listbox" className={styles.results} aria-label="Search results">
              {options.map((option, i) => (
                <li
                  key={option.kind === 'hit' ? option.hit.url : option.kind}
                  id={`${listId}-${i}`}
                  role="option"
                  aria-selected={i === active}
                  className={option.kind === 'hit' ? styles.result : `${styles.result} ${styles.action}`}
                  onMouseEnter={() => setActive(i)}
                  onClick={() => choose(option)}
                >
                  {option.kind === 'hit' ? (
                    <>
                      <span className={styles.resultTitle}>
                        {option.hit.title}
                        {option.hit.heading && <span className={styles.resultHeading}> › {option.hit.heading}</span>}
                      </span>
                      <span className={styles.resultText}>
                        <Highlight text={option.hit.snippet} terms={option.hit.terms} />
                      </span>
                    </>
                  ) : option.kind === 'ask' ? (
                    <span className={styles.resultTitle}>Ask the assistant: “{query.trim()}”</span>
                  ) : (
                    <span className={styles.resultTitle}>See all results for “{query.trim()}”</span>
                  )}
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
