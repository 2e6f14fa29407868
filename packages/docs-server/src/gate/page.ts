const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

// Sends the visitor on to sign-in, keeping the hash (which never reaches the server) in redirect_to.
const SCRIPT =
  "location.replace('/login?redirect_to='+encodeURIComponent(location.pathname+location.search+location.hash))";

/**
 * What a visitor without a session gets instead of a gated page (status 401): no byte of the page, a link to sign in,
 * and a script that goes there at once with the full original URL.
 */
export function signInRequiredPage(pathAndSearch: string): string {
  const href = `/login?redirect_to=${encodeURIComponent(pathAndSearch)}`;
  return [
    '<!doctype html><html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="robots" content="noindex">',
    '<title>Sign in required | Keyway Docs</title>',
    `<script>${SCRIPT}</script>`,
    '</head><body style="font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem">',
    '<h1>Sign in required</h1>',
    '<p>This Identity Protection guide is for signed-in Keyway customers.</p>',
    `<p><a href="${escape(href)}">Sign in to continue</a> or read the <a href="/docs/intro">public documentation</a>.</p>`,
    '</body></html>',
  ].join('');
}
