import { load } from 'cheerio';

/** One searchable passage: a whole page (no heading) or one of its h2–h4 sections. */
export interface SearchDoc {
  id: number;
  /** Site path, with `#anchor` for a section. */
  url: string;
  /** Page title, without the site-title suffix. */
  title: string;
  /** Section heading; empty for the page itself. */
  heading: string;
  /** Plain text of the page introduction or of the section. */
  text: string;
}

const TITLE_SUFFIX = / \| Keyway Docs$/;
const clean = (s: string) => s.replace(/\s+/g, ' ').trim();

/** Splits a built page into its introduction and its h2–h4 sections. Pages without an article are not indexed. */
export function extractPage(html: string, route: string, firstId: number): SearchDoc[] {
  const $ = load(html);
  const article = $('article').first();
  if (!article.length) return [];
  const title = clean($('title').first().text().replace(TITLE_SUFFIX, '')) || route;
  article.find('nav, .hash-link, button, script, style').remove();
  const body = article.find('.theme-doc-markdown').first();
  const root = body.length ? body : article;
  const docs: SearchDoc[] = [];
  let current: SearchDoc = { id: firstId, url: route, title, heading: '', text: '' };
  const flush = () => {
    current.text = clean(current.text);
    if (current.heading || current.text) docs.push(current);
  };
  root.children().each((_, el) => {
    const node = $(el);
    const tag = (el as { tagName?: string }).tagName?.toLowerCase();
    if (tag === 'header') return; // the page H1
    if (tag === 'h2' || tag === 'h3' || tag === 'h4') {
      flush();
      const id = node.attr('id');
      current = { id: firstId + docs.length, url: id ? `${route}#${id}` : route, title, heading: clean(node.text()), text: '' };
      return;
    }
    current.text += ` ${node.text()}`;
  });
  flush();
  return docs.map((d, i) => ({ ...d, id: firstId + i }));
}
