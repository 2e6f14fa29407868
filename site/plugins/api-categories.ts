import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import apiCategories from '../src/data/api-categories.json';

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head'] as const;

interface Operation {
  method: string;
  path: string;
  summary: string;
  tags: string[];
}

/** Every operation of the OpenAPI document, in document order. */
export function readOperations(openapiFile: string): Operation[] {
  const doc = parse(fs.readFileSync(openapiFile, 'utf8')) as { paths?: Record<string, Record<string, { summary?: string; tags?: string[] }>> };
  const ops: Operation[] = [];
  for (const [p, item] of Object.entries(doc.paths ?? {})) {
    for (const m of METHODS) {
      const op = item[m];
      if (op) ops.push({ method: m.toUpperCase(), path: p, summary: op.summary ?? '', tags: op.tags ?? [] });
    }
  }
  return ops;
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/**
 * Writes one page per API tag (served at /docs/category/api/<tag>) listing the tag's operations from api/openapi.yaml,
 * so the category pages always match the contract. Output is generated: docs/api/category/ is not committed.
 */
export function writeApiCategoryPages(openapiFile: string, outDir: string): void {
  const ops = readOperations(openapiFile);
  fs.rmSync(outDir, { recursive: true, force: true });
  fs.mkdirSync(outDir, { recursive: true });
  apiCategories.forEach((cat, i) => {
    const mine = ops.filter((o) => o.tags.includes(cat.id));
    const table = mine.length
      ? ['| Method | Path | What it does |', '| --- | --- | --- |', ...mine.map((o) => `| \`${o.method}\` | \`${cell(o.path)}\` | ${cell(o.summary)} |`)].join('\n')
      : 'The API contract defines no operation with this tag.';
    const body = [
      '---',
      `title: ${JSON.stringify(cat.label)}`,
      `description: ${JSON.stringify(cat.description)}`,
      `slug: /category/api/${cat.id}`,
      `sidebar_position: ${i + 2}`,
      '---',
      '',
      cat.description,
      '',
      `## Operations (${mine.length})`,
      '',
      table,
      '',
      'Every operation answers with the standard envelope described in the [API overview](/docs/api): data in `result`, problems in `errors`, and `meta.pagination` on lists.',
      '',
    ].join('\n');
    fs.writeFileSync(path.join(outDir, `${cat.id}.md`), body);
  });
}
