import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  data: string;
}

export interface SmtpSink {
  port: number;
  /** Every message accepted so far, in order. */
  received: ReceivedMail[];
  close(): Promise<void>;
}

/** A real SMTP server (`smtp-server`) on 127.0.0.1 that accepts every message; port 0 picks a free one. */
export async function startSmtpSink(port = 0, received: ReceivedMail[] = []): Promise<SmtpSink> {
  const smtp = new SMTPServer({
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
  await new Promise<void>((resolve, reject) => {
    smtp.server.once('error', reject);
    smtp.listen(port, '127.0.0.1', resolve);
  });
  return { port: (smtp.server.address() as AddressInfo).port, received, close: () => new Promise<void>((r) => smtp.close(() => r())) };
}

/** A port nothing listens on (taken by a listener that is closed again). */
export async function freePort(): Promise<number> {
  const sink = await startSmtpSink();
  await sink.close();
  return sink.port;
}

/** The 6-digit code in a received message's subject. */
export const codeIn = (mail: ReceivedMail) => /^Subject: .*code: (\d{6})/m.exec(mail.data)?.[1];
