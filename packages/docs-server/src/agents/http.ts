import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Gate } from '../gate/index.js';
import type { SiteFile } from '../site-files.js';
import { cacheControl, SECURITY_HEADERS } from '../headers.js';
import { AgentDocs } from './docs.js';
import { createDocsMcpServer, type McpReader, type SearchResult } from './mcp.js';
import { AGENTS_DIR, llmsFullTxt, llmsTxt, type AgentPage } from './pages.js';

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);
const MARKDOWN = 'text/markdown; charset=utf-8';
const PLAIN = 'text/plain; charset=utf-8';
export const PACKAGE_VERSION = (createRequire(import.meta.url)('../../package.json') as { version: string }).version;

export interface AgentsContext {
  siteDir: string;
  files: Map<string, SiteFile>;
  gate: Gate;
  search(query: string, limit: number, signedIn: boolean): Promise<SearchResult[]>;
}

export interface Agents {
  /** Answers `/<path>.md` and `Accept: text/markdown` on a page's clean URL; undefined for other requests. */
  answer(request: FastifyRequest, reply: FastifyReply, pathname: string): Promise<FastifyReply> | undefined;
  /** Whether an HTML page of the build has a Markdown twin (its answers then vary on Accept). */
  hasTwin(file: SiteFile): boolean;
}

/** Whether the request prefers Markdown to HTML (`Accept: text/markdown`, with a q at least that of text/html). */
export function prefersMarkdown(accept: string | undefined): boolean {
  if (!accept) return false;
  let markdown = -1;
  let html = -1;
  for (const part of accept.split(',')) {
    const [type, ...params] = part.trim().toLowerCase().split(';');
    const q = Number(params.map((p) => p.trim()).find((p) => p.startsWith('q='))?.slice(2) ?? 1);
    if (type === 'text/markdown') markdown = Math.max(markdown, Number.isFinite(q) ? q : 0);
    if (type === 'text/html') html = Math.max(html, Number.isFinite(q) ? q : 0);
  }
  return markdown > 0 && markdown >= html;
}

/** The site's origin as the reader reached it (absolute URLs in llms.txt and tool answers). */
const originOf = (request: FastifyRequest) => `${request.protocol}://${request.host}`;

async function sendText(request: FastifyRequest, reply: FastifyReply, body: string, type: string): Promise<FastifyReply> {
  reply.type(type).header('Vary', 'Accept, Accept-Encoding, Cookie');
  const accepted = String(request.headers['accept-encoding'] ?? '');
  const raw = Buffer.from(body);
  if (request.method === 'HEAD' || raw.length < 1024) return reply.send(raw);
  if (/\bbr\b/.test(accepted)) {
    return reply.header('Content-Encoding', 'br').send(await brotli(raw, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } }));
  }
  if (/\bgzip\b/.test(accepted)) return reply.header('Content-Encoding', 'gzip').send(await gzip(raw));
  return reply.send(raw);
}

/**
 * Docs for agents: the pages' Markdown twins (`/<path>.md`, or `Accept: text/markdown` on the clean URL), `/llms.txt`
 * and `/llms-full.txt` composed for the reader, and the MCP server at `/mcp`. Every gated answer follows the HTML
 * gate: a twin is gated exactly when its HTML page is (`gate.isGated`), and is given only to a signed-in reader.
 */
export function registerAgents(app: FastifyInstance, context: AgentsContext): Agents | undefined {
  const docs = AgentDocs.load(context.siteDir);
  // The twins and the index are answered here only, under the gate; never as static files.
  for (const rel of [...context.files.keys()]) if (rel.startsWith(`${AGENTS_DIR}/`)) context.files.delete(rel);
  if (!docs) {
    app.log.warn(`no ${AGENTS_DIR}/pages.json in the build: no Markdown twins, llms.txt or MCP server`);
    return undefined;
  }
  for (const page of docs.pages) context.files.delete(page.file);
  context.files.delete('llms.txt');
  context.files.delete('llms-full.txt');

  const htmlOf = (route: string): SiteFile | undefined => context.files.get(`${route.slice(1)}.html`) ?? context.files.get(`${route.slice(1)}/index.html`);
  const gated = (page: AgentPage): boolean => {
    const html = htmlOf(page.route);
    return html ? context.gate.isGated(html) : page.gated;
  };
  docs.gatedBy = gated;
  const twinRoutes = new Set(docs.pages.map((p) => p.route));

  /** The reader: a docs session (cookie), else a bearer Keyway user token checked by the gate. */
  const readerOf = async (request: FastifyRequest): Promise<McpReader> => {
    if (request.docsSignedIn) return { signedIn: true };
    const auth = request.headers.authorization;
    if (!auth) return { signedIn: false };
    const token = /^Bearer\s+(\S+)$/i.exec(auth)?.[1];
    if (!token) return { signedIn: false, tokenRefusal: 'the Authorization header must be "Bearer <Keyway user token>"' };
    const result = await context.gate.tokenOpens(token);
    return result.valid ? { signedIn: true } : { signedIn: false, tokenRefusal: result.reason ?? 'it is not valid' };
  };

  const signInNeeded = (request: FastifyRequest, reply: FastifyReply, route: string) =>
    reply
      .code(401)
      .type(MARKDOWN)
      .header('Cache-Control', 'no-store')
      .header('Vary', 'Accept, Cookie')
      .send(
        `# Sign in required\n\nThis page is for signed-in Keyway customers. Sign in at ${originOf(request)}/login?redirect_to=${encodeURIComponent(route)}, ` +
          'then request it again with the docs session cookie.\n',
      );


  for (const [url, compose] of [
    ['/llms.txt', (pages: AgentPage[], origin: string) => llmsTxt(pages, origin)],
    ['/llms-full.txt', (pages: AgentPage[], origin: string) => llmsFullTxt(pages, origin, (p) => docs.markdown(p))],
  ] as const) {
    const cached = new Map<string, string>();
    app.route({
      method: ['GET', 'HEAD'],
      url,
      handler: async (request, reply) => {
        const signedIn = request.docsSignedIn;
        const origin = originOf(request);
        const key = `${signedIn}|${origin}`;
        let body = cached.get(key);
        if (body === undefined) {
          body = compose(docs.visiblePages(signedIn), origin);
          if (cached.size > 16) cached.clear();
          cached.set(key, body);
        }
        reply.header('Cache-Control', signedIn ? 'private, no-cache' : 'no-cache');
        return sendText(request, reply, body, PLAIN);
      },
    });
  }

  // MCP over Streamable HTTP, stateless: each POST gets its own server for the reader who sent it.
  const mcpOriginAllowed = (request: FastifyRequest): boolean => {
    const origin = request.headers.origin;
    if (origin === undefined) return true;
    try {
      return new URL(origin).host === request.host;
    } catch {
      return false;
    }
  };
  app.post('/mcp', { bodyLimit: 256 * 1024 }, async (request, reply) => {
    if (!mcpOriginAllowed(request)) return reply.code(403).send({ error: 'The MCP endpoint does not accept requests from other sites.' });
    const reader = await readerOf(request);
    const server = createDocsMcpServer({ docs, search: context.search, baseUrl: originOf(request), reader }, PACKAGE_VERSION);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    reply.hijack();
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) reply.raw.setHeader(name, value);
    reply.raw.setHeader('Cache-Control', 'no-store');
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request.raw, reply.raw, request.body);
    return reply;
  });
  for (const method of ['GET', 'DELETE'] as const) {
    app.route({
      method,
      url: '/mcp',
      handler: async (_request, reply) =>
        reply.code(405).header('Allow', 'POST').send({ error: 'This MCP server is stateless: send JSON-RPC requests with POST /mcp (Streamable HTTP).' }),
    });
  }

  return {
    hasTwin: (file) => file.isHtml && twinRoutes.has(`/${file.rel.replace(/(\/index)?\.html$/, '')}`),
    answer(request, reply, pathname) {
      let route: string | undefined;
      if (pathname.endsWith('.md')) route = pathname.slice(0, -3);
      else if (prefersMarkdown(request.headers.accept)) route = pathname.replace(/\/+$/, '');
      if (route === undefined) return undefined;
      const page = docs.page(route);
      if (!page) return undefined;
      return (async () => {
        if (docs.isGated(page)) {
          if (!request.docsSignedIn) return signInNeeded(request, reply, route);
          reply.header('Cache-Control', 'private, no-cache');
        } else {
          reply.header('Cache-Control', cacheControl(`${page.file.slice(0, -3)}.html`));
        }
        return sendText(request, reply, docs.markdown(page), MARKDOWN);
      })();
    },
  };
}
