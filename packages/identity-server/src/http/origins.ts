import { allowedRedirectURL } from '@keyway/sdk/redirect';
import type { Ctx, Org } from '../context.js';
import { badRequest } from './errors.js';

/** Whether a browser origin may call the API: a configured CORS origin, or https on an organization's allowed domain. */
export function originAllowed(ctx: Ctx, origin: string, org?: Org): boolean {
  if (ctx.corsOrigins.includes(origin) || origin === new URL(ctx.publicUrl).origin) return true;
  try {
    const u = new URL(origin);
    const domains = org ? new Set(org.settings.allowed_domains ?? []) : ctx.allowedDomains;
    return (u.protocol === 'https:' || ctx.devMode) && domains.has(u.hostname);
  } catch {
    return false;
  }
}

/**
 * The one redirect rule on the server (shared with the site and @keyway/react through `@keyway/sdk/redirect`): `value`
 * is normalized against the server's public URL, then must be http(s) on the server itself, a configured app origin
 * (CORS) or one of the organization's allowed domains. Answers the normalized URL, or a 400 naming `field`.
 */
export function checkRedirect(ctx: Ctx, org: Org, value: unknown, field: string): string {
  const url = allowedRedirectURL(value, ctx.publicUrl, (origin) => originAllowed(ctx, origin, org));
  if (url) return url.href;
  let host = '';
  try {
    host = typeof value === 'string' ? new URL(value, ctx.publicUrl).hostname : '';
  } catch {
    host = '';
  }
  throw badRequest(
    host && /^https?:/i.test(String(value)) && !/[\u0000-\u001f\u007f\\]/.test(String(value))
      ? `${field}: domain "${host}" is not allowed for this organization`
      : `${field} must be an http or https URL on this organization's domains`,
  );
}
