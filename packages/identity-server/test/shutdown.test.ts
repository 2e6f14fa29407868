import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { BACKENDS, startTestServer } from './helpers.js';

/** Sends one request on a raw keep-alive socket and resolves with the status line once the answer's head arrives. */
function sendAndKeepOpen(url: string, head: string, body: Buffer): Promise<{ socket: net.Socket; status: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => {
      socket.write(head);
      socket.write(body);
    });
    socket.once('error', reject);
    socket.once('data', (chunk) => resolve({ socket, status: chunk.toString('latin1').split('\r\n')[0]! }));
  });
}

// A server that answers before reading a request's whole body (a request refused on its headers alone) leaves a
// connection Node does not count as idle until the body is in, and a client may never send it (a stalled upload, or a
// race the fuzz suite met in CI). Closing the server (SIGTERM, a test's teardown) must still end: it waited forever.
describe.each(BACKENDS)('closing the identity server (%s)', (backend) => {
  it('ends even while a client keeps a connection open whose request was refused before its body arrived', async () => {
    const server = await startTestServer(backend);
    // No Keyway-API-Key: refused on the headers. Announces 100 kB, sends the first kilobyte and stalls.
    const head = `POST /sso/oidc/tokens/revoke/v2 HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100000\r\nConnection: keep-alive\r\n\r\n`;
    const { socket, status } = await sendAndKeepOpen(server.url, head, Buffer.from(`{"token":"${'x'.repeat(1000)}`));
    try {
      expect(status).toMatch(/^HTTP\/1\.1 401 /);
      const closed = server.stop().then(() => 'closed');
      const hung = new Promise((r) => setTimeout(r, 15_000, 'still waiting after 15 s')).then(String);
      expect(await Promise.race([closed, hung])).toBe('closed');
    } finally {
      socket.destroy();
    }
  }, 30_000);
});
