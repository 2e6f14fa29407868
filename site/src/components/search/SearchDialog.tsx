import React, { useId, useLayoutEffect, useRef, useState } from 'react';
import { groupByPage } from '@keyway/docs-server/search/engine';
import { useHistory } from '@docusaurus/router';
import useBaseUrl from '@docusaurus/useBaseUrl';
import { openAssistant } from '@site/src/components/assistant/open';
import Highlight from './Highlight';
import type { SearchHit } from './searchClient';
import { useSearch } from './useSearch';
import { useFocusTrap } from '../useFocusTrap';
import styles from './dialog.module.css';

type Option =
  | { kind: 'hit'; hit: SearchHit; sub: boolean }
  | { kind: 'more'; page: string; title: string; count: number }
  | { kind: 'ask' }
  | { kind: 'all' };

const keyOf = (option: Option) => (option.kind === 'hit' ? option.hit.url : option.kind === 'more' ? `more:${option.page}` : option.kind);

/** Pages the dialog lists at most (the results page has them all). */
const PAGES = 8;

/**
 * The options of the list: for each page its best section, then either its other sections (when unfolded) or one
 * option that unfolds them; then the assistant and the full results page.
 */
function optionsOf(hits: SearchHit[], expanded: ReadonlySet<string>, query: string): Option[] {
  if (!query.trim()) return [];
  const options: Option[] = [];
  for (const group of groupByPage(hits).slice(0, PAGES)) {
    const [best, ...more] = group.hits;
    if (!best) continue;
    options.push({ kind: 'hit', hit: best, sub: false });
    if (!more.length) continue;
    if (expanded.has(group.page)) for (const hit of more) options.push({ kind: 'hit', hit, sub: true });
    else options.push({ kind: 'more', page: group.page, title: best.title, count: more.length });
  }
  return [...options, { kind: 'ask' }, { kind: 'all' }];
}

export interface SearchDialogProps {
  /** What was typed while the dialog was loading (read once, when the dialog takes the focus). */
  takeTyped?: () => string;
  onClose: () => void;
}

/**
 * The search dialog (loaded on first use): instant, typo-tolerant results over every page and heading, the gated
 * pages too for a signed-in visitor, plus a way into the assistant and the full results page.
 */
export default function SearchDialog({ takeTyped, onClose }: SearchDialogProps): React.ReactElement {
  const [query, setQuery] = useState('');
  const [activeKey, setActiveKey] = useState<string>();
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set());
  const { hits, status, error, pending, corrected } = useSearch(query, 30);
  const input = useRef<HTMLInputElement>(null);
  const history = useHistory();
  const searchPage = useBaseUrl('/search');
  const listId = useId();
  const dialog = useRef<HTMLDivElement>(null);
  // A modal dialog: Tab stays in it (input, Esc button, results), and the focus goes back where it was on close.
  useFocusTrap(dialog);

  // Keys typed until now were kept by the search button, which stops keeping them here; the input shows them and
  // takes the focus before the browser handles another key.
  useLayoutEffect(() => {
    const typed = takeTyped?.() ?? '';
    if (typed) setQuery(typed);
    input.current?.focus();
  }, [takeTyped]);

  const options = optionsOf(hits, expanded, query);
  // The selection follows its option when results arrive later (a signed-in visitor's gated pages), else the first.
  const found = activeKey === undefined ? -1 : options.findIndex((o) => keyOf(o) === activeKey);
  const active = found >= 0 ? found : 0;
  const select = (i: number) => {
    const option = options[Math.max(0, Math.min(i, options.length - 1))];
    setActiveKey(option ? keyOf(option) : undefined);
  };

  const choose = (option: Option | undefined) => {
    if (!option) return;
    if (option.kind === 'more') {
      // Unfold the page's other sections; the selection moves to the first of them.
      setExpanded((e) => new Set([...e, option.page]));
      const first = groupByPage(hits).find((g) => g.page === option.page)?.hits[1];
      if (first) setActiveKey(first.url);
      return;
    }
    const q = query;
    onClose();
    if (option.kind === 'hit') history.push(option.hit.url);
    else if (option.kind === 'ask') openAssistant(q);
    else history.push(`${searchPage}?q=${encodeURIComponent(q)}`);
  };

  return (
    <div className={styles.backdrop} onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div
        ref={dialog}
        role="dialog"
        aria-modal="true"
        aria-label="Search the docs"
        className={styles.dialog}
        onKeyDown={(e) => {
          if (e.key === 'Escape') onClose();
        }}
      >
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
            onChange={(e) => {
              setQuery(e.target.value);
              setActiveKey(undefined);
              setExpanded(new Set());
            }}
            onKeyDown={(e) => {
              if (e.key === 'ArrowDown') {
                e.preventDefault();
                select(active + 1);
              } else if (e.key === 'ArrowUp') {
                e.preventDefault();
                select(active - 1);
              } else if (e.key === 'Enter') {
                e.preventDefault();
                choose(options[active]);
              }
            }}
          />
          <button type="button" className={styles.close} onClick={onClose}>
            Esc
          </button>
        </div>
        {corrected && (
          <p className={styles.status} data-testid="search-corrected">
            No results for “{query.trim()}”. Showing results for “{corrected}”.
          </p>
        )}
        <ul id={listId} role="listbox" className={styles.results} aria-label="Search results">
          {options.map((option, i) => (
            <li
              key={keyOf(option)}
              id={`${listId}-${i}`}
              role="option"
              aria-selected={i === active}
              className={[styles.result, option.kind === 'ask' || option.kind === 'all' ? styles.action : '', option.kind === 'more' ? styles.more : '', option.kind === 'hit' && option.sub ? styles.sub : '']
                .filter(Boolean)
                .join(' ')}
              data-kind={option.kind === 'hit' ? (option.sub ? 'section' : 'page') : option.kind}
              data-url={option.kind === 'hit' ? option.hit.url : undefined}
              aria-expanded={option.kind === 'more' ? false : undefined}
              onMouseEnter={() => select(i)}
              onClick={() => choose(option)}
            >
              {option.kind === 'hit' ? (
                <>
                  <span className={styles.resultTitle}>
                    {option.sub ? (
                      <span className={styles.resultHeading}>{option.hit.heading || option.hit.title}</span>
                    ) : (
                      <>
                        {option.hit.title}
                        {option.hit.heading && <span className={styles.resultHeading}> › {option.hit.heading}</span>}
                      </>
                    )}
                  </span>
                  <span className={styles.resultText}>
                    <Highlight text={option.hit.snippet} terms={option.hit.terms} />
                  </span>
                </>
              ) : option.kind === 'more' ? (
                <span className={styles.resultHeading}>
                  {option.count} more section{option.count === 1 ? '' : 's'} in {option.title}
                </span>
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
          {status === 'ready' && query.trim() !== '' && hits.length === 0 && (pending ? 'Searching…' : `No results for “${query}”.`)}
          {status === 'ready' && query.trim() === '' && 'Type to search every page and section. ↑↓ to move, Enter to open or unfold.'}
        </p>
      </div>
    </div>
  );
}
