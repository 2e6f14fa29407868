import type { KeywayClient } from './client.js';
import { BadPasskeyScopeError, InvalidAuthenticationMethodError, PasskeyPromptError, UnexpectedError } from './errors.js';
import { startFlow, type ChallengeHandler, type ChallengeHandlers, type Flow } from './flow.js';
import { HelperChannel, HelperMessageType } from './helper.js';
import { b64url, fromB64url } from './pkce.js';
import { rememberCredential, rememberedCredentials } from './storage.js';
import type { WebAuthnCreateOptions, WebAuthnFactorOptions, WebAuthnGetOptions } from './types.js';

/** Minimum versions for platform passkeys. */
export const PASSKEY_MINIMUMS = {
  macOS: 13,
  iOS: 16,
  Android: 9,
  Chrome: 108,
  Safari: 16.1,
  Firefox: 122,
  Opera: 97,
  MobileSafari: 16,
} as const;

/** Whether the WebAuthn API exists in this environment. */
export const webauthnAvailable = (): boolean =>
  typeof PublicKeyCredential !== 'undefined' && !!navigator.credentials?.create;

const num = (ua: string, re: RegExp) => {
  const m = re.exec(ua);
  return m ? parseFloat(`${m[1]}.${m[2] ?? 0}`) : undefined;
};

/**
 * Whether the operating system and browser of a user agent meet the platform-passkey minimums:
 * macOS 13, iOS 16 (Mobile Safari 16), Android 9; Chrome 108, Safari 16.1, Firefox 122, Opera 97.
 * A frozen `Mac OS X 10_15_7` (reported by current browsers) is not held against the device.
 */
export function meetsPasskeyMinimums(ua: string): boolean {
  const m = PASSKEY_MINIMUMS;
  const ios = num(ua, /(?:iPhone|iPad|iPod).* OS (\d+)_(\d+)?/);
  if (ios !== undefined) return ios >= m.iOS;
  const android = num(ua, /Android (\d+)(?:\.(\d+))?/);
  if (android !== undefined && android < m.Android) return false;
  const mac = num(ua, /Mac OS X (\d+)[._](\d+)/);
  if (mac !== undefined && !/10[._]15[._]7/.test(ua) && mac < m.macOS) return false;
  const checks: Array<[RegExp, number]> = [
    [/OPR\/(\d+)(?:\.(\d+))?/, m.Opera],
    [/Firefox\/(\d+)(?:\.(\d+))?/, m.Firefox],
    [/Chrom(?:e|ium)\/(\d+)(?:\.(\d+))?/, m.Chrome],
    [/Version\/(\d+)(?:\.(\d+))?.*Safari/, m.Safari],
  ];
  for (const [re, min] of checks) {
    const v = num(ua, re);
    if (v !== undefined) return v >= min;
  }
  return true;
}

/**
 * Whether passkeys bound to this device can be used: a user-verifying platform authenticator is
 * available and the platform meets the minimum versions.
 */
export async function platformAuthenticatorAvailable(): Promise<boolean> {
  if (!webauthnAvailable() || !meetsPasskeyMinimums(navigator.userAgent)) return false;
  return PublicKeyCredential.isUserVerifyingPlatformAuthenticatorAvailable().catch(() => false);
}

const ids = <T extends { id: string }>(list?: T[]) => list?.map((c) => ({ ...c, id: fromB64url(c.id) }));

/** Turns the server's (base64url) creation options into what `navigator.credentials.create` takes. */
export const toCreateOptions = (o: WebAuthnCreateOptions, scope: string): PublicKeyCredentialCreationOptions => ({
  ...o,
  rp: { name: scope, ...o.rp, id: o.rp?.id ?? scope },
  challenge: fromB64url(o.challenge),
  user: { ...o.user, id: fromB64url(o.user.id) },
  excludeCredentials: ids(o.excludeCredentials) as PublicKeyCredentialDescriptor[] | undefined,
});

/** Turns the server's (base64url) request options into what `navigator.credentials.get` takes. */
export const toGetOptions = (o: WebAuthnGetOptions, scope: string): PublicKeyCredentialRequestOptions => ({
  ...o,
  rpId: o.rpId ?? scope,
  challenge: fromB64url(o.challenge),
  allowCredentials: ids(o.allowCredentials) as PublicKeyCredentialDescriptor[] | undefined,
});

/** Serializes a credential for the attestation (binary fields base64url). */
export function credentialToJSON(c: PublicKeyCredential): Record<string, unknown> {
  const r = c.response as AuthenticatorAttestationResponse & AuthenticatorAssertionResponse;
  const enc = (b?: ArrayBuffer | null) => (b ? b64url(b) : undefined);
  return {
    id: c.id,
    rawId: b64url(c.rawId),
    type: c.type,
    authenticatorAttachment: c.authenticatorAttachment ?? undefined,
    clientExtensionResults: c.getClientExtensionResults?.() ?? {},
    response: {
      clientDataJSON: enc(r.clientDataJSON),
      attestationObject: enc(r.attestationObject),
      authenticatorData: enc(r.authenticatorData),
      signature: enc(r.signature),
      userHandle: enc(r.userHandle),
      transports: r.getTransports?.(),
    },
  };
}

/** Maps a browser WebAuthn failure to an SDK error. */
export function passkeyError(e: unknown): unknown {
  const name = (e as Error)?.name;
  if (name === 'SecurityError') return new BadPasskeyScopeError('Passkey scope is invalid');
  if (/NotAllowed|Abort|NotSupported|InvalidState/.test(name)) return new PasskeyPromptError();
  return e;
}

/** Whether `scope` is the hostname or one of its parent domains (so the page itself can use it). */
export const scopeFitsPage = (scope: string, host = location.hostname) => host === scope || host.endsWith('.' + scope);

/**
 * Runs a WebAuthn ceremony in this page, or in the helper window when the scope is not this
 * site's. Returns the serialized credential.
 */
export async function runCeremony(
  client: KeywayClient,
  create: boolean,
  options: WebAuthnCreateOptions | WebAuthnGetOptions,
  scope: string,
): Promise<Record<string, unknown>> {
  if (!scopeFitsPage(scope))
    return (await new HelperChannel(client)
      .webauthn(create ? HelperMessageType.WebAuthnCreate : HelperMessageType.WebAuthnGet, { options, scope })
      .catch((e) => {
        throw passkeyError(e);
      })) as Record<string, unknown>;
  if (!webauthnAvailable()) throw new UnexpectedError('The WebAuthn API is not available in the current environment');
  let cred: Credential | null;
  try {
    cred = create
      ? await navigator.credentials.create({ publicKey: toCreateOptions(options as WebAuthnCreateOptions, scope) })
      : await navigator.credentials.get({ publicKey: toGetOptions(options as WebAuthnGetOptions, scope) });
  } catch (e) {
    throw passkeyError(e);
  }
  if (!cred) throw new UnexpectedError(create ? 'cannot create credential' : 'could not create assert credential');
  return credentialToJSON(cred as PublicKeyCredential);
}

const sharedKey = (scope: string) => 'passkeys.' + scope;

/**
 * Credential ids remembered for `scope`: this site's storage and, for a scope of another site, the
 * storage of the helper origin (shared by every site that uses that scope).
 */
export async function knownCredentials(client: KeywayClient, scope: string): Promise<string[]> {
  const local = rememberedCredentials(scope);
  if (scopeFitsPage(scope)) return local;
  const shared = await new HelperChannel(client)
    .getItem(sharedKey(scope))
    .then((v) => JSON.parse(v ?? '[]') as string[], () => []);
  return [...new Set([...local, ...shared])];
}

/** Remembers a created credential id for the scope (also in the helper origin for another site's scope). */
async function remember(client: KeywayClient, scope: string, id: string): Promise<void> {
  rememberCredential(scope, id);
  if (!scopeFitsPage(scope)) {
    const list = [id, ...(await knownCredentials(client, scope)).filter((c) => c !== id)];
    await new HelperChannel(client).setItem(sharedKey(scope), JSON.stringify(list)).catch(() => {});
  }
}

/** `webauthn_create` and `webauthn_get`: run the ceremony, remember created credential ids for the scope, attest. */
export const webauthnChallenge: ChallengeHandler = async (flow: Flow, ch) => {
  const create = ch.type === 'webauthn_create';
  const scope = (flow.request.factor.options as WebAuthnFactorOptions | undefined)?.scope ?? location.hostname;
  const data = await runCeremony(flow.client, create, ch.options as WebAuthnCreateOptions, scope);
  const credentialId = String(data.id);
  if (create) await remember(flow.client, scope, credentialId);
  flow.emit('webAuthnChallengeProcessed', { challengeId: ch.id, type: ch.type as 'webauthn_create', credentialId });
  return flow.attest(ch, data);
};

/** Handlers of the passkey challenges. */
export const webauthnChallenges = {
  webauthn_create: webauthnChallenge,
  webauthn_get: webauthnChallenge,
} satisfies ChallengeHandlers;

/**
 * Checks the passkey factor options and fills the defaults: scope = current hostname, offered
 * credentials = the ones remembered for the scope (with a `client`, also those kept by the helper
 * origin for a scope of another site).
 * @throws {@link errors.UnexpectedError} without WebAuthn; {@link errors.InvalidAuthenticationMethodError}
 *   `This device has no platform authenticator available` for `attachment: 'platform'` without one.
 */
export async function passkeyFactor(options: WebAuthnFactorOptions = {}, client?: KeywayClient): Promise<WebAuthnFactorOptions> {
  const scope = options.scope ?? location.hostname;
  if (scopeFitsPage(scope)) {
    if (!webauthnAvailable()) throw new UnexpectedError('The WebAuthn API is not available in the current environment');
    if (options.attachment === 'platform' && !(await platformAuthenticatorAvailable()))
      throw new InvalidAuthenticationMethodError('This device has no platform authenticator available');
  }
  const known = options.available_credential_ids ?? (client ? await knownCredentials(client, scope) : rememberedCredentials(scope));
  return { ...options, scope, available_credential_ids: known };
}

/**
 * Signs in (or registers, when the server answers `webauthn_create`) with a passkey.
 * A `handle` registers a passkey for that person; without one the browser offers discoverable passkeys.
 */
export function signInWithPasskey(
  client: KeywayClient,
  options: WebAuthnFactorOptions & { handle?: string; previousToken?: string } = {},
  handlers: ChallengeHandlers = {},
): Flow {
  const { handle, previousToken, ...factorOptions } = options;
  const request = { handle, previousToken, factor: { method: 'webauthn' as const, options: factorOptions } };
  return startFlow(client, 'auth', request, { ...webauthnChallenges, ...handlers }, async (flow) => {
    flow.request.factor = { method: 'webauthn', options: await passkeyFactor(factorOptions, client) };
    return flow.identify();
  });
}
