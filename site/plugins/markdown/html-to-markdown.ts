// The Markdown twin of a built docs page, made from the page's own HTML (what readers see), not from its MDX source:
// imported partials, components (tabs, admonitions, ApiMethod, generated category lists), the TypeDoc reference and
// code titles are all resolved there, so no MDX needs evaluating. The page's content root is rewritten into plain
// semantic HTML (cheerio), then converted with hast-util-to-mdast and printed by mdast-util-to-markdown with GFM tables.
import * as cheerio from 'cheerio';
import type { Element as DomElement } from 'domhandler';
import { fromHtml } from 'hast-util-from-html';
import { toMdast, type Handle } from 'hast-util-to-mdast';
import type { Element } from 'hast';
import type { Code, Root } from 'mdast';
import { gfmToMarkdown } from 'mdast-util-gfm';
import { toMarkdown } from 'mdast-util-to-markdown';

export interface MarkdownPage {
  title: string;
  /** The page's description (front matter or first paragraph, as Docusaurus puts it in `<meta name="description">`). */
  description: string;
  /** The whole twin: front matter, `# title`, then the content. */
  markdown: string;
}

const SITE_TITLE_SUFFIX = / \| Keyway Docs$/;

/** `---` front matter with JSON-quoted values (valid YAML). */
export function frontMatter(fields: Record<string, string>): string {
  return `---\n${Object.entries(fields)
    .map(([k, v]) => `${k}: ${JSON.stringify(v)}`)
    .join('\n')}\n---\n`;
}

/** A code block keeps its language and its title as `title="…"` in the fence's meta, the way Docusaurus writes it. */
const preHandler: Handle = (_state, node: Element) => {
  const props = node.properties ?? {};
  const lang = typeof props.dataLang === 'string' && props.dataLang ? props.dataLang : null;
  const title = typeof props.dataTitle === 'string' && props.dataTitle ? props.dataTitle : null;
  const value = typeof props.dataCode === 'string' ? props.dataCode : textOf(node);
  const code: Code = { type: 'code', lang, meta: title ? `title=${JSON.stringify(title)}` : null, value: value.replace(/\n$/, '') };
  return code;
};

function textOf(node: { type: string; value?: string; children?: unknown[] }): string {
  if (node.type === 'text') return node.value ?? '';
  return (node.children ?? []).map((c) => textOf(c as { type: string })).join('');
}

/** Rewrites Docusaurus's rendered constructs into the plain HTML whose Markdown meaning is what the reader sees. */
function simplify($: cheerio.CheerioAPI, root: cheerio.Cheerio<DomElement>): void {
  root.find('a.hash-link, button, svg, script, style, noscript, .theme-doc-toc-mobile, [class*="copyPage"]').remove();

  // Code blocks: language from the container's class, optional title, the text line by line.
  root.find('.theme-code-block').each((_, el) => {
    const block = $(el);
    const lang = /(?:^|\s)language-([\w+#-]+)/.exec(block.attr('class') ?? '')?.[1] ?? '';
    const title = block.find('[class*="codeBlockTitle"]').first().text().trim();
    const lines = block.find('.token-line');
    const code = lines.length ? lines.map((_, l) => $(l).text()).get().join('\n') : block.find('pre').text();
    const pre = $('<pre></pre>').attr('data-lang', lang === 'text' ? '' : lang).attr('data-code', code);
    if (title) pre.attr('data-title', title);
    block.replaceWith(pre);
  });

  // Tabs: every panel, in order, under its label (the hidden ones too: a twin has no tabs to click).
  root.find('.tabs-container').each((_, el) => {
    const tabs = $(el);
    const labels = tabs.find('[role="tab"]').map((_, t) => $(t).text().trim()).get();
    const panels = tabs.find('[role="tabpanel"]').filter((_, p) => $(p).closest('.tabs-container').is(el));
    const flat = panels.map((i, p) => `<p><strong>${escapeHtml(labels[i] ?? `Tab ${i + 1}`)}</strong></p>${$(p).html() ?? ''}`).get().join('');
    tabs.replaceWith(flat);
  });

  // Admonitions: a blockquote that opens with the admonition's title in bold.
  root.find('.theme-admonition').each((_, el) => {
    const box = $(el);
    const heading = box.find('[class*="admonitionHeading"]').first().text().trim();
    const label = heading ? heading.charAt(0).toUpperCase() + heading.slice(1) : 'Note';
    const content = box.find('[class*="admonitionContent"]').first().html() ?? '';
    box.replaceWith(`<blockquote><p><strong>${escapeHtml(label)}</strong></p>${content}</blockquote>`);
  });

  // Collapsible details: the summary in bold, then the content, quoted.
  root.find('details').each((_, el) => {
    const d = $(el);
    const summary = d.children('summary').first().text().trim();
    d.children('summary').remove();
    d.replaceWith(`<blockquote><p><strong>${escapeHtml(summary)}</strong></p>${d.html() ?? ''}</blockquote>`);
  });

  // HTTP method badges (ApiMethod) read as code: `GET`.
  root.find('span[class*="method_"]').each((_, el) => {
    $(el).replaceWith(`<code>${escapeHtml($(el).text().trim().toUpperCase())}</code>`);
  });

  // Category cards (generated index pages, DocCardList): a list of links with their descriptions.
  const cards = root.find('a.card');
  if (cards.length) {
    const groups = new Set(cards.map((_, c) => $(c).closest('section, .row').get(0)).get());
    for (const group of groups) {
      const items = $(group)
        .find('a.card')
        .map((_, c) => {
          const card = $(c);
          const title = card.find('h2, h3').first().text().replace(/^\W+\s*/, '').trim();
          const desc = card.find('p').first().text().trim();
          return `<li><a href="${escapeHtml(card.attr('href') ?? '')}">${escapeHtml(title)}</a>${desc ? `: ${escapeHtml(desc)}` : ''}</li>`;
        })
        .get();
      $(group).replaceWith(`<ul>${items.join('')}</ul>`);
    }
  }
  // Mermaid diagrams keep their source as a mermaid code block when the page carries it.
  root.find('.docusaurus-mermaid-container').each((_, el) => {
    const src = $(el).attr('data-mermaid-source');
    if (src) $(el).replaceWith($('<pre></pre>').attr('data-lang', 'mermaid').attr('data-code', src));
  });
}

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Converts a fragment of simple HTML to Markdown (GFM tables, fenced code). */
export function htmlFragmentToMarkdown(html: string): string {
  const hast = fromHtml(html, { fragment: true });
  const mdast = toMdast(hast, { handlers: { pre: preHandler } }) as Root;
  return toMarkdown(mdast, { extensions: [gfmToMarkdown({ tablePipeAlign: false })], bullet: '-', fences: true, rule: '-' }).trim();
}

/** The Markdown twin of one built doc page; undefined when the HTML holds no doc content. */
export function docHtmlToMarkdown(html: string, route: string): MarkdownPage | undefined {
  const $ = cheerio.load(html);
  const description = $('meta[name="description"]').attr('content')?.trim() ?? '';
  const h1 = $('article h1, main h1').first().text().trim();
  const title = h1 || $('title').text().replace(SITE_TITLE_SUFFIX, '').trim();
  let root = $('.theme-doc-markdown').first() as cheerio.Cheerio<DomElement>;
  if (!root.length) root = $('main article').first() as cheerio.Cheerio<DomElement>;
  if (!root.length || !title) return undefined;
  root = root.clone();
  root.find('header h1, h1').first().remove();
  root.find('header:empty').remove();
  simplify($, root);
  const body = htmlFragmentToMarkdown(root.html() ?? '');
  const markdown = `${frontMatter({ title, description, url: route })}\n# ${title}\n\n${body}\n`;
  return { title, description, markdown };
}

/** The first sentence of a text (for one-line descriptions). */
export function firstSentence(text: string): string {
  const t = text.replace(/\s+/g, ' ').trim();
  const m = /^(.+?[.!?])(?=\s+[A-Z`"(]|$)/.exec(t);
  return (m?.[1] ?? t).trim();
}
