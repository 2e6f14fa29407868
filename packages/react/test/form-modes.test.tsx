import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { ConfigurationProvider, Form } from '../src/index.js';
import { newEmail, serverForSuite } from './server.js';
import { enterMailedCode, renderWith } from './ui.js';

const server = serverForSuite();

describe('Form: signing in and creating an account', () => {
  it('“Create an account” and “Sign in instead” switch the first step, keep the address and move the focus to it', async () => {
    const { user } = renderWith(
      server,
      <ConfigurationProvider factors={['otp_via_email', 'password']}>
        <Form autoFocus={false} />
      </ConfigurationProvider>,
    );
    expect(await screen.findByRole('heading', { name: 'Sign in' })).toBeTruthy();
    expect(screen.getByText('New here?')).toBeTruthy();
    expect(screen.getByRole('group', { name: 'How do you want to sign in?' })).toBeTruthy();
    const input = screen.getByLabelText('Email address') as HTMLInputElement;
    expect(document.activeElement).not.toBe(input);
    await user.type(input, 'ada@example.com');
    await user.click(screen.getByRole('button', { name: 'Create an account' }));
    expect(screen.getByRole('heading', { name: 'Create an account' })).toBeTruthy();
    expect(screen.getByRole('form', { name: 'Create an account' })).toBeTruthy();
    expect(screen.getByText('Choose how you will sign in.')).toBeTruthy();
    expect(screen.getByRole('group', { name: 'How do you want to sign in from now on?' })).toBeTruthy();
    await waitFor(() => expect(document.activeElement).toBe(screen.getByLabelText('Email address')));
    expect((screen.getByLabelText('Email address') as HTMLInputElement).value).toBe('ada@example.com');
    expect(screen.getByText('Already have an account?')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Sign in instead' }));
    expect(screen.getByRole('heading', { name: 'Sign in' })).toBeTruthy();
    expect((screen.getByLabelText('Email address') as HTMLInputElement).value).toBe('ada@example.com');
  });

  it('a code signs a new address up the same in both modes: no link first, the code is the proof', async () => {
    const onSuccess = vi.fn();
    const email = newEmail('code-up');
    const { user } = renderWith(
      server,
      <ConfigurationProvider factors={['otp_via_email', 'password']}>
        <Form initialMode="signUp" onSuccess={onSuccess} />
      </ConfigurationProvider>,
    );
    expect(await screen.findByRole('heading', { name: 'Create an account' })).toBeTruthy();
    const before = new Date().toISOString();
    await user.type(screen.getByLabelText('Email address'), email);
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    await screen.findByLabelText('Code');
    expect(screen.getByRole('status').textContent).toBe(`We sent a code to ${email}.`);
    await enterMailedCode(user, server, email, before);
    await screen.findByText('You are signed in');
    expect(onSuccess.mock.calls[0]![0].claims.first_token).toBe(true);
  });

  it('allowSignUp={false} offers no sign-up: no switch, and a refused password offers only “Forgot your password?”', async () => {
    const { user } = renderWith(
      server,
      <ConfigurationProvider factors={['password']}>
        <Form allowSignUp={false} initialMode="signUp" />
      </ConfigurationProvider>,
    );
    expect(await screen.findByRole('heading', { name: 'Sign in' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Create an account' })).toBeNull();
    await user.type(screen.getByLabelText('Email address'), newEmail('no-sign-up'));
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    await user.type(await screen.findByLabelText('Password'), 'not-the-password-1');
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    await screen.findByRole('alert');
    expect(screen.getByRole('button', { name: 'Forgot your password?' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Create an account' })).toBeNull();
  });
});
