#!/usr/bin/env node
// The `keyway-docs-server` command. npm links a bin only if its file exists at install time, and dist/ is a build output, so
// this committed entry point loads the compiled one (or says how to build it).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const target = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(target)) {
  process.stderr.write(`keyway-docs-server: ${fileURLToPath(target)} is missing: run \`npm run build\` at the repository root first\n`);
  process.exit(1);
}
await import(target.href);
