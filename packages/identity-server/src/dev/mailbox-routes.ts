import type { FastifyInstance } from 'fastify';
import type { Ctx } from '../context.js';
import { escapeHtml } from '../http/html.js';
import type { MailboxEntry } from '../email/mailer.js';

/** A message the SMTP relay has not taken (yet): what became of it. Nothing for a sent one. */
function deliveryLine(m: MailboxEntry): string {
  if (m.status === 'sent') return '';
  const what = m.status === 'pending' ? `Delivery delayed: ${m.attempts} attempt(s), next at ${m.next_attempt_at ?? '?'}` : `Not delivered (given up after ${m.attempts} attempt(s))`;
  return `<p class="${m.status}">${escapeHtml(what)}${m.last_error ? ` · ${escapeHtml(m.last_error)}` : ''}</p>`;
}

/**
 * The development mailbox: every email and SMS the server sent or keeps in its outbox, newest first, with the delivery
 * state of those the SMTP relay has not taken. Only registered in dev mode.
 */
export function registerDevRoutes(app: FastifyInstance, ctx: Ctx): void {
  const query = {
    type: 'object',
    additionalProperties: false,
    properties: { to: { type: 'string', maxLength: 320 }, limit: { type: 'integer', minimum: 1, maximum: 500 } },
  };
  app.get<{ Querystring: { to?: string; limit?: number } }>('/dev/mailbox.json', { schema: { querystring: query } }, async (req) => {
    const to = req.query.to?.trim().toLowerCase();
    return { result: await ctx.mailer.list({ to, limit: req.query.limit ?? 50 }) };
  });
  app.get<{ Querystring: { to?: string; limit?: number } }>('/dev/mailbox', { schema: { querystring: query } }, async (req, reply) => {
    const to = req.query.to?.trim().toLowerCase();
    const messages = await ctx.mailer.list({ to, limit: req.query.limit ?? 50 });
    const items = messages
      .map(
        (m) => `<article>
  <header><b>${escapeHtml(m.subject)}</b> <span class="meta">${m.channel} to ${escapeHtml(m.to)} · ${escapeHtml(m.created_at)}</span></header>
  ${deliveryLine(m)}
  ${m.code ? `<p class="code">Code: <code>${escapeHtml(m.code)}</code></p>` : ''}
  ${m.link ? `<p><a href="${escapeHtml(m.link)}">Open the sign-in link</a></p>` : ''}
  <pre>${escapeHtml(m.text)}</pre>
</article>`,
      )
      .join('\n');
    reply.type('text/html; charset=utf-8');
    return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="5"><title>Keyway dev mailbox</title>
<style>body{font-family:system-ui,sans-serif;max-width:50rem;margin:2rem auto;padding:0 1rem}article{border:1px solid #ccc;border-radius:6px;padding:.75rem 1rem;margin:1rem 0}.meta{color:#666;font-size:.85em}.code code{font-size:1.5em;letter-spacing:.2em}.pending{color:#8a5a00}.failed{color:#b00020}pre{white-space:pre-wrap}</style>
</head><body>
<h1>Dev mailbox</h1>
<p>Emails and SMS sent by this development server, newest first, with those still waiting for the mail server (refreshes every 5 s). JSON: <a href="/dev/mailbox.json">/dev/mailbox.json</a>.</p>
${items || '<p>No messages yet. Sign in with any email address and the code appears here.</p>'}
</body></html>`;
  });
}
