// openapi.yaml lints clean with Redocly's recommended rules (configuration and its justifications: api/redocly.yaml).
import { describe, expect, it } from 'vitest';
import { lint, loadConfig } from '@redocly/openapi-core';
import { API_DIR, OPENAPI_PATH } from './spec-helpers.js';

describe('redocly lint', () => {
  it('reports no error and no warning', async () => {
    const config = await loadConfig({ configPath: `${API_DIR}redocly.yaml` });
    const problems = await lint({ ref: OPENAPI_PATH, config });
    const readable = problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? '?'}`);
    expect(readable).toEqual([]);
  }, 60_000);
});
