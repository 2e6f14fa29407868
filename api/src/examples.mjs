// @ts-check
// Example values shared by several operations, so that the same person, organization and token
// appear consistently across the reference.
export const ORG_ID = '3f6a0c1e-5b7d-4e2a-9c41-0d2e7f8a9b10';
/** The development organization of the local server, for examples the samples send to it (they must name a real one). */
export const DEV_ORG_ID = 'org_keyway_dev';
export const SUBORG_ID = '7c2d9e41-1a3b-4c5d-8e6f-a0b1c2d3e4f5';
export const PERSON_ID = 'pid:0193a1f2c4b87d3e9f10a2b3c4d5e6f7';
export const CHALLENGE_ID = 'ch_01JD8Z6X2K9Q4M7R3T5V8W1Y0A';
export const CREATED_AT = '2026-03-14T09:26:53Z';
// A syntactically valid JWT (header.payload.signature); the signature is illustrative.
export const USER_TOKEN =
  'eyJhbGciOiJFUzI1NiIsImtpZCI6ImstMjAyNi0wMyIsInR5cCI6IkpXVCJ9.' +
  'eyJwZXJzb25faWQiOiJwaWQ6MDE5M2ExZjJjNGI4N2QzZTlmMTBhMmIzYzRkNWU2ZjciLCJvaWQiOiIzZjZhMGMxZS01YjdkLTRlMmEtOWM0MS0wZDJlN2Y4YTliMTAiLCJmaXJzdF90b2tlbiI6ZmFsc2UsImF1dGhlbnRpY2F0ZWRfbWV0aG9kcyI6WyJvdHBfdmlhX2VtYWlsIl0sInBlcnNvbl90eXBlIjoicmVndWxhciIsImdyb3VwcyI6WyJlZGl0b3JzIl0sImV4cCI6MTc3MzQ4MzYxM30.' +
  'q3Yw8n2JxT0bV5cP1sK7mR9dL4fH6gE2aZ0uN8iC3oWkXy1tQ5vB7jM9pS4eR2hD6lA0fG8zU3cY1nK5wT7xQ';

export const EMAIL_HANDLE = { type: 'email_address', value: 'ada@example.com' };
export const PHONE_HANDLE = { type: 'phone_number', value: '+447700900123' };

export const PERSON = {
  person_id: PERSON_ID,
  active: true,
  person_type: 'regular',
  region: 'europe-belgium',
  handles: [EMAIL_HANDLE, PHONE_HANDLE],
  groups: ['editors'],
  attributes: { end_user_read_write: { theme: 'dark', newsletter: true } },
};

export const ORGANIZATION = {
  id: ORG_ID,
  parent_id: null,
  org_name: 'Acme Docs',
  tenant_name: 'acme',
  persons_pool_org_ids: [],
  group_pool_org_ids: [ORG_ID],
  inherits_rbac_pools: false,
  managed_organizations: [{ id: SUBORG_ID, parent_id: ORG_ID, org_name: 'Acme Docs EU', tenant_name: 'acme' }],
};

export const CREDENTIALS = [
  { id: 'cred_01JD8ZA1', type: 'password', label: 'Password', last_used: '2026-03-14T09:20:00Z', params: { hash_algorithm: 'scrypt' } },
  { id: 'cred_01JD8ZA2', type: 'totp', label: 'Authenticator app', last_used: null, params: { recovery_codes_total: 10, recovery_codes_unused: 9 } },
];

export const OTP_CHALLENGE = { id: CHALLENGE_ID, type: 'otp', authentication_method: 'otp_via_email', options: {} };
export const PROXY_CHALLENGE = {
  id: 'ch_01JD8Z6X2K9Q4M7R3T5V8W1Y0B', type: 'proxy', authentication_method: 'email_link',
  options: { challenge_id: 'ch_01JD8Z6X2K9Q4M7R3T5V8W1Y0C' },
};
export const PASSWORD_RULES = [
  { name: 'min_length', pattern: '^.{10,}$', match_type: 'must_match' },
  { name: 'no_common_word', pattern: 'password', match_type: 'must_not_match', qualifiers: ['case_insensitive'] },
];

export const CONSENTS = [
  { consent_level: 'necessary', created_at: CREATED_AT },
  { consent_level: 'analytics', created_at: CREATED_AT },
];

export const CONSENT_DESCRIPTION = `
Consent levels: none, necessary, analytics, marketing, retargeting, tracking. Each stored level carries the time it
was given.`;
