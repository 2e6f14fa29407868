// @ts-check
// Builds api/openapi.yaml from the sources in api/src. Run `npm run contract -w @keyway/api` after editing them;
// a test fails when the committed file differs from the build.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { PathRegistry } from './operation.mjs';
import { schemas } from './schemas.mjs';
import { protocolSchemas } from './protocol-schemas.mjs';
import { managementSchemas } from './management-schemas.mjs';
import { parameters, responses, securitySchemes } from './components.mjs';
import { sdkOperations } from './ops-sdk.mjs';
import { protocolOperations } from './ops-protocol.mjs';
import { personOperations } from './ops-persons.mjs';
import { attributeOperationsList } from './ops-attributes.mjs';
import { organizationOperations } from './ops-organizations.mjs';
import { accessOperations } from './ops-access.mjs';
import { renderTypes, TYPES_OUTPUT } from './types.mjs';

export const OUTPUT = fileURLToPath(new URL('../openapi.yaml', import.meta.url));

const TAGS = {
  'identity-management': 'Every operation that manages persons, organizations, credentials, tokens and their configuration.',
  groups: 'Named groups of persons; group names appear in the `groups` claim of user tokens.',
  'o-auth-2': 'OAuth 2.0 clients of the organization and the protocol endpoints: hosted login, tokens, introspection, revocation and userinfo.',
  'oidc-discovery': 'Public OpenID Connect discovery document and the keys that verify Keyway tokens.',
  'organization-allowed-domains': 'Domains the organization allows as redirect targets and passkey scopes.',
  'organization-attributes': 'Attributes stored on the organization itself, in buckets.',
  'organization-email-templates': 'Templates of the e-mails Keyway sends on behalf of the organization.',
  'organization-external-credentials': 'Credentials of third-party services the organization uses (e-mail, SMS, identity providers).',
  'organization-kyc-config': 'Identity-verification (KYC) settings of the organization.',
  'organization-sso-config': 'SAML and OIDC identity providers the organization signs persons in with.',
  'organization-token-template': 'Template of extra claims added to the user tokens of the organization.',
  'organization-webhooks': 'Webhooks, their triggers and the keys that sign webhook calls.',
  organizations: 'The organization, its suborganizations, configuration, API keys and quotas.',
  'person-attributes': 'Attributes of persons, in buckets with end-user access rules.',
  'person-consents': 'GDPR consent levels given by persons.',
  'person-credentials': 'Passwords, passkeys and TOTP authenticators of persons, and recovery.',
  'person-handles': 'E-mail addresses, phone numbers and usernames of persons.',
  persons: 'Persons of the organization and the signed-in person.',
  'persons-bulk-import': 'Import many persons from a CSV file.',
  rbac: 'Role-based access control: permissions, roles and checks.',
  sso: 'Tokens obtained from identity providers during SSO, and completion of SSO challenges.',
  tokens: 'Sign-in, user tokens, their validation and revocation.',
};

export function buildDocument() {
  const registry = new PathRegistry();
  registry.add(...sdkOperations, ...protocolOperations, ...personOperations, ...attributeOperationsList, ...organizationOperations, ...accessOperations);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Keyway API',
      version: '1.0.0',
      summary: 'Identity and access management: sign-in, persons, organizations, tokens.',
      description: `
The Keyway REST API. Two audiences use it:

- **Management calls** from your servers authenticate with the \`Keyway-OrgID\` and \`Keyway-API-Key\` headers.
- **SDK calls** from the browser send the signed-in person's user token as \`Authorization: Bearer\`, and
  \`Keyway-OrgID\` where the organization is not implied by the token.

Every JSON answer except the OAuth2/OIDC protocol endpoints is an envelope:
\`{ "result": …, "errors": [{ "httpcode", "message" }], "meta": { "pagination": { "limit", "offset", "total_count" } } }\`.
Errors always carry at least one entry in \`errors\`; clients read the first message.

Writes accept \`Keyway-Required-Consistency\` (\`local_region\` or \`all_regions\`) and
\`Keyway-Required-Consistency-Timeout\` (seconds): the answer waits until the change is replicated, or is 408.`.trim(),
      contact: { name: 'Keyway developer relations', url: 'https://keyway.dev/docs/api' },
      license: { name: 'Proprietary', identifier: 'LicenseRef-Keyway' },
    },
    servers: [
      { url: 'https://api.keyway.dev', description: 'Production' },
      { url: 'https://api.sandbox.keyway.dev', description: 'Sandbox' },
      { url: 'http://localhost:8787', description: 'Local identity server (npm start)' },
    ],
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    paths: registry.paths,
    components: {
      schemas: { ...schemas, ...protocolSchemas, ...managementSchemas },
      parameters,
      responses,
      securitySchemes,
    },
  };
}

export function renderYaml() {
  const header = '# GENERATED from api/src by `npm run contract -w @keyway/api` — edit the sources, not this file.\n';
  return header + stringify(buildDocument(), { aliasDuplicateObjects: false, lineWidth: 0 });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const yamlText = renderYaml();
  writeFileSync(OUTPUT, yamlText);
  console.log(`wrote ${OUTPUT}`);
  writeFileSync(TYPES_OUTPUT, await renderTypes(yamlText));
  console.log(`wrote ${TYPES_OUTPUT}`);
}
