// Where a reference page's data comes from: in static rendering, the server bundle's table of every page; in the
// browser, the page's own HTML on first load (ReferencePage writes it there), then its JSON (pageDataUrl) for pages
// reached by client-side navigation.
import { useEffect, useState } from 'react';
import ExecutionEnvironment from '@docusaurus/ExecutionEnvironment';
import ssrPages from '@keyway/api-reference-ssr-pages';
import { pageDataUrl } from './dataUrl';
import type { ReferencePageData } from './types';

export const DATA_ELEMENT_ID = 'keyway-api-reference-page';

/** The path of a reference page as its data knows it: no trailing slash or `.html`. */
export const permalinkOf = (pathname: string): string => pathname.replace(/(\/index)?\.html$/, '').replace(/(.)\/+$/, '$1');

/** JSON safe inside a <script> element. */
export const scriptJson = (data: ReferencePageData): string => JSON.stringify(data).replace(/</g, '\\u003c');

const cache = new Map<string, ReferencePageData>();
/**
 * The page the browser loaded from the server, when the server sent it rendered (a build; the dev server sends an empty
 * shell): read when this module is first evaluated, which is before the first render.
 */
const bootPermalink = ExecutionEnvironment.canUseDOM && document.getElementById('__docusaurus')?.hasChildNodes() ? permalinkOf(bootPathname()) : undefined;

/**
 * The path of the document the browser loaded. Not `location` now: this module is first evaluated when the first
 * reference page is rendered, and after a client-side navigation from another page (the API overview, a search
 * result) the router has already moved `location` to the new address, which the server never rendered.
 */
function bootPathname(): string {
  const [entry] = performance.getEntriesByType('navigation') as PerformanceNavigationTiming[];
  try {
    if (entry?.name) return new URL(entry.name).pathname;
  } catch {
    // not a URL: fall back to the current address
  }
  return window.location.pathname;
}

function fromDocument(permalink: string): ReferencePageData | undefined {
  const element = document.getElementById(DATA_ELEMENT_ID);
  if (!element || element.dataset.permalink !== permalink) return undefined;
  try {
    return JSON.parse(element.textContent ?? '') as ReferencePageData;
  } catch {
    return undefined;
  }
}

export type PageState =
  | { status: 'ready'; data: ReferencePageData; fromServer: boolean }
  | { status: 'loading' }
  | { status: 'not-found' }
  | { status: 'error'; message: string };

function initialState(permalink: string): PageState {
  if (!ExecutionEnvironment.canUseDOM) {
    const data = ssrPages[permalink];
    return data ? { status: 'ready', data, fromServer: true } : { status: 'not-found' };
  }
  const known = cache.get(permalink);
  if (known) return { status: 'ready', data: known, fromServer: permalink === bootPermalink };
  if (permalink === bootPermalink) {
    const data = fromDocument(permalink);
    if (data) {
      cache.set(permalink, data);
      return { status: 'ready', data, fromServer: true };
    }
    // The server answered this address with its not-found page: hydrate that, do not fetch.
    return { status: 'not-found' };
  }
  return { status: 'loading' };
}

async function fetchPage(permalink: string, signal: AbortSignal): Promise<PageState> {
  const response = await fetch(pageDataUrl(permalink), { signal, headers: { accept: 'application/json' } });
  if (response.status === 404) return { status: 'not-found' };
  if (!response.ok) return { status: 'error', message: `The server answered ${response.status} ${response.statusText}`.trim() };
  const data = (await response.json()) as ReferencePageData;
  cache.set(permalink, data);
  return { status: 'ready', data, fromServer: false };
}

/** The data of the reference page at `permalink`, fetched when the browser does not have it yet. */
export function useReferencePage(permalink: string): { state: PageState; retry: () => void } {
  const [held, setHeld] = useState<{ permalink: string; state: PageState }>(() => ({ permalink, state: initialState(permalink) }));
  const state = held.permalink === permalink ? held.state : initialState(permalink);
  const loading = state.status === 'loading';
  useEffect(() => {
    if (!loading) return undefined;
    const controller = new AbortController();
    fetchPage(permalink, controller.signal).then(
      (next) => setHeld({ permalink, state: next }),
      (error: unknown) => {
        if (!controller.signal.aborted) setHeld({ permalink, state: { status: 'error', message: error instanceof Error ? error.message : String(error) } });
      },
    );
    return () => controller.abort();
  }, [permalink, loading]);
  return { state, retry: () => setHeld({ permalink, state: { status: 'loading' } }) };
}
