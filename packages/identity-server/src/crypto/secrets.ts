import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';

/** A 6-digit one-time code. */
export const newOtpCode = () => String(randomInt(0, 1_000_000)).padStart(6, '0');
/** An unguessable URL-safe secret (magic links, recovery codes material). */
export const newSecret = (bytes = 24) => randomBytes(bytes).toString('base64url');

/** Hash bound to the challenge id so one code cannot be replayed against another challenge. */
export function hashSecret(challengeId: string, secret: string): string {
  return createHash('sha256').update(`${challengeId}:${secret}`).digest('hex');
}

export function sha256(s: string): string {
  return createHash('sha256').update(s).digest('hex');
}

/** Constant-time comparison of two hex digests. */
export function sameDigest(a: string, b: string): boolean {
  const ba = Buffer.from(a, 'hex');
  const bb = Buffer.from(b, 'hex');
  return ba.length === bb.length && ba.length > 0 && timingSafeEqual(ba, bb);
}
