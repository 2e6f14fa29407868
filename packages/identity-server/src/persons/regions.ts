import { badRequest } from '../http/errors.js';

// Data residency regions of persons: the public reference's names, and Keyway's earlier names still accepted on input.

/** The regions a person may live in, as every answer names them. */
export const REGIONS = ['us-iowa', 'europe-belgium', 'europe-england', 'asia-japan', 'australia-sydney'] as const;
export type Region = (typeof REGIONS)[number];
export const DEFAULT_REGION: Region = 'europe-belgium';

/**
 * Keyway's earlier region names → today's; migration 0014 rewrote the stored values with this table (so an entry never
 * changes its meaning, it may only be added). `eu-north` goes to Belgium rather than England: a person placed in the
 * EU stays in the EU.
 */
export const REGION_ALIASES: Readonly<Record<string, Region>> = {
  'us-central': 'us-iowa',
  'eu-west': 'europe-belgium',
  'eu-north': 'europe-belgium',
  'ap-northeast': 'asia-japan',
  'ap-southeast': 'australia-sydney',
};

/** A region as stored: the public name, or the one an earlier name stands for; anything else is a 400 naming it. */
export function regionOf(input: string): Region {
  if ((REGIONS as readonly string[]).includes(input)) return input as Region;
  const alias = REGION_ALIASES[input];
  if (alias) return alias;
  throw badRequest(`unknown region "${input}" (use one of ${REGIONS.join(', ')})`);
}

/** The stored region of an optional input: the default when absent. */
export const regionOrDefault = (input: string | undefined): Region => (input === undefined ? DEFAULT_REGION : regionOf(input));
