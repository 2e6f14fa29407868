// Derives api/compat/public-contract.json from a local copy of the public reference document ("SlashID API" v1.1,
// repository api-evangelist/slashid, file openapi/_original/slashid-api-openapi.yml). The document itself is not
// committed; the fixture keeps facts only (see facts.mjs). Usage:
//   node api/compat/derive-fixture.mjs <path to slashid-api-openapi.yml> [output path]
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { documentFacts } from './facts.mjs';

export const FIXTURE = fileURLToPath(new URL('./public-contract.json', import.meta.url));

export function deriveFixture(text) {
  const doc = parse(text);
  return {
    source: {
      repository: 'api-evangelist/slashid',
      path: 'openapi/_original/slashid-api-openapi.yml',
      title: doc.info?.title,
      version: doc.info?.version,
      openapi: doc.openapi,
    },
    derivation: 'node api/compat/derive-fixture.mjs <document>; headers SlashID-* renamed Keyway-*; facts only',
    operations: documentFacts(doc),
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [input, output = FIXTURE] = process.argv.slice(2);
  if (!input) {
    console.error('usage: node api/compat/derive-fixture.mjs <slashid-api-openapi.yml> [output.json]');
    process.exit(2);
  }
  const fixture = deriveFixture(readFileSync(input, 'utf8'));
  writeFileSync(output, `${JSON.stringify(fixture, null, 1)}\n`);
  console.log(`${Object.keys(fixture.operations).length} operations written to ${output}`);
}
