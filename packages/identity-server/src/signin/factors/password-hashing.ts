import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import bcrypt from 'bcryptjs';
import { badRequest } from '../../http/errors.js';

const scrypt = (password: string, salt: Buffer, keylen: number, opts: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) => scryptCb(password, salt, keylen, opts, (err, key) => (err ? reject(err) : resolve(key))));

/** One of OWASP's equivalent scrypt settings (N=2^15, r=8, p=3): 32 MiB per hash, a quarter second on a small CPU. */
const PARAMS = { N: 32768, r: 8, p: 3 };
const KEYLEN = 32;

const b64 = (b: Buffer) => b.toString('base64').replace(/=+$/, '');

/** A PHC string: `$scrypt$ln=15,r=8,p=3$<salt>$<hash>` (unpadded base64). */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password.normalize('NFKC'), salt, KEYLEN, { ...PARAMS, maxmem: 64 * 1024 * 1024 });
  return `$scrypt$ln=${Math.log2(PARAMS.N)},r=${PARAMS.r},p=${PARAMS.p}$${b64(salt)}$${b64(key)}`;
}

/** bcrypt's modular crypt format (`$2b$12$` + 53 characters), as other systems export it. */
const BCRYPT = /^\$2[aby]\$(0[4-9]|[12]\d|3[01])\$[./A-Za-z0-9]{53}$/;
const SCRYPT = /^\$scrypt\$ln=(\d+),r=(\d+),p=(\d+)\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

/** Whether a stored hash is in this server's own format (otherwise it was imported and is replaced at the next sign-in). */
export const isNativeHash = (stored: string): boolean => SCRYPT.test(stored);

/**
 * An imported password hash as it will be stored, when this server can verify it: bcrypt (`$2a$`, `$2b$`, `$2y$`,
 * checked with bcryptjs) or this server's scrypt PHC string. Any other format is a 400 naming it.
 */
export function importableHash(hash: string, field = 'params.password_hash'): string {
  if (BCRYPT.test(hash) || SCRYPT.test(hash)) return hash;
  const id = /^\$([A-Za-z0-9-]+)\$/.exec(hash)?.[1] ?? /^([a-z0-9_]+)\$/.exec(hash)?.[1];
  throw badRequest(`${field}: ${id ? `the format "${id}" is` : 'this format is'} not supported; import bcrypt ($2a$, $2b$, $2y$) or scrypt PHC ($scrypt$ln=…,r=…,p=…$salt$hash) hashes, or set the password itself`);
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  // Imported bcrypt hashes were made from the password as typed (no normalization).
  if (BCRYPT.test(stored)) return bcrypt.compare(password, stored);
  const m = /^\$scrypt\$ln=(\d+),r=(\d+),p=(\d+)\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/.exec(stored);
  if (!m) return false;
  const expected = Buffer.from(m[5]!, 'base64');
  const key = await scrypt(password.normalize('NFKC'), Buffer.from(m[4]!, 'base64'), expected.length, {
    N: 2 ** Number(m[1]),
    r: Number(m[2]),
    p: Number(m[3]),
    maxmem: 64 * 1024 * 1024,
  });
  return timingSafeEqual(key, expected);
}

/** A server-sent password rule (§5): the SDK evaluates the same rules before sending. */
export interface PasswordRule {
  name: string;
  pattern: string;
  match_type: 'must_match' | 'must_not_match';
  qualifiers?: Array<'case_insensitive'>;
}

export const PASSWORD_RULES: PasswordRule[] = [
  { name: 'min_length', pattern: '^.{10,}$', match_type: 'must_match' },
  { name: 'max_length', pattern: '^.{129,}$', match_type: 'must_not_match' },
  { name: 'letter', pattern: '[a-z]', match_type: 'must_match', qualifiers: ['case_insensitive'] },
  { name: 'digit', pattern: '[0-9]', match_type: 'must_match' },
  { name: 'no_surrounding_spaces', pattern: '^\\s|\\s$', match_type: 'must_not_match' },
  { name: 'not_common', pattern: '^(password|qwerty|letmein|welcome|keyway)[0-9!]*$', match_type: 'must_not_match', qualifiers: ['case_insensitive'] },
];

/** Names of the rules the password fails (empty when it is acceptable). */
export function failedRules(password: string, rules: PasswordRule[] = PASSWORD_RULES): string[] {
  return rules
    .filter((rule) => {
      const re = new RegExp(rule.pattern, rule.qualifiers?.includes('case_insensitive') ? 'iu' : 'u');
      const matches = re.test(password);
      return rule.match_type === 'must_match' ? !matches : matches;
    })
    .map((r) => r.name);
}
