#!/usr/bin/env node
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startDocsServer } from './server.js';

// Configuration (see the README): PORT, HOST, KEYWAY_SITE_DIR, KEYWAY_API_URL, KEYWAY_CSP_CONNECT_SRC.
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

try {
  const server = await startDocsServer({ siteDir, port, host: process.env.HOST ?? '127.0.0.1', connectSrc });
  console.log(`Keyway docs: ${server.url}`);
  const stop = () => void server.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}
