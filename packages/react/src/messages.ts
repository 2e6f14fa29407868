import { errors } from '@keyway/sdk';

/** Plain-words messages of the SDK errors, by slug (spec §8); override with `errorMessages` on {@link Form}. */
export const ERROR_MESSAGES: Record<string, string> = {
  no_password_set: 'This account has no password yet. Sign in another way, or reset the password.',
  flow_cancelled: 'Sign-in was cancelled.',
  handle_pattern_not_allowed: 'This address cannot be used to sign up here. Use another one or ask your administrator.',
  sign_up_awaiting_approval: 'Your account was created and waits for an administrator’s approval.',
  sign_in_awaiting_approval: 'Your account waits for an administrator’s approval before you can sign in.',
  self_registration_not_allowed: 'New accounts cannot be created here. Ask your administrator for an invitation.',
  recover_non_reachable_handle_type: 'Passwords can only be reset with an email address or phone number.',
  timeout: 'The sign-in took too long and expired. Please start again.',
  rate_limit_exceeded: 'Too many attempts. Wait a minute, then try again.',
  passkey_bad_scope: 'Passkeys are not set up correctly for this site.',
  passkey_prompt_failed: 'The passkey prompt was closed before finishing. Try again or choose another way.',
  invalid_configuration: 'Sign-in is not configured correctly on this site.',
  invalid_url_params: 'The sign-in link is incomplete or broken. Start the sign-in again.',
  invalid_authentication_method: 'This way of signing in is not available here.',
  invalid_email_address_format: 'That email address does not look right. Check it and try again.',
  invalid_phone_number_format: 'That phone number does not look right. Use the international format, e.g. +15551234567.',
  unreachable_phone_number: 'We cannot send messages to that phone number.',
  person_exists: 'An account with this address already exists. Sign in instead.',
  popup_blocked: 'Your browser blocked the sign-in window. Allow pop-ups for this site and try again.',
  network: 'We could not reach the sign-in service. Check your connection and try again.',
  api_response_error: 'The sign-in service refused the request: {message}',
  unspecified: 'Something went wrong while signing in. Please try again.',
};

/** Slug of an error for {@link ERROR_MESSAGES}. */
export function errorSlug(e: unknown): string {
  if (e instanceof Error && e.message === errors.POPUP_BLOCKED) return 'popup_blocked';
  if (e instanceof errors.KeywayError) return e.slug;
  if (e instanceof TypeError && /fetch|network/i.test(e.message)) return 'network';
  return 'unspecified';
}

/**
 * An error in plain words for the person in front of the form. API errors keep the server's
 * message (it names what was wrong); everything unknown gets a generic sentence.
 */
export function describeError(e: unknown, overrides: Record<string, string> = {}): string {
  const slug = errorSlug(e);
  const template = overrides[slug] ?? ERROR_MESSAGES[slug] ?? ERROR_MESSAGES.unspecified!;
  const message = e instanceof Error ? e.message : String(e);
  return template.replace('{message}', message.replace(/^\w/, (c) => c.toUpperCase()).replace(/\.?$/, '.'));
}
