import { randomUUID } from 'node:crypto';
import type { Db } from './db/index.js';

export interface OutgoingMessage {
  orgId: string;
  channel: 'email' | 'sms';
  to: string;
  subject: string;
  text: string;
  html: string;
  code?: string | undefined;
  link?: string | undefined;
}

export interface MailboxEntry {
  id: string;
  channel: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  code: string | null;
  link: string | null;
  created_at: string;
}

/**
 * Delivers sign-in emails and SMS. In development every message lands in the dev mailbox (a table shown at
 * `/dev/mailbox`); in production the mailbox is not exposed.
 */
export class Mailer {
  constructor(private readonly db: Db) {}

  async send(msg: OutgoingMessage): Promise<void> {
    await this.db
      .insertInto('mailbox')
      .values({
        id: randomUUID(),
        org_id: msg.orgId,
        channel: msg.channel,
        to_address: msg.to,
        subject: msg.subject,
        text_body: msg.text,
        html_body: msg.html,
        code: msg.code ?? null,
        link: msg.link ?? null,
        created_at: new Date().toISOString(),
      })
      .execute();
  }

  /** Newest first. */
  async list(filter: { to?: string | undefined; limit: number }): Promise<MailboxEntry[]> {
    let q = this.db.selectFrom('mailbox').selectAll().orderBy('created_at', 'desc').orderBy('id').limit(filter.limit);
    if (filter.to) q = q.where('to_address', '=', filter.to);
    const rows = await q.execute();
    return rows.map((r) => ({
      id: r.id,
      channel: r.channel,
      to: r.to_address,
      subject: r.subject,
      text: r.text_body,
      html: r.html_body,
      code: r.code,
      link: r.link,
      created_at: r.created_at,
    }));
  }
}

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
