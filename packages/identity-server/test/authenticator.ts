import { createHash, createSign, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';

const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest();
const b64u = (b: Buffer | Uint8Array) => Buffer.from(b).toString('base64url');

/**
 * A software FIDO2 authenticator (ES256, "none" attestation) that answers the server's WebAuthn options the way a
 * browser's navigator.credentials would, for tests without a browser.
 */
export class SoftAuthenticator {
  private readonly keys = new Map<string, { privateKey: KeyObject; rpId: string; userHandle: string; counter: number }>();

  /**
   * A new passkey for `rpId`, made outside any ceremony (as another system would have registered it): its id, its
   * public key as a COSE key (base64url) and as an SPKI PEM.
   */
  add(rpId: string, userHandle = b64u(randomBytes(16))) {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    const credId = randomBytes(32);
    const cose = isoCBOR.encode(
      new Map<number, number | Uint8Array>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, new Uint8Array(Buffer.from(jwk.x!, 'base64url'))],
        [-3, new Uint8Array(Buffer.from(jwk.y!, 'base64url'))],
      ]),
    );
    this.keys.set(b64u(credId), { privateKey, rpId, userHandle, counter: 0 });
    return { id: b64u(credId), credId, cose, publicKey: b64u(cose), spki: publicKey.export({ format: 'pem', type: 'spki' }).toString() };
  }

  /** A registration answer; `reuseId` registers a new key under an existing credential id (an attacker's replay). */
  create(options: { challenge: string; rp: { id?: string }; user: { id: string } }, origin: string, reuseId?: string) {
    const rpId = options.rp.id ?? new URL(origin).hostname;
    const made = this.add(rpId, options.user.id);
    const credId = reuseId ? Buffer.from(reuseId, 'base64url') : made.credId;
    const { cose } = made;
    const len = Buffer.alloc(2);
    len.writeUInt16BE(credId.length);
    const authData = Buffer.concat([sha256(rpId), Buffer.from([0x45]), Buffer.alloc(4), Buffer.alloc(16), len, credId, Buffer.from(cose)]);
    const attestationObject = isoCBOR.encode(new Map<string, unknown>([['fmt', 'none'], ['attStmt', new Map()], ['authData', new Uint8Array(authData)]]) as never);
    const clientDataJSON = Buffer.from(JSON.stringify({ type: 'webauthn.create', challenge: options.challenge, origin, crossOrigin: false }));
    return {
      id: b64u(credId),
      rawId: b64u(credId),
      type: 'public-key',
      response: { clientDataJSON: b64u(clientDataJSON), attestationObject: b64u(attestationObject), transports: ['internal'] },
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
    };
  }

  /** Answers with `credentialId`, or the first stored passkey of the RP allowed by the options. */
  get(options: { challenge: string; rpId?: string; allowCredentials?: Array<{ id: string }> }, origin: string, credentialId?: string) {
    const rpId = options.rpId ?? new URL(origin).hostname;
    const allowed = options.allowCredentials?.map((c) => c.id) ?? [];
    const id = credentialId ?? [...this.keys.keys()].find((k) => this.keys.get(k)!.rpId === rpId && (allowed.length === 0 || allowed.includes(k)));
    const key = id ? this.keys.get(id) : undefined;
    if (!id || !key) throw new Error('no passkey for this relying party');
    key.counter += 1;
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(key.counter);
    const authData = Buffer.concat([sha256(rpId), Buffer.from([0x05]), counter]);
    const clientDataJSON = Buffer.from(JSON.stringify({ type: 'webauthn.get', challenge: options.challenge, origin, crossOrigin: false }));
    const signature = createSign('SHA256').update(Buffer.concat([authData, sha256(clientDataJSON)])).sign(key.privateKey);
    return {
      id,
      rawId: id,
      type: 'public-key',
      response: { clientDataJSON: b64u(clientDataJSON), authenticatorData: b64u(authData), signature: b64u(signature), userHandle: key.userHandle },
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
    };
  }
}
