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

/** How an authenticator makes its codes: RFC 6238's defaults (SHA-1, 6 digits, 30 s) unless an imported URI said otherwise. */
export interface TotpSettings {
  algorithm?: 'sha1' | 'sha256' | 'sha512';
  digits?: 6 | 7 | 8;
  period?: number;
}

/** Whether `code` has the shape of a code of these settings (else it may be a recovery code). */
export const isTotpCode = (code: string, settings: TotpSettings = {}): boolean => new RegExp(`^\\d{${settings.digits ?? 6}}$`).test(code);

/**
 * Checks a TOTP code with one period of clock drift either way. Returns the matched time step, which must be
 * greater than the last accepted one (no replay of a code), or undefined.
 */
export async function checkTotp(secret: string, code: string, lastTimeStep: number, settings: TotpSettings = {}): Promise<number | undefined> {
  if (!isTotpCode(code, settings)) return undefined;
  const period = settings.period ?? 30;
  const res = await verify({ secret, token: code, epochTolerance: period, afterTimeStep: lastTimeStep, ...settings });
  return res.valid && 'timeStep' in res ? (res.timeStep as number) : undefined;
}
