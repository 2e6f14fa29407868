import { isGatedPath, readToken } from '../login/storage';
import { pageKind } from '@keyway/docs-server/search/engine';
import type { SearchHit } from './searchClient';

// Signed-in visitors also find the gated pages: the public index of the build never holds them, so their results
// come from the docs server's /api/search, which includes them for a request with a docs session.

let session: { token: string; signedIn: Promise<boolean> } | undefined;

/**
 * Whether this visitor has a docs session (`GET /api/session`). Only asked when a sign-in token is stored (anonymous
 * visitors cost no request), once per token; a static host without the docs server answers "no".
 */
export function docsSignedIn(): Promise<boolean> {
  const token = typeof window === 'undefined' ? null : readToken();
  if (!token) return Promise.resolve(false);
  if (session?.token !== token) {
    const signedIn = fetch('/api/session', { credentials: 'same-origin', headers: { accept: 'application/json' } })
      .then(async (res) => res.ok && ((await res.json()) as { signedIn?: unknown }).signedIn === true)
      .catch(() => false);
    session = { token, signedIn };
  }
  return session.signedIn;
}

/** The words of a query, to highlight them in the snippets the server returns (it sends no matched terms). */
export const queryWords = (query: string): string[] => [...new Set(query.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [])].filter((w) => w.length > 1);

/** The gated results of the server's search for `query` (public pages come from the local index). */
export async function gatedServerHits(query: string, limit: number, signal?: AbortSignal): Promise<SearchHit[]> {
  const res = await fetch(`/api/search?q=${encodeURIComponent(query)}&limit=${limit}`, { credentials: 'same-origin', headers: { accept: 'application/json' }, signal });
  if (!res.ok) throw new Error(`search failed (HTTP ${res.status})`);
  const body = (await res.json()) as { results?: { url?: unknown; title?: unknown; heading?: unknown; snippet?: unknown }[] };
  const terms = queryWords(query);
  const hits: SearchHit[] = [];
  (body.results ?? []).forEach((r, rank) => {
    if (typeof r.url !== 'string' || !r.url.startsWith('/')) return;
    const page = r.url.split('#')[0] ?? r.url;
    hits.push({ url: r.url, title: String(r.title ?? ''), heading: String(r.heading ?? ''), snippet: String(r.snippet ?? ''), terms, score: 0 - rank, page, kind: pageKind(page) });
  });
  return hits;
}

/**
 * The local results with the server's gated results added, each where the server ranked it: right after the last
 * result the server ranked above it (first when it ranked it first). Local results keep their order and are never
 * dropped, so what the visitor already sees does not move except to make room; public pages the server returns are
 * ignored (the local index has them), and nothing is listed twice.
 */
export function mergeHits(local: SearchHit[], server: SearchHit[], isGated: (path: string) => boolean = isGatedPath): SearchHit[] {
  const merged = local.slice();
  const position = (url: string) => merged.findIndex((h) => h.url === url);
  let anchor = -1;
  for (const hit of server) {
    const at = position(hit.url);
    if (at >= 0) {
      anchor = at;
      continue;
    }
    if (!isGated(hit.url.split('#')[0] ?? '')) continue;
    merged.splice(anchor + 1, 0, hit);
    anchor += 1;
  }
  return merged;
}
