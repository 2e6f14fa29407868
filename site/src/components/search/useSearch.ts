import { useEffect, useMemo, useState } from 'react';
import useBaseUrl from '@docusaurus/useBaseUrl';
import { loadSearch, type LocalSearch, type SearchHit } from './searchClient';
import { docsSignedIn, gatedServerHits, mergeHits } from './serverSearch';

/** How long typing must pause before the server is asked (local results need no pause). */
const SERVER_DELAY_MS = 120;

export interface SearchState {
  hits: SearchHit[];
  /** Loading the local index; `error` when it failed (server results may still come). */
  status: 'loading' | 'ready' | 'error';
  error: string;
  /** A signed-in visitor's gated results are still on their way. */
  pending: boolean;
  /** The query as corrected when the typed one found nothing and a spelling of the docs' words did (the hits are its). */
  corrected?: string;
}

/**
 * Search as the visitor types: the build's public index answers at once; for a signed-in visitor the docs server's
 * results for the gated pages are added when they arrive. Answers to an earlier query are ignored.
 */
export function useSearch(query: string, limit: number): SearchState {
  const indexUrl = useBaseUrl('/search-index.json');
  const [local, setLocal] = useState<LocalSearch>();
  const [status, setStatus] = useState<SearchState['status']>('loading');
  const [error, setError] = useState('');
  const [server, setServer] = useState<{ query: string; limit: number; hits: SearchHit[] }>();
  const [signedIn, setSignedIn] = useState(false);
  const q = query.trim();

  useEffect(() => {
    let live = true;
    void docsSignedIn().then((yes) => live && setSignedIn(yes));
    return () => {
      live = false;
    };
  }, []);

  useEffect(() => {
    let live = true;
    loadSearch(indexUrl).then(
      (loaded) => {
        if (!live) return;
        setLocal(() => loaded);
        setStatus('ready');
      },
      (e: unknown) => {
        if (!live) return;
        setStatus('error');
        setError(e instanceof Error ? e.message : String(e));
      },
    );
    return () => {
      live = false;
    };
  }, [indexUrl]);

  useEffect(() => {
    if (!q || !signedIn) return undefined;
    const controller = new AbortController();
    let live = true;
    const timer = setTimeout(() => {
      gatedServerHits(q, limit, controller.signal).then(
        (hits) => live && setServer({ query: q, limit, hits }),
        // The local results stand alone (server unreachable, rate limited).
        () => live && setServer({ query: q, limit, hits: [] }),
      );
    }, SERVER_DELAY_MS);
    return () => {
      live = false;
      clearTimeout(timer);
      controller.abort();
    };
  }, [q, limit, signedIn]);

  // A query that finds nothing is tried again with its words spelled as the docs spell them ("pasky" → "passkey").
  const { localHits, corrected } = useMemo(() => {
    if (!local || !q) return { localHits: [], corrected: undefined };
    const found = local.run(q, limit);
    const fixed = found.length ? undefined : local.correct(q);
    const again = fixed ? local.run(fixed, limit) : [];
    return again.length ? { localHits: again, corrected: fixed } : { localHits: found, corrected: undefined };
  }, [local, q, limit]);
  const answered = server !== undefined && server.query === q && server.limit === limit;
  const hits = useMemo(() => (answered && server ? mergeHits(localHits, server.hits) : localHits), [answered, localHits, server]);
  return { hits, status: status === 'error' && hits.length ? 'ready' : status, error, pending: signedIn && q !== '' && !answered, ...(corrected ? { corrected } : {}) };
}
