// A browser as far as the identity server can tell (a cookie jar with SameSite rules, redirects not followed), and the
// fields of the hosted login's forms: what the OpenID Provider suites click through with.

export type FetchInit = NonNullable<Parameters<typeof fetch>[1]>;

/** The value of a hidden (or any) input of an HTML form. */
export function formField(html: string, name: string): string {
  const input = new RegExp(`<input[^>]*\\bname="${name}"[^>]*>`).exec(html)?.[0];
  const value = input && /\bvalue="([^"]*)"/.exec(input)?.[1];
  if (value === undefined) throw new Error(`the page has no field "${name}": ${html.slice(0, 400)}`);
  return value.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

/** Where a request comes from: a page of the identity server itself, or another site (the client's pages). */
export type Initiator = 'same-site' | 'cross-site';

/**
 * A browser as far as the identity server can tell: it keeps the server's cookies (RFC 6265bis: name, value, path,
 * expiry, SameSite; enough for one host) and sends them back, and never follows redirects (the test reads them).
 * Requests come from another site unless told otherwise (the client's pages send the browser to the server): cookies
 * SameSite=Lax (the default) then go with top-level GET navigations only, never with a cross-site POST.
 */
export class Browser {
  readonly jar = new Map<string, { value: string; path: string; sameSite: 'strict' | 'lax' | 'none' }>();
  /** Every `Set-Cookie` line the server answered, in order. */
  readonly setCookies: string[] = [];

  constructor(private readonly origin: string) {}

  /** Another browser holding the same cookies (a copy of this one's jar, as an attacker or a backup would have). */
  copy(): Browser {
    const other = new Browser(this.origin);
    for (const [k, v] of this.jar) other.jar.set(k, { ...v });
    return other;
  }

  async fetch(url: string | URL, init: FetchInit = {}, from: Initiator = 'cross-site'): Promise<Response> {
    const u = new URL(url, this.origin);
    const headers = new Headers(init.headers);
    const sameOrigin = u.origin === this.origin;
    const safe = !init.method || ['GET', 'HEAD'].includes(init.method.toUpperCase());
    if (sameOrigin) {
      const cookie = [...this.jar]
        .filter(([, c]) => u.pathname === c.path || u.pathname.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`))
        .filter(([, c]) => from === 'same-site' || c.sameSite === 'none' || (c.sameSite === 'lax' && safe))
        .map(([k, c]) => `${k}=${c.value}`)
        .join('; ');
      if (cookie) headers.set('cookie', cookie);
    }
    const res = await fetch(u, { ...init, headers, redirect: 'manual' });
    if (sameOrigin) for (const line of res.headers.getSetCookie()) this.store(line, u);
    return res;
  }

  /** A form post: from the server's own page (the hosted login's forms), or from another site. */
  post(path: string | URL, fields: Record<string, string>, from: Initiator): Promise<Response> {
    return this.fetch(path, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() }, from);
  }

  private store(line: string, from: URL): void {
    this.setCookies.push(line);
    const [pair, ...attributes] = line.split(';').map((s) => s.trim());
    const eq = pair!.indexOf('=');
    if (eq <= 0) return;
    const name = pair!.slice(0, eq);
    const value = pair!.slice(eq + 1);
    const attr = new Map(attributes.map((a) => [a.split('=')[0]!.toLowerCase(), a.includes('=') ? a.slice(a.indexOf('=') + 1) : '']));
    const defaultPath = from.pathname.lastIndexOf('/') > 0 ? from.pathname.slice(0, from.pathname.lastIndexOf('/')) : '/';
    const path = attr.get('path')?.startsWith('/') ? attr.get('path')! : defaultPath;
    const sameSite = (['strict', 'lax', 'none'] as const).find((v) => v === attr.get('samesite')?.toLowerCase()) ?? 'lax';
    const maxAge = attr.has('max-age') ? Number(attr.get('max-age')) : undefined;
    const expires = attr.has('expires') ? Date.parse(attr.get('expires')!) : undefined;
    if ((maxAge !== undefined && maxAge <= 0) || (maxAge === undefined && expires !== undefined && expires <= Date.now())) this.jar.delete(name);
    else this.jar.set(name, { value, path, sameSite });
  }
}
