import { renderTemplate, storedTemplate, type StoredTemplate, type TemplateName } from './templates.js';
import { escapeHtml } from '../http/html.js';
import { randomUUID } from 'node:crypto';
import nodemailer, { type Transporter } from 'nodemailer';
import type { Db } from '../db/index.js';
import { ApiError } from '../http/errors.js';

export interface OutgoingMessage {
  orgId: string;
  channel: 'email' | 'sms';
  to: string;
  subject: string;
  text: string;
  html: string;
  code?: string | undefined;
  link?: string | undefined;
  /** Template the organization may have replaced (`PUT /organizations/config/templates/{name}`); its placeholders get `vars`. */
  template?: { name: TemplateName; vars: Record<string, string | undefined> };
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

export interface SmtpOptions {
  /** `smtp://user:pass@host:587` or `smtps://…:465`. */
  url: string;
  /** From address, e.g. `Keyway <no-reply@example.com>`. */
  from: string;
}

/**
 * Delivers sign-in emails and SMS. Every message is recorded in the mailbox table, which development mode shows at
 * `/dev/mailbox`; emails also go out by SMTP when it is configured. (SMS have no gateway yet: only the mailbox.)
 */
export class Mailer {
  private readonly transport: Transporter | undefined;

  constructor(
    private readonly db: Db,
    private readonly smtp?: SmtpOptions,
  ) {
    this.transport = smtp ? nodemailer.createTransport(smtp.url) : undefined;
  }

  /** The sender address of e-mails sent by SMTP (empty when e-mails stay in the mailbox). */
  get fromAddress(): string {
    return this.smtp ? addressOf(this.smtp.from) : '';
  }

  async send(msg: OutgoingMessage): Promise<void> {
    let senderName: string | undefined;
    if (msg.template) {
      const org = await this.db.selectFrom('organizations').select('settings').where('id', '=', msg.orgId).executeTakeFirst();
      const custom = org ? storedTemplate((JSON.parse(org.settings) as { email_templates?: Record<string, StoredTemplate> }).email_templates, msg.template.name) : undefined;
      if (custom && msg.channel === 'email') {
        msg = { ...msg, ...renderTemplate(custom, msg.template.vars) };
        senderName = custom.sender_name;
      } else if (custom) {
        // An SMS is the template's body as plain text.
        const { text } = renderTemplate({ body: custom.body, text_body: custom.body }, msg.template.vars);
        msg = { ...msg, text, html: `<p>${escapeHtml(text)}</p>` };
      }
    }
    if (this.transport && msg.channel === 'email') {
      try {
        const from = senderName ? { name: senderName, address: addressOf(this.smtp!.from) } : this.smtp!.from;
        await this.transport.sendMail({ from, to: msg.to, subject: msg.subject, text: msg.text, html: msg.html });
      } catch {
        throw new ApiError(502, 'the e-mail could not be sent: try again later');
      }
    }
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

  close(): void {
    this.transport?.close();
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

/** The address of a From header (`Name <a@b>` or `a@b`). */
function addressOf(from: string): string {
  return /<([^>]+)>\s*$/.exec(from)?.[1] ?? from.trim();
}
