import { renderTemplate, storedTemplate, type StoredTemplate, type TemplateName } from './templates.js';
import { escapeHtml } from '../http/html.js';
import { randomUUID } from 'node:crypto';
import nodemailer, { type Transporter } from 'nodemailer';
import type { Db } from '../db/index.js';
import { singleRound } from '../db/rounds.js';

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
  /** How long the message is worth sending (its code or link works that long): a message not sent by then is given up. */
  validForSeconds: number;
}

/** Delivery state of an outbox message. */
export type MailStatus = 'pending' | 'sent' | 'failed';

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
  /** `pending`: the SMTP relay has not taken it yet (retried); `sent`; `failed`: given up (see `last_error`). */
  status: MailStatus;
  attempts: number;
  next_attempt_at: string | null;
  last_error: string | null;
  sent_at: string | null;
}

export interface SmtpOptions {
  /** `smtp://user:pass@host:587` or `smtps://…:465`. */
  url: string;
  /** From address, e.g. `Keyway <no-reply@example.com>`. */
  from: string;
}

export interface MailOptions {
  /** Delay before the first retry of a message the SMTP relay did not take; each further retry doubles it (with jitter). Default 5 s. */
  retryBaseMs?: number;
  /** Longest delay between two retries. Default 60 s. */
  retryMaxMs?: number;
  /** How often due messages are looked for (retries, and those left by a stopped process or another replica). Default 1 s. */
  pollMs?: number;
  /** How long connecting to the relay, its greeting and each silence of the conversation may take. Default 5 s. */
  smtpTimeoutMs?: number;
}

/** What became of a message handed to {@link Mailer.send}: `delayed` when the relay did not take it and it waits for a retry. */
export interface SendOutcome {
  delivery: 'sent' | 'delayed';
}

/** What the server's own pages say when a code or link waits for the mail server (`delayed`). */
export const DELAYED_NOTICE = 'Sending the e-mail is taking longer than usual; it will arrive as soon as the mail server answers.';

type Row = { id: string; attempts: number; expires_at: string | null; last_error: string | null };

const iso = (ms: number) => new Date(ms).toISOString();

/** What a failed SMTP attempt records: nodemailer's error code and message. */
function smtpError(err: unknown): string {
  const e = err as { code?: string; message?: string };
  return `${e.code ? `${e.code}: ` : ''}${e.message ?? String(err)}`.slice(0, 500);
}

/**
 * Delivers sign-in emails and SMS through a durable outbox: every message is first a row of the mailbox table (which
 * development mode shows at `/dev/mailbox`), then sent. Emails go out by SMTP when it is configured: tried at once, and
 * when the relay does not take it the row stays `pending` and is retried in the background with exponential backoff and
 * jitter, across restarts, until it is sent or its code or link expires (`failed`). Without SMTP (and for SMS, which
 * have no gateway yet) delivery is the mailbox itself: the row is `sent` at once.
 *
 * Several processes may share the database: an attempt is claimed first (the row's attempt count moves on and
 * `next_attempt_at` is pushed past the time an attempt may take), so only one process sends each attempt. SMTP
 * itself has no way to tell a message apart from a copy, so a process that stops after the relay took a message and
 * before it recorded it sends it again: delivery is at least once.
 */
export class Mailer {
  private readonly transport: Transporter | undefined;
  private readonly rounds = singleRound(() => this.deliverDue());
  readonly retryBaseMs: number;
  readonly retryMaxMs: number;
  readonly pollMs: number;
  /** How long a claimed attempt is left to its process before another may take it again (3 SMTP timeouts + 2 s). */
  private readonly claimMs: number;

  constructor(
    private readonly db: Db,
    private readonly smtp?: SmtpOptions,
    opts: MailOptions = {},
  ) {
    const timeout = opts.smtpTimeoutMs ?? 5000;
    this.retryBaseMs = Math.max(1, opts.retryBaseMs ?? 5000);
    this.retryMaxMs = Math.max(this.retryBaseMs, opts.retryMaxMs ?? 60_000);
    this.pollMs = opts.pollMs ?? 1000;
    // Connecting, the greeting and each silence of the conversation are bounded by the timeout (nodemailer's connection,
    // greeting and socket timeouts); three of them plus a margin cover an attempt to a relay that answers at all. A
    // process that died mid-attempt leaves its message due again after this (an attempt that trickles on longer may
    // be sent a second time by another process: at least once).
    this.claimMs = 3 * timeout + 2000;
    this.transport = smtp ? nodemailer.createTransport({ url: smtp.url, connectionTimeout: timeout, greetingTimeout: timeout, socketTimeout: timeout }) : undefined;
  }

  /** The sender address of e-mails sent by SMTP (empty when e-mails stay in the mailbox). */
  get fromAddress(): string {
    return this.smtp ? addressOf(this.smtp.from) : '';
  }

  /**
   * Writes the message to the outbox, then sends it. Never fails because the relay is down: the message is kept and
   * retried, and the outcome says `delayed`.
   */
  async send(msg: OutgoingMessage): Promise<SendOutcome> {
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
    const bySmtp = this.transport !== undefined && msg.channel === 'email';
    const now = Date.now();
    const id = randomUUID();
    // By SMTP the row is written with this process's claim on the first attempt; otherwise the mailbox is the delivery.
    await this.db
      .insertInto('mailbox')
      .values({
        id,
        org_id: msg.orgId,
        channel: msg.channel,
        to_address: msg.to,
        subject: msg.subject,
        text_body: msg.text,
        html_body: msg.html,
        code: msg.code ?? null,
        link: msg.link ?? null,
        created_at: iso(now),
        status: bySmtp ? 'pending' : 'sent',
        attempts: bySmtp ? 1 : 0,
        next_attempt_at: bySmtp ? iso(now + this.claimMs) : null,
        expires_at: iso(now + msg.validForSeconds * 1000),
        last_error: null,
        sent_at: bySmtp ? null : iso(now),
        sender_name: senderName ?? null,
      })
      .execute();
    if (!bySmtp) return { delivery: 'sent' };
    const sent = await this.deliver(id, 0);
    return { delivery: sent ? 'sent' : 'delayed' };
  }

  /**
   * One SMTP attempt of a message this process claimed (its attempt count was `attempts` before the claim); records
   * the outcome. Returns whether the relay took it.
   */
  private async deliver(id: string, attempts: number): Promise<boolean> {
    const m = await this.db.selectFrom('mailbox').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    let error: string;
    try {
      const from = m.sender_name ? { name: m.sender_name, address: addressOf(this.smtp!.from) } : this.smtp!.from;
      await this.transport!.sendMail({ from, to: m.to_address, subject: m.subject, text: m.text_body, html: m.html_body });
      await this.db.updateTable('mailbox').set({ status: 'sent', sent_at: iso(Date.now()), next_attempt_at: null, last_error: null }).where('id', '=', id).execute();
      return true;
    } catch (err) {
      error = smtpError(err);
    }
    const now = Date.now();
    const next = now + this.backoff(attempts + 1);
    const expires = m.expires_at ? Date.parse(m.expires_at) : Infinity;
    const giveUp = next >= expires;
    // Only while the claim is still this process's (a slower attempt must not undo a newer one).
    await this.db
      .updateTable('mailbox')
      .set(giveUp ? { status: 'failed', next_attempt_at: null, last_error: `given up: the message expires before its next attempt; last error: ${error}` } : { next_attempt_at: iso(next), last_error: error })
      .where('id', '=', id)
      .where('attempts', '=', attempts + 1)
      .where('status', '=', 'pending')
      .execute();
    return false;
  }

  /** Delay after the `n`th failed attempt: retryBaseMs doubling, capped at retryMaxMs, drawn from its upper half (jitter). */
  backoff(n: number): number {
    const ceiling = Math.min(this.retryBaseMs * 2 ** Math.min(n - 1, 30), this.retryMaxMs);
    return Math.ceil(ceiling / 2 + Math.random() * (ceiling / 2));
  }

  /** Starts a retry round unless one is running (a timer calls it every `pollMs`). */
  kick(): void {
    if (this.transport) this.rounds.kick();
  }

  /** Waits for the round in progress (tests, shutdown). */
  idle(): Promise<void> {
    return this.rounds.idle();
  }

  /** Attempts every message due now, 16 at a time; expired ones are given up without an attempt. */
  async deliverDue(): Promise<void> {
    const roundStart = iso(Date.now());
    for (;;) {
      const due: Row[] = await this.db
        .selectFrom('mailbox')
        .select(['id', 'attempts', 'expires_at', 'last_error'])
        .where('status', '=', 'pending')
        .where('next_attempt_at', '<=', roundStart)
        .orderBy('next_attempt_at')
        .limit(16)
        .execute();
      if (!due.length) return;
      await Promise.all(due.map((r) => this.retry(r)));
    }
  }

  private async retry(r: Row): Promise<void> {
    const now = Date.now();
    if (r.expires_at && Date.parse(r.expires_at) <= now) {
      await this.db
        .updateTable('mailbox')
        .set({ status: 'failed', next_attempt_at: null, last_error: `given up: the message expired before the relay took it; last error: ${r.last_error ?? 'none'}` })
        .where('id', '=', r.id)
        .where('attempts', '=', r.attempts)
        .where('status', '=', 'pending')
        .execute();
      return;
    }
    // The claim: one statement that succeeds for one process only (the attempt count it read must still be there).
    const claimed = await this.db
      .updateTable('mailbox')
      .set({ attempts: r.attempts + 1, next_attempt_at: iso(now + this.claimMs) })
      .where('id', '=', r.id)
      .where('attempts', '=', r.attempts)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    if (Number(claimed.numUpdatedRows) === 1) await this.deliver(r.id, r.attempts);
  }

  /** Closes the SMTP connections (after {@link idle}). */
  close(): void {
    this.transport?.close();
  }

  /** Newest first, pending and failed messages included. */
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
      status: r.status as MailStatus,
      attempts: r.attempts,
      next_attempt_at: r.next_attempt_at,
      last_error: r.last_error,
      sent_at: r.sent_at,
    }));
  }
}

/** The address of a From header (`Name <a@b>` or `a@b`). */
function addressOf(from: string): string {
  return /<([^>]+)>\s*$/.exec(from)?.[1] ?? from.trim();
}
