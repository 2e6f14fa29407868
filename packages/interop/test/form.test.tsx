// The published React <Form> (@slashid/react 1.30, unmodified) signs in against our identity server, as a person
// would use it: typing into its fields and pressing its buttons (jsdom).
import { ConfigurationProvider, Form, LoggedIn, LoggedOut, SlashIDProvider } from '@slashid/react';
import { cleanup, render, screen, waitFor } from '@testing-library/react';
import { version as reactVersion } from 'react';
import { version as reactDomVersion } from 'react-dom';
import { userEvent } from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { email, useInterop } from './harness.js';

const t = useInterop();
afterEach(() => {
  cleanup();
  localStorage.clear();
});

function App({ factors }: { factors: Array<{ method: 'otp_via_email' | 'password' }> }) {
  return (
    <SlashIDProvider oid={t.oid} environment={{ baseURL: t.baseURL, sdkURL: `${t.baseURL}/sdk.html` }} analyticsEnabled={false} tokenStorage="memory">
      <ConfigurationProvider factors={factors}>
        <LoggedOut>
          <Form />
        </LoggedOut>
        <LoggedIn>
          <p>Signed in</p>
        </LoggedIn>
      </ConfigurationProvider>
    </SlashIDProvider>
  );
}

describe('published React <Form>', () => {
  it('runs on the React 18 copy of this package (its bundled JSX runtime cannot run on React 19)', () => {
    expect(reactVersion).toMatch(/^18\./);
    expect(reactDomVersion).toMatch(/^18\./);
  });

  it('signs in by e-mail code', async () => {
    const user = userEvent.setup();
    const to = email('form-otp');
    render(<App factors={[{ method: 'otp_via_email' }]} />);
    const input = await screen.findByRole('textbox', {}, { timeout: 10_000 });
    await user.type(input, to);
    await user.click(screen.getByRole('button', { name: /continue/i }));
    const code = await waitFor(() => t.code(to), { timeout: 10_000 });
    await user.click(await screen.findByLabelText('Please enter OTP digit 1'));
    await user.keyboard(code);
    const submit = screen.queryByRole('button', { name: /submit|continue|verify/i });
    if (submit) await user.click(submit);
    expect(await screen.findByText('Signed in', {}, { timeout: 10_000 })).toBeTruthy();
  }, 40_000);

  it('signs up with a password, then signs in with it', async () => {
    const user = userEvent.setup();
    const to = email('form-pw');
    const password = 'a form password 12345';
    render(<App factors={[{ method: 'password' }]} />);
    await user.type(await screen.findByRole('textbox', {}, { timeout: 10_000 }), to);
    await user.click(screen.getByRole('button', { name: /continue/i }));
    const fields = await waitFor(() => {
      const found = document.querySelectorAll<HTMLInputElement>('input[type="password"]');
      expect(found.length).toBeGreaterThan(0);
      return [...found];
    }, { timeout: 10_000 });
    for (const field of fields) await user.type(field, password);
    await user.click(screen.getByRole('button', { name: /submit|continue|set/i }));
    expect(await screen.findByText('Signed in', {}, { timeout: 10_000 })).toBeTruthy();
    expect(t.calls('POST', '/attestation/v3').some((e) => e.body.includes('"password_set"') && e.status === 200)).toBe(true);

    // A new visit: the same address and password sign in (password_verify).
    cleanup();
    render(<App factors={[{ method: 'password' }]} />);
    await user.type(await screen.findByRole('textbox', {}, { timeout: 10_000 }), to);
    await user.click(screen.getByRole('button', { name: /continue/i }));
    const field = await waitFor(() => {
      const found = document.querySelector<HTMLInputElement>('input[type="password"]');
      expect(found).not.toBeNull();
      return found!;
    }, { timeout: 10_000 });
    await user.type(field, password);
    await user.click(screen.getByRole('button', { name: /submit|continue|sign in/i }));
    expect(await screen.findByText('Signed in', {}, { timeout: 10_000 })).toBeTruthy();
    expect(t.calls('POST', '/attestation/v3').some((e) => e.body.includes('"password_verify"') && e.status === 200)).toBe(true);
  }, 60_000);

  it('every request the published form sent and every answer it got match api/openapi.yaml', () => {
    t.checkContract();
  });
});
