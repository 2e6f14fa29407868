// The Markdown twin of an API reference page, from the page's JSON (site/plugins/api-reference/render.ts, built from
// api/openapi.yaml): parameters, bodies and responses (their tables), and one request sample, curl.
import type { FieldRow, ReferenceBlock, ReferencePageData } from '../../src/components/api/types';
import { frontMatter, htmlFragmentToMarkdown } from './html-to-markdown';

const fence = (language: string, code: string): string => {
  const ticks = code.includes('```') ? '````' : '```';
  return `${ticks}${language}\n${code.replace(/\n$/, '')}\n${ticks}`;
};

const escape = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A fields block as the table of dotted names the pages showed before they nested fields (the twin keeps it). */
function fieldsTable(list: Extract<ReferenceBlock, { kind: 'fields' }>['list'], rows: FieldRow[]): string {
  const columns = list === 'parameters' ? ['Name', 'In', 'Type', 'Required', 'Description'] : list === 'headers' ? ['Header', 'Description'] : ['Field', 'Type', 'Required', 'Description'];
  const cells = (r: FieldRow): string[] => {
    const name = `<code>${escape(r.name)}</code>`;
    const required = r.required ? 'yes' : 'no';
    if (list === 'parameters') return [name, escape(r.in ?? ''), escape(r.type ?? ''), required, r.html];
    if (list === 'headers') return [name, r.html];
    return [name, escape(r.type ?? ''), required, r.html];
  };
  const html = `<table><thead><tr>${columns.map((c) => `<th>${c}</th>`).join('')}</tr></thead><tbody>${rows
    .map((r) => `<tr>${cells(r).map((c) => `<td>${c}</td>`).join('')}</tr>`)
    .join('')}</tbody></table>`;
  return htmlFragmentToMarkdown(html);
}

export function referenceToMarkdown(page: ReferencePageData): string {
  const parts: string[] = [];
  for (const block of page.blocks) {
    switch (block.kind) {
      case 'heading':
        // The try-it panel is interactive only; its heading goes with it.
        if (block.id === 'try-it') break;
        parts.push(`${'#'.repeat(block.level)} ${block.text}`);
        break;
      case 'html': {
        const md = htmlFragmentToMarkdown(block.html);
        if (md) parts.push(md);
        break;
      }
      case 'code':
        parts.push(fence(block.language, block.code));
        break;
      case 'endpoint':
        parts.push(`\`${block.method.toUpperCase()} ${block.path}\``);
        break;
      case 'warning':
        parts.push(`> **Warning**\n>\n> ${block.text.replace(/\n/g, '\n> ')}`);
        break;
      case 'samples': {
        const curl = block.samples.find((s) => s.value === 'curl' || s.language === 'bash') ?? block.samples[0];
        if (curl) parts.push(fence(curl.language || 'bash', curl.code));
        break;
      }
      case 'operations':
        parts.push(
          ['| Method | Operation | Path |', '| --- | --- | --- |', ...block.operations.map((o) => `| \`${o.method.toUpperCase()}\` | [${o.title.replace(/\|/g, '\\|')}](${o.href}) | \`${o.path}\` |`)].join('\n'),
        );
        break;
      case 'fields':
        parts.push(fieldsTable(block.list, block.rows));
        break;
      case 'tryIt':
      case 'example':
        break;
    }
  }
  return `${frontMatter({ title: page.title, description: page.description, url: page.permalink })}\n# ${page.title}\n\n${parts.join('\n\n')}\n`;
}
