import type { FastifyReply } from 'fastify';

// The HTML the server renders itself (sign-in link landing, SSO returns, hosted login, dev mailbox) starts here.

/** Text made safe for HTML content and attribute values. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** A one-message page: a heading and a paragraph (both escaped), plus an optional trusted script element. */
export function messagePage(title: string, text: string, script = ''): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body style="font-family:system-ui;margin:3rem"><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p>${script}</body></html>`;
}

/**
 * A page with a form and no script (sign-in link confirmation, SSO address proof): `body` is trusted HTML the caller
 * built with {@link escapeHtml}. Its CSP allows inline style and forms posting to this server only.
 */
export function sendFormPage(reply: FastifyReply, status: number, title: string, body: string): FastifyReply {
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
    .send(`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title></head><body style="font-family:system-ui;margin:3rem;max-width:36rem"><h1>${escapeHtml(title)}</h1>${body}</body></html>`);
}

/** Sends {@link messagePage} with `status`. */
export function sendMessagePage(reply: FastifyReply, status: number, title: string, text: string, script = ''): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(messagePage(title, text, script));
}
