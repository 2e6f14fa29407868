import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { AgentDocs } from './docs.js';
import { markdownUrlOf, SECTIONS, type AgentPage } from './pages.js';

export interface SearchResult {
  url: string;
  title: string;
  heading: string;
  snippet: string;
}

/** Who is asking: signed in (docs session or a valid bearer token), or why a bearer token was refused. */
export interface McpReader {
  signedIn: boolean;
  tokenRefusal?: string;
}

export interface DocsMcpContext {
  docs: AgentDocs;
  /** The `/api/search` query (same engine, same ranking, same gate filter). */
  search(query: string, limit: number, signedIn: boolean): Promise<SearchResult[]>;
  /** Origin of the docs site, for absolute URLs in answers. */
  baseUrl: string;
  reader: McpReader;
}

export const MCP_SERVER_NAME = 'keyway-docs';
export const TOOL_NAMES = ['search_docs', 'get_page', 'list_pages', 'get_api_operation'] as const;

const text = (t: string): CallToolResult => ({ content: [{ type: 'text', text: t }] });
const refusal = (t: string): CallToolResult => ({ content: [{ type: 'text', text: t }], isError: true });

/**
 * The docs as an MCP server (one per request over HTTP, one per process over stdio): search, pages as Markdown, the
 * page list by section and the API contract's operations. Gated pages follow the HTML gate: only for a signed-in reader.
 */
export function createDocsMcpServer(ctx: DocsMcpContext, version: string): McpServer {
  const { docs, reader } = ctx;
  const base = ctx.baseUrl.replace(/\/+$/, '');
  const line = (p: AgentPage) => `- [${p.title}](${base}${markdownUrlOf(p.route)})${p.description ? `: ${p.description}` : ''}`;
  const gatedMessage = (route: string) =>
    `${route} is in the gated part of the Keyway docs (Identity Protection detections and queries): it needs a signed-in reader. ` +
    (reader.tokenRefusal
      ? `The bearer token sent was refused: ${reader.tokenRefusal}.`
      : 'Connect with the docs session cookie of a signed-in browser, or send a Keyway user token of the docs organization as "Authorization: Bearer <token>" (KEYWAY_USER_TOKEN for the stdio server).');

  const server = new McpServer(
    { name: MCP_SERVER_NAME, version },
    {
      instructions:
        'Keyway developer documentation: identity and access (Access, React SDK), Gate, Identity Protection and the REST API. ' +
        'Use search_docs to find pages, get_page to read one as Markdown, list_pages to browse by section, get_api_operation for an API call with its schemas.',
    },
  );

  server.registerTool(
    'search_docs',
    {
      title: 'Search the Keyway docs',
      description: 'Full-text search over the Keyway docs (the same results as the site search box). Returns page sections with their URL and a snippet.',
      inputSchema: { query: z.string().min(1).max(500).describe('Words to search for'), limit: z.number().int().min(1).max(50).optional().describe('How many results (1-50, default 10)') },
    },
    async ({ query, limit }) => {
      const hits = await ctx.search(query, limit ?? 10, reader.signedIn);
      if (!hits.length) return text(`No page of the Keyway docs matches "${query}".`);
      return text(
        hits
          .map((h, i) => {
            const [route, hash] = h.url.split('#');
            return `${i + 1}. ${h.title}${h.heading ? ` > ${h.heading}` : ''}\n   ${base}${h.url}\n   Markdown: ${base}${markdownUrlOf(route!)}${hash ? ` (section #${hash})` : ''}\n   ${h.snippet.replace(/\s+/g, ' ').trim()}`;
          })
          .join('\n\n'),
      );
    },
  );

  server.registerTool(
    'get_page',
    {
      title: 'Read a docs page as Markdown',
      description: 'The Markdown of one page of the Keyway docs, by path (/docs/access/guides/m2m), by its .md URL or by its full URL.',
      inputSchema: { path: z.string().min(1).max(2000).describe('Path or URL of the page, e.g. /docs/intro') },
    },
    async ({ path }) => {
      const route = docs.routeOf(path);
      const page = docs.page(route);
      if (!page) return refusal(`No page of the Keyway docs at ${route}. Use search_docs or list_pages to find the right path.`);
      if (docs.isGated(page) && !reader.signedIn) return refusal(gatedMessage(route));
      return text(docs.markdown(page));
    },
  );

  server.registerTool(
    'list_pages',
    {
      title: 'List the docs pages',
      description: `The pages of the Keyway docs with their Markdown URL and a one-sentence description, grouped by section (${SECTIONS.join(', ')}).`,
      inputSchema: { section: z.enum(SECTIONS).optional().describe('Only this section') },
    },
    async ({ section }) => {
      const pages = docs.visiblePages(reader.signedIn);
      const out: string[] = [];
      for (const s of section ? [section] : SECTIONS) {
        const mine = pages.filter((p) => p.section === s);
        if (mine.length) out.push(`## ${s}`, '', ...mine.map(line), '');
      }
      return text(out.join('\n').trim());
    },
  );

  server.registerTool(
    'get_api_operation',
    {
      title: 'Get a REST API operation',
      description:
        'One operation of the Keyway REST API contract (OpenAPI), by operationId or by method and path: parameters, request body, responses, security and the schemas they use, as JSON.',
      inputSchema: {
        operationId: z.string().min(1).max(200).optional().describe('e.g. getMe'),
        method: z.string().min(1).max(10).optional().describe('HTTP method, e.g. GET (with path)'),
        path: z.string().min(1).max(500).optional().describe('API path, e.g. /me or /persons/{person_id} (with method)'),
      },
    },
    async ({ operationId, method, path }) => {
      if (!operationId && !(method && path)) return refusal('Give "operationId", or both "method" and "path".');
      const op = docs.operation({ operationId, method, path });
      if (!op) {
        const what = operationId ? `operationId "${operationId}"` : `${method!.toUpperCase()} ${path}`;
        return refusal(`No operation of the Keyway API has ${what}. list_pages with section "API reference" lists them all.`);
      }
      return text(`${op.method} ${op.path}: ${op.summary}\nReference: ${base}${markdownUrlOf(op.route)}\n\n${JSON.stringify(op, null, 2)}`);
    },
  );
  return server;
}
