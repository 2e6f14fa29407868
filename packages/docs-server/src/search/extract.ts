import { load } from 'cheerio';

/** One searchable passage: a whole page introduction (no heading) or one of its h2–h4 sections. */
export interface SearchDoc {
  id: number;
  /** Site path, with `#anchor` for a section. */
  url: string;
  /** Page title, without the site-title suffix. */
  title: string;
  /** Section heading; empty for the page introduction. */
  heading: string;
  /** Plain text of the introduction or of the section (code blocks included as text). */
  text: string;
}

/** A passage as the assistant sees it: the search fields plus its code blocks, kept apart for answers. */
export interface Passage extends SearchDoc {
  /** The section's code blocks, verbatim, with their language when the page says it. */
  code: { lang: string; source: string }[];
  /** The text without its code blocks: what extractive answers quote. */
  prose: string;
  /** True when the page is gated (only shown to visitors with a docs session). */
  gated: boolean;
}

const TITLE_SUFFIX = / \| Keyway Docs$/;
const clean = (s: string) => s.replace(/\s+/g, ' ').trim();

/**
 * Splits a built page into its introduction and its h2–h4 sections. Pages without an article (landing pages,
 * the 404) are not indexed.
 */
export function extractPage(html: string, route: string, firstId: number, gated = false): Passage[] {
  // Only the title and the article matter: parsing just those is several times faster than the whole page.
  const from = html.indexOf('<article');
  const end = html.lastIndexOf('</article>');
  if (from < 0 || end < from) return [];
  const title$ = /<title[^>]*>[\s\S]*?<\/title>/.exec(html)?.[0] ?? '';
  const $ = load(`${title$}${html.slice(from, end + '</article>'.length)}`);
  const article = $('article').first();
  if (!article.length) return [];
  const title = clean($('title').first().text().replace(TITLE_SUFFIX, '')) || route;
  article.find('nav, .hash-link, button, script, style, [role="tablist"]').remove();
  const body = article.find('.theme-doc-markdown').first();
  const root = body.length ? body : article;
  // Block boundaries become spaces, so words of adjacent blocks (tabs, cells, list items) do not run together.
  root
    .find('p, li, pre, div, tr, td, th, dt, dd, br')
    .filter((_, el) => !$(el).closest('pre').length)
    .after(' ');
  const docs: Passage[] = [];
  const start = (url: string, heading: string): Passage => ({ id: 0, url, title, heading, text: '', prose: '', code: [], gated });
  let current = start(route, '');
  const flush = () => {
    current.text = clean(current.text);
    current.prose = clean(current.prose);
    if (current.heading || current.text) docs.push(current);
  };
  root.children().each((_, el) => {
    const node = $(el);
    const tag = (el as { tagName?: string }).tagName?.toLowerCase();
    if (tag === 'header') return; // the page H1
    if (tag === 'h2' || tag === 'h3' || tag === 'h4') {
      flush();
      const id = node.attr('id');
      current = start(id ? `${route}#${id}` : route, clean(node.text()));
      return;
    }
    node.find('pre').each((_, pre) => {
      const lang = /language-([\w-]+)/.exec($(pre).closest('[class*="language-"]').attr('class') ?? '')?.[1] ?? '';
      // Prism renders one span per line: join lines back with newlines.
      const lines = $(pre).find('.token-line');
      const source = lines.length ? lines.map((_, l) => $(l).text()).get().join('\n') : $(pre).text();
      if (source.trim()) current.code.push({ lang, source: source.replace(/\n+$/, '') });
    });
    current.text += ` ${node.text()}`;
    const prose = node.clone();
    prose.find('pre').remove();
    current.prose += ` ${prose.is('pre') ? '' : prose.text()}`;
  });
  flush();
  return docs.map((d, i) => ({ ...d, id: firstId + i }));
}
