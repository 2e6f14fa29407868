import type { Page } from 'playwright-core';

/** The newest one-time code the identity server's dev mailbox holds for `email`. */
export async function mailboxCode(identityUrl: string, email: string): Promise<string> {
  const res = await fetch(`${identityUrl}/dev/mailbox.json?to=${encodeURIComponent(email)}&limit=1`);
  const item = ((await res.json()) as { result: { code: string | null }[] }).result[0];
  if (!item?.code) throw new Error(`no code in the dev mailbox for ${email}`);
  return item.code;
}

/** Signs in on /login (already open in `page`) with an e-mailed code read from the dev mailbox. */
export async function signInOnLoginPage(page: Page, identityUrl: string, email: string): Promise<void> {
  await page.getByLabel('Work e-mail address').fill(email);
  await page.getByRole('button', { name: 'Send me a code' }).click();
  const code = page.getByLabel('Code from the e-mail');
  await code.waitFor();
  await code.fill(await mailboxCode(identityUrl, email));
  await page.getByRole('button', { name: 'Sign in' }).click();
}
