import { escapeHtml } from '../http/html.js';

export const TEMPLATE_NAMES = ['email_link', 'otp_via_email', 'password_reset', 'welcome'] as const;
export type TemplateName = (typeof TEMPLATE_NAMES)[number];

export interface EmailTemplate {
  subject: string;
  html_body: string;
  text_body?: string;
  updated_at?: string;
}

/** The placeholder a template must keep to be of any use. */
export const REQUIRED_PLACEHOLDER: Record<TemplateName, string | undefined> = {
  email_link: 'link',
  otp_via_email: 'code',
  password_reset: 'link',
  welcome: undefined,
};

/** What the server sends when the organization has not replaced a template (the same words as the built-in messages). */
export const DEFAULT_TEMPLATES: Record<TemplateName, EmailTemplate> = {
  otp_via_email: {
    subject: 'Your {{ org_name }} sign-in code: {{ code }}',
    html_body: '<p>Your sign-in code for <b>{{ org_name }}</b> is</p><p style="font-size:28px;letter-spacing:4px"><b>{{ code }}</b></p><p>It expires in {{ minutes }} minutes. If you did not ask for it, ignore this message.</p>',
    text_body: 'Your sign-in code for {{ org_name }} is {{ code }}.\nIt expires in {{ minutes }} minutes. If you did not ask for it, ignore this message.',
  },
  email_link: {
    subject: 'Sign in to {{ org_name }}',
    html_body: '<p>Open this link to sign in to <b>{{ org_name }}</b>:</p><p><a href="{{ link }}">Sign in</a></p><p>It expires in {{ minutes }} minutes. If you did not ask for it, ignore this message.</p>',
    text_body: 'Open this link to sign in to {{ org_name }}:\n{{ link }}\nIt expires in {{ minutes }} minutes. If you did not ask for it, ignore this message.',
  },
  password_reset: {
    subject: 'Set a new {{ org_name }} password',
    html_body: '<p>Set a new password for <b>{{ org_name }}</b>:</p><p><a href="{{ link }}">Choose a new password</a></p><p>The link works for one hour. If you did not expect it, ignore this message.</p>',
    text_body: 'Set a new password for {{ org_name }}: {{ link }}\nThe link works for one hour. If you did not expect it, ignore this message.',
  },
  welcome: {
    subject: 'Welcome to {{ org_name }}',
    html_body: '<p>Welcome to <b>{{ org_name }}</b>.</p>',
    text_body: 'Welcome to {{ org_name }}.',
  },
};

const PLACEHOLDER = /\{\{\s*(code|link|org_name|minutes)\s*\}\}/g;

/** Fills `{{ code }}`, `{{ link }}`, `{{ org_name }}`, `{{ minutes }}` (HTML-escaped in the HTML body). */
export function renderTemplate(t: EmailTemplate, vars: Record<string, string | undefined>): { subject: string; html: string; text: string } {
  const fill = (s: string, escape: boolean) => s.replace(PLACEHOLDER, (_m, name: string) => (escape ? escapeHtml(vars[name] ?? '') : (vars[name] ?? '')));
  const html = fill(t.html_body, true);
  // Without a text body, the HTML's text: line breaks where blocks end, tags dropped, entities of the filled values undone.
  const fromHtml = () =>
    fill(t.html_body, false)
      .replace(/<(br|\/p|\/div|\/h[1-6]|\/li)\b[^>]*>/gi, '\n')
      .replace(/<[^>]+>/g, '')
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean)
      .join('\n');
  const text = t.text_body !== undefined ? fill(t.text_body, false) : fromHtml();
  return { subject: fill(t.subject, false).replace(/[\r\n]+/g, ' '), html, text };
}
