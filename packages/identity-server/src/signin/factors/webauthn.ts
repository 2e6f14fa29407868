import { randomBytes } from 'node:crypto';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type AuthenticatorTransportFuture,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { Ctx } from '../../context.js';
import { nowIso } from '../../context.js';
import { originAllowed } from '../../http/origins.js';
import { answer, badRequest, forbidden, notFound } from '../../http/errors.js';
import { createPerson, findPersonByHandle, getPerson, issueToken, type PersonRow } from '../../persons/persons.js';
import type { Handle } from '../../persons/handles.js';
import { assertHandleAllowed } from '../../persons/proofs.js';
import { loadOrg } from '../../organizations/settings.js';
import type { UserTokenClaims } from '../../tokens/token-service.js';
import type { Schema } from '../../http/wire.js';
import { proofFirst, wantsSignUp } from '../proof-first.js';
import {
  afterProof,
  challengeData,
  checkAnswer,
  createChallenge,
  finishSignIn,
  resolveChallengePerson,
  rowHandle,
  type AttestationHandler,
  type ChallengeData,
  type ChallengeOut,
  type ChallengeRow,
  type Factor,
  type FactorHandler,
  type StartRequest,
} from '../challenges.js';

/**
 * Server-side state of a passkey (public key, signature counter) kept in the credential's secret column. An imported
 * passkey has no `rp_id` until its first sign-in: the authenticator's signature covers the relying party id, so it only
 * verifies for the one it was made for, which is then recorded.
 */
interface PasskeySecret {
  public_key: string;
  counter: number;
  transports: AuthenticatorTransportFuture[];
  rp_id?: string;
}

/** A passkey as stored: registered here, or imported (`public_key`: base64url COSE key). */
export interface Passkey {
  credential_id: string;
  public_key: string;
  counter: number;
  transports?: AuthenticatorTransportFuture[];
  rp_id?: string;
  label: string;
  attestation_type: string;
  aaguid: string;
  clone_warning?: boolean;
}

/** The credentials row of a passkey. */
export function passkeyRow(personId: string, k: Passkey, lastUsed: string | null) {
  const secret: PasskeySecret = { public_key: k.public_key, counter: k.counter, transports: k.transports ?? [], ...(k.rp_id ? { rp_id: k.rp_id } : {}) };
  return {
    id: CREDENTIAL_PREFIX + k.credential_id,
    person_id: personId,
    type: 'public-key',
    label: k.label,
    params: JSON.stringify({
      webauthn_credential_id: k.credential_id,
      public_key: k.public_key,
      attestation_type: k.attestation_type,
      authenticator: { aaguid: k.aaguid, sign_count: k.counter, clone_warning: k.clone_warning ?? false },
    }),
    secret: JSON.stringify(secret),
    created_at: nowIso(),
    last_used: lastUsed,
  };
}

interface WebAuthnData extends ChallengeData {
  webauthn_challenge: string;
  rp_id: string;
  origin: string;
  user_id?: string;
  /** A passkey sign-up with a username: the person is created when the passkey is registered. */
  username_sign_up?: boolean;
}

export const CREDENTIAL_PREFIX = 'passkey:';

/**
 * The relying party id (`scope`, default: the page's hostname) and the page origin. The origin must be one the server
 * allows (CORS origins, its own URL) and the scope must be that origin's host or a parent domain of it.
 */
function relyingParty(ctx: Ctx, r: StartRequest, origin: string | undefined): { rpId: string; origin: string } {
  if (!origin) throw badRequest('passkeys need the Origin header of the page (send the ID request from a browser)');
  if (!originAllowed(ctx, origin, r.org)) throw badRequest(`origin ${origin} is not allowed to use passkeys with this server`);
  const host = new URL(origin).hostname;
  const scope = r.options.scope === undefined ? host : r.options.scope;
  if (typeof scope !== 'string' || !(host === scope || host.endsWith(`.${scope}`)) || !scope.includes('.') && scope !== 'localhost') {
    throw answer('badPasskeyScope');
  }
  return { rpId: scope, origin };
}

async function passkeysOf(ctx: Ctx, personId: string, rpId: string) {
  const rows = await ctx.db.selectFrom('credentials').select(['id', 'secret']).where('person_id', '=', personId).where('type', '=', 'public-key').execute();
  return rows
    .map((r) => ({ id: r.id.slice(CREDENTIAL_PREFIX.length), secret: JSON.parse(r.secret) as PasskeySecret }))
    .filter((c) => !c.secret.rp_id || c.secret.rp_id === rpId);
}

function option<T extends string>(value: unknown, allowed: readonly T[], fallback: T): T {
  return typeof value === 'string' && (allowed as readonly string[]).includes(value) ? (value as T) : fallback;
}

/**
 * The options as the contract types them: the library's types leave `rp.id` optional and its extensions
 * closed, though the options always name the relying party (we pass it) and extensions are an open map on the wire.
 */
const wireCreateOptions = (o: PublicKeyCredentialCreationOptionsJSON, rpId: string): Schema<'WebAuthnCreateOptions'> => {
  const { extensions, ...rest } = o;
  return { ...rest, rp: { ...o.rp, id: rpId }, ...(extensions ? { extensions: { ...extensions } } : {}) };
};
const wireGetOptions = (o: PublicKeyCredentialRequestOptionsJSON, rpId: string): Schema<'WebAuthnGetOptions'> => {
  const { extensions, ...rest } = o;
  return { ...rest, rpId, ...(extensions ? { extensions: { ...extensions } } : {}) };
};

async function createOptions(ctx: Ctx, r: StartRequest, person: PersonRow | undefined, rp: { rpId: string; origin: string }, userName: string, extra: Partial<WebAuthnData> = {}): Promise<ChallengeOut> {
  const userId = person ? Buffer.from(person.id) : randomBytes(16);
  const existing = person ? await passkeysOf(ctx, person.id, rp.rpId) : [];
  const options = await generateRegistrationOptions({
    rpName: r.org.org_name,
    rpID: rp.rpId,
    userName,
    userID: new Uint8Array(userId),
    timeout: ctx.limits.passkeyTimeoutSeconds * 1000,
    attestationType: 'none',
    excludeCredentials: existing.map((c) => ({ id: c.id, transports: c.secret.transports })),
    authenticatorSelection: {
      residentKey: option(r.options.resident_key, ['required', 'preferred', 'discouraged'] as const, 'preferred'),
      userVerification: option(r.options.user_verification, ['required', 'preferred', 'discouraged'] as const, 'preferred'),
      ...(r.options.attachment === 'platform' ? { authenticatorAttachment: 'platform' as const } : {}),
    },
  });
  const data: WebAuthnData = { ...extra, webauthn_challenge: options.challenge, rp_id: rp.rpId, origin: rp.origin, user_id: userId.toString('base64url') };
  if (r.previous) data.previous = r.previous;
  const row = await createChallenge(ctx, { org: r.org, type: 'webauthn_create', method: 'webauthn', handle: r.handle, personId: person?.id, data, ttlSeconds: ctx.limits.passkeyTimeoutSeconds });
  return { id: row.id, type: 'webauthn_create', authentication_method: 'webauthn', options: wireCreateOptions(options, rp.rpId) };
}

async function getOptions(ctx: Ctx, r: StartRequest, rp: { rpId: string; origin: string }, allow: Array<{ id: string; transports?: AuthenticatorTransportFuture[] }>, personId: string | undefined): Promise<ChallengeOut> {
  const userVerification = option(r.options.user_verification, ['required', 'preferred', 'discouraged'] as const, 'preferred');
  const options = await generateAuthenticationOptions({ rpID: rp.rpId, timeout: ctx.limits.passkeyTimeoutSeconds * 1000, userVerification, allowCredentials: allow });
  const data: WebAuthnData = { webauthn_challenge: options.challenge, rp_id: rp.rpId, origin: rp.origin, ...(r.previous ? { previous: r.previous } : {}) };
  const row = await createChallenge(ctx, { org: r.org, type: 'webauthn_get', method: 'webauthn', handle: r.handle, personId, data, ttlSeconds: ctx.limits.passkeyTimeoutSeconds });
  return { id: row.id, type: 'webauthn_get', authentication_method: 'webauthn', options: wireGetOptions(options, rp.rpId) };
}

/**
 * Passkey ids for a handle that has none in this scope: derived from the secrets key, the organization, the handle and
 * the scope, so that the same request always gets the same ids and nobody can tell them from a real person's (the
 * WebAuthn specification's advice against username enumeration, §14.6.2).
 */
function decoyCredentials(ctx: Ctx, orgId: string, handle: Handle, rpId: string) {
  const mac = ctx.sealer.mac(`passkey:${orgId}:${handle.type}:${handle.value}:${rpId}`);
  // Lengths and transports vary as real authenticators' do (platform authenticators 16 to 32 bytes, security keys up to
  // 64; transports as browsers report them, or none), so neither tells a decoy from a real passkey.
  const length = DECOY_LENGTHS[mac[0]! % DECOY_LENGTHS.length]!;
  const id = Buffer.concat([mac, ctx.sealer.mac(`passkey-more:${mac.toString('base64url')}`)]).subarray(0, length);
  return [{ id: id.toString('base64url'), transports: DECOY_TRANSPORTS[mac[1]! % DECOY_TRANSPORTS.length]! }];
}

const DECOY_LENGTHS = [16, 20, 32, 32, 48, 64];
const DECOY_TRANSPORTS: AuthenticatorTransportFuture[][] = [[], ['internal'], ['hybrid', 'internal'], ['internal'], ['usb'], ['nfc', 'usb']];

/**
 * The one answer to a passkey that does not sign in, whatever the reason (#36): a challenge by handle answered for a
 * real passkey with another key, or for a decoy, must not tell the two apart; the reason is logged, never sent.
 */
const PASSKEY_REFUSED = 'passkey could not be verified';

/**
 * `/id` with `webauthn`. Signed in (previous token): a new passkey for the person (or a step-up with theirs), or, for a
 * handle not yet the person's, a sign-in link to the handle first. Signing up: a sign-in link to the handle, then
 * `webauthn_create`.
 * Signing in by handle: `webauthn_get` for every handle, listing the holder's passkeys or decoys (#36: the answer tells
 * nothing about the handle). Without a handle: a discoverable passkey.
 */
const startWebauthn: FactorHandler = {
  async start(ctx, r) {
    const rp = relyingParty(ctx, r, r.origin);
    const prev = r.previous && r.previous.oid === r.org.id ? r.previous : undefined;
    if (!r.handle) {
      const person = prev && (await getPerson(ctx, prev.person_id));
      // A signed-in person adds a passkey.
      if (person) return [await createOptions(ctx, r, person, rp, person.id)];
      // A discoverable passkey (the browser offers what it has for this scope, or the remembered ids).
      const ids = Array.isArray(r.options.available_credential_ids) ? (r.options.available_credential_ids as string[]) : [];
      return [await getOptions(ctx, r, rp, ids.map((id) => ({ id })), undefined)];
    }
    const handle = r.handle;
    const holder = await findPersonByHandle(ctx, r.org.id, handle);
    const keys = await passkeysOf(ctx, holder?.id ?? '', rp.rpId);
    const afterCode = () => proofFirst(ctx, r, (after) => createOptions(ctx, r, undefined, rp, handle.value, { after }));
    if (prev) {
      if (holder?.id !== prev.person_id) return afterCode();
      return [keys.length === 0 ? await createOptions(ctx, r, holder, rp, handle.value) : await getOptions(ctx, r, rp, keys.map((k) => ({ id: k.id, transports: k.secret.transports })), holder.id)];
    }
    if (wantsSignUp(r, keys.length > 0)) {
      if (handle.type !== 'username') return afterCode();
      if (holder) throw answer('personExists');
      if (r.org.settings.self_registration === false) throw answer('selfRegistrationNotAllowed');
      assertHandleAllowed(r.org, handle);
      return [await createOptions(ctx, r, undefined, rp, handle.value, { username_sign_up: true })];
    }
    const allow = keys.length ? keys.map((k) => ({ id: k.id, transports: k.secret.transports })) : decoyCredentials(ctx, r.org.id, handle, rp.rpId);
    return [await getOptions(ctx, r, rp, allow, keys.length ? holder!.id : undefined)];
  },
};

/** Who a new passkey is for: the person its proof signed in (checked first), the signed-in person, or a new username. */
async function passkeySubject(ctx: Ctx, row: ChallengeRow, proved: Awaited<ReturnType<typeof afterProof>> | undefined): Promise<{ person: PersonRow; created: boolean; authentications: UserTokenClaims['authentications'] }> {
  const d = challengeData(row);
  if (proved) return { ...proved, created: false };
  const handle = rowHandle(row);
  if (d.username_sign_up && handle) {
    const org = await loadOrg(ctx, row.org_id);
    if (!org) throw notFound('organization no longer exists');
    if (await findPersonByHandle(ctx, org.id, handle)) throw answer('personExists');
    return { person: await createPerson(ctx, org, { type: 'regular', handle }), created: true, authentications: [] };
  }
  if (!row.person_id) throw forbidden('prove the address first: open the link sent to it');
  const resolved = await resolveChallengePerson(ctx, row);
  return { person: resolved.person, created: resolved.created, authentications: resolved.previous?.authentications ?? [] };
}

const answerWebauthnCreate: AttestationHandler = async (ctx, row, body) => {
  const d = challengeData(row) as WebAuthnData;
  let verified;
  try {
    verified = await verifyRegistrationResponse({
      response: body as unknown as RegistrationResponseJSON,
      expectedChallenge: d.webauthn_challenge,
      expectedOrigin: d.origin,
      expectedRPID: d.rp_id,
      requireUserVerification: false,
    });
  } catch (err) {
    verified = { verified: false as const, reason: (err as Error).message };
  }
  const proved = d.after ? await afterProof(ctx, row) : undefined;
  await checkAnswer(ctx, row, verified.verified, `passkey could not be verified${'reason' in verified ? `: ${verified.reason}` : ''}`);
  const subject = await passkeySubject(ctx, row, proved);
  const info = verified.registrationInfo!;
  const passkey: Passkey = {
    credential_id: info.credential.id,
    public_key: Buffer.from(info.credential.publicKey).toString('base64url'),
    counter: info.credential.counter,
    transports: info.credential.transports ?? [],
    rp_id: d.rp_id,
    label: `Passkey (${d.rp_id})`,
    attestation_type: info.fmt,
    aaguid: info.aaguid,
  };
  const existing = await ctx.db.selectFrom('credentials').select('id').where('id', '=', CREDENTIAL_PREFIX + passkey.credential_id).executeTakeFirst();
  if (existing) throw badRequest('passkey could not be registered: use another one');
  try {
    await ctx.db.insertInto('credentials').values({ ...passkeyRow(subject.person.id, passkey, nowIso()), source: 'sign_in' }).execute();
  } catch (err) {
    // The same id registered at the same moment by another request.
    if (await ctx.db.selectFrom('credentials').select('id').where('id', '=', CREDENTIAL_PREFIX + passkey.credential_id).executeTakeFirst()) throw badRequest('passkey could not be registered: use another one');
    throw err;
  }
  return issueToken(ctx, subject.person, { method: 'webauthn', handle: rowHandle(row)?.value }, { firstToken: subject.created, previous: { authentications: subject.authentications }, oid: row.org_id });
};

const answerWebauthnGet: AttestationHandler = async (ctx, row, body) => {
  const d = challengeData(row) as WebAuthnData;
  const response = body as unknown as AuthenticationResponseJSON;
  const cred = await ctx.db.selectFrom('credentials').selectAll().where('id', '=', CREDENTIAL_PREFIX + String(response.id)).where('type', '=', 'public-key').executeTakeFirst();
  const owner = cred ? await getPerson(ctx, cred.person_id) : undefined;
  // A sign-in by handle names its person (decoys name none: no passkey answers them); a discoverable one takes the owner.
  const byHandle = row.handle_value !== null;
  if (!cred || !owner || owner.org_id !== row.org_id || (byHandle ? row.person_id !== cred.person_id : row.person_id !== null && row.person_id !== cred.person_id)) {
    await checkAnswer(ctx, row, false, PASSKEY_REFUSED);
  }
  const secret = JSON.parse(cred!.secret) as PasskeySecret;
  let ok = false;
  let newCounter = secret.counter;
  try {
    const res = await verifyAuthenticationResponse({
      response,
      expectedChallenge: d.webauthn_challenge,
      expectedOrigin: d.origin,
      expectedRPID: d.rp_id,
      credential: { id: cred!.id.slice(CREDENTIAL_PREFIX.length), publicKey: new Uint8Array(Buffer.from(secret.public_key, 'base64url')), counter: secret.counter, transports: secret.transports },
      requireUserVerification: false,
    });
    ok = res.verified;
    newCounter = res.authenticationInfo.newCounter;
  } catch {
    // Refused below with the one answer for every reason.
  }
  await checkAnswer(ctx, row, ok, PASSKEY_REFUSED);
  const params = JSON.parse(cred!.params) as { authenticator: { sign_count: number; clone_warning: boolean } };
  params.authenticator.sign_count = newCounter;
  await ctx.db
    .updateTable('credentials')
    .set({ secret: JSON.stringify({ ...secret, counter: newCounter, rp_id: secret.rp_id ?? d.rp_id }), params: JSON.stringify(params), last_used: nowIso() })
    .where('id', '=', cred!.id)
    .execute();
  if (!row.person_id) {
    // Discoverable sign-in: the passkey names the person.
    return finishSignIn(ctx, { ...row, person_id: owner!.id }, 'webauthn');
  }
  return finishSignIn(ctx, row, 'webauthn');
};

/** Passkeys (WebAuthn): registration and sign-in. */
export const webauthnFactor: Factor = {
  methods: {
    webauthn: startWebauthn,
  },
  attestations: {
    webauthn_create: answerWebauthnCreate,
    webauthn_get: answerWebauthnGet,
  },
};
