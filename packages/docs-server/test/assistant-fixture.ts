import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { createDocsServer, type DocsServerOptions } from '../src/server.js';

interface Section {
  heading: string;
  id: string;
  html: string;
}

/** A built docs page as Docusaurus renders it: an article with the markdown body, h2 sections and Prism code. */
function page(title: string, intro: string, sections: Section[]): string {
  const body = sections.map((s) => `<h2 class="anchor" id="${s.id}">${s.heading}<a href="#${s.id}" class="hash-link">#</a></h2>${s.html}`).join('');
  return `<!doctype html><html><head><title>${title} | Keyway Docs</title></head><body><nav>Sidebar words navbar</nav><article><div class="theme-doc-markdown markdown"><header><h1>${title}</h1></header><p>${intro}</p>${body}</div></article></body></html>`;
}

const code = (lang: string, lines: string[]) =>
  `<div class="language-${lang} codeBlockContainer"><pre class="prism-code language-${lang}"><code>${lines.map((l) => `<span class="token-line">${l}<br></span>`).join('')}</code></pre></div>`;

export const PAGES: Record<string, string> = {
  'index.html': '<!doctype html><html><head><title>Keyway Docs</title></head><body><h1>Home</h1></body></html>',
  '404.html': '<!doctype html><html><head><title>Not found</title></head><body><h1>Page not found</h1></body></html>',
  'docs/access/guides/m2m.html': page('Machine-to-machine access', 'Backend services call the Keyway API with client credentials instead of a person session.', [
    {
      heading: 'Create a client',
      id: 'create-a-client',
      html: `<p>Create a machine client in the console. Store the client secret in your secret manager.</p>${code('bash', ['curl -X POST https://api.keyway.dev/oauth/token \\', '  -d grant_type=client_credentials'])}`,
    },
    { heading: 'Scopes', id: 'scopes', html: '<p>Grant each machine client only the scopes it needs, such as persons:read.</p>' },
  ]),
  'docs/gate/getting-started.html': page('Getting started with Gate', 'Gate is a gateway that checks tokens before requests reach your API.', [
    { heading: 'Run the gateway', id: 'run-the-gateway', html: '<p>Run Gate with Docker next to your upstream service.</p>' },
  ]),
  'docs/identity-protection/detections/mitm-detection.html': page('MITM detection', 'Zebrafinch signals reveal adversary-in-the-middle phishing proxies.', [
    { heading: 'Zebrafinch thresholds', id: 'thresholds', html: '<p>The zebrafinch score triggers an alert above 80.</p>' },
  ]),
  'docs/identity-protection/queries.html': page('Queries', 'Hunt with saved queries over sign-in events.', []),
};

/** Writes the fixture build into a fresh temporary folder. */
export function fixtureSite(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keyway-assistant-site-'));
  for (const [rel, html] of Object.entries(PAGES)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), html);
  }
  return dir;
}

/**
 * A docs server over the fixture. The gate is simulated: a request carrying `x-test-signed-in: 1` counts as signed
 * in (the real gate sets `request.docsSignedIn` from the docs session).
 */
export async function startFixtureServer(options: Partial<DocsServerOptions> = {}) {
  // Retrieval by meaning (the bundled sentence encoder) is off unless a test turns it on: loading the model costs every
  // server a second of CPU, and the lexical engine's behaviour is what most tests pin down.
  const assistant = options.assistant === false ? false : { meaning: false, ...options.assistant };
  const app = await createDocsServer({ siteDir: fixtureSite(), ...options, assistant });
  app.addHook('onRequest', async (request) => {
    if (request.headers['x-test-signed-in'] === '1') request.docsSignedIn = true;
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => app.close() };
}

export interface SseEvent {
  event: string;
  data: Record<string, unknown>;
}

/** Posts a question and reads the whole event stream. */
export async function chat(base: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}/api/assistant/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  const events: SseEvent[] = [];
  if (res.headers.get('content-type')?.startsWith('text/event-stream')) {
    for (const block of text.split('\n\n').filter(Boolean)) {
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? '';
      const data = /^data: (.*)$/m.exec(block)?.[1] ?? '{}';
      events.push({ event, data: JSON.parse(data) as Record<string, unknown> });
    }
  }
  const answer = events.filter((e) => e.event === 'delta').map((e) => e.data.text).join('');
  const citations = (events.find((e) => e.event === 'citations')?.data.citations ?? []) as { n: number; url: string; title: string; heading: string }[];
  const meta = events.find((e) => e.event === 'meta')?.data as { id: string; mode: string; contact?: boolean; reason?: string; meaning?: boolean } | undefined;
  return { res, text, events, answer, citations, meta };
}

/** A local stand-in for an OpenAI-compatible chat endpoint that streams `reply` in small pieces. */
export async function fakeLlm(
  reply: string | ((body: { messages: { role: string; content: string }[] }) => string),
  status = 200,
  /** Pause between streamed pieces, to watch an answer arrive. */
  delayMs = 0,
) {
  const requests: { headers: http.IncomingHttpHeaders; body: { model: string; stream: boolean; messages: { role: string; content: string }[] } }[] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const body = JSON.parse(raw);
      requests.push({ headers: req.headers, body });
      if (req.url !== '/v1/chat/completions' || status !== 200) {
        res.writeHead(status === 200 ? 404 : status, { 'content-type': 'application/json' }).end('{"error":"model failure"}');
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const text = typeof reply === 'function' ? reply(body) : reply;
      const pieces = text.match(/.{1,7}/gs) ?? [];
      const finish = () => {
        res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`);
        res.end('data: [DONE]\n\n');
      };
      const write = (i: number) => {
        if (i >= pieces.length) return finish();
        res.write(`data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: pieces[i] } }] })}\n\n`);
        if (delayMs) setTimeout(() => write(i + 1), delayMs);
        else write(i + 1);
      };
      write(0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/v1`, requests, close: () => new Promise<void>((r) => server.close(() => r())) };
}
