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
  /**
   * Other words readers use for what the passage covers: the page's front-matter `keywords` (on its introduction)
   * and the spelled-out form or acronym of the abbreviations the docs define (see `synonyms.ts`). Indexed, not shown.
   */
  keywords?: string;
  /**
   * The page's summary (front-matter `description`), on its introduction: indexed with the keywords, but never read
   * as a list of other names (its comma-separated phrases are not synonyms of each other).
   */
  summary?: string;
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

/** The site-wide keywords every page carries (docusaurus.config.ts): they say nothing about one page. */
const SITE_KEYWORDS = new Set(['keyway', 'identity', 'authentication', 'sdk', 'gateway', 'identity protection']);

const decodeEntities = (s: string) => s.replace(/&#x27;|&#39;/g, "'").replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

/** The `content` of a `<meta>` tag, quoted or not (the build minifies its HTML). */
const metaContent = (tag: string) => {
  const m = /\bcontent=(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/.exec(tag);
  return m?.[1] ?? m?.[2] ?? m?.[3] ?? '';
};

/** A page's own front-matter `keywords` (Docusaurus writes them to `<meta name="keywords">`), comma separated. */
export function pageKeywords(head: string): string {
  const out: string[] = [];
  for (const m of head.matchAll(/<meta[^>]+name="?keywords[\s"/>][^>]*>/g)) {
    const content = metaContent(m[0]);
    for (const k of content.split(',')) {
      const word = decodeEntities(k.trim());
      if (word && !SITE_KEYWORDS.has(word.toLowerCase())) out.push(word);
    }
  }
  return [...new Set(out)].join(', ');
}

const TITLE_SUFFIX = / \| Keyway Docs$/;
const clean = (s: string) => s.replace(/\s+/g, ' ').trim();

/** A code block as the theme renders it: its title ("org-switcher.ts") and its code. */
const CODE_BLOCK = '.theme-code-block, [class*="codeBlockContainer"]';

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
  const keywords = pageKeywords(html.slice(0, from));
  article.find('nav, .hash-link, button, script, style, [role="tablist"]').remove();
  const body = article.find('.theme-doc-markdown').first();
  const root = body.length ? body : article;
  // Block boundaries become spaces, so words of adjacent blocks (tabs, cells, list items) do not run together; so do
  // the ends of code lines (one div.token-line each), which the code's own source reads line by line below.
  root
    .find('p, li, pre, div, tr, td, th, dt, dd, br')
    .filter((_, el) => !$(el).closest('pre').length || $(el).is('.token-line'))
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
    // Prose is what answers quote: no code (kept apart, with the title of its block) and no tables (a row means
    // nothing without its header).
    const prose = node.clone();
    prose.find(`pre, table, ${CODE_BLOCK}`).remove();
    current.prose += ` ${prose.is(`pre, table, ${CODE_BLOCK}`) ? '' : prose.text()}`;
  });
  flush();
  // The introduction also stands for the whole page: its summary (front-matter description) is indexed with it, so a
  // question about the page as a whole finds its beginning. (Its headings were tried too: generic ones such as
  // "Options" or "Responses" made every introduction match and lowered the hit rates.)
  const description = metaContent(/<meta[^>]+name="?description[\s"/>][^>]*>/.exec(html.slice(0, from))?.[0] ?? '');
  const summary = decodeEntities(description);
  return docs.map((d, i) => ({ ...d, id: firstId + i, ...(d.heading ? {} : { ...(keywords ? { keywords } : {}), ...(summary ? { summary } : {}) }) }));
}
