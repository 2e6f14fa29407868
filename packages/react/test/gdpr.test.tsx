import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { Form, GDPRConsentDialog, LoggedIn, LoggedOut, useGDPRConsent } from '../src/index.js';
import { newEmail, serverForSuite } from './server.js';
import { renderWith, signInByEmail } from './ui.js';

const server = serverForSuite();

function Consents() {
  const { consents, isLoading } = useGDPRConsent();
  return <p>Consents: {isLoading ? '…' : consents.map((c) => c.consent_level).join(',') || 'none'}</p>;
}

describe('GDPRConsentDialog and useGDPRConsent', () => {
  it('asks a signed-in person without consents, stores a custom choice on the server, and does not ask again', async () => {
    const onSave = vi.fn();
    const page = (
      <>
        <LoggedOut>
          <Form />
        </LoggedOut>
        <LoggedIn>
          <GDPRConsentDialog onSave={onSave} />
          <Consents />
        </LoggedIn>
      </>
    );
    const { user, unmount } = renderWith(server, page);
    await signInByEmail(user, server, newEmail('gdpr'));
    const dialog = await screen.findByRole('dialog', { name: 'Your privacy' });
    await waitFor(() => expect(document.activeElement?.textContent).toBe('Your privacy'));
    await user.click(screen.getByRole('button', { name: 'Customize' }));
    const necessary = screen.getByRole('checkbox', { name: 'Necessary (always on)' }) as HTMLInputElement;
    expect(necessary.checked && necessary.disabled).toBe(true);
    await user.click(screen.getByRole('checkbox', { name: 'Analytics' }));
    await user.click(screen.getByRole('button', { name: 'Save choices' }));
    await waitFor(() => expect(onSave).toHaveBeenCalledWith(['necessary', 'analytics']));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(screen.getByText(/^Consents:/).textContent).toBe('Consents: analytics,necessary');
    expect(dialog.isConnected).toBe(false);
    unmount();

    // Next visit: consents are read from the server, no dialog.
    renderWith(server, page);
    await waitFor(() => expect(screen.getByText(/^Consents:/).textContent).toBe('Consents: analytics,necessary'));
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('“Only necessary” from an anonymous visitor creates an anonymous person holding the consent', async () => {
    const { user } = renderWith(
      server,
      <>
        <GDPRConsentDialog />
        <Consents />
      </>,
    );
    await user.click(await screen.findByRole('button', { name: 'Only necessary' }));
    await waitFor(() => expect(screen.getByText(/^Consents:/).textContent).toBe('Consents: necessary'));
    const token = localStorage.getItem('keyway.token')!;
    expect(JSON.parse(atob(token.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/'))).person_type).toBe('anonymous');
  });

  it('forceOpen shows the dialog despite earlier consents (privacy settings); Escape closes it', async () => {
    const onClose = vi.fn();
    const { user } = renderWith(
      server,
      <>
        <GDPRConsentDialog levels={['necessary', 'analytics']} />
        <GDPRConsentDialog forceOpen onClose={onClose} levels={['necessary', 'analytics']} />
        <Consents />
      </>,
    );
    await user.click((await screen.findAllByRole('button', { name: 'Accept all' }))[0]!);
    await waitFor(() => expect(screen.getByText(/^Consents:/).textContent).toBe('Consents: analytics,necessary'));
    const settings = screen.getByRole('dialog', { name: 'Your privacy' }); // only the forced one is left
    settings.focus();
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(onClose).toHaveBeenCalledOnce();
  });

  it('rejects consent levels that are not non-empty strings', async () => {
    let api: ReturnType<typeof useGDPRConsent> | undefined;
    function Grab() {
      api = useGDPRConsent();
      return null;
    }
    renderWith(server, <Grab />);
    await waitFor(() => expect(api).toBeDefined());
    await expect(api!.updateGdprConsent(['analytics', ''])).rejects.toThrow('consent levels must be an array of non-empty strings, got ["analytics",""]');
  });
});
