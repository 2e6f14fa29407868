import { useEffect, useState } from 'react';

/** What the docs server tells the browser at run time (`GET /api/config`). */
export interface DocsRuntimeConfig {
  /** Base URL of the identity server (the Keyway API), or null when sign-in is not configured on this server. */
  identityUrl: string | null;
  /** The fixed organization id of the docs. */
  orgId: string | null;
}

/**
 * The Keyway API the pages' samples are written for: the identity server of `npm start` with its default port. The
 * browser shows them for the API this docs server is configured with instead (`useReaderUrls`, `followReader`).
 */
export const WRITTEN_API_URL = 'http://localhost:8787';
/** The docs origin the pages are written for (`npm start`): its npm registry of the `@keyway` packages is `/npm/`. */
export const WRITTEN_DOCS_ORIGIN = 'http://localhost:3000';

/** Where the reader's samples point: the API this docs server is configured with, and the docs site's origin. */
export interface ReaderUrls {
  api: string;
  docs: string;
}
export const WRITTEN_URLS: ReaderUrls = { api: WRITTEN_API_URL, docs: WRITTEN_DOCS_ORIGIN };

let configPromise: Promise<DocsRuntimeConfig> | undefined;

/** The runtime configuration, fetched once per page (light: no SDK here, so any component may ask). */
export function runtimeConfig(): Promise<DocsRuntimeConfig> {
  configPromise ??= fetch('/api/config', { credentials: 'same-origin' }).then(async (res) => {
    if (!res.ok) throw new Error(`GET /api/config answered HTTP ${res.status}`);
    return (await res.json()) as DocsRuntimeConfig;
  });
  configPromise.catch(() => {
    configPromise = undefined;
  });
  return configPromise;
}

let known: ReaderUrls | undefined;

/**
 * The URLs the reader's samples should use: the Keyway API URL this docs server is configured with (`KEYWAY_API_URL`)
 * and the docs origin in the address bar. The written ones until they are known (server rendering, hydration), and
 * where no docs server answers (a static host: the API stays the written one).
 */
export function useReaderUrls(): ReaderUrls {
  const [urls, setUrls] = useState(WRITTEN_URLS);
  useEffect(() => {
    if (known) {
      setUrls(known);
      return undefined;
    }
    let live = true;
    const settle = (api: string) => {
      known = { api, docs: window.location.origin };
      if (live) setUrls(known);
    };
    runtimeConfig().then(
      (config) => settle(config.identityUrl?.replace(/\/+$/, '') || WRITTEN_API_URL),
      () => settle(WRITTEN_API_URL),
    );
    return () => {
      live = false;
    };
  }, []);
  return urls;
}

/** The written-to-shown pairs of a reader's URLs: the API URL, and the docs site's npm registry. */
const pairs = (urls: ReaderUrls): [string, string][] =>
  [
    [WRITTEN_API_URL, urls.api],
    [`${WRITTEN_DOCS_ORIGIN}/npm/`, `${urls.docs}/npm/`],
  ].filter(([from, to]) => from !== to) as [string, string][];

/** A sample's text for the reader: `http://localhost:8787` becomes their API URL, the docs registry their docs origin's. */
export const followReader = (text: string, urls: ReaderUrls): string => pairs(urls).reduce((t, [from, to]) => t.split(from).join(to), text);

/** `text` (a sample, a command) as the reader should run it (see followReader). */
export function useFollowedText(text: string): string {
  return followReader(text, useReaderUrls());
}

/** A rendered element's text for the reader (see followReader and replaceRenderedText). */
export function followRendered(element: HTMLElement, urls: ReaderUrls): void {
  for (const [from, to] of pairs(urls)) replaceRenderedText(element, from, to);
}

/**
 * Rewrites the text of a rendered element (a server-rendered code block, highlighted into many spans) from `from` to
 * `to`, line by line (`.token-line`, else the whole element): an occurrence split over several text nodes is put
 * into its first node and removed from the others, so the highlighting around it stays.
 */
export function replaceRenderedText(element: HTMLElement, from: string, to: string): void {
  if (from === to) return;
  const lines = element.querySelectorAll<HTMLElement>('.token-line');
  for (const line of lines.length ? Array.from(lines) : [element]) {
    if (!line.textContent?.includes(from)) continue;
    const nodes: Text[] = [];
    const walker = document.createTreeWalker(line, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) nodes.push(n as Text);
    const text = nodes.map((n) => n.data).join('');
    // Where each node starts in the line's text.
    const starts: number[] = [];
    nodes.reduce((at, n) => (starts.push(at), at + n.data.length), 0);
    const edits: { node: number; offset: number; remove: number; insert: string }[] = [];
    for (let at = text.indexOf(from); at >= 0; at = text.indexOf(from, at + from.length)) {
      let left = from.length;
      let first = true;
      for (let i = 0; i < nodes.length && left > 0; i++) {
        const start = starts[i] as number;
        const end = start + (nodes[i] as Text).data.length;
        const cut = Math.max(at + from.length - left, start);
        if (cut >= end || cut < start) continue;
        const remove = Math.min(end, at + from.length) - cut;
        edits.push({ node: i, offset: cut - start, remove, insert: first ? to : '' });
        first = false;
        left -= remove;
      }
    }
    // From the end, so earlier offsets stay right.
    for (const e of edits.reverse()) {
      const node = nodes[e.node] as Text;
      node.data = node.data.slice(0, e.offset) + e.insert + node.data.slice(e.offset + e.remove);
    }
  }
}
