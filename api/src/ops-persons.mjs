// @ts-check
// Management operations on persons: persons, handles, credentials, consents, attributes, groups, bulk import.
import { ref, str, int, open, arrayOf, closed } from './lib.mjs';
import { ETAG_HEADER } from './components.mjs';
import {
  PERSON, PERSON_ID, ORG_ID, SUBORG_ID, EMAIL_HANDLE, PHONE_HANDLE, CREDENTIALS, CONSENTS, CONSENT_DESCRIPTION, USER_TOKEN, CREATED_AT,
} from './examples.mjs';

const P = '/persons/{person_id}';
const mgmt = { security: /** @type {const} */ ('management') };
const personParam = ['PersonIdPath'];
const GROUP = { name: 'editors', description: 'May edit the docs', created: CREATED_AT, members_count: 2 };
/** The answer of the calls the public reference answers with the envelope alone (no `result`). */
const EMPTY_ENVELOPE = { raw: true, schema: ref('Envelope'), example: {} };
const person2 = { ...PERSON, person_id: 'pid:0193a1f2c4b87d3e9f10a2b3c4d5e6f8', handles: [{ type: 'email_address', value: 'grace@example.com' }], groups: ['editors'], attributes: {} };

export const consentDeleteParams = [
  { name: 'consent_levels', in: 'query', required: false, style: 'form', explode: false, description: 'Comma-joined levels to remove.', schema: { type: 'array', items: ref('ConsentLevel'), minItems: 1 }, example: ['marketing'] },
  { name: 'deleteAll', in: 'query', required: false, description: 'Remove every level; use instead of consent_levels.', schema: { type: 'boolean' } },
];

/** @type {import('./operation.mjs').OpSpec[]} */
export const personOperations = [
  // ---------- persons ----------
  {
    ...mgmt, method: 'post', path: '/persons', id: 'createPerson', tags: ['persons'],
    summary: 'Create a new person',
    description: `
Registers a person in the organization with one or more handles, and optionally groups, roles and attributes. No
message is sent to the person. Answers 409 'person exists' when a handle already belongs to a person of the person
pool; use \`PUT /persons\` to create-or-update instead.`,
    body: { schema: ref('PersonCreate'), example: { handles: PERSON.handles, region: PERSON.region, groups: PERSON.groups, attributes: PERSON.attributes } },
    ok: { status: 201, schema: ref('Person'), example: PERSON },
    errors: ['IdBadRequest', 'PersonExists'],
  },
  {
    ...mgmt, method: 'put', path: '/persons', id: 'upsertPerson', tags: ['persons'],
    summary: 'Create or update a person (idempotent)',
    description: `
Creates the person if none of the handles is known, otherwise updates the person owning them (adds the missing
handles, sets groups, roles and attributes as given). Safe to repeat, which makes it the call for synchronising an
external user directory. Handles belonging to two different persons answer 409.`,
    body: { schema: ref('PersonCreate'), example: { handles: [EMAIL_HANDLE, PHONE_HANDLE], groups: ['editors'], attributes: PERSON.attributes } },
    ok: { schema: ref('Person'), example: PERSON, description: 'The created or updated person.' },
    errors: ['IdBadRequest', 'PersonExists'],
  },
  {
    ...mgmt, method: 'get', path: '/persons', id: 'listPersons', tags: ['persons', 'rbac'],
    params: [
      { name: 'filter', in: 'query', required: false, description: 'SCIM-style filter, e.g. `handles.value eq "ada@example.com"` or `groups co "edit"`; operators eq, ne, co, sw, pr, and, or.', schema: str({ maxLength: 1000 }) },
      { name: 'handle', in: 'query', required: false, description: 'Only the person with this handle, as `type:value` (e.g. `email_address:ada@example.com`).', schema: str({ maxLength: 400 }) },
      { name: 'ids', in: 'query', required: false, style: 'form', explode: false, description: 'Only these persons (comma-separated ids, at most 100).', schema: { type: 'array', items: ref('PersonId'), minItems: 1, maxItems: 100 } },
      'PersonFields',
      { name: 'all_regions', in: 'query', required: false, description: 'Persons of every region. This server keeps every region in one store, so every region is local and the listing always covers them all; the parameter is accepted for clients of the regional service.', schema: { type: 'boolean' } },
      { name: 'all_person_types', in: 'query', required: false, description: 'With `false`, regular persons only; absent or `true`, anonymous persons too.', schema: { type: 'boolean' } },
      'Limit', 'Offset', 'Cursor',
    ],
    summary: 'Get a list of persons',
    description: `
Lists the persons of the organization, newest first, page by page (\`limit\` at most 1000, \`offset\`), with
\`meta.pagination.total_count\`. The SCIM-style \`filter\` selects by handle, group, role, activity or person type;
an unparsable filter answers 400 naming the position of the problem. \`handle\`, \`ids\` and \`all_person_types\` narrow the
list further (all of them together), and \`fields\` keeps only the parts of each person named.`,
    ok: { schema: arrayOf(ref('Person')), example: [PERSON, person2], paginated: true },
  },
  {
    ...mgmt, method: 'get', path: P, id: 'getPerson', tags: ['persons'], params: [...personParam, 'PersonFields'],
    summary: 'Get a person',
    description: 'Returns one person with handles, groups, roles and attributes of every bucket; `fields` keeps only the parts named.',
    ok: { schema: ref('Person'), example: PERSON },
  },
  {
    ...mgmt, method: 'patch', path: P, id: 'patchPerson', tags: ['persons'], params: personParam,
    summary: 'Modify an existing person',
    description: `
Changes the activity or the region of a person. Deactivating blocks new sign-ins (answered 403 'Person <id> is
inactive') without deleting data; moving regions migrates the person's data.`,
    body: { schema: ref('PersonPatch'), example: { active: false } },
    ok: { schema: ref('Person'), example: { ...PERSON, active: false } },
  },
  {
    ...mgmt, method: 'delete', path: P, id: 'deletePerson', tags: ['organizations', 'persons'], params: personParam,
    summary: 'Delete a person from an organization',
    description: `
Removes the person from this organization. When no other organization of the person pool still holds the person,
the handles, credentials, attributes and consents are deleted too and the person's tokens stop validating.`,
    ok: { status: 204, description: 'Deleted.' },
  },
  {
    ...mgmt, method: 'get', path: `${P}/organizations`, id: 'getPersonOrganizations', tags: ['organizations', 'persons'], params: [...personParam, 'OrgFilter'],
    summary: "Get the list of person's organizations",
    description: 'Lists the organizations (this one and those sharing its person pool) the person belongs to; `filter` selects among them by id or name.',
    ok: {
      schema: arrayOf(ref('PersonOrganization')),
      example: [
        { id: ORG_ID, org_name: 'Acme Docs', tenant_name: 'acme', person_id: PERSON_ID, managed_organizations: [{ id: SUBORG_ID, org_name: 'Acme Docs EU', tenant_name: 'acme', parent_id: ORG_ID }] },
        { id: SUBORG_ID, org_name: 'Acme Docs EU', tenant_name: 'acme', parent_id: ORG_ID, person_id: PERSON_ID, managed_organizations: [] },
      ],
    },
  },
  {
    ...mgmt, method: 'post', path: `${P}/direct-id`, id: 'createPersonDirectId', tags: ['persons'], params: personParam,
    summary: 'Get Direct-ID value for a person',
    description: `
Issues a single-use Direct-ID for the person, valid for \`duration_secs\` (default 300, at most 3600). Give it to
your front end (for example in a link) and the SDK signs the person in without asking for a factor; the resulting
token lists \`direct_id\`. Treat it like a password. \`result\` is the Direct-ID.`,
    body: {
      schema: closed({ duration_secs: int({ minimum: 10, maximum: 3600, default: 300, description: 'How long the Direct-ID stays valid, in seconds.' }) }),
      example: { duration_secs: 300 }, required: false,
    },
    ok: { status: 201, schema: str({ description: 'Opaque single-use value; pass it to the SDK (URL parameter) to sign the person in.' }), example: 'eyJvaWQiOiIzZjZhMGMxZSJ9.c2lnbmF0dXJl' },
  },
  {
    ...mgmt, method: 'post', path: `${P}/mint-token`, id: 'mintPersonToken', tags: ['persons', 'tokens'], params: personParam,
    summary: 'Mint a token for a person',
    description: `
Issues a user token for the person without them signing in (no authentication step), for back-end integrations and tests. The token lists
\`api\` (or the given methods) in \`authenticated_methods\` and may carry extra claims; reserved claim names are
rejected with 400. \`result\` is the token.`,
    body: { schema: ref('MintTokenRequest'), example: { custom_claims: { plan: 'pro' }, expiry_seconds: 3600 }, required: false },
    ok: { status: 201, schema: ref('UserToken'), example: USER_TOKEN },
  },
  // ---------- groups of a person ----------
  {
    ...mgmt, method: 'get', path: `${P}/groups`, id: 'getPersonGroups', tags: ['groups', 'persons'], params: personParam,
    summary: 'Get groups for a person',
    description: 'Names of the groups the person belongs to; the same names appear in the groups claim of their tokens.',
    ok: { schema: arrayOf(ref('GroupName')), example: ['editors', 'beta-testers'] },
  },
  {
    ...mgmt, method: 'put', path: `${P}/groups`, id: 'setPersonGroups', tags: ['groups', 'persons'], params: personParam,
    summary: 'Set the groups for a person',
    description: 'Replaces the person\'s group memberships with exactly the given groups (an empty list removes all). Unknown groups answer 400 and nothing changes.',
    body: { schema: ref('GroupNameList'), example: { groups: ['editors'] } },
    ok: { schema: arrayOf(ref('GroupName')), example: ['editors'] },
  },
  // ---------- roles and permissions of a person ----------
  {
    ...mgmt, method: 'get', path: `${P}/permissions`, id: 'getPersonPermissions', tags: ['persons', 'rbac'], params: personParam,
    summary: 'Get permissions for a person',
    description: 'The names of the effective permissions of the person: those of their roles plus the additional ones. `POST /rbac/check` tells what grants one.',
    ok: { schema: arrayOf(ref('PermissionName')), example: ['docs:read', 'docs:write'] },
  },
  {
    ...mgmt, method: 'get', path: `${P}/additional-permissions`, id: 'getPersonAdditionalPermissions', tags: ['persons', 'rbac'], params: personParam,
    summary: 'Get additional permissions for a person',
    description: 'Permissions granted to the person directly, outside any role. Use it to audit exceptions; `GET .../permissions` gives the effective set. The `ETag` goes into `If-Match` of a change.',
    ok: { schema: arrayOf(ref('PermissionName')), example: ['docs:write'], headers: ETAG_HEADER },
  },
  {
    ...mgmt, method: 'put', path: `${P}/additional-permissions`, id: 'setPersonAdditionalPermissions', tags: ['persons', 'rbac'], params: [...personParam, 'IfMatch'],
    summary: 'Set the permissions for a person',
    description: 'Replaces the person\'s direct permissions. Every permission must exist (400 otherwise); role permissions are unaffected. With `If-Match`, only if they are still those of that `ETag` (412 otherwise).',
    body: { schema: ref('PermissionNameList'), example: { permissions: ['docs:write'] } },
    ok: { status: 204, description: 'Replaced.', headers: ETAG_HEADER },
    errors: ['PreconditionFailed'],
  },
  {
    ...mgmt, method: 'get', path: `${P}/roles`, id: 'getPersonRoles', tags: ['persons', 'rbac'], params: personParam,
    summary: 'Get roles for a person',
    description: 'Names of the roles assigned to the person. Roles inherited through the RBAC pool of a parent organization are included. The `ETag` goes into `If-Match` of a change.',
    ok: { schema: arrayOf(ref('RoleName')), example: ['reader'], headers: ETAG_HEADER },
  },
  {
    ...mgmt, method: 'put', path: `${P}/roles`, id: 'setPersonRoles', tags: ['persons', 'rbac'], params: [...personParam, 'IfMatch'],
    summary: 'Set the roles for a person',
    description: 'Replaces the person\'s roles with exactly the given ones. Unknown roles answer 400 and nothing changes. With `If-Match`, only if they are still those of that `ETag` (412 otherwise).',
    body: { schema: ref('RoleNameList'), example: { roles: ['reader', 'editor'] } },
    ok: { status: 204, description: 'Replaced.', headers: ETAG_HEADER },
    errors: ['PreconditionFailed'],
  },
  // ---------- groups ----------
  {
    ...mgmt, method: 'post', path: '/groups', id: 'createGroup', tags: ['groups'],
    summary: 'Create a group',
    description: 'Creates an empty group. Names are unique per organization (409 when taken) and limited to letters, digits and `_ . : -`.',
    body: { schema: ref('GroupCreate'), example: { name: 'editors', description: 'May edit the docs' } },
    ok: { status: 201, schema: ref('Group'), example: GROUP },
    errors: ['Conflict'],
  },
  {
    ...mgmt, method: 'get', path: '/groups', id: 'listGroups', tags: ['groups'], params: ['Limit', 'Offset', 'Cursor'],
    summary: 'Get a list of groups',
    description: 'Lists the names of the groups of the organization in name order, page by page (`limit` at most 1000), with the total in `meta.pagination`; `GET /groups/{group_name}` gives one group in full.',
    ok: { schema: arrayOf(ref('GroupName')), example: ['editors', 'reviewers'], paginated: true },
  },
  {
    ...mgmt, method: 'get', path: '/groups/{group_name}', id: 'getGroup', tags: ['groups'], params: ['GroupNamePath'],
    summary: 'Get a group',
    description: 'Returns one group with its description, creation time and number of members; 404 when no group of the organization has that name.',
    ok: { schema: ref('Group'), example: GROUP },
  },
  {
    ...mgmt, method: 'delete', path: '/groups/{group_name}', id: 'deleteGroup', tags: ['groups'], params: ['GroupNamePath'],
    summary: 'Delete a group',
    description: 'Deletes the group and every membership in it. Tokens issued before keep the old groups claim until they expire. The answer is the envelope without `result`.',
    ok: { status: 200, ...EMPTY_ENVELOPE, description: 'Deleted.' },
  },
  {
    ...mgmt, method: 'post', path: '/groups/{group_name}/persons', id: 'addPersonsToGroup', tags: ['groups', 'persons'], params: ['GroupNamePath'],
    summary: 'Add persons to a group',
    description: 'Adds up to 1000 persons to the group; persons already in it are left as they are. An unknown person id answers 404 and nobody is added. The answer is the envelope without `result`.',
    body: { schema: ref('PersonIdList'), example: { persons: [PERSON_ID] } },
    ok: { status: 201, ...EMPTY_ENVELOPE, description: 'Added.' },
  },
  {
    ...mgmt, method: 'get', path: '/groups/{group_name}/persons', id: 'listGroupPersons', tags: ['groups', 'persons'], params: ['GroupNamePath', 'Limit', 'Offset', 'Cursor'],
    summary: 'List the persons in a group',
    description: 'Lists the ids of the persons who are members of the group, oldest member first, page by page; `GET /persons?ids=…` reads them in full.',
    ok: { schema: arrayOf(ref('PersonId')), example: [PERSON_ID], paginated: true },
  },
  {
    ...mgmt, method: 'delete', path: '/groups/{group_name}/persons/{person_id}', id: 'removePersonFromGroup', tags: ['groups', 'persons'], params: ['GroupNamePath', 'PersonIdPath'],
    summary: 'Delete a person from a group',
    description: 'Removes one person from the group; the person and the group remain. The answer is the envelope without `result`.',
    ok: { status: 200, ...EMPTY_ENVELOPE, description: 'Removed.' },
  },
  // ---------- handles ----------
  {
    ...mgmt, method: 'post', path: `${P}/handles`, id: 'addPersonHandles', tags: ['person-handles'], params: personParam,
    summary: 'Add handles to a person',
    description: `
Adds e-mail addresses, phone numbers (E.164) or usernames the person can sign in with, sent as a list of handles. A
handle owned by another person of the pool answers 409 'person exists'; malformed ones answer 400 with the
SDK-mapped messages. \`GET .../handles\` reads the result.`,
    body: { schema: ref('HandleList'), example: [PHONE_HANDLE] },
    ok: { status: 204, description: 'Added.' },
    errors: ['IdBadRequest', 'PersonExists'],
  },
  {
    ...mgmt, method: 'get', path: `${P}/handles`, id: 'getPersonHandles', tags: ['person-handles'], params: personParam,
    summary: 'Get handles for a person',
    description: 'Lists every handle (e-mail address, phone number, username) the person can be identified and signed in with.',
    ok: { schema: arrayOf(ref('PersonHandle')), example: [EMAIL_HANDLE, PHONE_HANDLE] },
  },
  {
    ...mgmt, method: 'delete', path: `${P}/handles/{handle}`, id: 'deletePersonHandle', tags: ['person-handles'], params: ['PersonIdPath', 'HandlePath'],
    summary: 'Delete a handle from a person',
    description: 'Removes one handle, written `type:value`. The last handle of a regular person cannot be removed (409).',
    ok: { status: 204, description: 'Removed.' },
    errors: ['Conflict'],
  },
  // ---------- credentials ----------
  {
    ...mgmt, method: 'get', path: `${P}/credentials`, id: 'getPersonCredentials', tags: ['person-credentials'], params: personParam,
    summary: "Get a person's credentials",
    description: 'Lists passwords, passkeys and TOTP authenticators of the person with when they were last used. Secrets are never returned.',
    ok: { schema: arrayOf(ref('Credential')), example: CREDENTIALS },
  },
  {
    ...mgmt, method: 'post', path: `${P}/credentials`, id: 'createPersonCredential', tags: ['person-credentials'], params: personParam,
    summary: 'Create a new credential',
    description: 'Stores a credential for the person, for example when migrating from another system: a password (`password`, hashed here), a TOTP secret (`secret`), or a credential as the public reference imports it (`type`, `label`, `params`): a password hash (`params.password_hash`), a passkey (`params.webauthn_credential_id` and `params.public_key`) or a TOTP record (`params.key_uri`, `params.unused_recovery_codes`). A password or TOTP replaces the one the person has; a passkey is added (409 when its id belongs to another person). A format this server cannot verify answers 400 naming the field and the value.',
    body: { schema: ref('CredentialCreate'), example: { type: 'totp', label: 'Migrated authenticator', secret: 'JBSWY3DPEHPK3PXPJBSWY3DP' } },
    ok: { status: 201, schema: ref('Credential'), example: CREDENTIALS[1] },
    errors: ['Conflict'],
  },
  {
    ...mgmt, method: 'delete', path: `${P}/credentials`, id: 'deletePersonCredentials', tags: ['person-credentials'], params: personParam,
    summary: 'Delete all credentials',
    description: 'Deletes every credential of the person, e.g. after an account takeover. The person can still sign in with e-mail or SMS factors.',
    ok: { status: 204, description: 'Deleted.' },
  },
  {
    ...mgmt, method: 'delete', path: `${P}/credentials/{credential_id}`, id: 'deletePersonCredential', tags: ['person-credentials'], params: ['PersonIdPath', 'CredentialIdPath'],
    summary: 'Delete a credential object',
    description: 'Deletes one credential, for example a lost security key or an authenticator app the person no longer has. Other credentials are kept.',
    ok: { status: 204, description: 'Deleted.' },
  },
  {
    ...mgmt, method: 'put', path: `${P}/credentials/password`, id: 'setPersonPassword', tags: ['person-credentials'], params: personParam,
    summary: 'Create or overwrite a password credential',
    description: 'Sets the person\'s password (hashed with a memory-hard function). It must satisfy the organization\'s password rules unless `skip_validation` is set; failures answer 400 naming the rules. A hash made by another system can be imported instead (`type: password`, `params.password_hash`: bcrypt or scrypt PHC; other formats answer 400 naming the format); it is replaced by this server\'s own hash at the first sign-in.',
    body: { schema: ref('PasswordSet'), example: { password: 'correct horse battery staple' } },
    ok: { schema: ref('Credential'), example: CREDENTIALS[0] },
  },
  {
    ...mgmt, method: 'post', path: `${P}/credentials/password-reset`, id: 'resetPersonPassword', tags: ['person-credentials'], params: personParam,
    summary: 'Trigger a password reset flow',
    description: 'Sends the person a password-reset link to `reset_handle` (by default the person\'s first e-mail address, else phone number); opening it leads to a `password_reset` challenge: on `redirect_target` (your page, completing it with the SDK) or, without one, on the identity server\'s own reset page. The current password keeps working until replaced, unless `force_change` is set.',
    body: { schema: ref('PasswordResetRequest'), example: { reset_handle: EMAIL_HANDLE, redirect_target: 'https://app.example.com/reset' } },
    ok: { status: 202, schema: open({ sent_to: ref('PersonHandle') }, ['sent_to']), example: { sent_to: EMAIL_HANDLE } },
  },
  {
    ...mgmt, method: 'post', path: `${P}/credentials/password-rotate`, id: 'rotatePersonPassword', tags: ['person-credentials'], params: personParam,
    summary: "Rotate a person's password",
    description: `
Marks the password as compromised: sign-ins with it are refused (403 'password must be changed') until a new password
is set (reset link, account recovery or \`PUT .../credentials/password\`). With a \`handle\` (and \`redirect_target\`) a
reset link is sent to it right away. A person without a password answers 404.`,
    body: { schema: ref('PasswordRotateRequest'), example: { reason: 'found in a breach corpus', handle: EMAIL_HANDLE, redirect_target: 'https://app.example.com/reset' }, required: false },
    ok: { schema: open({ rotation_required: { type: 'boolean', const: true } }, ['rotation_required']), example: { rotation_required: true } },
  },
  // ---------- consents ----------
  {
    ...mgmt, method: 'get', path: `${P}/consent/gdpr`, id: 'getPersonGdprConsent', tags: ['person-consents'], params: personParam,
    summary: 'Get GDPR consent',
    description: `Returns the consent levels the person has given.${CONSENT_DESCRIPTION}`,
    ok: { schema: ref('GdprConsentList'), example: { consents: CONSENTS } },
  },
  {
    ...mgmt, method: 'post', path: `${P}/consent/gdpr`, id: 'addPersonGdprConsent', tags: ['person-consents'], params: personParam,
    summary: 'Store GDPR consent',
    description: `Adds consent levels on behalf of the person (for consent collected outside the SDK) and returns all levels.${CONSENT_DESCRIPTION}`,
    body: { schema: ref('GdprConsentRequest'), example: { consent_levels: ['marketing'] } },
    ok: { status: 201, schema: ref('GdprConsentList'), example: { consents: CONSENTS } },
  },
  {
    ...mgmt, method: 'put', path: `${P}/consent/gdpr`, id: 'setPersonGdprConsent', tags: ['person-consents'], params: personParam,
    summary: 'Set GDPR consent',
    description: `Replaces the person's consent levels with exactly the given ones.${CONSENT_DESCRIPTION}`,
    body: { schema: ref('GdprConsentRequest'), example: { consent_levels: ['necessary'] } },
    ok: { schema: ref('GdprConsentList'), example: { consents: CONSENTS.slice(0, 1) } },
  },
  {
    ...mgmt, method: 'delete', path: `${P}/consent/gdpr`, id: 'deletePersonGdprConsent', tags: ['person-consents'], params: [...personParam, ...consentDeleteParams],
    summary: 'Remove GDPR consent',
    description: 'Removes the listed levels of the person, or all with `deleteAll=true`; one of the two is required.',
    ok: { status: 204, description: 'Removed.' },
  },
  // ---------- bulk import ----------
  {
    ...mgmt, method: 'get', path: '/persons/bulk-import', id: 'getBulkImportTemplate', tags: ['persons-bulk-import'],
    summary: 'Fetch the import CSV template',
    description: `
Returns the CSV header row (and one sample row) that \`POST /persons/bulk-import\` expects: \`handle_type\` and
\`handle_value\` (required), \`active\`, \`region\`, \`groups\` and \`roles\` (names separated by \`;\`), and attribute
columns named \`attr:<bucket>:<name>\` (a cell that is JSON is stored as that value, any other text as a string).`,
    ok: {
      raw: true, contentType: 'text/csv', schema: str({ contentMediaType: 'text/csv' }),
      example: 'handle_type,handle_value,active,region,groups,roles,attr:end_user_read_only:plan\nemail_address,ada@example.com,true,europe-belgium,editors;reviewers,reader,pro\n',
    },
  },
  {
    ...mgmt, method: 'post', path: '/persons/bulk-import', id: 'bulkImportPersons', tags: ['persons-bulk-import'],
    summary: 'Bulk import persons',
    description: `
Imports up to 10 000 persons from a CSV file (multipart part \`persons\`) in the template's format. Rows are checked one by one: valid rows are
imported, invalid ones are reported with their row number (the header is row 1) and reason, and come back as
\`failed_csv\`, so they can be fixed and re-sent (existing persons are updated, not duplicated). A file whose header cannot be used (missing handle
columns, unknown columns or buckets) or that is not CSV answers 400 and imports nothing.`,
    body: {
      contentType: 'multipart/form-data',
      schema: closed({ persons: str({ contentMediaType: 'text/csv', description: 'The CSV file (a part named `file`, the earlier name, is accepted too).' }) }, ['persons']),
      example: { persons: 'handle_type,handle_value,region,groups,roles\nemail_address,ada@example.com,europe-belgium,editors,reader\n' },
      sample: { 'x-sample-filenames': { persons: 'persons.csv' } },
    },
    ok: { schema: ref('BulkImportResult'), example: { successful_imports: 1, failed_imports: 1, failed_csv: 'handle_type,handle_value\nemail_address,ada@\n', failures: [{ row: 3, message: 'malformed e-mail address' }] } },
  },
];
