import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { ConfigurationProvider, Form } from '../src/index.js';
import { answerMailedLink, mailbox, newEmail, serverForSuite } from './server.js';
import { enterHandle, renderWith } from './ui.js';

const server = serverForSuite();

describe('handles other than email addresses, and links', () => {
  it('takes a phone number written with spaces, sends the code by SMS to the normalized number', async () => {
    const onSuccess = vi.fn();
    const { user } = renderWith(
      server,
      <ConfigurationProvider factors={['otp_via_sms']}>
        <Form onSuccess={onSuccess} />
      </ConfigurationProvider>,
    );
    const input = (await screen.findByLabelText('Phone number')) as HTMLInputElement;
    expect(input.type).toBe('tel');
    expect(screen.getByText('International format, e.g. +15551234567').id).toBe(input.getAttribute('aria-describedby'));
    await user.type(input, '12345');
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    expect(screen.getByRole('alert').textContent).toBe('That phone number does not look right. Use the international format, e.g. +15551234567.');
    await user.clear(input);
    const phone = `+1 555 ${String(Date.now()).slice(-3)} ${String(Math.floor(Math.random() * 9000) + 1000)}`;
    const before = new Date().toISOString();
    await user.type(input, phone);
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    const code = await screen.findByLabelText('Code');
    const normalized = phone.replace(/\s/g, '');
    expect(screen.getByRole('status').textContent).toBe(`We sent a code to ${normalized}.`);
    await user.type(code, (await mailbox(server.api, normalized, before)).code!);
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    await screen.findByText('You are signed in');
    expect(onSuccess.mock.calls[0]![0].authenticatedMethods).toEqual(['otp_via_sms']);
  });

  it('asks for the kinds of handle accepted when the field is empty or holds another kind', async () => {
    const { user } = renderWith(
      server,
      <ConfigurationProvider factors={['password']} handles={['email', 'phone']}>
        <Form />
      </ConfigurationProvider>,
    );
    const input = await screen.findByLabelText('Email address or phone number');
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    expect(screen.getByRole('alert').textContent).toBe('Enter your email address or your phone number.');
    await user.type(input, 'just_a_name');
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    expect(screen.getByRole('alert').textContent).toBe('Enter your email address or your phone number.');
    expect(screen.queryByLabelText('Password')).toBeNull();
  });

  it('signs up a username with a password at once (nothing to prove); a taken one is refused, and signing in with it works', async () => {
    const usernameForm = () => (
      <ConfigurationProvider factors={['password']} handles={['username']}>
        <Form />
      </ConfigurationProvider>
    );
    const name = `ada_${Date.now().toString(36)}`;
    const first = renderWith(server, usernameForm());
    await first.user.click(await screen.findByRole('button', { name: 'Create an account' }));
    await enterHandle(first.user, name, 'Username');
    await first.user.type(await screen.findByLabelText('New password'), 'username-pass-1');
    await first.user.type(screen.getByLabelText('Repeat the password'), 'username-pass-1');
    await first.user.click(screen.getByRole('button', { name: 'Continue' }));
    expect(await screen.findByText('You are signed in')).toBeTruthy();
    first.unmount();
    localStorage.clear();

    const second = renderWith(server, usernameForm());
    await second.user.click(await screen.findByRole('button', { name: 'Create an account' }));
    await enterHandle(second.user, name, 'Username');
    expect((await screen.findByRole('alert')).textContent).toBe('An account with this address already exists. Sign in instead.');
    await second.user.click(screen.getByRole('button', { name: 'Try again' }));
    await second.user.click(await screen.findByRole('button', { name: 'Sign in instead' }));
    await second.user.click(screen.getByRole('button', { name: 'Continue' }));
    await second.user.type(await screen.findByLabelText('Password'), 'username-pass-1');
    await second.user.click(screen.getByRole('button', { name: 'Continue' }));
    expect(await screen.findByText('You are signed in')).toBeTruthy();
  });

  it('waits for an emailed link to be opened, then signs in', async () => {
    const email = newEmail('link');
    const { user } = renderWith(
      server,
      <ConfigurationProvider factors={['email_link']}>
        <Form />
      </ConfigurationProvider>,
    );
    const before = new Date().toISOString();
    await enterHandle(user, email);
    await waitFor(() => expect(screen.getByRole('status').textContent).toContain(`We sent a link to ${email}. Open it and confirm that it is you; this page then continues.`));
    // Opening the link alone signs nobody in: its page asks first.
    const { link } = await mailbox(server.api, email, before);
    expect((await fetch(link!)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1500));
    expect(screen.queryByText('You are signed in')).toBeNull();
    expect(await answerMailedLink(server.api, email, before)).toBe(200);
    expect(await screen.findByText('You are signed in', {}, { timeout: 5000 })).toBeTruthy();
  });
});
