import { errors } from '@keyway/sdk';
import { render, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { ConfigurationProvider, Form, KeywayProvider, describeError, useKeyway } from '../src/index.js';
import { serverForSuite } from './server.js';
import { renderWith } from './ui.js';

const server = serverForSuite();

describe('errors in plain words', () => {
  it('maps the SDK errors of the catalogue to sentences, keeps the server’s reason for other API errors, and accepts overrides', () => {
    expect(describeError(new errors.RateLimitError('rate limit exceeded'))).toBe('Too many attempts. Wait a minute, then try again.');
    expect(describeError(new errors.TimeoutError('Authentication has expired'))).toBe('The sign-in took too long and expired. Please start again.');
    expect(describeError(new errors.SignInAwaitingApprovalError('x'))).toBe('Your account waits for an administrator’s approval before you can sign in.');
    expect(describeError(new errors.PasskeyPromptError())).toBe('The passkey prompt was closed before finishing. Try again or choose another way.');
    expect(describeError(new errors.APIResponseError('handle is longer than 320 characters', 400))).toBe(
      'The sign-in service refused the request: Handle is longer than 320 characters.',
    );
    expect(describeError(new Error(errors.POPUP_BLOCKED))).toBe('Your browser blocked the sign-in window. Allow pop-ups for this site and try again.');
    expect(describeError(new TypeError('Failed to fetch'))).toBe('We could not reach the sign-in service. Check your connection and try again.');
    expect(describeError('weird')).toBe('Something went wrong while signing in. Please try again.');
    expect(describeError(new errors.RateLimitError(''), { rate_limit_exceeded: 'Slow down.' })).toBe('Slow down.');
  });

  it('an SSO button whose popup is blocked says so in plain words and offers to try again', async () => {
    const open = vi.spyOn(window, 'open').mockReturnValue(null); // what a popup blocker does
    try {
      const onError = vi.fn();
      const { user } = renderWith(
        server,
        <ConfigurationProvider factors={[{ method: 'oidc', options: { provider: 'google' } }]}>
          <Form onError={onError} />
        </ConfigurationProvider>,
      );
      expect(screen.queryByLabelText('Email address')).toBeNull(); // SSO only: no handle field
      await user.click(await screen.findByRole('button', { name: 'Continue with Google' }));
      expect((await screen.findByRole('alert')).textContent).toBe('Your browser blocked the sign-in window. Allow pop-ups for this site and try again.');
      expect(onError).toHaveBeenCalledOnce();
      await user.click(screen.getByRole('button', { name: 'Try again' }));
      expect(await screen.findByRole('button', { name: 'Continue with Google' })).toBeTruthy();
    } finally {
      open.mockRestore();
    }
  });
});

describe('KeywayProvider with a storage of its own', () => {
  it('uses an inline { get, set } storage without restoring again on every render', async () => {
    const b64 = (o: object) => btoa(JSON.stringify(o)).replace(/=+$/, '');
    const token = `${b64({ alg: 'none' })}.${b64({ person_id: 'custom-1', oid: 'o', exp: Math.floor(Date.now() / 1000) + 600 })}.x`;
    const get = vi.fn(() => token);
    const set = vi.fn();
    function Who() {
      return <p>{useKeyway().user?.personId ?? 'nobody'}</p>;
    }
    const tree = () => (
      <KeywayProvider oid={server.api.orgId} baseURL={server.api.url} analytics={false} tokenStorage={{ get, set }}>
        <Who />
      </KeywayProvider>
    );
    const view = render(tree());
    expect(await screen.findByText('custom-1')).toBeTruthy();
    view.rerender(tree());
    view.rerender(tree());
    await new Promise((r) => setTimeout(r, 50));
    expect(get).toHaveBeenCalledTimes(1);
    expect(screen.getByText('custom-1')).toBeTruthy();
  });
});
