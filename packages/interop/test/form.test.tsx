// The published React <Form> (@slashid/react 1.30, unmodified) signs in against our identity server, as a person
// would use it: typing into its fields and pressing its buttons (jsdom).
import { ConfigurationProvider, Form, LoggedIn, LoggedOut, SlashIDProvider } from '@slashid/react';
import { cleanup, render, screen, waitFor } from '@testing-library/react';
import { version as reactVersion } from 'react';
import { version as reactDomVersion } from 'react-dom';
import { userEvent } from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { configure, confirmLinkWhenSent, email, useInterop } from './harness.js';

const t = useInterop();
afterEach(() => {
  cleanup();
  localStorage.clear();
});

/**
 * The published form shows a failed password rule by the text `authenticating.setPassword.validation.<rule name>`: an
 * app whose server has its own rules gives a text for each (ours: the server's default rules).
 */
const RULE_TEXTS = {
  'authenticating.setPassword.validation.min_length': 'At least 10 characters',
  'authenticating.setPassword.validation.max_length': 'At most 128 characters',
  'authenticating.setPassword.validation.letter': 'At least one letter',
  'authenticating.setPassword.validation.digit': 'At least one digit',
  'authenticating.setPassword.validation.no_surrounding_spaces': 'No space at the start or the end',
  'authenticating.setPassword.validation.not_common': 'Not a common password',
};

function App({ factors }: { factors: Array<{ method: 'otp_via_email' | 'password' }> }) {
  return (
    <SlashIDProvider oid={t.oid} environment={{ baseURL: t.baseURL, sdkURL: `${t.baseURL}/sdk.html` }} analyticsEnabled={false} tokenStorage="memory">
      <ConfigurationProvider factors={factors} text={RULE_TEXTS}>
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

  it('signs up with a password where the organization asks for one-call sign-up: the address proved by a link first, then a password (a weak one refused on the page), then signs in with it', async () => {
    // The published form cannot send `sign_up`; the organization's implicit_credential_sign_up lets it sign up (#36).
    await configure(t, { implicit_credential_sign_up: true });
    const user = userEvent.setup();
    const to = email('form-pw');
    const password = 'a form password 12345';
    render(<App factors={[{ method: 'password' }]} />);
    await user.type(await screen.findByRole('textbox', {}, { timeout: 10_000 }), to);
    await user.click(screen.getByRole('button', { name: /continue/i }));
    // The form says an e-mail will verify the address; its owner opens the link and confirms.
    expect(await screen.findByText(/receive an email to verify your email address/, {}, { timeout: 10_000 })).toBeTruthy();
    await confirmLinkWhenSent(t, to);
    const typePassword = async (value: string) => {
      const fields = await waitFor(() => {
        const found = document.querySelectorAll<HTMLInputElement>('input[type="password"]');
        expect(found.length).toBeGreaterThan(0);
        return [...found];
      }, { timeout: 10_000 });
      for (const field of fields) {
        await user.clear(field);
        await user.type(field, value);
      }
      await user.click(screen.getAllByRole('button', { name: /submit|continue|set/i })[0]!);
    };
    const mark = t.log.length;
    await typePassword('weak');
    // The page shows the first failing rule (the server's rules, read from validation_rules.regular_expressions).
    expect(await screen.findByText('At least 10 characters', {}, { timeout: 10_000 })).toBeTruthy();
    await typePassword(password);
    expect(await screen.findByText('Signed in', {}, { timeout: 10_000 })).toBeTruthy();
    // The weak password never left the page: the form checked the server's rules itself.
    expect(t.calls('POST', '/attestation/v3', mark).map((e) => JSON.parse(e.body).data.password)).toEqual([password]);
    await configure(t, { implicit_credential_sign_up: false });

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
