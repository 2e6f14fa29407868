import type { Kysely } from 'kysely';

/**
 * 0019 (#36): a handle belongs to a person only once its owner has proved it. Handles say whether and how they were
 * proved; credentials say who made them (a sign-in factor or an import), so that what nobody proved can be undone at
 * the first proof; persons keep their identities at SSO providers. Rows stored before carry nulls: their handles count
 * as unproved, their credentials as of unknown origin (see the README, "Handles belong to who proved them").
 */
export async function handleProofs(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('handles').addColumn('verified_at', 'text').execute();
  await db.schema.alterTable('handles').addColumn('verified_by', 'text').execute();
  await db.schema.alterTable('credentials').addColumn('source', 'text').execute();
  await db.schema
    .createTable('federated_identities')
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('person_id', 'text', (c) => c.notNull().references('persons.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('federated_identities_pk', ['org_id', 'provider', 'subject'])
    .execute();
  await db.schema.createIndex('federated_identities_person').on('federated_identities').column('person_id').execute();
}
