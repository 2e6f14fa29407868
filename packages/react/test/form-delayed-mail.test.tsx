import { createServer, type AddressInfo } from 'node:net';
import { cleanup, screen, waitFor } from '@testing-library/react';
import { startTestIdentityServer } from '@keyway/identity-server/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConfigurationProvider, Form } from '../src/index.js';
import { newEmail, type TestServer } from './server.js';
import { enterHandle, enterMailedCode, renderWith } from './ui.js';

const DELAYED = 'Sending the e-mail is taking longer than usual; it will arrive as soon as the mail server answers.';

/** A port nothing listens on: the mail server of these tests is down. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe('Form when the mail server does not answer', () => {
  let server: TestServer;
  beforeAll(async () => {
    const api = await startTestIdentityServer({
      corsOrigins: ['http://localhost:3000'],
      limits: { perHandlePerMinute: 1000, perIpPerMinute: 10_000 },
      smtp: { url: `smtp://127.0.0.1:${await closedPort()}`, from: 'x@keyway.test' },
      mail: { retryBaseMs: 60_000, smtpTimeoutMs: 1000 },
    });
    server = { api, close: () => api.stop() };
  });
  afterAll(() => server.close());
  afterEach(() => {
    cleanup();
    localStorage.clear();
  });

  it('says the code is delayed rather than failing, and the code still signs in', async () => {
    const email = newEmail('delayed');
    const { user } = renderWith(server, <Form />);
    const before = new Date().toISOString();
    await enterHandle(user, email);
    await screen.findByLabelText('Code');
    expect(screen.getByRole('status').textContent).toBe(`We sent a code to ${email}. ${DELAYED}`);
    // The code waits in the outbox (the dev mailbox shows it): once it arrives, it works.
    await enterMailedCode(user, server, email, before);
    expect(await screen.findByText('You are signed in')).toBeTruthy();
  });

  it('says a sign-in link is delayed too', async () => {
    const email = newEmail('delayedlink');
    const form = <Form />;
    const { user } = renderWith(server, <ConfigurationProvider factors={['email_link']}>{form}</ConfigurationProvider>);
    await enterHandle(user, email);
    await waitFor(() => expect(screen.getByRole('status').textContent).toMatch(new RegExp(`^ We sent a link to ${email.replace(/\./g, '\\.')}\\. .* ${DELAYED}$`)));
  });
});
