import { sql, type Kysely } from 'kysely';

/**
 * 0022, the mail outbox: every message is a mailbox row written before it is sent. `status` is `pending` until the SMTP
 * relay took it (`sent`), or `failed` once it was given up (`last_error` says why); `next_attempt_at` is when a pending
 * message is due, `expires_at` when sending it no longer makes sense (its code or link expired). Rows written before
 * this migration were sent already.
 */
export async function mailOutbox(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('mailbox').addColumn('status', 'text', (c) => c.notNull().defaultTo('sent')).execute();
  await db.schema.alterTable('mailbox').addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('mailbox').addColumn('next_attempt_at', 'text').execute();
  await db.schema.alterTable('mailbox').addColumn('expires_at', 'text').execute();
  await db.schema.alterTable('mailbox').addColumn('last_error', 'text').execute();
  await db.schema.alterTable('mailbox').addColumn('sent_at', 'text').execute();
  await db.schema.alterTable('mailbox').addColumn('sender_name', 'text').execute();
  await db.schema.createIndex('mailbox_pending').on('mailbox').column('next_attempt_at').where(sql.ref('status'), '=', 'pending').execute();
}
