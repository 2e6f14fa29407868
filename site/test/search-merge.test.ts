import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SearchHit } from '@keyway/docs-server/search/engine';
import { docsSignedIn, gatedServerHits, mergeHits, queryWords } from '../src/components/search/serverSearch';

const hit = (url: string): SearchHit => ({ url, title: url, heading: '', snippet: '', terms: [], score: 0 });
const urls = (hits: SearchHit[]) => hits.map((h) => h.url);
const GATED = '/docs/identity-protection/detections/mitm-detection';

describe('signed-in search: local public results with the server gated results', () => {
  it('keeps every local result in its order and adds the gated ones where the server ranked them', () => {
    const local = [hit('/docs/a'), hit('/docs/b'), hit('/docs/c')];
    const server = [hit(`${GATED}#thresholds`), hit('/docs/b'), hit('/docs/identity-protection/queries'), hit('/docs/a'), hit('/docs/x')];
    expect(urls(mergeHits(local, server))).toEqual([`${GATED}#thresholds`, '/docs/a', '/docs/b', '/docs/identity-protection/queries', '/docs/c']);
  });

  it('never lists a result twice, and ignores public pages only the server returned (the local index has them)', () => {
    const local = [hit('/docs/a'), hit(GATED)];
    const merged = mergeHits(local, [hit(GATED), hit('/docs/public-only'), hit(GATED)]);
    expect(urls(merged)).toEqual(['/docs/a', GATED]);
  });

  it('shows the gated results alone when the local index found nothing', () => {
    expect(urls(mergeHits([], [hit(GATED), hit('/docs/identity-protection/queries#saved')]))).toEqual([GATED, '/docs/identity-protection/queries#saved']);
  });
});

describe('asking the docs server', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  function browser(token: string | null, session: unknown, results: unknown = { results: [] }) {
    const calls: string[] = [];
    vi.stubGlobal('window', { localStorage: { getItem: () => token } });
    vi.stubGlobal('fetch', async (url: string) => {
      calls.push(url);
      const body = url === '/api/session' ? session : results;
      return { ok: body !== undefined, status: body === undefined ? 404 : 200, json: async () => body } as Response;
    });
    return calls;
  }

  it('does not ask anything for a visitor without a sign-in token', async () => {
    const calls = browser(null, { signedIn: true });
    expect(await docsSignedIn()).toBe(false);
    expect(calls).toEqual([]);
  });

  it('trusts /api/session, once per token, and says no without a docs server', async () => {
    let calls = browser('tok.en.1', { signedIn: true });
    expect(await docsSignedIn()).toBe(true);
    expect(await docsSignedIn()).toBe(true);
    expect(calls).toEqual(['/api/session']);
    // Another token (signed in or out in another tab) is asked about again.
    calls = browser('tok.en.2', { signedIn: false });
    expect(await docsSignedIn()).toBe(false);
    expect(calls).toEqual(['/api/session']);
    browser('tok.en.3', undefined);
    expect(await docsSignedIn()).toBe(false);
  });

  it('reads /api/search results into hits whose query words are highlighted, dropping malformed ones', async () => {
    const calls = browser('t', { signedIn: true }, { results: [{ url: GATED, title: 'MITM detection', heading: '', snippet: 'Zebrafinch signals' }, { url: 'https://evil.example/' }, { title: 'no url' }] });
    const hits = await gatedServerHits('Zebrafinch signals?', 10);
    expect(calls).toEqual(['/api/search?q=Zebrafinch%20signals%3F&limit=10']);
    expect(hits).toEqual([{ url: GATED, title: 'MITM detection', heading: '', snippet: 'Zebrafinch signals', terms: ['zebrafinch', 'signals'], score: 0, page: GATED, kind: 'guide' }]);
    expect(queryWords('a JWT, jwt and x')).toEqual(['jwt', 'and']);
  });
});
