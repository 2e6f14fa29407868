#!/usr/bin/env node
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startDocsServer } from './server.js';
import { assistantOptionsFromEnv } from './assistant/config.js';

// Configuration (see the README): PORT, HOST, KEYWAY_SITE_DIR, KEYWAY_API_URL, KEYWAY_CSP_CONNECT_SRC,
// KEYWAY_DOCS_ORG_ID, KEYWAY_DOCS_SECURE_COOKIE, KEYWAY_DOCS_SESSION_REVALIDATE_SECONDS, KEYWAY_ASSISTANT_* and
// KEYWAY_SEARCH_RATE_LIMIT (the assistant).
const here = path.dirname(fileURLToPath(import.meta.url));
const siteDir = process.env.KEYWAY_SITE_DIR ?? path.resolve(here, '../../../site/build');
const port = Number(process.env.PORT ?? 3000);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`PORT must be a port number (0-65535), got ${JSON.stringify(process.env.PORT)}`);
  process.exit(2);
}
const connectSrc = [process.env.KEYWAY_API_URL, ...(process.env.KEYWAY_CSP_CONNECT_SRC ?? '').split(/[\s,]+/)].filter(
  (s): s is string => Boolean(s),
);

// The gate: sign-in needs the identity server and the docs organization (development default: the seeded dev org).
const production = process.env.NODE_ENV === 'production';
const orgId = process.env.KEYWAY_DOCS_ORG_ID ?? (production ? undefined : 'org_keyway_dev');
const secureCookie = process.env.KEYWAY_DOCS_SECURE_COOKIE === undefined ? production : process.env.KEYWAY_DOCS_SECURE_COOKIE !== 'false';
const revalidateSeconds = Number(process.env.KEYWAY_DOCS_SESSION_REVALIDATE_SECONDS ?? 60);
if (!Number.isFinite(revalidateSeconds) || revalidateSeconds < 0) {
  console.error(`KEYWAY_DOCS_SESSION_REVALIDATE_SECONDS must be a number of seconds, got ${JSON.stringify(process.env.KEYWAY_DOCS_SESSION_REVALIDATE_SECONDS)}`);
  process.exit(2);
}
if (process.env.KEYWAY_API_URL && !orgId) {
  console.error('KEYWAY_DOCS_ORG_ID is required with KEYWAY_API_URL in production (the organization whose tokens open the gated docs).');
  process.exit(2);
}
let assistant;
try {
  assistant = assistantOptionsFromEnv(process.env);
} catch (error) {
  console.error((error as Error).message);
  process.exit(2);
}
const gate = process.env.KEYWAY_API_URL ? { identityUrl: process.env.KEYWAY_API_URL, orgId, secureCookie, revalidateSeconds } : undefined;

try {
  const server = await startDocsServer({ siteDir, port, host: process.env.HOST ?? '127.0.0.1', connectSrc, gate, assistant });
  console.log(`Keyway docs: ${server.url}`);
  const stop = () => void server.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}
