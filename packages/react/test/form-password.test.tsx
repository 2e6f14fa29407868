import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { ConfigurationProvider, Form } from '../src/index.js';
import { answerMailedLink, manage, newEmail, serverForSuite } from './server.js';
import { enterMailedCode, renderWith } from './ui.js';

const server = serverForSuite();

const passwordForm = (onSuccess = vi.fn()) => (
  <ConfigurationProvider factors={['otp_via_email', 'password']}>
    <Form onSuccess={onSuccess} />
  </ConfigurationProvider>
);

type U = ReturnType<typeof renderWith>['user'];

async function choosePassword(user: U, email: string) {
  await user.type(await screen.findByLabelText('Email address'), email);
  await user.click(screen.getByRole('radio', { name: 'Password' }));
  await user.click(screen.getByRole('button', { name: 'Continue' }));
}

/** Types a new password twice (clearing what the fields held) and presses Continue. */
async function typeNewPassword(user: U, password: string) {
  for (const label of ['New password', 'Repeat the password']) {
    const field = await screen.findByLabelText(label);
    await user.clear(field);
    await user.type(field, password);
  }
  await user.click(screen.getByRole('button', { name: 'Continue' }));
}

/** “Create an account”, then the password choice for `email`: the form says a link was sent to prove the address. */
async function signUpWithPassword(user: U, email: string) {
  await user.click(await screen.findByRole('button', { name: 'Create an account' }));
  expect(screen.getByRole('heading', { name: 'Create an account' })).toBeTruthy();
  const before = new Date().toISOString();
  await choosePassword(user, email);
  expect((await screen.findByText(/We sent a link to/)).textContent!.trim()).toBe(
    `We sent a link to ${email} to check that the address is yours. Open it and confirm that it is you; this page then asks for your new password.`,
  );
  expect(screen.queryByLabelText('New password')).toBeNull();
  expect(await answerMailedLink(server.api, email, before)).toBe(200);
}

/** A person with a password, made through the form; the form is unmounted and the storage cleared afterwards. */
async function personWithPassword(email: string, password: string) {
  const view = renderWith(server, passwordForm());
  await signUpWithPassword(view.user, email);
  await typeNewPassword(view.user, password);
  await screen.findByText('You are signed in');
  view.unmount();
  localStorage.clear();
}

describe('Form with a password', () => {
  it('signs up: a link proves the address, then the server rules are ticked off while typing, a weak or mismatched password is explained, a good one signs in', async () => {
    const onSuccess = vi.fn();
    const email = newEmail('pw');
    const { user } = renderWith(server, passwordForm(onSuccess));
    await signUpWithPassword(user, email);
    expect(await screen.findByRole('heading', { name: 'Choose a password' })).toBeTruthy();
    expect(screen.getByRole('status').textContent).toBe(`${email} is confirmed.`);
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
    expect(onSuccess.mock.calls[0]![0].authenticatedMethods).toEqual(['email_link', 'password']);
  });

  it('signs in: a wrong password says so and offers “Forgot your password?” and “Create an account”; the reset asks again after a rule-breaking password', async () => {
    const email = newEmail('pw2');
    await personWithPassword(email, 'first-pass-1');

    const { user } = renderWith(server, passwordForm());
    expect(await screen.findByRole('heading', { name: 'Sign in' })).toBeTruthy();
    await choosePassword(user, email);
    const pw = await screen.findByLabelText('Password');
    await user.type(pw, 'wrong-pass-1');
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Incorrect password. Try again, reset your password, or create an account if you have none.');
    expect(screen.getByRole('button', { name: 'Create an account' })).toBeTruthy();
    const before = new Date().toISOString();
    await user.click(screen.getByRole('button', { name: 'Forgot your password?' }));
    await enterMailedCode(user, server, email, before);
    expect(await screen.findByRole('heading', { name: 'Choose a new password' })).toBeTruthy();
    await typeNewPassword(user, 'short-2');
    expect(screen.getByRole('alert').textContent).toBe('That password does not meet the rules: at least 10 characters.');
    await typeNewPassword(user, 'second-pass-2');
    await screen.findByText('You are signed in');
  });

  it('an address without an account reads the same “Incorrect password”; “Create an account” then signs it up with a link and a password', async () => {
    const email = newEmail('nobody-yet');
    const { user } = renderWith(server, passwordForm());
    await choosePassword(user, email);
    await user.type(await screen.findByLabelText('Password'), 'any-pass-123');
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Incorrect password. Try again, reset your password, or create an account if you have none.');
    const before = new Date().toISOString();
    await user.click(screen.getByRole('button', { name: 'Create an account' }));
    await waitFor(() => expect(screen.getByRole('status').textContent).toContain(`We sent a link to ${email} to check that the address is yours.`));
    expect(await answerMailedLink(server.api, email, before)).toBe(200);
    await typeNewPassword(user, 'fresh-pass-123');
    await screen.findByText('You are signed in');
  });

  it('a link refused on its page ends the sign-up in plain words; Try again goes back to the sign-up', async () => {
    const email = newEmail('refused');
    const { user } = renderWith(server, passwordForm());
    await user.click(await screen.findByRole('button', { name: 'Create an account' }));
    const before = new Date().toISOString();
    await choosePassword(user, email);
    await screen.findByText(/We sent a link to/);
    await answerMailedLink(server.api, email, before, 'deny');
    const alert = await screen.findByRole('alert', {}, { timeout: 5000 });
    expect(alert.textContent).toBe('The sign-in service refused the request: The sign-in was refused from the link sent to the address.');
    await user.click(within(alert.parentElement!).getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('heading', { name: 'Create an account' })).toBeTruthy();
    expect((screen.getByLabelText('Email address') as HTMLInputElement).value).toBe(email);
  });

  it('explains in plain words when the organization refuses the address, and Try again goes back', async () => {
    await manage(server.api, 'PATCH', '/organizations/config', { handle_patterns: ['@example\\.org$'] });
    try {
      const { user } = renderWith(server, passwordForm());
      await user.click(await screen.findByRole('button', { name: 'Create an account' }));
      await choosePassword(user, newEmail('nobody'));
      const alert = await screen.findByRole('alert');
      expect(alert.textContent).toBe('This address cannot be used to sign up here. Use another one or ask your administrator.');
      await user.click(within(alert.parentElement!).getByRole('button', { name: 'Try again' }));
      expect(await screen.findByLabelText('Email address')).toBeTruthy();
    } finally {
      await manage(server.api, 'PATCH', '/organizations/config', { handle_patterns: [] });
    }
  });
});
