import { screen, waitFor, within  } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { ConfigurationProvider, Form } from '../src/index.js';
import { manage, newEmail, serverForSuite } from './server.js';
import { enterMailedCode, renderWith } from './ui.js';

const server = serverForSuite();

const passwordForm = (onSuccess = vi.fn()) => (
  <ConfigurationProvider factors={['otp_via_email', 'password']}>
    <Form onSuccess={onSuccess} />
  </ConfigurationProvider>
);

async function choosePassword(user: ReturnType<typeof renderWith>['user'], email: string) {
  await user.type(await screen.findByLabelText('Email address'), email);
  await user.click(screen.getByRole('radio', { name: 'Password' }));
  await user.click(screen.getByRole('button', { name: 'Continue' }));
}

describe('Form with a password', () => {
  it('signs up: the server rules are ticked off while typing, a weak or mismatched password is explained, a good one signs in', async () => {
    const onSuccess = vi.fn();
    const email = newEmail('pw');
    const { user } = renderWith(server, passwordForm(onSuccess));
    await choosePassword(user, email);
    expect(await screen.findByRole('heading', { name: 'Choose a password' })).toBeTruthy();
    const input = screen.getByLabelText('New password');
    await waitFor(() => expect(document.activeElement).toBe(input));
    const rule = (name: RegExp) => within(document.querySelector<HTMLElement>('.kw-rules')!).getByText(name).closest('li')!;
    expect(rule(/at least 10 characters/).getAttribute('data-met')).toBe('false');
    await user.type(input, 'abc1');
    expect(rule(/a digit/).getAttribute('data-met')).toBe('true');
    expect(rule(/at least 10 characters/).getAttribute('data-met')).toBe('false');
    await user.type(screen.getByLabelText('Repeat the password'), 'abc1');
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    expect(screen.getByRole('alert').textContent).toBe('That password does not meet the rules: at least 10 characters.');
    await user.type(input, 'defghijk');
    expect(rule(/at least 10 characters/).getAttribute('data-met')).toBe('true');
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    expect(screen.getByRole('alert').textContent).toBe('The two passwords are different.');
    await user.clear(screen.getByLabelText('Repeat the password'));
    await user.type(screen.getByLabelText('Repeat the password'), 'abc1defghijk');
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    expect((await screen.findByText('You are signed in')).getAttribute('role')).toBe('status');
    expect(onSuccess).toHaveBeenCalledOnce();
    expect(onSuccess.mock.calls[0]![0].authenticatedMethods).toContain('password');
  });

  it('verifies: a wrong password says so and asks again; “Forgot your password?” resets it with an emailed code', async () => {
    const email = newEmail('pw2');
    const first = renderWith(server, passwordForm());
    await choosePassword(first.user, email);
    await first.user.type(await screen.findByLabelText('New password'), 'first-pass-1');
    await first.user.type(screen.getByLabelText('Repeat the password'), 'first-pass-1');
    await first.user.click(screen.getByRole('button', { name: 'Continue' }));
    await screen.findByText('You are signed in');
    first.unmount();
    localStorage.clear();

    const { user } = renderWith(server, passwordForm());
    await choosePassword(user, email);
    const pw = await screen.findByLabelText('Password');
    await user.type(pw, 'wrong-pass-1');
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    expect((await screen.findByRole('alert')).textContent).toBe('That password is not right. Try again or reset it.');
    const before = new Date().toISOString();
    await user.click(screen.getByRole('button', { name: 'Forgot your password?' }));
    await enterMailedCode(user, server, email, before);
    expect(await screen.findByRole('heading', { name: 'Choose a new password' })).toBeTruthy();
    await user.type(screen.getByLabelText('New password'), 'second-pass-2');
    await user.type(screen.getByLabelText('Repeat the password'), 'second-pass-2');
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    await screen.findByText('You are signed in');
  });

  it('explains in plain words when the organization refuses the address, and Try again goes back', async () => {
    await manage(server.api, 'PATCH', '/organizations/config', { handle_patterns: ['@example\\.org$'] });
    try {
      const { user } = renderWith(server, passwordForm());
      await choosePassword(user, newEmail('nobody'));
      await user.type(await screen.findByLabelText('New password'), 'good-pass-123');
      await user.type(screen.getByLabelText('Repeat the password'), 'good-pass-123');
      await user.click(screen.getByRole('button', { name: 'Continue' }));
      const alert = await screen.findByRole('alert');
      expect(alert.textContent).toBe('This address cannot be used to sign up here. Use another one or ask your administrator.');
      await user.click(within(alert.parentElement!).getByRole('button', { name: 'Try again' }));
      expect(await screen.findByLabelText('Email address')).toBeTruthy();
    } finally {
      await manage(server.api, 'PATCH', '/organizations/config', { handle_patterns: [] });
    }
  });
});
