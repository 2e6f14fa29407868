import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, lastMessage, startTestServer, type TestServer } from './helpers.js';

describe('SMTP delivery', () => {
  const received: Array<{ from: string; to: string[]; data: string }> = [];
  let smtp: SMTPServer;
  let port: number;
  let server: TestServer;
  beforeAll(async () => {
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      onData(stream, session, done) {
        let data = '';
        stream.on('data', (c: Buffer) => (data += c.toString('utf8')));
        stream.on('end', () => {
          received.push({ from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((r) => r.address), data });
          done();
        });
      },
    });
    await new Promise<void>((r) => smtp.listen(0, '127.0.0.1', r));
    port = (smtp.server.address() as AddressInfo).port;
    server = await startTestServer('sqlite', { smtp: { url: `smtp://127.0.0.1:${port}`, from: 'Keyway Test <no-reply@keyway.test>' } });
  });
  afterAll(async () => {
    await server.stop();
    await new Promise<void>((r) => smtp.close(() => r()));
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

  it('answers 502 with a clear message when the SMTP server is gone', async () => {
    const broken = await startTestServer('sqlite', { smtp: { url: 'smtp://127.0.0.1:9', from: 'x@keyway.test' } });
    try {
      const r = await api(broken)('POST', '/id/v2', { handle: 'lost@example.com', factor: { method: 'otp_via_email' } });
      expect(r.status).toBe(502);
      expect(r.body.errors[0].message).toBe('the e-mail could not be sent: try again later');
    } finally {
      await broken.stop();
    }
  });
});
