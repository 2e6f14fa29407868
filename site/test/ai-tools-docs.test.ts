// "Use Keyway docs with AI tools" (site/docs/ai-tools.md) runs as printed against the real build behind a docs server
// and a real identity server: its curl commands with the real curl, its two MCP configurations with the MCP SDK's own
// client (HTTP transport to the printed URL, stdio by spawning the printed command).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startDocsServer, type StartedDocsServer } from '@keyway/docs-server';
import { siteBuild } from '../../e2e/paths';
import { docsDir, readPage, startLocalServer, type LocalServer, type Page } from './docs-helpers';

const PRINTED = 'http://localhost:3000';
let page: Page;
let local: LocalServer;
let docs: StartedDocsServer;

beforeAll(async () => {
  page = await readPage(path.join(docsDir, 'ai-tools.md'), docsDir);
  local = await startLocalServer();
  docs = await startDocsServer({ siteDir: siteBuild, port: 0, gate: { identityUrl: local.live.url, orgId: local.live.orgId } });
}, 60_000);
afterAll(async () => {
  await docs?.close();
  await local?.close();
});

/** The page's shell commands, one per line (backslash continuations joined), aimed at the suite's docs server. */
const commands = () =>
  page.code
    .filter((c) => c.lang === 'bash')
    .flatMap((c) => c.value.replace(/\\\n\s*/g, ' ').split('\n'))
    .filter((l) => l.startsWith('curl '));
/** Runs a printed curl command with the real curl (through a shell, quotes as printed; async: the server is in this process). */
const curl = async (command: string) => (await promisify(execFile)('bash', ['-c', command.replaceAll(PRINTED, docs.url)], { encoding: 'utf8', timeout: 150_000 })).stdout;
const configs = () =>
  page.code.filter((c) => c.lang === 'json' && c.meta.includes('title="mcp.json"')).map((c) => (JSON.parse(c.value) as { mcpServers: Record<string, Record<string, unknown>> }).mcpServers['keyway-docs']!);

describe('Use Keyway docs with AI tools', () => {
  it('prints commands that all work: Markdown twins, llms.txt and a tool call over /mcp', async () => {
    const printed = commands();
    expect(printed).toHaveLength(4);
    const [md, accept, llms, mcp] = await Promise.all(printed.map(curl));
    expect(md).toMatch(/^---\ntitle: "Introduction"\n/);
    expect(accept).toBe(md);
    for (const section of ['Access', 'React SDK', 'Gate', 'Identity Protection', 'API reference', 'SDK reference']) expect(llms).toContain(`\n## ${section}\n`);
    expect(llms).toContain(`${docs.url}/docs/ai-tools.md`);
    const answer = JSON.parse(mcp!) as { result: { content: { text: string }[] } };
    const text = answer.result.content[0]!.text;
    expect(text.match(/^\d+\. /gm)).toHaveLength(3);
    expect(text).toContain(`Markdown: ${docs.url}/docs/access/guides/m2m.md`);
  }, 180_000);

  it('names the four tools the server offers, and the gated rule it states holds', async () => {
    const table = page.body.match(/^\| `(\w+)` \|/gm)?.map((l) => l.slice(3, -3)) ?? [];
    const client = new Client({ name: 'ai-tools-docs', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${docs.url}/mcp`)));
    try {
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual([...table].sort());
    } finally {
      await client.close();
    }
    expect(page.body).toContain('`/docs/identity-protection/detections.md` answers `401`');
    expect((await fetch(`${docs.url}/docs/identity-protection/detections.md`)).status).toBe(401);
  }, 30_000);

  it('connects an MCP client with the HTTP configuration and with the stdio configuration, as printed', async () => {
    const [http, stdio] = configs();
    expect(http).toEqual({ type: 'http', url: `${PRINTED}/mcp` });
    const viaHttp = new Client({ name: 'ai-tools-docs-http', version: '1.0.0' });
    await viaHttp.connect(new StreamableHTTPClientTransport(new URL(String(http!.url).replace(PRINTED, docs.url))));
    try {
      const intro = (await viaHttp.callTool({ name: 'get_page', arguments: { path: '/docs/intro' } })) as { content: { text: string }[] };
      expect(intro.content[0]!.text).toContain('# Introduction');
    } finally {
      await viaHttp.close();
    }

    expect(stdio).toEqual({ command: 'npx', args: ['keyway-docs-mcp'], env: { KEYWAY_DOCS_URL: PRINTED } });
    const env = Object.fromEntries(Object.entries(stdio!.env as Record<string, string>).map(([k, v]) => [k, v.replace(PRINTED, docs.url)]));
    const viaStdio = new Client({ name: 'ai-tools-docs-stdio', version: '1.0.0' });
    await viaStdio.connect(
      new StdioClientTransport({ command: String(stdio!.command), args: stdio!.args as string[], env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env }, cwd: path.resolve(docsDir, '../..') }),
    );
    try {
      const list = (await viaStdio.callTool({ name: 'list_pages', arguments: { section: 'Gate' } })) as { content: { text: string }[] };
      expect(list.content[0]!.text).toContain(`[Get started with Keyway Gate](${docs.url}/docs/gate/getting-started.md)`);
    } finally {
      await viaStdio.close();
    }
  }, 60_000);
});
