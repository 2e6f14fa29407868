import type { SiteFile } from './site-files.js';

export type Resolution =
  | { kind: 'file'; file: SiteFile }
  | { kind: 'redirect'; location: string }
  | { kind: 'not-found' }
  | { kind: 'bad-request'; reason: string };

const NOT_FOUND_PAGE = '404.html';

/**
 * Maps a request path to what the server answers, by the site's URL rules: exact clean routes (`/docs/intro` is
 * `docs/intro.html`, `/docs/x` may be `docs/x/index.html`), `/x.html`, `/x/index.html` and `/x/` redirect to `/x`,
 * and everything else is not found. The not-found page itself is never a 200.
 */
export function resolvePath(rawPath: string, search: string, files: ReadonlyMap<string, SiteFile>): Resolution {
  let pathname: string;
  try {
    pathname = decodeURIComponent(rawPath);
  } catch {
    return { kind: 'bad-request', reason: 'The request path is not valid percent-encoding.' };
  }
  if (pathname.includes('\0') || pathname.includes('\\') || !pathname.startsWith('/')) {
    return { kind: 'bad-request', reason: 'The request path contains characters a site path cannot have.' };
  }
  const segments = pathname.split('/');
  if (segments.some((s) => s === '..' || s === '.')) {
    return { kind: 'bad-request', reason: 'The request path may not contain "." or ".." segments.' };
  }
  if (/\/{2,}/.test(pathname)) return { kind: 'not-found' };

  const route = (rel: string | undefined): string | undefined => {
    if (rel === undefined) return undefined;
    if (rel === 'index.html') return '/';
    if (rel === NOT_FOUND_PAGE) return undefined;
    if (rel.endsWith('/index.html')) return `/${rel.slice(0, -'/index.html'.length)}`;
    if (rel.endsWith('.html')) return `/${rel.slice(0, -'.html'.length)}`;
    return undefined;
  };
  const pageFor = (clean: string): SiteFile | undefined => {
    if (clean === '/') return files.get('index.html');
    const rel = clean.slice(1);
    const file = files.get(`${rel}.html`) ?? files.get(`${rel}/index.html`);
    return file && file.rel !== NOT_FOUND_PAGE ? file : undefined;
  };
  const redirectTo = (clean: string): Resolution =>
    pageFor(clean) ? { kind: 'redirect', location: encodeURI(clean) + search } : { kind: 'not-found' };

  if (pathname.endsWith('/index.html')) return redirectTo(pathname.slice(0, -'index.html'.length).replace(/(.)\/$/, '$1'));
  if (pathname.endsWith('.html')) {
    const target = route(pathname.slice(1));
    return target ? redirectTo(target) : { kind: 'not-found' };
  }
  if (pathname.length > 1 && pathname.endsWith('/')) return redirectTo(pathname.replace(/\/+$/, ''));

  const asset = files.get(pathname.slice(1));
  if (asset && !asset.isHtml) return { kind: 'file', file: asset };
  const page = pageFor(pathname);
  return page ? { kind: 'file', file: page } : { kind: 'not-found' };
}
