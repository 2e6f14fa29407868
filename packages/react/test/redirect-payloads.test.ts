import { describe, expect, it } from 'vitest';
import { safeRedirect } from '../src/index.js';
import { OFFSITE_PAYLOADS } from '@keyway/test-support';

const ORIGIN = 'https://docs.example';

describe('safeRedirect against the open-redirect payload family', () => {
  it.each(OFFSITE_PAYLOADS)('a browser sent to the answer for %j stays on the site', (payload) => {
    const to = safeRedirect(`?redirect_to=${encodeURIComponent(payload)}`, '/home');
    expect(new URL(to, ORIGIN).origin).toBe(ORIGIN);
  });
});
