import type { SiteFile } from './site-files.js';

/** Origins Google Analytics 4 talks to once gtag.js is on the page. */
const GA_CONNECT = ['https://*.google-analytics.com', 'https://*.analytics.google.com', 'https://*.googletagmanager.com'];

export interface CspOptions {
  /** Origins the pages may call besides their own (the identity server, for sign-in). */
  connectSrc: string[];
}

/** The Content-Security-Policy of one HTML page: exactly its own inline scripts and the script hosts it names. */
export function contentSecurityPolicy(file: SiteFile, options: CspOptions): string {
  const connect = new Set(["'self'", ...options.connectSrc, ...file.scriptOrigins]);
  if (file.scriptOrigins.some((o) => o.endsWith('googletagmanager.com'))) GA_CONNECT.forEach((o) => connect.add(o));
  return [
    "default-src 'self'",
    `script-src 'self' ${[...file.scriptHashes, ...file.scriptOrigins].join(' ')}`.trim(),
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: https:",
    "font-src 'self' data:",
    `connect-src ${[...connect].join(' ')}`,
    "frame-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Strict-Transport-Security of production answers: a year, subdomains included (the identity server sends the same). */
export const HSTS = 'max-age=31536000; includeSubDomains';

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'strict-origin-when-cross-origin',
  'X-Frame-Options': 'DENY',
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), payment=()',
};

/** Hashed build assets never change; pages must be revalidated so a new build shows at once. */
export function cacheControl(rel: string): string {
  if (rel.startsWith('assets/')) return 'public, max-age=31536000, immutable';
  if (rel.endsWith('.html') || rel.endsWith('.json') || rel.endsWith('.xml')) return 'no-cache';
  return 'public, max-age=3600';
}
