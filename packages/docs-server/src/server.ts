import path from 'node:path';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import fastifyStatic from '@fastify/static';
import { readSite, type SiteFile } from './site-files.js';
import { resolvePath } from './resolve.js';
import { cacheControl, contentSecurityPolicy, HSTS, SECURITY_HEADERS } from './headers.js';
import { registerSessionDefault } from './session.js';
import { gateConnectSrc, registerGate, type GateOptions } from './gate/index.js';
import { assistantPlugin, type AssistantOptions } from './assistant/index.js';

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
  if (options.assistant !== false) await app.register(assistantPlugin, { ...options.assistant, siteDir });

  const hsts = options.hsts ?? process.env.NODE_ENV === 'production';
  app.addHook('onSend', async (_request, reply) => {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) reply.header(name, value);
    if (hsts) reply.header('Strict-Transport-Security', HSTS);
  });

  const send = (reply: FastifyReply, file: SiteFile, status = 200) => {
    reply.code(status).header('Cache-Control', status === 200 ? gate.cacheControl(file, cacheControl(file.rel)) : 'no-cache');
    if (file.isHtml) reply.header('Content-Security-Policy', contentSecurityPolicy(file, csp));
    if (COMPRESSIBLE.test(file.rel)) reply.header('Vary', 'Accept-Encoding');
    return reply.sendFile(file.rel);
  };

  app.get('/healthz', async () => ({ status: 'ok', pages: [...files.values()].filter((f) => f.isHtml).length }));

  app.route({
    method: ['GET', 'HEAD'],
    url: '/*',
    handler: async (request, reply) => {
      const url = new URL(request.url, 'http://docs.invalid');
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
  return { url: `http://${host === '0.0.0.0' ? 'localhost' : host}:${port}`, close: () => app.close() };
}
