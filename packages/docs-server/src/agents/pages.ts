// What the site build writes for agents (site/plugins/markdown) and what the docs server reads back: the list of
// pages with their Markdown twins, and the llms.txt / llms-full.txt composition shared by both (the build writes the
// anonymous files, the server composes them per reader, so signed-in readers get the gated pages too).

/** Folder of the build holding the agents' index files; never served. */
export const AGENTS_DIR = '.agents';
export const PAGES_FILE = `${AGENTS_DIR}/pages.json`;
export const OPERATIONS_FILE = `${AGENTS_DIR}/operations.json`;

export const SECTIONS = ['Overview', 'Access', 'React SDK', 'Gate', 'Identity Protection', 'API reference', 'SDK reference'] as const;
export type Section = (typeof SECTIONS)[number];

export interface AgentPage {
  /** Clean route of the page, e.g. /docs/access/guides/m2m. */
  route: string;
  title: string;
  /** One sentence from the page (its description). */
  description: string;
  section: Section;
  gated: boolean;
  /** The twin, relative to the build: `docs/access/guides/m2m.md`. */
  file: string;
  /** API reference operation pages: the operation they document. */
  operationId?: string;
}

/** An operation of the contract with what an agent needs to call it: parameters, bodies, responses and the schemas they name. */
export interface AgentOperation {
  operationId: string;
  method: string;
  path: string;
  summary: string;
  description: string;
  tags: string[];
  /** The reference page, e.g. /docs/api/get-me. */
  route: string;
  parameters: unknown[];
  requestBody?: unknown;
  responses: Record<string, unknown>;
  security: unknown[];
  /** Every component schema the operation refers to, directly or through other schemas. */
  schemas: Record<string, unknown>;
}

const starts = (route: string, prefix: string) => route === prefix || route.startsWith(`${prefix}/`);

/** The llms.txt section of a docs route; undefined for routes that are not documentation pages. */
export function sectionOf(route: string): Section | undefined {
  if (route === '/docs/intro' || route === '/docs/ai-tools') return 'Overview';
  if (starts(route, '/docs/access/sdk')) return 'SDK reference';
  if (starts(route, '/docs/access/react-sdk')) return 'React SDK';
  if (starts(route, '/docs/access')) return 'Access';
  if (starts(route, '/docs/gate')) return 'Gate';
  if (starts(route, '/docs/identity-protection')) return 'Identity Protection';
  if (starts(route, '/docs/api') || starts(route, '/docs/category/api')) return 'API reference';
  return undefined;
}

/** The clean URL of a page's Markdown twin. */
export const markdownUrlOf = (route: string): string => `${route}.md`;
/** The build file of a route's twin. */
export const markdownFileOf = (route: string): string => `${route.replace(/^\/+/, '')}.md`;

const INTRO =
  'Keyway is an identity and access platform: sign-in and person management (Access) with its browser and React SDKs, ' +
  'Gate (an identity-aware gateway), Identity Protection, and a REST API. Every page below is Markdown at its URL; ' +
  'append `.md` to any docs URL, or send `Accept: text/markdown`.';

/** Removes a twin's front matter (llms-full.txt gives each page a heading and its URL instead). */
export const withoutFrontMatter = (markdown: string): string => markdown.replace(/^---\n[\s\S]*?\n---\n+/, '');

/** `/llms.txt`: a section per part of the docs, a line per page (title, Markdown URL, one sentence). */
export function llmsTxt(pages: readonly AgentPage[], baseUrl: string): string {
  const base = baseUrl.replace(/\/+$/, '');
  const out = ['# Keyway Docs', '', `> ${INTRO}`, ''];
  for (const section of SECTIONS) {
    const mine = pages.filter((p) => p.section === section);
    if (!mine.length) continue;
    out.push(`## ${section}`, '');
    for (const p of mine) out.push(`- [${p.title.replace(/[[\]]/g, '')}](${base}${markdownUrlOf(p.route)})${p.description ? `: ${p.description}` : ''}`);
    out.push('');
  }
  return out.join('\n');
}

/** `/llms-full.txt`: the same header, then every page's Markdown in section order. */
export function llmsFullTxt(pages: readonly AgentPage[], baseUrl: string, markdownOf: (page: AgentPage) => string): string {
  const base = baseUrl.replace(/\/+$/, '');
  const out = ['# Keyway Docs', '', `> ${INTRO}`, ''];
  for (const section of SECTIONS) {
    for (const p of pages.filter((x) => x.section === section)) {
      out.push(`<!-- page: ${section}: ${base}${markdownUrlOf(p.route)} -->`, '', withoutFrontMatter(markdownOf(p)).trim(), '', '');
    }
  }
  return `${out.join('\n').trimEnd()}\n`;
}
