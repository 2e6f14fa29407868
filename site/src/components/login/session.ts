import { KeywayClient, User } from '@keyway/sdk';
import type { TokenValidationResponse } from '@keyway/sdk';
import { clearToken, loginHref, readToken } from './storage';
import { runtimeConfig } from '../runtimeConfig';

export { runtimeConfig, type DocsRuntimeConfig } from '../runtimeConfig';

/** An SDK client for the docs organization, analytics off. */
export async function docsClient(): Promise<KeywayClient> {
  const config = await runtimeConfig();
  if (!config.identityUrl || !config.orgId) throw new Error('Sign-in is not configured on this docs server.');
  return new KeywayClient({ baseURL: config.identityUrl, oid: config.orgId, analytics: false });
}

/**
 * Validates a token with the identity server through the SDK, for the docs organization (a token of any other
 * organization is invalid). Throws when the server cannot be asked; answers `{ valid: false }` for an undecodable token.
 */
export async function validateToken(token: string): Promise<TokenValidationResponse> {
  const client = await docsClient();
  try {
    new User(client, token);
  } catch {
    return { valid: false, invalidity_reason: 'token cannot be decoded' } as TokenValidationResponse;
  }
  return client.request<TokenValidationResponse>('POST', '/token/validate', { body: { token }, org: true, token: null });
}

/** Opens the docs server session for a token (the server validates it again). Throws with the server's message. */
export async function openDocsSession(token: string): Promise<void> {
  const res = await fetch('/api/session', {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ token }),
  });
  if (!res.ok) {
    const body = (await res.json().catch(() => ({}))) as { error?: string };
    throw new Error(body.error ?? `The docs server refused the session (HTTP ${res.status}).`);
  }
}

/** Closes the docs server session (the server revokes its token) and forgets the stored token. */
export async function signOut(): Promise<void> {
  const token = readToken();
  clearToken();
  await fetch('/api/session', { method: 'DELETE', credentials: 'same-origin' }).catch(() => undefined);
  if (token) {
    // The server revoked the token of its session; revoke the stored one too in case they differ.
    try {
      const client = await docsClient();
      await new User(client, token).logout();
    } catch {
      // already revoked, expired or undecodable: nothing left to revoke
    }
  }
}

/** Ends the session of an invalid token and sends the visitor to sign in. */
export async function dropInvalidToken(location: Location): Promise<void> {
  clearToken();
  await fetch('/api/session', { method: 'DELETE', credentials: 'same-origin' }).catch(() => undefined);
  location.replace(loginHref(location));
}
