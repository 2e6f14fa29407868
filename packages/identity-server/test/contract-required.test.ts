// The REST contract is required: without it the server would have no management API and no request validation, so a
// missing or unreadable document stops the start with an error naming the file (it used to start without them).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startIdentityServer } from '../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'keyway-contract-required-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('start-up without the contract', () => {
  it('refuses to start when the document does not exist, naming it', async () => {
    const missing = join(dir, 'missing.yaml');
    await expect(startIdentityServer({ port: 0, dataDir: dir, devMode: true, openapiPath: missing })).rejects.toThrow(
      `Keyway identity server cannot start: the REST contract ${missing} does not exist`,
    );
  });

  it('refuses to start when the document is not an OpenAPI 3.1 document', async () => {
    const broken = join(dir, 'broken.yaml');
    writeFileSync(broken, 'openapi: 3.0.0\ninfo: {title: x}\n');
    await expect(startIdentityServer({ port: 0, dataDir: dir, devMode: true, openapiPath: broken })).rejects.toThrow(/cannot start: the REST contract .* is not an OpenAPI 3\.1 document/);
  });
});
