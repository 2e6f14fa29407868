import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * The npm registry of Keyway's own packages (`@keyway/sdk`, `@keyway/react`): the tarballs `npm pack` made at build
 * time (site/plugins/npmPackages.ts writes them and `npm/index.json` into the build). A reader points the `@keyway`
 * scope at `<docs origin>/npm/` and installs them by name, as the React quick start prints it:
 *
 *   npm config set @keyway:registry http://localhost:3000/npm/ --location project
 *   npm install @keyway/react @keyway/sdk
 *
 * Only what npm asks for an install: the package document (`GET /npm/@keyway%2fsdk`), whose tarball URLs are made
 * for the address the request came to, and the tarballs, which the site's file serving sends from the build.
 */
export const NPM_INDEX = 'npm/index.json';

export interface NpmIndex {
  packages: Record<string, { latest: string; versions: Record<string, { manifest: Record<string, unknown>; file: string; integrity: string; shasum: string }> }>;
}

export function readNpmIndex(siteDir: string): NpmIndex | undefined {
  const file = path.join(siteDir, NPM_INDEX);
  if (!fs.existsSync(file)) return undefined;
  return JSON.parse(fs.readFileSync(file, 'utf8')) as NpmIndex;
}

/** The origin a request was made to, as the reader's npm saw it (Host, and the scheme of a TLS proxy in front). */
function origin(request: FastifyRequest): string {
  const forwarded = request.headers['x-forwarded-proto'];
  const proto = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim() || request.protocol;
  return `${proto === 'https' ? 'https' : 'http'}://${request.headers.host ?? 'localhost'}`;
}

export function registerNpmRegistry(app: FastifyInstance, siteDir: string): void {
  const index = readNpmIndex(siteDir);
  const packument = async (request: FastifyRequest<{ Params: { name: string } }>, reply: import('fastify').FastifyReply) => {
    const name = decodeURIComponent(request.params.name);
    const entry = index?.packages[name];
    reply.header('Cache-Control', 'no-cache');
    if (!entry) {
      return reply
        .code(404)
        .send({ error: `${name} is not a package of this registry: it serves ${Object.keys(index?.packages ?? {}).join(' and ') || 'no package (the build has none)'}.` });
    }
    const base = origin(request);
    return {
      name,
      'dist-tags': { latest: entry.latest },
      versions: Object.fromEntries(
        Object.entries(entry.versions).map(([version, v]) => [
          version,
          { ...v.manifest, name, version, dist: { tarball: `${base}/${v.file}`, integrity: v.integrity, shasum: v.shasum } },
        ]),
      ),
    };
  };
  // The tarballs (`npm/-/<name>-<version>.tgz` in the build): only those the index lists.
  const tarballs = new Set(Object.values(index?.packages ?? {}).flatMap((p) => Object.values(p.versions).map((v) => v.file)));
  app.get<{ Params: { file: string } }>('/npm/-/:file', (request, reply) => {
    const rel = `npm/-/${request.params.file}`;
    if (!tarballs.has(rel)) return reply.code(404).header('Cache-Control', 'no-cache').send({ error: `No tarball ${request.params.file} here.` });
    return reply.header('Cache-Control', 'no-cache').type('application/octet-stream').sendFile(rel);
  });
  // npm asks for `/@keyway%2fsdk` under the registry URL; a reader may type `/npm/@keyway/sdk`.
  app.get<{ Params: { name: string } }>('/npm/:name', packument);
  app.get<{ Params: { scope: string; name: string } }>('/npm/:scope/:name', (request, reply) => {
    if (!request.params.scope.startsWith('@')) return reply.callNotFound();
    return packument(Object.assign(request, { params: { name: `${request.params.scope}/${request.params.name}` } }), reply);
  });
}
