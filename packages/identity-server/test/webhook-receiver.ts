import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the receiver does with a request: answer with that status, or `'hang'`: read it and never answer. */
export type ReceiverAnswer = number | 'hang';

export interface ReceivedRequest {
  headers: IncomingMessage['headers'];
  body: string;
  answer: ReceiverAnswer;
}

/**
 * A loopback webhook receiver (node:http) that records every request it gets (`calls`) and the ones it accepted with
 * a 2xx (`received`), answering each as `answer()` says. `port` reuses a port (a receiver coming back).
 */
export async function receiver(answer: () => ReceiverAnswer = () => 204, port = 0) {
  const calls: ReceivedRequest[] = [];
  const received: ReceivedRequest[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const code = answer();
      const call = { headers: req.headers, body, answer: code };
      calls.push(call);
      if (code === 'hang') return;
      if (code < 300) received.push(call);
      res.writeHead(code).end();
    });
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}/hook`,
    port: bound,
    calls,
    received,
    server,
    /** Stops listening and drops the connections left hanging. */
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

/** Polls `probe` every 25 ms until it gives a value; fails naming `what` after `ms`. */
export async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, ms = 8000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
