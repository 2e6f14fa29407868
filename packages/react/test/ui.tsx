/** Rendering and typing helpers shared by the component tests. */
import { render, screen } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import type { ReactNode } from 'react';
import { KeywayProvider, type KeywayProviderProps } from '../src/index.js';
import { mailbox, type TestServer } from './server.js';

/** Renders `children` inside a provider talking to the test server (analytics off). */
export function renderWith(server: TestServer, children: ReactNode, props: Partial<KeywayProviderProps> = {}) {
  const user = userEvent.setup();
  const view = render(
    <KeywayProvider oid={server.api.orgId} baseURL={server.api.url} analytics={false} {...props}>
      {children}
    </KeywayProvider>,
  );
  return { user, ...view };
}

type U = ReturnType<typeof userEvent.setup>;

/** Types the handle and presses Continue. */
export async function enterHandle(user: U, handle: string, label = 'Email address') {
  await user.type(await screen.findByLabelText(label), handle);
  await user.click(screen.getByRole('button', { name: 'Continue' }));
}

/** Types the code just mailed to `email` (sent after `after`) and presses the submit button. */
export async function enterMailedCode(user: U, server: TestServer, email: string, after: string, submit = 'Verify') {
  const input = await screen.findByLabelText('Code');
  const { code } = await mailbox(server.api, email, after);
  await user.type(input, code!);
  await user.click(screen.getByRole('button', { name: submit }));
}

/** Signs `email` in through the form with an emailed code. */
export async function signInByEmail(user: U, server: TestServer, email: string) {
  const before = new Date().toISOString();
  await enterHandle(user, email);
  await enterMailedCode(user, server, email, before);
}
