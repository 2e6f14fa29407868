import { sql, type Kysely } from 'kysely';
import { REGION_ALIASES } from '../persons/regions.js';
import type { DialectName } from './dialect.js';

// 0014–0016 and 0018: the schema changes of the management API's compatibility with the public reference contract (#24).

/** The SQL of an organization's API key digest, as the lookup index stores it. */
export function apiKeyDigestSql(dialect: DialectName) {
  return dialect === 'postgres' ? sql`(organizations.settings::jsonb ->> 'api_key_sha256')` : sql`json_extract(organizations.settings, '$.api_key_sha256')`;
}

/**
 * 0016: an API key alone names its organization (the public reference contract sends `Keyway-API-Key` without
 * `Keyway-OrgID` on some calls). The digest stays in the settings JSON; an expression index finds it.
 */
export async function apiKeyLookup(db: Kysely<any>, dialect: DialectName): Promise<void> {
  const expr = dialect === 'postgres' ? "((settings::jsonb ->> 'api_key_sha256'))" : "(json_extract(settings, '$.api_key_sha256'))";
  await sql.raw(`create index organizations_api_key on organizations ${expr}`).execute(db);
  // And when each OAuth2 client last obtained tokens (`last_used`), apart from the settings.
  await db.schema
    .createTable('oauth_client_usage')
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('last_used', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('oauth_client_usage_pk', ['org_id', 'client_id'])
    .execute();
}

/** Persons' regions take the public reference's names (Keyway's earlier names stay accepted on input, see persons/regions.ts). */
export async function regionNames(db: Kysely<any>): Promise<void> {
  for (const [old, now] of Object.entries(REGION_ALIASES)) await db.updateTable('persons').set({ region: now }).where('region', '=', old).execute();
}

/**
 * External credentials as the public reference names them: the provider (`generic`, `google`, `onfido`, `shopify`) and
 * the kind of secret (`api_key`, `user_pass` …). Rows stored before are `generic` `json_credentials`.
 */
export async function externalCredentialKinds(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('external_credentials').addColumn('provider', 'text', (c) => c.notNull().defaultTo('generic')).execute();
  await db.schema.alterTable('external_credentials').addColumn('cred_type', 'text', (c) => c.notNull().defaultTo('json_credentials')).execute();
}

/**
 * 0018: each stored SSO sign-in is named by an authentication id (`GET /sso/oidc/tokens`, revoke v2): the id of the
 * challenge that obtained the tokens. Rows stored before take their own id.
 */
export async function ssoAuthenticationIds(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('sso_oidc_tokens').addColumn('authentication_id', 'text').execute();
  await db.updateTable('sso_oidc_tokens').set((eb) => ({ authentication_id: eb.ref('id') })).execute();
}
