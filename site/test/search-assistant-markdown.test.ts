import { describe, expect, it } from 'vitest';
import { parseBlocks, safeHref } from '../src/components/assistant/markdown-parse';

describe('answer links', () => {
  it('keeps http(s) URLs, site paths and anchors only', () => {
    for (const ok of ['https://keyway.dev/docs', 'HTTP://localhost:3000/x', '/docs/intro', '/docs/api/post-persons#request', '#scopes']) expect(safeHref(ok), ok).toBe(ok);
    for (const bad of ['javascript:alert(1)', ' JavaScript:alert(1)', 'data:text/html,<script>1</script>', 'vbscript:x', '//evil.example/x', '/\\evil.example', 'mailto:a@b.c', 'docs/intro', 'https://a b'])
      expect(safeHref(bad), bad).toBeUndefined();
  });
});

describe('answer Markdown blocks', () => {
  it('reads paragraphs, headings, lists, quotes and fenced code, keeping HTML as text', () => {
    const md = ['## Steps', '', '1. Install', '2. Configure', '', '- a', '- b', '', '> quoted', '', 'Text <script>x</script> here', '', '```bash', 'npm i <pkg>', '```'].join('\n');
    expect(parseBlocks(md)).toEqual([
      { kind: 'heading', text: 'Steps' },
      { kind: 'list', ordered: true, items: ['Install', 'Configure'] },
      { kind: 'list', ordered: false, items: ['a', 'b'] },
      { kind: 'quote', text: 'quoted' },
      { kind: 'paragraph', text: 'Text <script>x</script> here' },
      { kind: 'code', lang: 'bash', text: 'npm i <pkg>' },
    ]);
  });

  it('shows a code block still being streamed (no closing fence yet) as code', () => {
    expect(parseBlocks('Run:\n\n```ts\nconst a = 1;\nconst b')).toEqual([
      { kind: 'paragraph', text: 'Run:' },
      { kind: 'code', lang: 'ts', text: 'const a = 1;\nconst b' },
    ]);
  });
});
