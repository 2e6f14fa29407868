import { escapeHtml } from '../http/html.js';

/**
 * The message templates an organization may replace, named as in the public reference: `email_*` are e-mails,
 * `text_*` SMS. `authn_challenge` is the sign-in link, `otp_message` the one-time code, `password_reset` the link of an
 * organization-initiated password reset, `password_change_notify` the notice after a password change (stored and served;
 * this server sends no such notice yet).
 */
export const TEMPLATE_NAMES = [
  'email_authn_challenge', 'email_otp_message', 'email_password_change_notify', 'email_password_reset',
  'text_authn_challenge', 'text_otp_message', 'text_password_change_notify', 'text_password_reset',
] as const;
export type TemplateName = (typeof TEMPLATE_NAMES)[number];

/** Names this server used before, still accepted in the path: the e-mail template each one always was. */
export const LEGACY_TEMPLATE_NAMES: Record<string, TemplateName> = {
  email_link: 'email_authn_challenge',
  otp_via_email: 'email_otp_message',
  password_reset: 'email_password_reset',
};

export interface EmailTemplate {
  /** E-mail subject (unused by SMS). */
  subject?: string;
  /** The message: HTML for e-mails, plain text for SMS. */
  body: string;
  /** Plain-text alternative of an e-mail (derived from the HTML when absent). */
  text_body?: string;
  /** Display name of the e-mail sender (the `From` header when SMTP is configured). */
  sender_name?: string;
  updated_at?: string;
}

/** A template as stored, also in the form this server stored before (`html_body`, legacy names). */
export type StoredTemplate = Partial<EmailTemplate> & { html_body?: string };

/** The organization's replacement of a template, read from its settings (also when stored under a legacy name). */
export function storedTemplate(stored: Record<string, StoredTemplate> | undefined, name: TemplateName): EmailTemplate | undefined {
  const legacy = Object.entries(LEGACY_TEMPLATE_NAMES).find(([, now]) => now === name)?.[0];
  const t = stored?.[name] ?? (legacy ? stored?.[legacy] : undefined);
  if (!t) return undefined;
  const { html_body, ...rest } = t;
  return { ...rest, body: t.body ?? html_body ?? '' };
}

/** The placeholder a template must keep to be of any use. */
export const REQUIRED_PLACEHOLDER: Record<TemplateName, string | undefined> = {
  email_authn_challenge: 'link',
  email_otp_message: 'code',
  email_password_change_notify: undefined,
  email_password_reset: 'link',
  text_authn_challenge: 'link',
  text_otp_message: 'code',
  text_password_change_notify: undefined,
  text_password_reset: 'link',
};

/** What the server sends when the organization has not replaced a template (the same words as the built-in messages). */
export const DEFAULT_TEMPLATES: Record<TemplateName, EmailTemplate> = {
  email_otp_message: {
    subject: 'Your {{ org_name }} sign-in code: {{ code }}',
    body: '<p>Your sign-in code for <b>{{ org_name }}</b> is</p><p style="font-size:28px;letter-spacing:4px"><b>{{ code }}</b></p><p>It expires in {{ minutes }} minutes. If you did not ask for it, ignore this message.</p>',
    text_body: 'Your sign-in code for {{ org_name }} is {{ code }}.\nIt expires in {{ minutes }} minutes. If you did not ask for it, ignore this message.',
  },
  email_authn_challenge: {
    subject: 'Sign in to {{ org_name }}',
    body: '<p>Open this link to sign in to <b>{{ org_name }}</b>:</p><p><a href="{{ link }}">Sign in</a></p><p>It expires in {{ minutes }} minutes. If you did not ask for it, ignore this message.</p>',
    text_body: 'Open this link to sign in to {{ org_name }}:\n{{ link }}\nIt expires in {{ minutes }} minutes. If you did not ask for it, ignore this message.',
  },
  email_password_reset: {
    subject: 'Set a new {{ org_name }} password',
    body: '<p>Set a new password for <b>{{ org_name }}</b>:</p><p><a href="{{ link }}">Choose a new password</a></p><p>The link works for one hour. If you did not expect it, ignore this message.</p>',
    text_body: 'Set a new password for {{ org_name }}: {{ link }}\nThe link works for one hour. If you did not expect it, ignore this message.',
  },
  email_password_change_notify: {
    subject: 'Your {{ org_name }} password was changed',
    body: '<p>The password of your <b>{{ org_name }}</b> account was changed. If it was not you, recover your account now.</p>',
  },
  text_otp_message: { body: '{{ code }} is your {{ org_name }} sign-in code. It expires in {{ minutes }} min.' },
  text_authn_challenge: { body: 'Sign in to {{ org_name }}: {{ link }}' },
  text_password_reset: { body: 'Set a new password for {{ org_name }}: {{ link }}\nThe link works for one hour. If you did not expect it, ignore this message.' },
  text_password_change_notify: { body: 'The password of your {{ org_name }} account was changed. If it was not you, recover your account now.' },
};

const PLACEHOLDER = /\{\{\s*(code|link|org_name|minutes)\s*\}\}/g;

/** Fills `{{ code }}`, `{{ link }}`, `{{ org_name }}`, `{{ minutes }}` (HTML-escaped in the HTML body). */
export function renderTemplate(t: EmailTemplate, vars: Record<string, string | undefined>): { subject: string; html: string; text: string } {
  const fill = (s: string, escape: boolean) => s.replace(PLACEHOLDER, (_m, name: string) => (escape ? escapeHtml(vars[name] ?? '') : (vars[name] ?? '')));
  const html = fill(t.body, true);
  // Without a text body, the HTML's text: line breaks where blocks end, tags dropped, entities of the filled values undone.
  const fromHtml = () =>
    fill(t.body, false)
      .replace(/<(br|\/p|\/div|\/h[1-6]|\/li)\b[^>]*>/gi, '\n')
      .replace(/<[^>]+>/g, '')
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean)
      .join('\n');
  const text = t.text_body !== undefined ? fill(t.text_body, false) : fromHtml();
  return { subject: fill(t.subject ?? '', false).replace(/[\r\n]+/g, ' '), html, text };
}
