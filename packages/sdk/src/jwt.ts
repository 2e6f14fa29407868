// The one decoder of token claims in Keyway's browser code: the SDK (decodeToken) and the docs site's session display
// (`@keyway/sdk/jwt`, small enough for every page) both read claims with it. It checks nothing: servers verify tokens.

/** The claims of a compact JWT (its payload: base64url of UTF-8 JSON), unverified; `undefined` when it has none. */
export function jwtClaims(token: string): Record<string, unknown> | undefined {
  const payload = token.split('.')[1];
  if (!payload) return undefined;
  try {
    const bin = atob(payload.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(payload.length / 4) * 4, '='));
    const claims: unknown = JSON.parse(new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0))));
    return claims && typeof claims === 'object' ? (claims as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
