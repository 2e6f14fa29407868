import { render, screen, waitFor } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { Form, KeywayProvider, Loaded, LoggedIn, LoggedOut, useKeyway } from '../src/index.js';
import { mailbox, newEmail, serverForSuite } from './server.js';
import { enterHandle, enterMailedCode } from './ui.js';

const server = serverForSuite();

function Who() {
  const { user, logout } = useKeyway();
  return (
    <div>
      <p>Signed in as {user?.personId}</p>
      <button onClick={() => void logout()}>Sign out</button>
    </div>
  );
}

function App({ onSuccess }: { onSuccess?: () => void }) {
  return (
    <KeywayProvider oid={server.api.orgId} baseURL={server.api.url} analytics={false} tokenStorageKey="keyway.docs.token">
      <Loaded fallback={<p>Loading…</p>}>
        <LoggedOut>
          <Form onSuccess={onSuccess} />
        </LoggedOut>
        <LoggedIn>
          <Who />
        </LoggedIn>
      </Loaded>
    </KeywayProvider>
  );
}

describe('Form with an emailed code', () => {
  it('signs a new person in with the code from the mailbox, stores the token, survives a remount and signs out', async () => {
    const user = userEvent.setup();
    const onSuccess = vi.fn();
    const email = newEmail();
    const { unmount } = render(<App onSuccess={onSuccess} />);
    const input = await screen.findByLabelText('Email address');
    await waitFor(() => expect(document.activeElement).toBe(input));
    const before = new Date().toISOString();
    await user.type(input, email);
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    const codeInput = await screen.findByLabelText('Code');
    expect(screen.getByRole('status').textContent).toContain(`We sent a code to ${email}.`);
    await waitFor(() => expect(document.activeElement).toBe(codeInput));
    const { code } = await mailbox(server.api, email, before);
    await user.type(codeInput, code!);
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await screen.findByText(/Signed in as /)).toBeTruthy();
    expect(onSuccess).toHaveBeenCalledOnce();
    const token = localStorage.getItem('keyway.docs.token');
    expect(token).toMatch(/^ey/);
    unmount();

    // A new page load restores the stored token.
    render(<App />);
    expect(await screen.findByText(/Signed in as /)).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Sign out' }));
    expect(await screen.findByLabelText('Email address')).toBeTruthy();
    expect(localStorage.getItem('keyway.docs.token')).toBeNull();
  });

  it('says a wrong code is wrong and accepts the right one afterwards', async () => {
    const user = userEvent.setup();
    const email = newEmail('grace');
    render(<App />);
    const before = new Date().toISOString();
    await enterHandle(user, email);
    const { code } = await mailbox(server.api, email, before);
    const wrong = code === '000000' ? '111111' : '000000';
    await user.type(await screen.findByLabelText('Code'), wrong);
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    expect((await screen.findByRole('alert')).textContent).toContain('That code is not right');
    const again = await screen.findByLabelText('Code');
    expect(again.getAttribute('aria-invalid')).toBe('true');
    await user.type(again, code!);
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await screen.findByText(/Signed in as /)).toBeTruthy();
  });

  it('“Send a new code” sends another code; the new one signs in', async () => {
    const user = userEvent.setup();
    const email = newEmail('resend');
    render(<App />);
    const first = new Date().toISOString();
    await enterHandle(user, email);
    await screen.findByLabelText('Code');
    const old = await mailbox(server.api, email, first);
    await user.click(screen.getByRole('button', { name: 'Send a new code' }));
    // The code typed is the newest one: enterMailedCode reads the first message after the old one.
    await enterMailedCode(user, server, email, old.created_at);
    expect(await screen.findByText(/Signed in as /)).toBeTruthy();
  });

  it('rejects a malformed email address in plain words without calling the server', async () => {
    const user = userEvent.setup();
    render(<App />);
    const input = await screen.findByLabelText('Email address');
    await user.type(input, 'not-an-address');
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    expect((screen.getByRole('alert')).textContent).toContain('That email address does not look right');
    expect(input.getAttribute('aria-invalid')).toBe('true');
    expect(screen.queryByLabelText('Code')).toBeNull();
  });

  it('anonymousUsers: a visitor gets an anonymous person on load, and signing in upgrades that same person', async () => {
    const user = userEvent.setup();
    const email = newEmail('anon');
    function Person() {
      const { user: u, isAuthenticated } = useKeyway();
      return <p>Person {u?.personId ?? 'none'} {u?.isAnonymous ? 'anonymous' : isAuthenticated ? 'signed in' : ''}</p>;
    }
    render(
      <KeywayProvider oid={server.api.orgId} baseURL={server.api.url} analytics={false} anonymousUsers>
        <Person />
        <LoggedOut>
          <Form />
        </LoggedOut>
      </KeywayProvider>,
    );
    const anon = await screen.findByText(/anonymous$/);
    const id = /^Person (\S+)/.exec(anon.textContent!)![1];
    expect(localStorage.getItem('keyway.token')).toMatch(/^ey/);
    const before = new Date().toISOString();
    await user.type(await screen.findByLabelText('Email address'), email);
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    const code = await screen.findByLabelText('Code');
    await user.type(code, (await mailbox(server.api, email, before)).code!);
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    expect((await screen.findByText(/signed in$/)).textContent).toBe(`Person ${id} signed in`);
  });

  it('drops an undecodable stored token and shows the form', async () => {
    localStorage.setItem('keyway.docs.token', 'garbage');
    render(<App />);
    expect(await screen.findByLabelText('Email address')).toBeTruthy();
    expect(localStorage.getItem('keyway.docs.token')).toBeNull();
  });
});
