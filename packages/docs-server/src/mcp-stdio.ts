#!/usr/bin/env node
// `npx keyway-docs-mcp`: the docs' MCP server over stdio, for agents that start local MCP servers. It forwards every
// tool listing and call to a docs server's Streamable HTTP endpoint (/mcp), so search, pages and the gate are the docs
// server's own; KEYWAY_USER_TOKEN, when set, is sent as the bearer token that opens the gated pages.
//
// Environment: KEYWAY_DOCS_URL (default http://localhost:3000), KEYWAY_USER_TOKEN (optional).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { PACKAGE_VERSION } from './agents/http.js';
import { MCP_SERVER_NAME } from './agents/mcp.js';

const fail = (message: string): never => {
  process.stderr.write(`keyway-docs-mcp: ${message}\n`);
  process.exit(1);
};

const raw = process.env.KEYWAY_DOCS_URL ?? 'http://localhost:3000';
let endpoint: URL;
try {
  endpoint = new URL('/mcp', raw);
  if (!/^https?:$/.test(endpoint.protocol)) throw new Error('not http(s)');
} catch {
  fail(`KEYWAY_DOCS_URL must be the http(s) URL of a Keyway docs server, got ${JSON.stringify(raw)}`);
}
const token = process.env.KEYWAY_USER_TOKEN?.trim();

const upstream = new Client({ name: 'keyway-docs-mcp', version: PACKAGE_VERSION });
try {
  await upstream.connect(
    new StreamableHTTPClientTransport(endpoint!, { requestInit: { headers: token ? { authorization: `Bearer ${token}` } : {} } }),
  );
} catch (error) {
  fail(`cannot reach the docs' MCP endpoint ${endpoint!.href} (${(error as Error).message}); is the docs server running? Set KEYWAY_DOCS_URL to its URL.`);
}

const server = new Server(
  { name: MCP_SERVER_NAME, version: PACKAGE_VERSION },
  { capabilities: { tools: {} }, instructions: upstream.getInstructions() },
);
server.setRequestHandler(ListToolsRequestSchema, (request) => upstream.listTools(request.params));
server.setRequestHandler(CallToolRequestSchema, async (request) => upstream.callTool(request.params));
server.onclose = () => void upstream.close().finally(() => process.exit(0));
await server.connect(new StdioServerTransport());
