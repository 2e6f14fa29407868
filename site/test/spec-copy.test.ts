// The tests read the repository's copy of the specification (spec/). When the shared specification is beside the
// repository (as in CI), the copy must be the same, byte for byte: a changed spec must reach the tests.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const shared = path.resolve(repoRoot, '..', 'shared', 'spec');
const copies = fs.readdirSync(path.join(repoRoot, 'spec')).filter((f) => f !== 'README.md');

describe('spec/', () => {
  it('holds the product spec, the route contract and the API operations', () => {
    expect(copies.sort()).toEqual(['api-operations.md', 'product-spec.md', 'routes.txt']);
  });

  it.runIf(fs.existsSync(shared))('is the shared specification beside the repository, file for file', () => {
    const files = fs.readdirSync(shared).sort();
    expect(files, 'files of ../shared/spec').toEqual(copies.sort());
    for (const file of files) {
      const same = fs.readFileSync(path.join(shared, file)).equals(fs.readFileSync(path.join(repoRoot, 'spec', file)));
      expect(same, `spec/${file} differs from ../shared/spec/${file}: cp ../shared/spec/${file} spec/`).toBe(true);
    }
  });
});
