import { randomBytes } from 'node:crypto';
import { generateSecret, generateURI, verify } from 'otplib';
import QRCode from 'qrcode';

export const RECOVERY_CODE_COUNT = 10;

export interface TotpRegistration {
  secret: string;
  key_uri: string;
  qr_code_data_b64: string;
  recovery_codes: string[];
}

/** A new TOTP secret with its otpauth:// URI, the URI as a base64 PNG QR code, and one-time recovery codes. */
export async function newTotpRegistration(issuer: string, label: string): Promise<TotpRegistration> {
  const secret = generateSecret();
  const key_uri = generateURI({ issuer, label, secret });
  const png = await QRCode.toBuffer(key_uri, { type: 'png', errorCorrectionLevel: 'M', margin: 2, width: 240 });
  const recovery_codes = Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const hex = randomBytes(5).toString('hex');
    return `${hex.slice(0, 5)}-${hex.slice(5)}`;
  });
  return { secret, key_uri, qr_code_data_b64: png.toString('base64'), recovery_codes };
}

/**
 * Checks a TOTP code with one period of clock drift either way. Returns the matched time step, which must be
 * greater than the last accepted one (no replay of a code), or undefined.
 */
export async function checkTotp(secret: string, code: string, lastTimeStep: number): Promise<number | undefined> {
  if (!/^\d{6}$/.test(code)) return undefined;
  const res = await verify({ secret, token: code, epochTolerance: 30, afterTimeStep: lastTimeStep });
  return res.valid && 'timeStep' in res ? (res.timeStep as number) : undefined;
}
