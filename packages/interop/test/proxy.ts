import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Request headers of the published client, renamed to ours; nothing else is touched. */
const REQUEST_RENAMES: Record<string, string> = {
  'slashid-orgid': 'keyway-orgid',
  'slashid-sdkversion': 'keyway-sdkversion',
  'slashid-sdkretrycount': 'keyway-sdkretrycount',
};
const RESPONSE_RENAMES: Record<string, string> = { 'keyway-correlation-id': 'slashid-correlation-id' };
const inverse = (map: Record<string, string>) => Object.fromEntries(Object.entries(map).map(([a, b]) => [b, a]));
/**
 * CORS headers whose values are lists of header names: in a browser the same names travel inside them (the preflight
 * asks for `slashid-orgid`, the answer allows `keyway-orgid`), so the same renaming applies to the names they list.
 */
const REQUEST_NAME_LISTS = new Set(['access-control-request-headers']);
const RESPONSE_NAME_LISTS = new Set(['access-control-allow-headers', 'access-control-expose-headers']);
const RESPONSE_NAMES = { ...RESPONSE_RENAMES, ...inverse(REQUEST_RENAMES) };

export interface Exchange {
  method: string;
  path: string;
  /** Request headers as the published client sent them (before renaming). */
  headers: IncomingHttpHeaders;
  body: string;
  status: number;
  response: string;
}

function rename(headers: IncomingHttpHeaders, map: Record<string, string>, lists: Set<string>, names: Record<string, string>): IncomingHttpHeaders {
  const out: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    out[map[lower] ?? name] =
      lists.has(lower) && typeof value === 'string'
        ? value
            .split(',')
            .map((n) => names[n.trim().toLowerCase()] ?? n.trim())
            .join(', ')
        : value;
  }
  return out;
}

/**
 * A loopback proxy in front of the identity server: renames the SDK's `SlashID-*` request headers to `Keyway-*` and
 * `Keyway-Correlation-ID` back on responses (also inside the CORS headers that list header names), and records every
 * exchange so tests can check what went over the wire. `upstream` may be set after start (`setUpstream`), for a server
 * whose public URL is this proxy's.
 */
export async function startProxy(upstream?: string): Promise<{ url: string; log: Exchange[]; setUpstream(url: string): void; close(): Promise<void> }> {
  let target = upstream ? new URL(upstream) : undefined;
  const log: Exchange[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (!target) {
        res.writeHead(502, { 'content-type': 'text/plain' }).end('no upstream yet');
        return;
      }
      const headers = rename(req.headers, REQUEST_RENAMES, REQUEST_NAME_LISTS, REQUEST_RENAMES);
      headers.host = target.host;
      const up = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers }, (upRes) => {
        const out: Buffer[] = [];
        upRes.on('data', (c: Buffer) => out.push(c));
        upRes.on('end', () => {
          const payload = Buffer.concat(out);
          log.push({
            method: req.method ?? '',
            path: req.url ?? '',
            headers: req.headers,
            body: body.toString('utf8'),
            status: upRes.statusCode ?? 0,
            response: payload.toString('utf8'),
          });
          if (process.env.INTEROP_DEBUG) console.error(`${req.method} ${req.url} ${body.toString('utf8').slice(0, 300)}\n  -> ${upRes.statusCode} ${payload.toString('utf8').slice(0, 300)}`);
          res.writeHead(upRes.statusCode ?? 502, rename(upRes.headers, RESPONSE_RENAMES, RESPONSE_NAME_LISTS, RESPONSE_NAMES));
          res.end(payload);
        });
      });
      up.on('error', (err) => {
        res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(String(err));
      });
      up.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    log,
    setUpstream: (url) => void (target = new URL(url)),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
