/**
 * How every browser test stays off the network without intercepting anything: Chromium's own host resolver maps
 * every host name and IP literal to "not found", except the loopback names our servers listen on. Requests to
 * another host fail with net::ERR_NAME_NOT_RESOLVED before any connection; requests to our servers go out unchanged
 * (no Playwright routing, so CORS preflights and CSP checks happen exactly as in a reader's browser). Third-party
 * scripts a test needs are faked with page.route in that test's own context: routing answers before resolution.
 * Shared with the SDK and React browser harnesses (packages/{sdk,react}/browser).
 */
export const LOOPBACK_ONLY_RULES = 'MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1';

export const LOOPBACK_ONLY_ARGS = [`--host-resolver-rules=${LOOPBACK_ONLY_RULES}`];
