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

/** Sends {@link messagePage} with `status`. */
export function sendMessagePage(reply: FastifyReply, status: number, title: string, text: string, script = ''): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(messagePage(title, text, script));
}
