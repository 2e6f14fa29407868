import path from 'node:path';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import fastifyStatic from '@fastify/static';
import { readSite, type SiteFile } from './site-files.js';
import { resolvePath } from './resolve.js';
import { cacheControl, contentSecurityPolicy, HSTS, SECURITY_HEADERS } from './headers.js';
import { registerSessionDefault } from './session.js';
import { gateConnectSrc, registerGate, type GateOptions } from './gate/index.js';
import { assistantPlugin, type AssistantOptions } from './assistant/index.js';
import { searchDocs } from './assistant/plugin.js';
import { buildDocsIndex, type DocsIndex } from './search/site-index.js';
import { registerAgents } from './agents/http.js';
import { registerNpmRegistry } from './npm-registry.js';

const COMPRESSIBLE = /\.(html|js|css|json|svg|xml|txt|map|webmanifest)$/;

export interface DocsServerOptions {
  /** The production build of the site (site/build). */
  siteDir: string;
  /** Extra origins pages may connect to, e.g. the identity server's URL. */
  connectSrc?: string[];
  logger?: boolean;
  /** Send Strict-Transport-Security on every answer (default: when NODE_ENV is production, which is served over https). */
  hsts?: boolean;
  /** Sign-in for the gated docs (identity server URL, docs organization); without it gated content is never served. */
  gate?: GateOptions;
  /** The search API and the assistant (`/api/search`, `/api/assistant/*`); `false` turns them off. */
  assistant?: AssistantOptions | false;
}

/**
 * The docs server: serves the production build with the site's clean URLs, redirects, a real 404,
 * precompressed bodies, cache rules and security headers.
 */
export async function createDocsServer(options: DocsServerOptions): Promise<FastifyInstance> {
  const siteDir = path.resolve(options.siteDir);
  const files = readSite(siteDir);
  const notFound = files.get('404.html');
  const csp = { connectSrc: [...(options.connectSrc ?? []), ...gateConnectSrc(options.gate)] };

  const app = Fastify({ logger: options.logger ?? false });
  await app.register(fastifyStatic, {
    root: siteDir,
    serve: false,
    preCompressed: true,
    etag: true,
    lastModified: true,
    cacheControl: false,
    index: false,
    dotfiles: 'deny',
  });

  registerSessionDefault(app);
  const gate = registerGate(app, { siteDir, files, csp }, options.gate);
  // Feature modules (the gate, the assistant) register here, before the catch-all route below.
  // One search index for /api/search, the assistant and the MCP server's search_docs (built once, on first need).
  let sharedIndex: Promise<DocsIndex> | undefined;
  const loadIndex = () =>
    (sharedIndex ??= buildDocsIndex(siteDir, options.assistant ? options.assistant.gatedPrefixes : undefined).catch((e: unknown) => {
      sharedIndex = undefined;
      throw e;
    }));
  if (options.assistant !== false) await app.register(assistantPlugin, { ...options.assistant, siteDir, loadIndex });
  // Docs for agents: Markdown twins, llms.txt, the MCP server (its search_docs is /api/search's query on the same index).
  const agents = registerAgents(app, {
    siteDir,
    files,
    gate,
    search: async (query, limit, signedIn) => searchDocs(await loadIndex(), query, limit, signedIn),
  });

  const hsts = options.hsts ?? process.env.NODE_ENV === 'production';
  app.addHook('onSend', async (_request, reply) => {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) reply.header(name, value);
    if (hsts) reply.header('Strict-Transport-Security', HSTS);
  });

  const send = (reply: FastifyReply, file: SiteFile, status = 200) => {
    reply.code(status).header('Cache-Control', status === 200 ? gate.cacheControl(file, cacheControl(file.rel)) : 'no-cache');
    if (file.isHtml) reply.header('Content-Security-Policy', contentSecurityPolicy(file, csp));
    if (COMPRESSIBLE.test(file.rel)) reply.header('Vary', agents?.hasTwin(file) ? 'Accept, Accept-Encoding' : 'Accept-Encoding');
    return reply.sendFile(file.rel);
  };

  // The `@keyway` packages as an npm registry (the React quick start installs them from here).
  registerNpmRegistry(app, siteDir);

  app.get('/healthz', async () => ({ status: 'ok', pages: [...files.values()].filter((f) => f.isHtml).length }));

  app.route({
    method: ['GET', 'HEAD'],
    url: '/*',
    handler: async (request, reply) => {
      const url = new URL(request.url, 'http://docs.invalid');
      const markdown = agents?.answer(request, reply, url.pathname);
      if (markdown) return markdown;
      const outcome = resolvePath(url.pathname, url.search, files);
      switch (outcome.kind) {
        case 'file':
          return gate.refuse(request, reply, outcome.file) ?? send(reply, outcome.file);
        case 'redirect':
          return reply.code(301).header('Cache-Control', 'no-cache').redirect(outcome.location, 301);
        case 'bad-request':
          return reply.code(400).type('text/plain; charset=utf-8').send(outcome.reason);
        case 'not-found':
          return notFound ? send(reply, notFound, 404) : reply.code(404).type('text/plain; charset=utf-8').send('Not found');
      }
    },
  });

  app.setNotFoundHandler((request, reply) => {
    // A GET or HEAD lands here when a file of the build vanished from disk after start (sendFile finds nothing): 404.
    if (request.method === 'GET' || request.method === 'HEAD') {
      return notFound ? send(reply, notFound, 404) : reply.code(404).type('text/plain; charset=utf-8').send('Not found');
    }
    // Methods other than GET and HEAD on any path.
    reply.code(405).header('Allow', 'GET, HEAD').type('text/plain; charset=utf-8').send(`${request.method} is not allowed here; use GET.`);
  });
  return app;
}

export interface StartedDocsServer {
  url: string;
  close(): Promise<void>;
}

export async function startDocsServer(options: DocsServerOptions & { port?: number; host?: string }): Promise<StartedDocsServer> {
  const app = await createDocsServer(options);
  const host = options.host ?? '127.0.0.1';
  await app.listen({ port: options.port ?? 3000, host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return { url: `http://${host === '0.0.0.0' ? 'localhost' : host}:${port}`, close: () => closeApp(app) };
}

/** How long closing waits for requests in progress before it drops the connections still open. */
const CLOSE_GRACE_MS = 3000;

/**
 * Closes the HTTP server: no new connection, requests in progress may finish. A client stalled in the middle of a
 * request body keeps a connection Node never counts as idle; after a grace period such connections are dropped, so
 * shutdown always ends.
 */
async function closeApp(app: FastifyInstance): Promise<void> {
  const force = setTimeout(() => app.server.closeAllConnections(), CLOSE_GRACE_MS);
  try {
    await app.close();
  } finally {
    clearTimeout(force);
  }
}
