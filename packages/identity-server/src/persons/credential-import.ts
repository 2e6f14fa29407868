import { createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { parse as parseOtpauth } from '@otplib/uri';
import { cose, decodeCredentialPublicKey, isoCBOR } from '@simplewebauthn/server/helpers';
import { sha256 } from '../crypto/secrets.js';
import type { Db } from '../db/index.js';
import { badRequest, conflict } from '../http/errors.js';
import type { Schema } from '../http/wire.js';
import { importableHash } from '../signin/factors/password-hashing.js';
import { writePasswordHash } from '../signin/factors/password.js';
import { isTotpCode, type TotpSettings } from '../signin/factors/totp-codes.js';
import { storeTotp, type TotpSecret } from '../signin/factors/totp.js';
import { CREDENTIAL_PREFIX, passkeyRow, type Passkey } from '../signin/factors/webauthn.js';
import { clearPersonFactor } from '../signin/guessing.js';

// Credentials another system made, imported as the public reference sends them (`POST /persons`, `PUT /persons`,
// `POST /persons/{id}/credentials`): a password hash, a passkey (credential id and public key) or a TOTP record. Each
// is checked to be one the sign-in factors can verify before anything is stored; otherwise 400 naming it.

export type CredentialImport = Schema<'CredentialImport'>;
type Kind = 'password' | 'public-key' | 'totp';

/** A checked import, ready to store. */
export type ImportedCredential =
  | { type: 'password'; label: string; hash: string }
  | { type: 'totp'; label: string; secret: TotpSecret; total: number }
  | { type: 'public-key'; passkey: Passkey };

/** The params each type takes (any other answers 400: nothing sent is dropped). */
const PARAMS: Record<Kind, string[]> = {
  password: ['password_hash'],
  'public-key': ['webauthn_credential_id', 'public_key', 'attestation_type', 'authenticator'],
  totp: ['key_uri', 'recovery_codes_total', 'unused_recovery_codes'],
};

const quote = (v: string) => JSON.stringify(v.length > 48 ? `${v.slice(0, 45)}...` : v);

/** The type sent, or the one its params name (absent in the document's shape, where every field is optional). */
function kindOf(c: CredentialImport, at: string): Kind {
  if (c.type) return c.type;
  const given = Object.keys(c.params ?? {});
  const kinds = (Object.keys(PARAMS) as Kind[]).filter((k) => given.some((p) => PARAMS[k].includes(p)));
  if (kinds.length === 1) return kinds[0]!;
  throw badRequest(`${at}type is required when the params do not tell the credential type (password_hash: password; webauthn_credential_id, public_key: public-key; key_uri: totp)`);
}

/** Checks one imported credential; `at` prefixes the names in errors (`credentials[0].`, or nothing). */
export function readCredentialImport(c: CredentialImport, at = ''): ImportedCredential {
  const type = kindOf(c, at);
  const p = c.params ?? {};
  const stray = Object.keys(p).find((k) => !PARAMS[type].includes(k));
  if (stray) throw badRequest(`${at}params.${stray} is not a parameter of a ${type} credential (use ${PARAMS[type].join(', ')})`);
  const need = <K extends keyof typeof p>(name: K): NonNullable<(typeof p)[K]> => {
    const v = p[name];
    if (v === undefined || v === null) throw badRequest(`${at}params.${String(name)} is required to import a ${type} credential`);
    return v as NonNullable<(typeof p)[K]>;
  };
  if (type === 'password') return { type, label: c.label ?? 'Password', hash: importableHash(need('password_hash'), `${at}params.password_hash`) };
  if (type === 'totp') return readTotp(need('key_uri'), p.unused_recovery_codes ?? [], p.recovery_codes_total, c.label ?? 'Authenticator app', at);
  const authenticator = p.authenticator;
  return {
    type,
    passkey: {
      credential_id: credentialId(need('webauthn_credential_id'), `${at}params.webauthn_credential_id`),
      public_key: coseKey(need('public_key'), `${at}params.public_key`),
      counter: authenticator?.sign_count ?? 0,
      label: c.label ?? 'Passkey',
      attestation_type: p.attestation_type ?? 'none',
      aaguid: aaguidOf(authenticator?.aaguid),
      clone_warning: authenticator?.clone_warning ?? false,
    },
  };
}

/** Checks a list of imports: at most one password and one TOTP (a person has one of each), each passkey once. */
export function readCredentialImports(list: CredentialImport[] | undefined): ImportedCredential[] {
  const out = (list ?? []).map((c, i) => readCredentialImport(c, `credentials[${i}].`));
  const seen = new Map<string, number>();
  out.forEach((c, i) => {
    const key = c.type === 'public-key' ? `public-key ${c.passkey.credential_id}` : c.type;
    const first = seen.get(key);
    if (first !== undefined) throw badRequest(`credentials[${i}]: ${c.type === 'public-key' ? 'the same passkey as' : `a person has one ${c.type} credential; so is`} credentials[${first}]`);
    seen.set(key, i);
  });
  return out;
}

/**
 * Stores checked imports for the person in `db` (the caller's transaction): a password or TOTP replaces the person's;
 * a passkey is added, or replaces the same passkey of this person (409 when it belongs to another person).
 */
export async function storeImportedCredentials(db: Db, personId: string, creds: ImportedCredential[]): Promise<void> {
  for (const c of creds) {
    if (c.type === 'password') {
      await writePasswordHash(db, personId, c.hash, c.label, 'management');
      await clearPersonFactor({ db }, personId, 'password');
    } else if (c.type === 'totp') {
      await storeTotp(db, personId, c.secret, { label: c.label, recoveryCodesTotal: c.total, lastUsed: null, source: 'management' });
      await clearPersonFactor({ db }, personId, 'totp');
    } else {
      const id = CREDENTIAL_PREFIX + c.passkey.credential_id;
      const owner = await db.selectFrom('credentials').select('person_id').where('id', '=', id).executeTakeFirst();
      if (owner && owner.person_id !== personId) throw conflict(`webauthn_credential_id ${quote(c.passkey.credential_id)} is a passkey of another person`);
      if (owner) await db.deleteFrom('credentials').where('id', '=', id).execute();
      await db.insertInto('credentials').values({ ...passkeyRow(personId, c.passkey, null), source: 'management' }).execute();
    }
  }
}

// ---------- TOTP ----------

/** An otpauth://totp/ URI with the settings the codes are checked with, and the recovery codes (stored hashed). */
function readTotp(keyUri: string, recovery: string[], total: number | undefined, label: string, at: string): ImportedCredential {
  const field = `${at}params.key_uri`;
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(keyUri)?.[1];
  if (scheme?.toLowerCase() !== 'otpauth') throw badRequest(`${field}: ${scheme ? `scheme "${scheme}"` : 'the value'} is not an otpauth://totp/ URI`);
  let uri;
  try {
    uri = parseOtpauth(keyUri);
  } catch (err) {
    throw badRequest(`${field}: ${(err as Error).message.replace(/^Invalid otpauth URI:.*$/s, 'not a valid otpauth URI')}`);
  }
  if (uri.type !== 'totp') throw badRequest(`${field}: "${uri.type}" (counter-based) codes are not supported; import an otpauth://totp/ URI`);
  const secret = uri.params.secret.toUpperCase().replace(/=+$/, '');
  if (!/^[A-Z2-7]+$/.test(secret)) throw badRequest(`${field}: the secret is not base32 (A-Z, 2-7)`);
  if (secret.length < 16) throw badRequest(`${field}: the secret has ${secret.length * 5} bits; at least 80 are needed`);
  const { algorithm, digits, period } = uri.params;
  if (algorithm && !['sha1', 'sha256', 'sha512'].includes(algorithm)) throw badRequest(`${field}: algorithm "${algorithm}" is not supported (SHA1, SHA256, SHA512)`);
  if (digits !== undefined && ![6, 7, 8].includes(digits)) throw badRequest(`${field}: digits ${digits} is not supported (6, 7 or 8)`);
  if (period !== undefined && !(Number.isInteger(period) && period >= 1 && period <= 3600)) throw badRequest(`${field}: period ${period} is not supported (1 to 3600 seconds)`);
  const settings = { ...(algorithm ? { algorithm } : {}), ...(digits ? { digits } : {}), ...(period ? { period } : {}) } as TotpSettings;
  const hashes = recovery.map((code, i) => {
    const c = code.trim().toLowerCase();
    // The factor takes a code of the authenticator's shape as a TOTP code: such a recovery code could never be used.
    if (isTotpCode(c, settings)) throw badRequest(`${at}params.unused_recovery_codes[${i}] has the shape of an authenticator code (${settings.digits ?? 6} digits) and could not be told from one`);
    return sha256(c);
  });
  const count = total ?? hashes.length;
  if (count < hashes.length) throw badRequest(`${at}params.recovery_codes_total ${count} is less than the ${hashes.length} unused_recovery_codes`);
  return { type: 'totp', label, secret: { secret, last_time_step: 0, recovery_hashes: hashes, ...settings }, total: count };
}

// ---------- passkeys ----------

/** A WebAuthn credential id as browsers give it (base64url); standard base64 accepted. */
function credentialId(value: string, field: string): string {
  const id = value.trim().replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  const bytes = /^[A-Za-z0-9_-]+$/.test(id) ? Buffer.from(id, 'base64url').length : 0;
  if (bytes < 1 || bytes > 1023) throw badRequest(`${field}: ${quote(value)} is not a credential id (base64url of 1 to 1023 bytes)`);
  return id;
}

const AAGUID = /^([0-9a-f]{8})-?([0-9a-f]{4})-?([0-9a-f]{4})-?([0-9a-f]{4})-?([0-9a-f]{12})$/;
const aaguidOf = (value: string | undefined) => (value ? AAGUID.exec(value.toLowerCase())!.slice(1).join('-') : '00000000-0000-0000-0000-000000000000');

const EC_CURVES: Record<number, { crv: string; alg: number }> = { 1: { crv: 'P-256', alg: -7 }, 2: { crv: 'P-384', alg: -35 }, 3: { crv: 'P-521', alg: -36 } };
const b64u = (v: unknown) => Buffer.from(v as Uint8Array).toString('base64url');
const bytesOf = (v: string | undefined) => new Uint8Array(Buffer.from(v ?? '', 'base64url'));

/** A COSE key (as WebAuthn stores it) as a JWK node:crypto reads, which checks the key is a valid one. */
function coseToJwk(key: cose.COSEPublicKey): JsonWebKey {
  const alg = key.get(cose.COSEKEYS.alg);
  if (!cose.isCOSEAlg(alg)) throw new Error(`COSE algorithm ${String(alg)} is not supported`);
  if (cose.isCOSEPublicKeyEC2(key)) {
    const curve = EC_CURVES[key.get(cose.COSEKEYS.crv) ?? 0];
    if (!curve) throw new Error('unsupported curve');
    return { kty: 'EC', crv: curve.crv, x: b64u(key.get(cose.COSEKEYS.x)), y: b64u(key.get(cose.COSEKEYS.y)) };
  }
  if (cose.isCOSEPublicKeyOKP(key) && key.get(cose.COSEKEYS.crv) === cose.COSECRV.ED25519) return { kty: 'OKP', crv: 'Ed25519', x: b64u(key.get(cose.COSEKEYS.x)) };
  if (cose.isCOSEPublicKeyRSA(key)) return { kty: 'RSA', n: b64u(key.get(cose.COSEKEYS.n)), e: b64u(key.get(cose.COSEKEYS.e)) };
  throw new Error('unsupported key type');
}

/** A public key as a COSE key, with the WebAuthn algorithm of its kind (ES256/384/512, EdDSA, RS256). */
function jwkToCose(key: KeyObject, field: string, value: string): Uint8Array {
  const jwk = key.export({ format: 'jwk' });
  const curve = Object.entries(EC_CURVES).find(([, c]) => c.crv === jwk.crv);
  let map: Array<[number, number | Uint8Array]>;
  if (jwk.kty === 'EC' && curve) map = [[1, 2], [3, curve[1].alg], [-1, Number(curve[0])], [-2, bytesOf(jwk.x)], [-3, bytesOf(jwk.y)]];
  else if (jwk.kty === 'OKP' && jwk.crv === 'Ed25519') map = [[1, 1], [3, -8], [-1, 6], [-2, bytesOf(jwk.x)]];
  else if (jwk.kty === 'RSA') map = [[1, 3], [3, -257], [-1, bytesOf(jwk.n)], [-2, bytesOf(jwk.e)]];
  else throw badRequest(`${field}: ${quote(value)} is a key of type ${[key.asymmetricKeyType, jwk.crv].filter(Boolean).join(' ')}; passkeys are verified with EC P-256/P-384/P-521, Ed25519 or RSA keys`);
  return isoCBOR.encode(new Map(map));
}

/**
 * A passkey's public key as this server stores it (base64url COSE key): a COSE key as WebAuthn gives it (base64url or
 * base64), or an SPKI public key (PEM, or base64 DER). Anything else answers 400 naming the field and the value.
 */
function coseKey(value: string, field: string): string {
  const text = value.trim();
  let key: KeyObject;
  let coseBytes: Uint8Array | undefined;
  try {
    if (text.startsWith('-----BEGIN')) key = createPublicKey(text);
    else {
      if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(text)) throw new Error('not base64');
      const bytes = new Uint8Array(Buffer.from(text.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''), 'base64url'));
      // A CBOR map (major type 5) is a COSE key; otherwise DER.
      if (bytes[0] !== undefined && bytes[0] >> 5 === 5) {
        key = createPublicKey({ key: coseToJwk(decodeCredentialPublicKey(bytes)), format: 'jwk' });
        coseBytes = bytes;
      } else key = createPublicKey({ key: Buffer.from(bytes), format: 'der', type: 'spki' });
    }
  } catch {
    throw badRequest(`${field}: ${quote(value)} is not a public key this server can verify with (a COSE key, base64url or base64, or an SPKI key, PEM or base64 DER; EC P-256/P-384/P-521, Ed25519 or RSA)`);
  }
  return b64u(coseBytes ?? jwkToCose(key, field, value));
}
