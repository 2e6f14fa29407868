import type { AttestationHandler, Factor, FactorHandler } from '../challenges.js';
import { oidcFactor } from './oidc.js';
import { otpAndLinkFactors } from './otp.js';
import { passwordFactor } from './password.js';
import { samlFactor } from './saml.js';
import { totpFactor } from './totp.js';
import { webauthnFactor } from './webauthn.js';
import { oneTimeSignInFactor } from '../one-time-sign-in.js';

/**
 * Every sign-in factor the server offers. A factor that is not listed here cannot be started with `/id` nor answered
 * with `/attestation`: adding one is writing its module and adding it to this list.
 */
export const FACTORS: readonly Factor[] = [otpAndLinkFactors, passwordFactor, totpFactor, webauthnFactor, oidcFactor, samlFactor, oneTimeSignInFactor];

/** Finds the factor of an `/id` method and the checker of a challenge type. */
export interface FactorRegistry {
  method(name: string): FactorHandler | undefined;
  attestation(type: string): AttestationHandler | undefined;
}

export function factorRegistry(factors: readonly Factor[] = FACTORS): FactorRegistry {
  const methods = new Map<string, FactorHandler>();
  const attestations = new Map<string, AttestationHandler>();
  for (const f of factors) {
    for (const [name, handler] of Object.entries(f.methods)) methods.set(name, handler);
    for (const [type, handler] of Object.entries(f.attestations)) attestations.set(type, handler);
  }
  return { method: (name) => methods.get(name), attestation: (type) => attestations.get(type) };
}
