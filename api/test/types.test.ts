// The TypeScript types of the contract (`@keyway/api/types`, types/openapi.d.ts) are the generation of the committed
// openapi.yaml: a changed document without regenerated types fails here.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadContract } from '@keyway/api';
import { renderTypes, TYPES_OUTPUT } from '../src/types.mjs';

describe('types/openapi.d.ts', () => {
  it('is exactly what openapi-typescript generates from openapi.yaml (run `npm run contract -w @keyway/api`)', async () => {
    expect(readFileSync(TYPES_OUTPUT, 'utf8')).toBe(await renderTypes(loadContract().text));
  }, 60_000);
});
