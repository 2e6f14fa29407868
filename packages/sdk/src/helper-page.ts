/**
 * Script of the hidden cross-origin helper page (`helper.html`, served from `sdkURL`).
 * Answers pings, storage reads and writes of its own origin (for allowed origins only), and
 * WebAuthn ceremonies for passkeys scoped to its site. Bundled into `dist/helper.html`.
 * @internal
 * @module
 */
import { HelperMessageType, type HelperMessage } from './helper.js';
import { credentialToJSON, toCreateOptions, toGetOptions } from './webauthn.js';

/** Origins allowed to use the storage messages: the `keyway-allowed-origins` meta tag (space-separated). @internal */
export function allowedOrigins(doc: Document = document): string[] {
  return (doc.querySelector('meta[name="keyway-allowed-origins"]')?.getAttribute('content') ?? '').split(/\s+/).filter(Boolean);
}

/** Computes the answer to one request. @internal */
export async function answer(m: HelperMessage, origin: string, allowed: string[]): Promise<unknown> {
  const storageAllowed = allowed.includes(origin) || origin === location.origin;
  switch (m.type) {
    case HelperMessageType.Ping:
      return 'pong';
    case HelperMessageType.GetItem:
    case HelperMessageType.SetItem: {
      if (!storageAllowed) throw Object.assign(new Error(`origin ${origin} may not use the Keyway helper storage`), { name: 'SecurityError' });
      const key = 'keyway.' + m.key;
      if (m.type === HelperMessageType.GetItem) return localStorage.getItem(key);
      if (m.value === null || m.value === undefined) localStorage.removeItem(key);
      else localStorage.setItem(key, m.value);
      return null;
    }
    case HelperMessageType.WebAuthnCreate:
    case HelperMessageType.WebAuthnGet: {
      const { options, scope } = m.options as { options: never; scope: string };
      const cred =
        m.type === HelperMessageType.WebAuthnCreate
          ? await navigator.credentials.create({ publicKey: toCreateOptions(options, scope) })
          : await navigator.credentials.get({ publicKey: toGetOptions(options, scope) });
      if (!cred) throw new Error('cannot create credential');
      return credentialToJSON(cred as PublicKeyCredential);
    }
    default:
      throw new Error(`unsupported helper message ${String(m.type)}`);
  }
}

/** Starts answering messages. @internal */
export function listen(): void {
  const allowed = allowedOrigins();
  addEventListener('message', (e: MessageEvent) => {
    const m = e.data as HelperMessage;
    if (m?.keyway !== true || !e.source) return;
    const reply = (extra: Partial<HelperMessage>) =>
      (e.source as Window).postMessage({ keyway: true, id: m.id, type: m.type, ...extra }, e.origin);
    answer(m, e.origin, allowed).then(
      (result) => reply({ result }),
      (err: Error) => reply({ error: { name: err.name, message: err.message } }),
    );
  });
}
