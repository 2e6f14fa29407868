import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createDocsServer } from '../src/server.js';

// A build with the `npm/` folder the site's npm-packages step writes: an index and one tarball per package.
const tarball = Buffer.from('not really a tarball, bytes the registry must send as they are');
const integrity = `sha512-${createHash('sha512').update(tarball).digest('base64')}`;
const shasum = createHash('sha1').update(tarball).digest('hex');
const index = {
  packages: {
    '@keyway/react': {
      latest: '0.1.0',
      versions: {
        '0.1.0': {
          manifest: { name: '@keyway/react', version: '0.1.0', dependencies: { '@keyway/sdk': '3.29.3' }, peerDependencies: { react: '^19.0.0' } },
          file: 'npm/-/keyway-react-0.1.0.tgz',
          integrity,
          shasum,
        },
      },
    },
  },
};

let dir: string;
let app: FastifyInstance;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-server-npm-'));
  fs.writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>Home</title>');
  fs.mkdirSync(path.join(dir, 'npm', '-'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'npm', 'index.json'), JSON.stringify(index));
  fs.writeFileSync(path.join(dir, 'npm', '-', 'keyway-react-0.1.0.tgz'), tarball);
  app = await createDocsServer({ siteDir: dir, assistant: false });
});
afterAll(async () => {
  await app.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('the @keyway npm registry', () => {
  it('answers the package document npm asks for, with tarball URLs on the address the request came to', async () => {
    for (const url of ['/npm/@keyway%2freact', '/npm/@keyway/react']) {
      const res = await app.inject({ url, headers: { host: 'docs.example.test:4000', accept: 'application/vnd.npm.install-v1+json' } });
      expect(res.statusCode, url).toBe(200);
      const doc = res.json() as { name: string; 'dist-tags': { latest: string }; versions: Record<string, { dependencies: object; dist: { tarball: string; integrity: string; shasum: string } }> };
      expect(doc.name).toBe('@keyway/react');
      expect(doc['dist-tags'].latest).toBe('0.1.0');
      expect(doc.versions['0.1.0']!.dependencies).toEqual({ '@keyway/sdk': '3.29.3' });
      expect(doc.versions['0.1.0']!.dist).toEqual({ tarball: 'http://docs.example.test:4000/npm/-/keyway-react-0.1.0.tgz', integrity, shasum });
    }
    // Behind a TLS proxy, the scheme it says.
    const proxied = await app.inject({ url: '/npm/@keyway%2freact', headers: { host: 'docs.example.test', 'x-forwarded-proto': 'https' } });
    expect((proxied.json() as { versions: Record<string, { dist: { tarball: string } }> }).versions['0.1.0']!.dist.tarball).toBe('https://docs.example.test/npm/-/keyway-react-0.1.0.tgz');
  });

  it('sends the tarball as it was packed', async () => {
    const res = await app.inject({ url: '/npm/-/keyway-react-0.1.0.tgz' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/octet-stream');
    expect(res.rawPayload.equals(tarball)).toBe(true);
  });

  it('says what it serves when asked for another package or tarball', async () => {
    const other = await app.inject({ url: '/npm/@keyway%2fnot-a-package' });
    expect(other.statusCode).toBe(404);
    expect(other.json()).toEqual({ error: '@keyway/not-a-package is not a package of this registry: it serves @keyway/react.' });
    expect((await app.inject({ url: '/npm/-/keyway-react-9.9.9.tgz' })).statusCode).toBe(404);
  });
});
