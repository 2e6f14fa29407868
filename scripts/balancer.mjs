// A small loopback load balancer for `npm run start:cluster`, the cluster tests and the server benchmark: Fastify with
// @fastify/http-proxy, each request sent to the next ready upstream in turn (round-robin). Like the active health
// checks of HAProxy or a Kubernetes readiness probe, it asks every upstream's readiness endpoint a few times a second
// and sends nothing to one that answers 503 (draining before a restart, database away) or does not answer. It adds
// X-Forwarded-For and passes everything else through unchanged (bodies are streamed, not parsed). For development only: production uses a real balancer (README, deploy/).
import Fastify from 'fastify';
import httpProxy from '@fastify/http-proxy';

/** How often each upstream's readiness is asked. */
export const CHECK_EVERY_MS = 200;

/**
 * Starts the balancer; `upstreams` are base URLs (`http://127.0.0.1:port`); `readinessPath` is asked on each (null: no
 * checks, every upstream takes requests). Answers its URL, the upstreams ready now, and `close()`.
 */
export async function startBalancer({ upstreams, port = 0, host = '127.0.0.1', readinessPath = '/health/ready' }) {
  if (!upstreams.length) throw new Error('the balancer needs at least one upstream');
  const ready = new Set(upstreams);
  let next = 0;
  let timer;
  const check = async (upstream) => {
    try {
      const res = await fetch(upstream + readinessPath, { signal: AbortSignal.timeout(1000) });
      await res.body?.cancel();
      if (res.ok) ready.add(upstream);
      else ready.delete(upstream);
    } catch {
      ready.delete(upstream);
    }
  };
  const poll = async () => {
    await Promise.all(upstreams.map(check));
    timer = setTimeout(poll, CHECK_EVERY_MS);
  };
  if (readinessPath) await poll();
  /** The next ready upstream; when none is ready, the next of all (its error is the answer). */
  const pick = () => {
    const pool = ready.size ? upstreams.filter((u) => ready.has(u)) : upstreams;
    return pool[next++ % pool.length];
  };
  const app = Fastify({ logger: false });
  await app.register(httpProxy, {
    upstream: '',
    replyOptions: {
      getUpstream: pick,
      onError: (reply, { error }) => {
        const cause = error?.cause?.code ?? error?.code;
        reply.code(502).send({ errors: [{ httpcode: 502, message: `the balancer could not reach an identity replica (${cause ?? error?.message})` }] });
      },
    },
  });
  await app.listen({ port, host });
  const { port: actual } = app.server.address();
  return {
    url: `http://${host}:${actual}`,
    ready: () => upstreams.filter((u) => ready.has(u)),
    close: () => {
      clearTimeout(timer);
      return app.close();
    },
  };
}
