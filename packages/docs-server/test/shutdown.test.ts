import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startDocsServer } from '../src/server.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-shutdown-'));
fs.writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>Home</title>');
fs.writeFileSync(path.join(dir, '404.html'), '<!doctype html><title>Not found</title>');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

// A client that announces a body and stalls after its first kilobyte (a stalled upload, or a slow-loris visitor) keeps
// a connection Node does not count as idle. Stopping the docs server (SIGTERM, npm start's Ctrl-C) must still end.
describe('closing the docs server', () => {
  it('ends even while a client stalls in the middle of a request body', async () => {
    const server = await startDocsServer({ siteDir: dir, port: 0, assistant: false });
    const { port } = new URL(server.url);
    const socket = net.connect(Number(port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    // A whole request first, so the connection is surely the server's; then the stalled one.
    socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    const first = await new Promise<string>((resolve) => socket.once('data', (chunk) => resolve(chunk.toString('latin1'))));
    expect(first).toMatch(/^HTTP\/1\.1 200 /);
    socket.write('POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n');
    socket.write(`{"a":"${'x'.repeat(1000)}`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    try {
      const closed = server.close().then(() => 'closed');
      const hung = new Promise((r) => setTimeout(r, 15_000, 'still waiting after 15 s')).then(String);
      expect(await Promise.race([closed, hung])).toBe('closed');
    } finally {
      socket.destroy();
    }
  }, 30_000);
});
