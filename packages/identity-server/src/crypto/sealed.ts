import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * AES-256-GCM for secrets stored in the database (external credentials). The key comes from `KEYWAY_SECRETS_KEY`
 * (64 hex characters or base64 of 32 bytes) or, when unset, from `<dataDir>/secrets.key`, created on first start with
 * mode 0600. Every sealed value has its own random 96-bit IV and is bound to a context string (organization and
 * record id) through the additional authenticated data, so a value copied to another record does not open.
 */
export class Sealer {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('the secrets key must be 32 bytes (64 hex characters or base64 of 32 bytes)');
  }

  static fromConfig(configured: string | undefined, dataDir: string): Sealer {
    if (configured) {
      const raw = /^[0-9a-fA-F]{64}$/.test(configured) ? Buffer.from(configured, 'hex') : Buffer.from(configured, 'base64');
      return new Sealer(raw);
    }
    const file = join(dataDir, 'secrets.key');
    if (!existsSync(file)) {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, randomBytes(32).toString('hex') + '\n', { mode: 0o600, flag: 'wx' });
    }
    chmodSync(file, 0o600);
    return new Sealer(Buffer.from(readFileSync(file, 'utf8').trim(), 'hex'));
  }

  /**
   * A stable, secret-derived value for `context` (HMAC-SHA-256 under a key derived from the secrets key for this use
   * only): the same input gives the same bytes on every replica sharing the key, and nobody without the key can tell
   * them from random ones (the decoy passkey ids of `/id`).
   */
  mac(context: string): Buffer {
    this.macKey ??= Buffer.from(hkdfSync('sha256', this.key, Buffer.alloc(0), 'keyway decoy values', 32));
    return createHmac('sha256', this.macKey).update(context).digest();
  }

  private macKey: Buffer | undefined;

  seal(value: unknown, context: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(context));
    const data = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
    return ['v1', iv.toString('base64url'), data.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
  }

  open<T>(sealed: string, context: string): T {
    const [version, iv, data, tag] = sealed.split('.');
    if (version !== 'v1' || !iv || data === undefined || !tag) throw new Error('not a sealed value');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(context));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return JSON.parse(Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8')) as T;
  }
}
