import type { FastifyReply } from 'fastify';
import type { UiConfiguration } from '../context.js';
import { escapeHtml } from '../http/html.js';

// The pages this server renders itself without script: the hosted login's (oauth/hosted-login.ts) and the password
// reset page (signin/password-reset-page.ts).

/**
 * The Content-Security-Policy of a hosted login page: no script at all, its own inline style, https logos, and forms that
 * post here only — plus the client's redirect origin, where the code form's answer redirects (Chromium checks
 * form-action on redirects too).
 */
export function hostedLoginCsp(redirectUri?: string): string {
  let redirectOrigin = '';
  try {
    if (redirectUri) redirectOrigin = ` ${new URL(redirectUri).origin}`;
  } catch {
    // An unparsable redirect URI was refused before any page is shown.
  }
  return ["default-src 'none'", "style-src 'unsafe-inline'", 'img-src https: data:', `form-action 'self'${redirectOrigin}`, "base-uri 'none'", "frame-ancestors 'none'"].join('; ');
}

/** A CSS custom property set from `themeVars`, or nothing when the name or value could leave the declaration. */
const cssVar = ([name, value]: [string, string]) => (/^[A-Za-z][A-Za-z0-9-]{0,63}$/.test(name) && /^[#(),.%\w\s-]{1,100}$/.test(value) ? `--${name}:${value};` : '');
const cssColor = (value: string | undefined) => (value && /^(#[0-9a-fA-F]{3,8}|[a-zA-Z]{1,30})$/.test(value) ? value : undefined);

/**
 * A hosted page (no script): the hosted login, styled by the client's UI configuration (title, logo, favicon,
 * background, theme variables — `--kw-accent` colours the buttons —, support and alternative sign-in links, the
 * "Secured by Keyway" badge), and the password reset page.
 */
export function page(reply: FastifyReply, status: number, title: string, body: string, ui?: UiConfiguration, redirectUri?: string) {
  const heading = ui?.pageTitle ?? ui?.title ?? title;
  const logoUrl = ui?.logoUrl ?? ui?.logo_url;
  const logo = logoUrl ? `<img src="${escapeHtml(logoUrl)}" alt="" style="max-height:3rem">` : '';
  const accent = ui?.themeVars?.['kw-accent'] ?? ui?.primary_color;
  const vars = Object.entries({ ...ui?.themeVars, ...(accent ? { 'kw-accent': accent } : {}) }).map(cssVar).join('');
  const background = cssColor(ui?.pageBackgroundColor);
  const favicon = ui?.faviconUrl ? `<link rel="icon" href="${escapeHtml(ui.faviconUrl)}">` : '';
  const links = [
    ui?.alternativeAuthURL ? `<p><a href="${escapeHtml(ui.alternativeAuthURL)}">Sign in another way</a></p>` : '',
    ui?.supportURL ? `<p><a href="${escapeHtml(ui.supportURL)}">Need help?</a></p>` : '',
    (ui?.showBadge ?? ui?.show_keyway_branding) !== false ? '<p class="badge">Secured by Keyway</p>' : '',
  ].join('');
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('content-security-policy', hostedLoginCsp(redirectUri))
    .send(`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(heading)}</title>${favicon}
<style>:root{${vars}}body{font-family:var(--kw-font,system-ui,sans-serif);color:var(--kw-text,inherit);max-width:24rem;margin:4rem auto;padding:0 1rem${background ? `;background:${background}` : ''}}input,button{font:inherit;padding:.5rem;width:100%;box-sizing:border-box;margin:.25rem 0}.error{color:#b00020}.badge{font-size:.8rem;color:#57606a}${accent ? 'button{background:var(--kw-accent);color:#fff;border:0;border-radius:4px}' : ''}</style></head>
<body>${logo}<h1>${escapeHtml(heading)}</h1>${body}${links}</body></html>`);
}
