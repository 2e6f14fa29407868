import { screen, waitFor  } from '@testing-library/react';
import { generateSync } from 'otplib';
import { describe, expect, it, vi } from 'vitest';
import { Form, LoggedIn, LoggedOut, MultiFactorAuth, StepUpAuth, useKeyway } from '../src/index.js';
import { mailbox, newEmail, serverForSuite } from './server.js';
import { renderWith, signInByEmail } from './ui.js';

const server = serverForSuite();

function Methods() {
  const { user } = useKeyway();
  return <p>Methods: {user?.authenticatedMethods.join(',')}</p>;
}

describe('MultiFactorAuth', () => {
  it('signs in with an emailed code, then registers an authenticator app from the QR code and key, and only then shows protected content', async () => {
    const onSuccess = vi.fn();
    const email = newEmail('mfa');
    const { user } = renderWith(
      server,
      <>
        <MultiFactorAuth factors={['totp']} onSuccess={onSuccess} />
        <LoggedIn withFactors={['otp_via_email', 'totp']}>
          <p>Secret area</p>
        </LoggedIn>
      </>,
    );
    await signInByEmail(user, server, email);
    expect(await screen.findByRole('heading', { name: 'Set up your authenticator app' })).toBeTruthy();
    expect(screen.queryByText('Secret area')).toBeNull();
    const qr = screen.getByRole('img', { name: 'QR code for your authenticator app' }) as HTMLImageElement;
    expect(qr.src).toMatch(/^data:image\/png;base64,iVBOR/);
    const recovery = screen.getAllByRole('listitem').map((li) => li.textContent);
    expect(recovery.length).toBeGreaterThanOrEqual(5);
    // The authenticator app is fed the key shown on screen (grouped by four for reading).
    const secret = screen.getByText(/^Key:/).querySelector('code')!.textContent!.replace(/\s/g, '');
    expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
    const input = screen.getByLabelText('Code');
    await user.type(input, '000000' === generateSync({ secret }) ? '111111' : '000000');
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    expect((await screen.findByRole('alert')).textContent).toBe('That code is not right. Check it and try again.');
    // The registration stays visible while the person retries.
    expect(screen.getByRole('img', { name: 'QR code for your authenticator app' })).toBeTruthy();
    await user.type(screen.getByLabelText('Code'), generateSync({ secret }));
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await screen.findByText('Secret area')).toBeTruthy();
    expect(onSuccess).toHaveBeenCalledOnce();
    expect(onSuccess.mock.calls[0]![0].authenticatedMethods).toEqual(expect.arrayContaining(['otp_via_email', 'totp']));
    expect(recovery.every((c) => /^[\w-]{6,}$/.test(c ?? ''))).toBe(true);
  });
});

function SignOut() {
  const { logout } = useKeyway();
  return (
    <button type="button" onClick={() => void logout()}>
      Sign out
    </button>
  );
}

it('MultiFactorAuth verifies a registered authenticator app on the next sign-in, and takes a recovery code instead', async () => {
  const email = newEmail('mfa2');
  const { user } = renderWith(
    server,
    <>
      <MultiFactorAuth factors={['totp']} />
      <LoggedIn withFactors={['totp']}>
        <p>Secret area</p>
        <SignOut />
      </LoggedIn>
    </>,
  );
  await signInByEmail(user, server, email);
  await screen.findByRole('heading', { name: 'Set up your authenticator app' });
  const secret = screen.getByText(/^Key:/).querySelector('code')!.textContent!.replace(/\s/g, '');
  const recovery = screen.getAllByRole('listitem').map((li) => li.textContent!);
  await user.type(screen.getByLabelText('Code'), generateSync({ secret }));
  await user.click(screen.getByRole('button', { name: 'Verify' }));
  await screen.findByText('Secret area');
  await user.click(screen.getByRole('button', { name: 'Sign out' }));

  await signInByEmail(user, server, email);
  expect(await screen.findByRole('heading', { name: 'Enter the code of your authenticator app' })).toBeTruthy();
  expect(screen.queryByRole('img')).toBeNull(); // no registration this time
  const input = screen.getByLabelText('Code');
  expect(screen.getByText('Lost your device? Enter one of your recovery codes instead.').id).toBe(input.getAttribute('aria-describedby'));
  await user.type(input, recovery[0]!);
  await user.click(screen.getByRole('button', { name: 'Verify' }));
  expect(await screen.findByText('Secret area')).toBeTruthy();
});

describe('StepUpAuth', () => {
  it('adds a factor to the signed-in person: an emailed code sent to the person’s own address', async () => {
    const email = newEmail('step');
    const onSuccess = vi.fn();
    const { user } = renderWith(
      server,
      <>
        <LoggedOut>
          <Form />
        </LoggedOut>
        <StepUpAuth factors={['otp_via_email']} onSuccess={onSuccess} />
        <Methods />
      </>,
    );
    await signInByEmail(user, server, email);
    expect(await screen.findByRole('heading', { name: 'Confirm it is you' })).toBeTruthy();
    const before = new Date().toISOString();
    await user.click(screen.getByRole('button', { name: 'Code by email' }));
    const input = await screen.findByLabelText('Code');
    const { code } = await mailbox(server.api, email, before);
    await user.type(input, code!);
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    await waitFor(() => expect(onSuccess).toHaveBeenCalledOnce());
    expect(screen.getByText('You are signed in')).toBeTruthy();
    expect(screen.getByText(/^Methods:/).textContent).toBe('Methods: otp_via_email');
  });

  it('renders nothing while logged out', async () => {
    const { container } = renderWith(server, <StepUpAuth factors={['totp']} />);
    await new Promise((r) => setTimeout(r, 50));
    expect(container.textContent).toBe('');
  });
});
