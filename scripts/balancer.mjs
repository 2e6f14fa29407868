// A small loopback load balancer for `npm run start:cluster` and the server benchmark: Fastify with
// @fastify/http-proxy, each request sent to the next upstream in turn (round-robin). It adds X-Forwarded-For and
// passes everything else through unchanged (bodies are streamed, not parsed).
import Fastify from 'fastify';
import httpProxy from '@fastify/http-proxy';

/** Starts the balancer; `upstreams` are base URLs (`http://127.0.0.1:port`). Answers its URL and `close()`. */
export async function startBalancer({ upstreams, port = 0, host = '127.0.0.1' }) {
  if (!upstreams.length) throw new Error('the balancer needs at least one upstream');
  let next = 0;
  const app = Fastify({ logger: false });
  await app.register(httpProxy, {
    upstream: '',
    replyOptions: { getUpstream: () => upstreams[next++ % upstreams.length] },
  });
  await app.listen({ port, host });
  const { port: actual } = app.server.address();
  return { url: `http://${host}:${actual}`, close: () => app.close() };
}
