import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, lastMessage, startTestServer, type TestServer } from './helpers.js';
import { codeIn, freePort, startSmtpSink, type ReceivedMail, type SmtpSink } from './smtp-sink.js';
import { REPLICAS_SKIP_REASON, startReplicas } from './replicas.js';
import { Browser, formField } from './browser-jar.js';

/** Waits until `check` returns a value (every 50 ms, at most `ms`). */
async function until<T>(check: () => Promise<T | undefined> | T | undefined, ms = 10_000): Promise<T> {
  for (const end = Date.now() + ms; ; ) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('gave up waiting');
    await new Promise((r) => setTimeout(r, 50));
  }
}

const FAST = { retryBaseMs: 100, retryMaxMs: 200, pollMs: 50, smtpTimeoutMs: 1000 };

describe('SMTP delivery', () => {
  const received: ReceivedMail[] = [];
  let smtp: SmtpSink;
  let server: TestServer;
  beforeAll(async () => {
    smtp = await startSmtpSink(0, received);
    server = await startTestServer('sqlite', { smtp: { url: `smtp://127.0.0.1:${smtp.port}`, from: 'Keyway Test <no-reply@keyway.test>' } });
  });
  afterAll(async () => {
    await server.stop();
    await smtp.close();
  });

  it('sends the sign-in code by SMTP and still records it in the mailbox', async () => {
    const r = await api(server)('POST', '/id/v2', { handle: 'smtp@example.com', factor: { method: 'otp_via_email' } });
    expect(r.status).toBe(200);
    const { code } = await lastMessage(server, 'smtp@example.com');
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ from: 'no-reply@keyway.test', to: ['smtp@example.com'] });
    expect(received[0]!.data).toContain(code!);
    expect(received[0]!.data).toMatch(/^Subject: Your Keyway Dev sign-in code: \d{6}/m);
  });

  it("writes the template's sender_name as the From name", async () => {
    const KEY = { headers: { 'keyway-api-key': 'kw_dev_api_key_not_secret' } };
    expect((await api(server)('PUT', '/organizations/config/templates/email_otp_message', { sender_name: 'Acme Security' }, KEY)).status).toBe(204);
    try {
      await api(server)('POST', '/id/v2', { handle: 'named@example.com', factor: { method: 'otp_via_email' } });
      const mail = received.find((m) => m.to.includes('named@example.com'))!;
      expect(mail.from).toBe('no-reply@keyway.test');
      expect(mail.data).toMatch(/^From: Acme Security <no-reply@keyway\.test>/m);
    } finally {
      await api(server)('PUT', '/organizations/config/templates/email_otp_message', { sender_name: 'Keyway Test' }, KEY);
    }
  });

  it('keeps a code the SMTP server cannot take, says it is delayed, and sends it once when a server listens again', async () => {
    const port = await freePort();
    const down = await startTestServer('sqlite', { smtp: { url: `smtp://127.0.0.1:${port}`, from: 'x@keyway.test' }, mail: FAST });
    let sink: SmtpSink | undefined;
    try {
      const r = await api(down)('POST', '/id/v2', { handle: 'held@example.com', factor: { method: 'otp_via_email' } });
      expect(r.status).toBe(200);
      expect(r.body.result[0]).toMatchObject({ type: 'otp', options: { delivery_delayed: true } });
      const held = await lastMessage(down, 'held@example.com');
      expect(held).toMatchObject({ status: 'pending' });
      expect(held.last_error).toMatch(/ECONNECTION|ECONNREFUSED/);
      const page = await (await fetch(`${down.url}/dev/mailbox?to=held@example.com`)).text();
      expect(page).toContain('Delivery delayed');

      sink = await startSmtpSink(port);
      const mail = await until(() => sink!.received.find((m) => m.to.includes('held@example.com')));
      expect(codeIn(mail)).toBe(held.code);
      expect(await until(async () => ((await lastMessage(down, 'held@example.com')).status === 'sent' ? true : undefined))).toBe(true);
      await new Promise((r) => setTimeout(r, 300));
      expect(sink.received).toHaveLength(1);
      const att = await api(down)('POST', '/attestation/v3', { challenge_id: r.body.result[0].id, challenge_type: 'otp', data: { otp: codeIn(mail) } });
      expect(att.status).toBe(200);
    } finally {
      await down.stop();
      await sink?.close();
    }
  });

  it('answers a sign-in link with the delayed notice too, and gives up a message once its code has expired', async () => {
    const down = await startTestServer('sqlite', { smtp: { url: `smtp://127.0.0.1:${await freePort()}`, from: 'x@keyway.test' }, mail: FAST, limits: { codeTtlSeconds: 1 } });
    try {
      const link = await api(down)('POST', '/id/v2', { handle: 'late@example.com', factor: { method: 'email_link' } });
      expect(link.status).toBe(200);
      expect(link.body.result[0]).toMatchObject({ type: 'proxy', options: { challenge_id: link.body.result[0].id, delivery_delayed: true } });
      const failed = await until(async () => {
        const m = await lastMessage(down, 'late@example.com');
        return m.status === 'failed' ? m : undefined;
      });
      expect(failed.last_error).toMatch(/^given up: the message (expired|expires)/);
      expect(failed.attempts).toBeGreaterThan(1);
    } finally {
      await down.stop();
    }
  });

  it("says the delay on the hosted login's code page too", async () => {
    const down = await startTestServer('sqlite', { smtp: { url: `smtp://127.0.0.1:${await freePort()}`, from: 'x@keyway.test' }, mail: FAST });
    try {
      const b = new Browser(down.url);
      const q = new URLSearchParams({ response_type: 'code', client_id: 'keyway-dev-client', redirect_uri: 'http://localhost:3000/callback', scope: 'openid email', state: 's1', code_challenge: 'x'.repeat(43), code_challenge_method: 'S256' });
      const form = await b.fetch(`/oauth2/authorize?${q}`);
      const html = await form.text();
      expect(form.status, html.slice(0, 300)).toBe(200);
      const page = await b.post('/oauth2/login', { request_id: formField(html, 'request_id'), email: 'hosted@example.com' }, 'same-site');
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<p class="notice" role="status">Sending the e-mail is taking longer than usual; it will arrive as soon as the mail server answers.</p>');
    } finally {
      await down.stop();
    }
  });

  it('says nothing of a delay when the message went out', async () => {
    const r = await api(server)('POST', '/id/v2', { handle: 'prompt@example.com', factor: { method: 'otp_via_email' } });
    expect(r.body.result[0].options).toEqual({});
    expect(await lastMessage(server, 'prompt@example.com')).toMatchObject({ status: 'sent', attempts: 1, last_error: null });
  });
});

describe.skipIf(REPLICAS_SKIP_REASON !== undefined)('SMTP outbox shared by replicas (PostgreSQL)', () => {
  it('sends each held message once, though three replicas retry the same outbox', async () => {
    const port = await freePort();
    const r = await startReplicas(3, { limits: { perIpPerMinute: 0, perHandlePerMinute: 0 }, smtp: { url: `smtp://127.0.0.1:${port}`, from: 'x@keyway.test' }, mail: { retryBaseMs: 30, retryMaxMs: 60, pollMs: 20, smtpTimeoutMs: 1000 } });
    let sink: SmtpSink | undefined;
    try {
      const people = Array.from({ length: 12 }, (_, i) => `replica${i}@example.com`);
      for (const [i, email] of people.entries()) {
        const res = await r.calls[i % 3]!('POST', '/id/v2', { handle: email, factor: { method: 'otp_via_email' } });
        expect(res.body.result[0].options).toEqual({ delivery_delayed: true });
      }
      // Every replica retries for a while against the closed port before the relay is back.
      await new Promise((res) => setTimeout(res, 300));
      sink = await startSmtpSink(port);
      await until(() => (new Set(sink!.received.flatMap((m) => m.to)).size === people.length ? true : undefined));
      await new Promise((res) => setTimeout(res, 500));
      expect(people.map((p) => sink!.received.filter((m) => m.to.includes(p)).length)).toEqual(people.map(() => 1));
    } finally {
      await r.stop();
      await sink?.close();
    }
  });
});
