import { describe, expect, it } from 'vitest';
import { safeRedirect } from '../src/components/login/storage';
import { OFFSITE_PAYLOADS, ONSITE_PAYLOADS } from '@keyway/test-support';

const ORIGIN = 'http://localhost:3000';

describe('/login redirect_to against the open-redirect payload family', () => {
  it.each(OFFSITE_PAYLOADS)('a browser sent to the answer for %j stays on the site', (payload) => {
    expect(new URL(safeRedirect(payload, ORIGIN), ORIGIN).origin).toBe(ORIGIN);
  });

  it.each(ONSITE_PAYLOADS)('keeps %j', (payload, expected) => {
    expect(safeRedirect(payload, ORIGIN)).toBe(expected);
  });

  it('never sends the visitor back to /login', () => {
    expect(safeRedirect('/login?redirect_to=%2Fdocs', ORIGIN)).toBe('/docs/intro');
    expect(safeRedirect('/docs/../login', ORIGIN)).toBe('/docs/intro');
  });
});
