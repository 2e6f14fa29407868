import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../src/db/index.js';
import { purgeExpired } from '../src/db/maintenance.js';
import { RateLimiter, RateLimitError } from '../src/http/rate-limit.js';
import { TokenService } from '../src/tokens/token-service.js';

describe('signing key rotation and purging', () => {
  let db: Db | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    await db?.destroy();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('rotates keys, keeps the old public key while its tokens live, then drops it', async () => {
    dir = mkdtempSync(join(tmpdir(), 'keyway-keys-'));
    db = (await openDatabase({ dataDir: dir })).db;
    const tokens = new TokenService(db, { issuer: 'http://issuer.test', ttlSeconds: 3600, rotationSeconds: 86_400 });
    await tokens.init();
    const claims = { person_id: 'pid:1', oid: 'org', first_token: true, authenticated_methods: ['otp_via_email'], authentications: [{ method: 'otp_via_email' }], person_type: 'regular', groups: [] };
    const old = await tokens.sign(claims);
    const oldIdToken = await tokens.signJwt({ person_id: 'pid:1', oid: 'org', person_type: 'regular' }, { use: 'id', subject: 'pid:1', audience: 'client', alg: 'RS256' });
    // One key per algorithm (ES256 for every token, RS256 for the id_tokens of clients that ask for it), each rotated alike.
    const kidsOf = (alg: string) => tokens.jwks().keys.filter((k) => k.alg === alg).map((k) => k.kid);
    const [first] = kidsOf('ES256');
    const [firstRsa] = kidsOf('RS256');
    expect(first && firstRsa).toBeTruthy();

    // Not due yet: same keys.
    await tokens.rotateIfDue(Date.now() + 3600_000);
    expect(kidsOf('ES256')).toEqual([first]);
    expect(kidsOf('RS256')).toEqual([firstRsa]);

    // Due: a new key of each algorithm signs, the old ones still verify their tokens.
    await tokens.rotateIfDue(Date.now() + 86_400_000 + 1000);
    const kids = kidsOf('ES256');
    expect(kids).toHaveLength(2);
    expect(kids[1]).toBe(first);
    expect(kidsOf('RS256')).toHaveLength(2);
    expect(kidsOf('RS256')[1]).toBe(firstRsa);
    const fresh = await tokens.sign(claims);
    expect(JSON.parse(Buffer.from(fresh.split('.')[0]!, 'base64url').toString()).kid).toBe(kids[0]);
    expect((await tokens.validate(old, 'person')).valid).toBe(true);
    expect((await tokens.validate(oldIdToken, 'revoke')).valid).toBe(true);

    // Once every token of an old key has expired (successor older than the token lifetime), it leaves the JWKS.
    await tokens.rotateIfDue(Date.now() + 86_400_000 + 3600_000 + 5000);
    expect(kidsOf('ES256')).toEqual([kids[0]]);
    expect(kidsOf('RS256')).toHaveLength(1);
    expect((await tokens.validate(old, 'person')).valid).toBe(false);
    expect((await tokens.validate(oldIdToken, 'revoke')).valid).toBe(false);
  });

  it('purges expired challenges, stale revocations and old mailbox messages only', async () => {
    dir = mkdtempSync(join(tmpdir(), 'keyway-purge-'));
    db = (await openDatabase({ dataDir: dir })).db;
    const now = Date.now();
    const iso = (ms: number) => new Date(ms).toISOString();
    const challenge = (id: string, expires: number) => ({ id, org_id: 'o', type: 'otp', method: 'otp_via_email', handle_type: null, handle_value: null, person_id: null, secret_hash: null, attempts: 0, status: 'pending', data: '{}', expires_at: iso(expires), created_at: iso(now) });
    await db.insertInto('challenges').values([challenge('old', now - 2 * 86_400_000), challenge('recent', now - 3600_000), challenge('open', now + 600_000)]).execute();
    await db.insertInto('revoked_tokens').values([{ jti: 'gone', expires_at: iso(now - 1000), revoked_at: iso(now - 5000) }, { jti: 'live', expires_at: iso(now + 60_000), revoked_at: iso(now) }]).execute();
    const mail = (id: string, at: number) => ({ id, org_id: 'o', channel: 'email', to_address: 'a@b.c', subject: 's', text_body: 't', html_body: 'h', code: null, link: null, created_at: iso(at) });
    await db.insertInto('mailbox').values([mail('m-old', now - 8 * 86_400_000), mail('m-new', now)]).execute();
    expect(await purgeExpired(db, now)).toEqual({ challenges: 1, revoked_tokens: 1, mailbox: 1 });
    expect((await db.selectFrom('challenges').select('id').orderBy('id').execute()).map((r) => r.id)).toEqual(['open', 'recent']);
    expect((await db.selectFrom('revoked_tokens').select('jti').execute()).map((r) => r.jti)).toEqual(['live']);
  });

  it('sweeps rate-limit windows an hour old and keeps the current ones counting', async () => {
    dir = mkdtempSync(join(tmpdir(), 'keyway-purge-'));
    db = (await openDatabase({ dataDir: dir })).db;
    const limiter = new RateLimiter(db);
    const now = Date.now();
    await db.insertInto('rate_windows').values({ key: 'id-handle|old', window_start: now - 2 * 3600_000, count: 9 }).execute();
    await limiter.hit('id-handle', 'current', 2, 'sign-in attempts for this handle');
    await purgeExpired(db, now);
    expect((await db.selectFrom('rate_windows').select('key').execute()).map((r) => r.key)).toEqual(['id-handle|current']);
    await limiter.hit('id-handle', 'current', 2, 'sign-in attempts for this handle');
    const third = await limiter.hit('id-handle', 'current', 2, 'sign-in attempts for this handle').catch((e: unknown) => e);
    expect(third).toBeInstanceOf(RateLimitError);
    expect((third as RateLimitError).retryAfterSeconds).toBeGreaterThan(0);
    expect((third as RateLimitError).retryAfterSeconds).toBeLessThanOrEqual(60);
  });
});
