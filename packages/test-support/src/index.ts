// Support shared by the tests of every package (SDK, React, interop, identity server, site, e2e): one way to launch
// Chromium, and a stand-in OpenID Provider.
// Tests import it by name (`@keyway/test-support`); it is TypeScript source, run by vitest as is (no build).
import { chromium, type Browser } from 'playwright-core';

/**
 * How every browser test stays off the network without intercepting anything: Chromium's own host resolver maps
 * every host name and IP literal to "not found", except the loopback names our servers listen on. Requests to
 * another host fail with net::ERR_NAME_NOT_RESOLVED before any connection; requests to our servers go out unchanged
 * (no Playwright routing, so CORS preflights and CSP checks happen exactly as in a reader's browser). Third-party
 * scripts a test needs are faked with page.route in that test's own context: routing answers before resolution.
 */
export const LOOPBACK_ONLY_RULES = 'MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1';
export const LOOPBACK_ONLY_ARGS = [`--host-resolver-rules=${LOOPBACK_ONLY_RULES}`];

/** The Chromium the tests drive: `CHROMIUM_PATH`, else Debian's `/usr/bin/chromium` (never a downloaded browser). */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Debian's Chromium, headless, with the flags this closed network needs, resolving only the loopback hosts (see
 * {@link LOOPBACK_ONLY_RULES}); `extraArgs` are added to them.
 */
export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      ...LOOPBACK_ONLY_ARGS,
      ...extraArgs,
    ],
  });
}
export { browseUntil, startOidcIdp } from './oidc-idp.js';
export { EVIL_HOST, OFFSITE_PAYLOADS, ONSITE_PAYLOADS } from './redirect-payloads.js';
