import { render, screen, waitFor } from '@testing-library/react';
import { renderToString } from 'react-dom/server';
import { describe, expect, it, vi } from 'vitest';
import {
  ConfigurationProvider,
  DynamicFlow,
  Form,
  Groups,
  KeywayProvider,
  Loaded,
  LoggedIn,
  LoggedOut,
  Slot,
  createTokenStorage,
  useKeyway,
} from '../src/index.js';
import { newEmail, serverForSuite } from './server.js';
import { enterHandle, enterMailedCode, renderWith } from './ui.js';

const server = serverForSuite();

const b64 = (o: object) => btoa(JSON.stringify(o)).replace(/=+$/, '');
const token = (claims: object) => `${b64({ alg: 'none' })}.${b64({ person_id: 'p1', oid: 'o1', exp: Math.floor(Date.now() / 1000) + 600, ...claims })}.x`;

describe('Slot composition and configuration', () => {
  it('fills header, initial, footer and success slots, applies texts, logo and theme, and offers SSO buttons', async () => {
    const email = newEmail('slot');
    const { user } = renderWith(
      server,
      <ConfigurationProvider
        factors={[
          'otp_via_email',
          'password',
          { method: 'oidc', options: { provider: 'google' } },
          { method: 'oidc', options: { provider: 'generic' }, label: 'Acme SSO' },
          { method: 'saml', options: { provider_credentials_id: 'x' } },
        ]}
        text={{ 'initial.title': 'Welcome to the docs', 'otp.submit': 'Check code' }}
        logo="/logo.svg"
        theme={{ primary: 'rgb(1, 2, 3)', radius: '2px' }}
      >
        <Form>
          <Slot name="header">
            <p>Custom header</p>
          </Slot>
          <Slot name="initial">
            <p>By continuing you accept the terms.</p>
          </Slot>
          <Slot name="footer">
            <a href="/help">Help</a>
          </Slot>
          <Slot name="success">{(u: { personId: string }) => <p>Hello {u.personId.slice(0, 3)}</p>}</Slot>
        </Form>
      </ConfigurationProvider>,
    );
    expect(await screen.findByRole('heading', { name: 'Welcome to the docs' })).toBeTruthy();
    expect(screen.getByText('Custom header')).toBeTruthy();
    expect(screen.queryByRole('img')).toBeNull(); // the header slot replaced the logo
    expect(screen.getByText('By continuing you accept the terms.')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Help' })).toBeTruthy();
    const root = document.querySelector<HTMLElement>('.kw-root')!;
    expect(root.style.getPropertyValue('--kw-primary')).toBe('rgb(1, 2, 3)');
    expect(root.style.getPropertyValue('--kw-radius')).toBe('2px');
    expect(screen.getByRole('group', { name: 'How do you want to sign in?' })).toBeTruthy();
    expect((screen.getByRole('radio', { name: 'Code by email' }) as HTMLInputElement).checked).toBe(true);
    expect(screen.getByRole('button', { name: 'Continue with Google' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Continue with Acme SSO' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Continue with single sign-on' })).toBeTruthy();
    // happy-dom has no WebAuthn: no passkey button even if configured.
    expect(screen.queryByRole('button', { name: 'Sign in with a passkey' })).toBeNull();
    await enterHandle(user, email);
    expect(await screen.findByRole('button', { name: 'Check code' })).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Help' })).toBeTruthy(); // footer on every step
    await user.click(screen.getByRole('button', { name: 'Back' }));
    expect(await screen.findByRole('heading', { name: 'Welcome to the docs' })).toBeTruthy();
    // The handle is kept when going back.
    expect((screen.getByLabelText('Email address') as HTMLInputElement).value).toBe(email);
    const again = new Date().toISOString();
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    await enterMailedCode(user, server, email, again, 'Check code');
    expect((await screen.findByText(/^Hello /)).textContent).toBe('Hello pid');
  });

  it('autoFocus={false} leaves the focus where it is on load, but the next step still takes it', async () => {
    const { user } = renderWith(server, <Form autoFocus={false} />);
    const input = await screen.findByLabelText('Email address');
    await new Promise((r) => setTimeout(r, 20));
    expect(document.activeElement).toBe(document.body);
    await user.type(input, newEmail('focus'));
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    const code = await screen.findByLabelText('Code');
    await waitFor(() => expect(document.activeElement).toBe(code));
  });

  it('refuses an unknown factor with an error naming it', () => {
    expect(() => render(<ConfigurationProvider factors={['carrier_pigeon' as 'totp']} />)).toThrow('unsupported factor "carrier_pigeon"');
  });

  it('DynamicFlow lets getFactor pick the method from the handle', async () => {
    const chosen: string[] = [];
    const { user } = renderWith(
      server,
      <DynamicFlow
        getFactor={(h) => {
          chosen.push(h);
          return { method: 'otp_via_email' };
        }}
      />,
    );
    expect(screen.queryByRole('radio')).toBeNull();
    await enterHandle(user, 'Dyn@Example.com', 'Email address');
    expect(await screen.findByLabelText('Code')).toBeTruthy();
    expect(chosen).toEqual(['Dyn@Example.com']);
  });
});

describe('conditional components', () => {
  it('Groups, LoggedIn withFactors and Loaded follow the token', async () => {
    localStorage.setItem('keyway.token', token({ groups: ['editors'], authenticated_methods: ['password'] }));
    renderWith(
      server,
      <Loaded fallback={<p>Loading…</p>}>
        <Groups belongsTo={['admins', 'editors']}>
          <p>Editors or admins</p>
        </Groups>
        <Groups belongsTo={['admins', 'editors']} match="all" fallback={<p>Not both</p>}>
          <p>Both</p>
        </Groups>
        <Groups belongsTo={(g) => g.length === 0}>
          <p>No groups</p>
        </Groups>
        <LoggedIn withFactors={['password', 'totp']}>
          <p>With MFA</p>
        </LoggedIn>
        <LoggedIn>
          <p>Signed in</p>
        </LoggedIn>
      </Loaded>,
    );
    expect(screen.getByText('Loading…')).toBeTruthy();
    expect(await screen.findByText('Editors or admins')).toBeTruthy();
    expect(screen.getByText('Not both')).toBeTruthy();
    expect(screen.queryByText('No groups')).toBeNull();
    expect(screen.queryByText('With MFA')).toBeNull();
    expect(screen.getByText('Signed in')).toBeTruthy();
  });

  it('drops an expired stored token', async () => {
    localStorage.setItem('keyway.token', token({ exp: 1 }));
    renderWith(
      server,
      <LoggedOut>
        <p>Please sign in</p>
      </LoggedOut>,
    );
    expect(await screen.findByText('Please sign in')).toBeTruthy();
    expect(localStorage.getItem('keyway.token')).toBeNull();
  });

  it('validateStoredToken removes a token the server rejects', async () => {
    localStorage.setItem('keyway.token', token({ oid: server.api.orgId }));
    renderWith(
      server,
      <LoggedOut>
        <p>Please sign in</p>
      </LoggedOut>,
      { validateStoredToken: true },
    );
    expect(await screen.findByText('Please sign in')).toBeTruthy();
    expect(localStorage.getItem('keyway.token')).toBeNull();
  });

  it('keeps the token in session storage or memory when asked', async () => {
    function Who() {
      return <p>{useKeyway().user?.personId ?? 'nobody'}</p>;
    }
    sessionStorage.setItem('keyway.token', token({ person_id: 'from-session' }));
    renderWith(server, <Who />, { tokenStorage: 'sessionStorage' });
    expect(await screen.findByText('from-session')).toBeTruthy();
    const memory = createTokenStorage('memory');
    expect(memory.get()).toBeNull();
    memory.set('t');
    expect(memory.get()).toBe('t');
    expect(() => createTokenStorage('cookies' as 'memory')).toThrow('tokenStorage must be "localStorage", "sessionStorage", "memory" or { get, set }, got "cookies"');
  });

  it('a provider configuration the SDK refuses fails with an error naming the option', () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    expect(() => render(<KeywayProvider baseURL="ftp://files.example" analytics={false} />)).toThrow('baseURL must be a valid http or https URL, got "ftp://files.example"');
    expect(() => render(<KeywayProvider baseURL="http://api.example" />)).toThrow('oid is required - please initialize the SDK with an organization ID');
    vi.mocked(console.error).mockRestore();
  });

  it('useKeyway outside the provider says where it belongs', () => {
    function Bad() {
      useKeyway();
      return null;
    }
    expect(() => render(<Bad />)).toThrow('useKeyway must be used inside <KeywayProvider>');
  });
});

describe('server rendering', () => {
  it('renders the form and hides signed-in content without touching window', () => {
    const html = renderToString(
      <KeywayProvider oid="org_x" baseURL="http://api.invalid" analytics={false}>
        <Form />
        <LoggedIn>
          <p>secret</p>
        </LoggedIn>
        <Loaded fallback={<p>loading</p>}>
          <p>loaded</p>
        </Loaded>
      </KeywayProvider>,
    );
    expect(html).toContain('Email address');
    expect(html).toContain('loading');
    expect(html).not.toContain('secret');
    expect(html).not.toContain('loaded');
  });
});
