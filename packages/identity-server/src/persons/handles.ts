import { answer, badRequest } from '../http/errors.js';
import type { Schema } from '../http/wire.js';

/** A person's handle as the contract names it (`PersonHandle`). */
export type Handle = Schema<'PersonHandle'>;
export type HandleType = Handle['type'];

const EMAIL = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+\.[^\s@<>()[\]\\,;:".]{2,}$/;
const PHONE = /^\+[1-9]\d{6,14}$/;
const USERNAME = /^[A-Za-z0-9][A-Za-z0-9._-]{1,63}$/;
/** Reserved fictional ranges no SMS can reach (e.g. North American 555-01xx numbers). */
const UNREACHABLE_PHONE = /^\+1\d{3}55501\d{2}$/;

/**
 * Reads a handle given either as a plain string (type inferred: `@` → email, leading `+` → phone, else username)
 * or as `{ type, value }`, and normalizes it (emails lower-cased, phone spaces and dashes removed).
 */
export function parseHandle(input: unknown): Handle {
  let type: string | undefined;
  let raw: string;
  if (typeof input === 'string') {
    raw = input.trim();
  } else if (input && typeof input === 'object' && typeof (input as { value?: unknown }).value === 'string') {
    raw = ((input as { value: string }).value).trim();
    type = (input as { type?: unknown }).type as string | undefined;
  } else {
    throw badRequest('handle must be a string or an object with type and value');
  }
  // Handles are compared as people read them (#36): compatibility forms fold (NFKC: a Kelvin sign is a K, full-width
  // letters are letters), and invisible characters (zero-width spaces, direction marks, controls) are refused, so that
  // no two handles look the same and name different persons.
  raw = raw.normalize('NFKC');
  if (/[\p{Cf}\p{Cc}\p{Zl}\p{Zp}]/u.test(raw)) throw badRequest('handle contains an invisible or control character');
  if (raw.length === 0) throw badRequest('handle must not be empty');
  if (raw.length > 320) throw badRequest('handle is longer than 320 characters');
  if (!type) type = raw.includes('@') ? 'email_address' : /^\+/.test(raw) ? 'phone_number' : 'username';
  switch (type) {
    case 'email_address': {
      const value = raw.toLowerCase();
      if (!EMAIL.test(value)) throw answer('malformedEmail', { handle: raw });
      return { type, value };
    }
    case 'phone_number': {
      const value = raw.replace(/[\s().-]/g, '');
      if (!PHONE.test(value)) throw answer('malformedPhone');
      return { type, value };
    }
    case 'username': {
      if (!USERNAME.test(raw)) {
        throw badRequest('malformed username: use 2 to 64 letters, digits, dots, dashes or underscores');
      }
      return { type, value: raw.toLowerCase() };
    }
    default:
      throw badRequest(`unknown handle type "${type}": use email_address, phone_number or username`);
  }
}

/** Throws 400 `unreachable phone number` for numbers no message can be delivered to. */
export function assertReachable(handle: Handle): void {
  if (handle.type === 'phone_number' && UNREACHABLE_PHONE.test(handle.value)) throw answer('unreachablePhone');
}
