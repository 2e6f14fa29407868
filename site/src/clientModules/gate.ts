import type { ClientModule } from '@docusaurus/types';
import { isGatedPath, loginHref, readToken } from '../components/login/storage';

// The client side of the gate (spec §4–§6): navigation to a detections or queries page checks that a token is stored
// and sends a visitor without one to /login; on window load the stored token is validated with the identity server
// (analytics off, the docs organization). An invalid token is removed and the visitor goes to sign-in; when the
// validation itself fails (identity server unreachable) the error is logged and the visitor stays.
// The docs server enforces the same rule for every byte of gated content (packages/docs-server/src/gate).

function requireToken(location: { pathname: string; search: string; hash: string }): boolean {
  if (!isGatedPath(location.pathname) || readToken()) return true;
  window.location.replace(loginHref(location));
  return false;
}

async function validateOnLoad(): Promise<void> {
  const { location } = window;
  if (!isGatedPath(location.pathname)) return;
  const token = readToken();
  if (!token) return; // requireToken already sent the visitor to sign in
  try {
    // The SDK loads only here, on gated pages.
    const { validateToken, dropInvalidToken } = await import('../components/login/session');
    const result = await validateToken(token);
    if (!result.valid) await dropInvalidToken(location);
  } catch (error) {
    console.error('Keyway docs: the sign-in token could not be validated; staying on the page.', error);
  }
}

/**
 * Docusaurus prefetches the code of every route a link in view points to (and preloads it on hover). The code of
 * gated routes is refused (404) without a docs session, so for a visitor without a token those requests would only
 * fill the console with errors: they are skipped. `window.docusaurus` is set by the client entry after the client
 * modules ran, so the wrapper is installed as it is assigned.
 */
function skipGatedPrefetch(): void {
  type Prefetcher = { prefetch: (routePath: string) => unknown; preload: (routePath: string) => unknown };
  let current: Prefetcher | undefined;
  const wrap = (inner: Prefetcher): Prefetcher =>
    Object.freeze({
      prefetch: (routePath: string) => (isGatedPath(routePath) && !readToken() ? false : inner.prefetch(routePath)),
      preload: (routePath: string) => (isGatedPath(routePath) && !readToken() ? Promise.resolve() : inner.preload(routePath)),
    });
  const w = window as unknown as { docusaurus?: Prefetcher };
  if (w.docusaurus) {
    current = wrap(w.docusaurus);
  }
  Object.defineProperty(window, 'docusaurus', {
    configurable: true,
    get: () => current,
    set: (value: Prefetcher) => {
      current = wrap(value);
    },
  });
}

/**
 * A click on a link to a gated page, by a visitor without a token, goes to sign-in at once: followed by the router,
 * the page's code would be requested first (refused, 404: console errors) before `requireToken` sends the visitor on.
 */
function signInBeforeGatedLinks(): void {
  document.addEventListener(
    'click',
    (event) => {
      if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
      const anchor = (event.target as Element | null)?.closest?.('a[href]') as HTMLAnchorElement | null;
      if (!anchor || (anchor.target && anchor.target !== '_self') || anchor.origin !== window.location.origin) return;
      if (!isGatedPath(anchor.pathname) || readToken()) return;
      event.preventDefault();
      window.location.assign(loginHref(anchor));
    },
    true,
  );
}

if (typeof window !== 'undefined') {
  skipGatedPrefetch();
  signInBeforeGatedLinks();
  if (requireToken(window.location)) {
    if (document.readyState === 'complete') void validateOnLoad();
    else window.addEventListener('load', () => void validateOnLoad(), { once: true });
  }
}

const gate: ClientModule = {
  onRouteUpdate({ location }) {
    requireToken(location);
  },
};

export const { onRouteUpdate } = gate;
