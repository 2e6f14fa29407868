import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { defaultOrganization, Form, LoggedIn, LoggedOut, OrganizationSwitcher, useKeyway } from '../src/index.js';
import { manage, newEmail, serverForSuite } from './server.js';
import { renderWith, signInByEmail } from './ui.js';

const server = serverForSuite();

function CurrentOrg() {
  const { user } = useKeyway();
  return <p>Current org: {user?.orgId}</p>;
}

const app = (onSwitch?: () => void) => (
  <>
    <LoggedOut>
      <Form />
    </LoggedOut>
    <LoggedIn>
      <OrganizationSwitcher onSwitch={onSwitch} />
      <CurrentOrg />
    </LoggedIn>
  </>
);

describe('OrganizationSwitcher and useOrganizations', () => {
  it('lists the person’s organizations and switches the token to the chosen one', async () => {
    const sub = await manage(server.api, 'POST', '/organizations/suborganizations', { org_name: 'Acme Europe', share_person_pool: true });
    const onSwitch = vi.fn();
    const { user } = renderWith(server, app(onSwitch), { tokenStorageKey: 'keyway.docs.token' });
    await signInByEmail(user, server, newEmail('org'));
    const select = (await screen.findByLabelText('Organization')) as HTMLSelectElement;
    await waitFor(() => expect(screen.getByRole('option', { name: 'Acme Europe' })).toBeTruthy());
    expect(select.value).toBe(server.api.orgId);
    await user.selectOptions(select, sub.id);
    await waitFor(() => expect(screen.getByText(/^Current org:/).textContent).toBe(`Current org: ${sub.id}`));
    expect(select.value).toBe(sub.id);
    expect(onSwitch).toHaveBeenCalledOnce();
    // The stored token is the new organization's.
    const stored = localStorage.getItem('keyway.docs.token')!;
    expect(JSON.parse(atob(stored.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/'))).oid).toBe(sub.id);
  });

  it('defaultOrganization moves every person who signs in to the chosen organization', async () => {
    const sub = await manage(server.api, 'POST', '/organizations/suborganizations', { org_name: 'Acme Asia', share_person_pool: true });
    const pick = vi.fn((orgs: Array<{ id: string; name: string }>) => orgs.find((o) => o.name === 'Acme Asia')?.id);
    const { user } = renderWith(server, app(), { middleware: [defaultOrganization(pick)] });
    await signInByEmail(user, server, newEmail('default'));
    await waitFor(() => expect(screen.getByText(/^Current org:/).textContent).toBe(`Current org: ${sub.id}`));
    expect(pick).toHaveBeenCalledOnce();
  });

  it('a Form inside LoggedOut still reports the sign-in after it unmounted while the middleware ran', async () => {
    const sub = await manage(server.api, 'POST', '/organizations/suborganizations', { org_name: 'Acme Africa', share_person_pool: true });
    const onSuccess = vi.fn();
    const { user } = renderWith(
      server,
      <>
        <LoggedOut>
          <Form onSuccess={onSuccess} />
        </LoggedOut>
        <LoggedIn>
          <CurrentOrg />
        </LoggedIn>
      </>,
      { middleware: [defaultOrganization(sub.id)] },
    );
    await signInByEmail(user, server, newEmail('unmounted'));
    await waitFor(() => expect(onSuccess).toHaveBeenCalledOnce());
    expect(onSuccess.mock.calls[0]![0].orgId).toBe(sub.id);
    expect(screen.getByText(/^Current org:/).textContent).toBe(`Current org: ${sub.id}`);
  });

  it('defaultOrganization refuses a missing organization id', () => {
    expect(() => defaultOrganization('')).toThrow('defaultOrganization needs an organization id or a function, got ""');
  });
});
