/**
 * The Markdown subset of answers, parsed into blocks (no HTML is ever produced here: Markdown.tsx turns blocks into
 * React elements), and the link rule: http(s) URLs and site paths only.
 */
export function safeHref(url: string): string | undefined {
  const u = url.trim();
  if (/^https?:\/\/[^\s]+$/i.test(u)) return u;
  if (/^\/(?![/\\])[^\s]*$/.test(u) || /^#[\w-]*$/.test(u)) return u;
  return undefined;
}

export type Block =
  | { kind: 'code'; lang: string; text: string }
  | { kind: 'heading'; text: string }
  | { kind: 'list'; ordered: boolean; items: string[] }
  | { kind: 'quote'; text: string }
  | { kind: 'paragraph'; text: string };

export function parseBlocks(markdown: string): Block[] {
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  const blocks: Block[] = [];
  let para: string[] = [];
  const flush = () => {
    if (para.length) blocks.push({ kind: 'paragraph', text: para.join(' ') });
    para = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const fence = /^\s*(`{3,}|~{3,})\s*([\w+#.-]*)/.exec(line);
    if (fence) {
      flush();
      const close = fence[1] ?? '```';
      const body: string[] = [];
      for (i++; i < lines.length && !(lines[i] ?? '').trim().startsWith(close); i++) body.push(lines[i] ?? '');
      blocks.push({ kind: 'code', lang: fence[2] ?? '', text: body.join('\n') });
      continue;
    }
    if (!line.trim()) {
      flush();
      continue;
    }
    const heading = /^#{1,6}\s+(.*)$/.exec(line);
    if (heading) {
      flush();
      blocks.push({ kind: 'heading', text: heading[1] ?? '' });
      continue;
    }
    const item = /^\s*(?:([-*+])|(\d+)[.)])\s+(.*)$/.exec(line);
    if (item) {
      flush();
      const ordered = !item[1];
      const last = blocks[blocks.length - 1];
      if (last?.kind === 'list' && last.ordered === ordered) last.items.push(item[3] ?? '');
      else blocks.push({ kind: 'list', ordered, items: [item[3] ?? ''] });
      continue;
    }
    const quote = /^\s*>\s?(.*)$/.exec(line);
    if (quote) {
      flush();
      const last = blocks[blocks.length - 1];
      if (last?.kind === 'quote') last.text += ` ${quote[1] ?? ''}`;
      else blocks.push({ kind: 'quote', text: quote[1] ?? '' });
      continue;
    }
    const last = blocks[blocks.length - 1];
    if (!para.length && last?.kind === 'list' && /^\s{2,}\S/.test(line)) {
      last.items[last.items.length - 1] += ` ${line.trim()}`; // a list item's continuation line
      continue;
    }
    para.push(line.trim());
  }
  flush();
  return blocks;
}
