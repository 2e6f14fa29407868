import { describe, expect, it } from 'vitest';
import { allowedRedirectURL, sameOriginPath } from '../src/redirect.js';
import { EVIL_HOST, OFFSITE_PAYLOADS, ONSITE_PAYLOADS } from '@keyway/test-support';

const ORIGIN = 'http://localhost:3000';

describe('the shared redirect rule', () => {
  it.each(OFFSITE_PAYLOADS)('never leaves the site for %j', (payload) => {
    const path = sameOriginPath(payload, ORIGIN, '/fallback');
    // What a browser does with the answer: it stays on the origin.
    expect(new URL(path, ORIGIN).origin).toBe(ORIGIN);
    expect(path.startsWith('/') && !path.startsWith('//')).toBe(true);
    expect(allowedRedirectURL(payload, ORIGIN)?.hostname ?? '').not.toBe(EVIL_HOST);
  });

  it.each(ONSITE_PAYLOADS)('keeps the same-site path %j', (payload, expected) => {
    expect(sameOriginPath(payload, ORIGIN, '/fallback')).toBe(expected);
  });

  it('accepts another origin only when the caller allows it, after normalization', () => {
    const apps = (o: string) => o === 'https://app.example';
    expect(allowedRedirectURL('https://app.example/done', ORIGIN, apps)?.href).toBe('https://app.example/done');
    expect(allowedRedirectURL('https://app.example/a/../%2e%2e/done', ORIGIN, apps)?.href).toBe('https://app.example/done');
    expect(allowedRedirectURL('https://app.example.evil.example/', ORIGIN, apps)).toBeNull();
    expect(allowedRedirectURL('https://app.example\\@evil.example/', ORIGIN, apps)).toBeNull();
    expect(allowedRedirectURL('javascript://app.example/%0aalert(1)', ORIGIN, apps)).toBeNull();
    expect(allowedRedirectURL(42, ORIGIN, apps)).toBeNull();
    expect(allowedRedirectURL('/x'.repeat(2000), ORIGIN, apps)).toBeNull();
  });
});
