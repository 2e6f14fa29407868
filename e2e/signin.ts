import { inject } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { hydrated } from './browser';

/** The latest one-time code an identity server's dev mailbox holds for an address (default: the shared server). */
export async function mailboxCode(email: string, identityUrl: string = inject('apiUrl')): Promise<string> {
  const res = await fetch(`${identityUrl}/dev/mailbox.json?to=${encodeURIComponent(email)}&limit=1`);
  const item = ((await res.json()) as { result: { code: string | null }[] }).result[0];
  if (!item?.code) throw new Error(`no code in the dev mailbox for ${email}`);
  return item.code;
}

/**
 * The owner of `email` opens the newest sign-in link sent there after `after` (an ISO time; read from the dev mailbox)
 * in a new tab of `context`, checks that its page names the address, and clicks “Yes, sign me in”.
 */
export async function confirmMailedLink(context: BrowserContext, email: string, after: string, identityUrl: string = inject('apiUrl')): Promise<void> {
  let link: string | null | undefined;
  for (let i = 0; i < 100 && !link; i++) {
    const res = await fetch(`${identityUrl}/dev/mailbox.json?to=${encodeURIComponent(email)}`);
    link = ((await res.json()) as { result: { link: string | null; created_at: string }[] }).result.find((m) => m.created_at > after && m.link)?.link;
    if (!link) await new Promise((r) => setTimeout(r, 100));
  }
  if (!link) throw new Error(`no link in the dev mailbox for ${email}`);
  const tab = await context.newPage();
  await tab.goto(link);
  await tab.getByText(`A sign-in as ${email} was requested`).waitFor();
  await tab.getByRole('button', { name: 'Yes, sign me in' }).click();
  await tab.getByRole('heading', { name: 'You are signed in' }).waitFor();
  await tab.close();
}

/** Fills the sign-in form of /login (already open) with an e-mail address and the code the dev mailbox received. */
export async function signInOnLoginPage(page: Page, email: string, identityUrl: string = inject('apiUrl')): Promise<void> {
  await page.getByLabel('Work e-mail address').fill(email);
  await page.getByRole('button', { name: 'Continue' }).click();
  const code = page.getByLabel('Code from the e-mail');
  await code.waitFor();
  await code.fill(await mailboxCode(email, identityUrl));
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** Signs in through the real /login page with an e-mailed code, and waits for the page it returns to. */
export async function signInWithEmailCode(page: Page, base: string, email: string, returnTo = '/docs/intro'): Promise<void> {
  await page.goto(`${base}/login?redirect_to=${encodeURIComponent(returnTo)}`);
  await hydrated(page);
  await signInOnLoginPage(page, email);
  await page.waitForURL(base + returnTo);
  await hydrated(page);
}
