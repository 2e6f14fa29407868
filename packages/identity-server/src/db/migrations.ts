import { sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import { growth } from './growth.js';
import { handleProofs } from './handle-proofs.js';
import { revocationFeed } from './revocation-feed.js';
import { mailOutbox } from './mail-outbox.js';
import { apiKeyLookup, externalCredentialKinds, regionNames, ssoAuthenticationIds } from './compat.js';
import type { DialectName } from './dialect.js';

export type { DialectName };

/** 0001, first part: organizations, persons, handles, credentials, challenges. */
async function initialAccounts(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('organizations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('parent_id', 'text', (c) => c.references('organizations.id'))
    .addColumn('org_name', 'text', (c) => c.notNull())
    .addColumn('tenant_name', 'text', (c) => c.notNull())
    .addColumn('settings', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('persons')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('person_type', 'text', (c) => c.notNull())
    .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('region', 'text', (c) => c.notNull())
    .addColumn('groups', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('handles')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('person_id', 'text', (c) => c.notNull().references('persons.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('handles_org_type_value', ['org_id', 'type', 'value'])
    .execute();
  await db.schema.createIndex('handles_person').on('handles').column('person_id').execute();
  await db.schema
    .createTable('credentials')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('person_id', 'text', (c) => c.notNull().references('persons.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('label', 'text', (c) => c.notNull())
    .addColumn('params', 'text', (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_used', 'text')
    .execute();
  await db.schema.createIndex('credentials_person').on('credentials').column('person_id').execute();
  await db.schema
    .createTable('challenges')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('handle_type', 'text')
    .addColumn('handle_value', 'text')
    .addColumn('person_id', 'text')
    .addColumn('secret_hash', 'text')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
}

/** 0001, second part: revoked tokens, signing keys, attributes, consents, events, mailbox. */
async function initialRecords(db: Kysely<any>, dialect: DialectName): Promise<void> {
  await db.schema
    .createTable('revoked_tokens')
    .addColumn('jti', 'text', (c) => c.primaryKey())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('signing_keys')
    .addColumn('kid', 'text', (c) => c.primaryKey())
    .addColumn('alg', 'text', (c) => c.notNull())
    .addColumn('private_jwk', 'text', (c) => c.notNull())
    .addColumn('public_jwk', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('attributes')
    .addColumn('person_id', 'text', (c) => c.notNull().references('persons.id').onDelete('cascade'))
    .addColumn('bucket', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('attributes_pk', ['person_id', 'bucket', 'name'])
    .execute();
  await db.schema
    .createTable('consents')
    .addColumn('person_id', 'text', (c) => c.notNull().references('persons.id').onDelete('cascade'))
    .addColumn('consent_level', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('consents_pk', ['person_id', 'consent_level'])
    .execute();
  let events = db.schema.createTable('events');
  events =
    dialect === 'postgres'
      ? events.addColumn('id', 'serial', (c) => c.primaryKey())
      : events.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
  await events
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('person_id', 'text')
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('events_org_name').on('events').columns(['org_id', 'name']).execute();
  await db.schema
    .createTable('mailbox')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('to_address', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('text_body', 'text', (c) => c.notNull())
    .addColumn('html_body', 'text', (c) => c.notNull())
    .addColumn('code', 'text')
    .addColumn('link', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('mailbox_to').on('mailbox').columns(['to_address', 'created_at']).execute();
}

async function groups(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('groups')
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('groups_pk', ['org_id', 'name'])
    .execute();
}

async function rbacOrgAttributes(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('rbac_permissions')
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('rbac_permissions_pk', ['org_id', 'name'])
    .execute();
  await db.schema
    .createTable('rbac_roles')
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('permissions', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('rbac_roles_pk', ['org_id', 'name'])
    .execute();
  await db.schema
    .createTable('person_grants')
    .addColumn('person_id', 'text', (c) => c.notNull().references('persons.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('person_grants_pk', ['person_id', 'kind', 'name'])
    .execute();
  await db.schema
    .createTable('org_attributes')
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('bucket', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('org_attributes_pk', ['org_id', 'bucket', 'name'])
    .execute();
}

async function webhooks(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('webhooks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('target_url', 'text', (c) => c.notNull())
    .addColumn('custom_headers', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('timeout', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhooks_org').on('webhooks').column('org_id').execute();
  await db.schema
    .createTable('webhook_triggers')
    .addColumn('webhook_id', 'text', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
    .addColumn('trigger_type', 'text', (c) => c.notNull())
    .addColumn('trigger_name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('webhook_triggers_pk', ['webhook_id', 'trigger_type', 'trigger_name'])
    .execute();
  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('webhook_id', 'text', (c) => c.notNull())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text', (c) => c.notNull())
    .addColumn('last_status', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('delivered_at', 'text')
    .execute();
  await db.schema.createIndex('webhook_deliveries_due').on('webhook_deliveries').columns(['status', 'next_attempt_at']).execute();
  await db.schema
    .createTable('webhook_signing_keys')
    .addColumn('kid', 'text', (c) => c.primaryKey())
    .addColumn('private_jwk', 'text', (c) => c.notNull())
    .addColumn('public_jwk', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
}

async function subjectRevocations(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('subject_revocations')
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('revoked_before', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('subject_revocations_pk', ['client_id', 'subject'])
    .execute();
}

async function externalCredentials(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('external_credentials')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('label', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('public_fields', 'text', (c) => c.notNull())
    .addColumn('secret_fields', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('external_credentials_org').on('external_credentials').column('org_id').execute();
}

async function monthlyActive(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('monthly_active')
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('month', 'text', (c) => c.notNull())
    .addColumn('person_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('monthly_active_pk', ['org_id', 'month', 'person_id'])
    .execute();
}

async function ssoOidcTokens(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('sso_oidc_tokens')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('person_id', 'text', (c) => c.notNull().references('persons.id').onDelete('cascade'))
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('issuer', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('token_type', 'text', (c) => c.notNull())
    .addColumn('sealed_tokens', 'text')
    .addColumn('access_token_sha256', 'text')
    .addColumn('refresh_token_sha256', 'text')
    .addColumn('expires_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .addUniqueConstraint('sso_oidc_tokens_person_client', ['org_id', 'person_id', 'client_id'])
    .execute();
  await db.schema.createIndex('sso_oidc_tokens_access').on('sso_oidc_tokens').columns(['org_id', 'access_token_sha256']).execute();
  await db.schema.createIndex('sso_oidc_tokens_refresh').on('sso_oidc_tokens').columns(['org_id', 'refresh_token_sha256']).execute();
}

async function oauthRefreshTokens(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('oauth_refresh_tokens')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('family_id', 'text', (c) => c.notNull())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('person_id', 'text', (c) => c.notNull().references('persons.id').onDelete('cascade'))
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('authentications', 'text', (c) => c.notNull())
    .addColumn('secret_sha256', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('access_jti', 'text', (c) => c.notNull())
    .addColumn('access_expires_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();
  await db.schema.createIndex('oauth_refresh_tokens_family').on('oauth_refresh_tokens').column('family_id').execute();
  await db.schema.createIndex('oauth_refresh_tokens_subject').on('oauth_refresh_tokens').columns(['client_id', 'person_id']).execute();
}

async function tokenParents(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('token_parents')
    .addColumn('jti', 'text', (c) => c.primaryKey())
    .addColumn('parent_jti', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('token_parents_parent').on('token_parents').column('parent_jti').execute();
}

async function guessFailures(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('guess_failures')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('failures', 'integer', (c) => c.notNull())
    .addColumn('locked_until', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}

/**
 * 0012: what replicas on one database share (#23). `settings_version` is one row bumped by every organization write
 * (each replica polls it to drop its cached settings); `rate_windows` holds the sign-in rate-limit counters.
 */
async function sharedState(db: Kysely<any>, dialect: DialectName): Promise<void> {
  await db.schema
    .createTable('settings_version')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('version', 'bigint', (c) => c.notNull())
    .execute();
  await db.insertInto('settings_version').values({ id: 1, version: 0 }).execute();
  // Counters lost in a crash only reset a minute's count: PostgreSQL may skip the write-ahead log for them.
  const rateWindows = db.schema
    .createTable('rate_windows')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('window_start', 'bigint', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull());
  if (dialect === 'postgres') await sql.raw(rateWindows.compile().sql.replace(/^create table/, 'create unlogged table')).execute(db);
  else await rateWindows.execute();
}

/** Versioned schema changes, applied in name order by Kysely's migrator on every start. */
export function migrations(dialect: DialectName): Record<string, Migration> {
  return {
    '0001_initial': {
      async up(db: Kysely<any>) {
        await initialAccounts(db);
        await initialRecords(db, dialect);
      },
    },
    '0002_groups': { up: groups },
    '0003_rbac_org_attributes': { up: rbacOrgAttributes },
    '0004_webhooks': { up: webhooks },
    '0005_subject_revocations': { up: subjectRevocations },
    '0006_external_credentials': { up: externalCredentials },
    '0007_monthly_active': { up: monthlyActive },
    '0008_sso_oidc_tokens': { up: ssoOidcTokens },
    '0009_oauth_refresh_tokens': { up: oauthRefreshTokens },
    '0010_token_parents': { up: tokenParents },
    '0011_guess_failures': { up: guessFailures },
    '0012_shared_state': { up: (db: Kysely<any>) => sharedState(db, dialect) },
    '0013_growth': { up: (db: Kysely<any>) => growth(db, dialect) },
    '0014_region_names': { up: regionNames },
    '0015_external_credential_kinds': { up: externalCredentialKinds },
    '0016_key_lookup_client_usage': { up: (db: Kysely<any>) => apiKeyLookup(db, dialect) },
    '0018_sso_authentication_ids': { up: ssoAuthenticationIds },
    '0019_handle_proofs': { up: handleProofs },
    '0020_refresh_sessions': {
      async up(db: Kysely<any>) {
        await db.schema.alterTable('oauth_refresh_tokens').addColumn('auth_time', 'bigint').execute();
        await db.schema.alterTable('oauth_refresh_tokens').addColumn('session_id', 'text').execute();
      },
    },
    '0021_revocation_feed': { up: revocationFeed },
    '0022_mail_outbox': { up: mailOutbox },
  };
}

export function migrationProvider(dialect: DialectName): MigrationProvider {
  return { getMigrations: async () => migrations(dialect) };
}
