// Markdown twins of every docs page, llms.txt and llms-full.txt, and the index the docs server's Markdown routes and
// MCP server read (written after the HTML, before precompression; see README "Docs for agents").
import fs from 'node:fs/promises';
import path from 'node:path';
import {
  AGENTS_DIR,
  llmsFullTxt,
  llmsTxt,
  markdownFileOf,
  OPERATIONS_FILE,
  PAGES_FILE,
  sectionOf,
  type AgentOperation,
  type AgentPage,
} from '@keyway/docs-server/agents';
import type { ReferencePageData } from '../../src/components/api/types';
import { pageDataUrl } from '../../src/components/api/dataUrl';
import { isGatedRoute } from '../gate/config';
import { ApiSpec, type Operation } from '../api-reference/spec';
import { operationHref } from '../api-reference/render';
import { referenceToMarkdown } from './api-to-markdown';
import { docHtmlToMarkdown, firstSentence } from './html-to-markdown';

export { docHtmlToMarkdown, htmlFragmentToMarkdown, firstSentence } from './html-to-markdown';
export { referenceToMarkdown } from './api-to-markdown';

async function readFirst(outDir: string, rels: string[]): Promise<string | undefined> {
  for (const rel of rels) {
    try {
      return await fs.readFile(path.join(outDir, rel), 'utf8');
    } catch {
      // next candidate
    }
  }
  return undefined;
}

/** Every component schema an operation names, followed through the schemas themselves. */
function operationOf(spec: ApiSpec, op: Operation): AgentOperation {
  const schemas: Record<string, unknown> = {};
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') {
        const m = /^#\/components\/schemas\/(.+)$/.exec(v);
        if (m && !(m[1]! in schemas)) {
          schemas[m[1]!] = spec.lookup(v);
          visit(schemas[m[1]!]);
        } else if (!m) visit(spec.lookup(v));
      } else visit(v);
    }
  };
  const requestBody = op.raw.requestBody ? spec.deref(op.raw.requestBody as { $ref?: string }) : undefined;
  const responses = Object.fromEntries(Object.entries(op.raw.responses ?? {}).map(([s, r]) => [s, spec.deref(r as { $ref?: string })]));
  visit([op.parameters, requestBody, responses]);
  return {
    operationId: op.operationId,
    method: op.method.toUpperCase(),
    path: op.path,
    summary: op.summary,
    description: op.description,
    tags: op.tags,
    route: operationHref(op),
    parameters: op.parameters,
    ...(requestBody ? { requestBody } : {}),
    responses,
    security: op.security,
    schemas,
  };
}

export interface AgentDocsOutput {
  pages: AgentPage[];
  publicPages: number;
  gatedPages: number;
}

/**
 * Writes, into the build: `<route>.md` for every docs page (gated ones too: like their HTML, the docs server serves
 * them only with a session), `llms.txt` and `llms-full.txt` of the public pages (for static hosting and anonymous
 * readers), and `.agents/pages.json` + `.agents/operations.json` (never served).
 */
export async function writeAgentDocs(outDir: string, routesPaths: string[], siteUrl: string, openapiFile: string): Promise<AgentDocsOutput> {
  const spec = ApiSpec.load(openapiFile);
  const byRoute = new Map(spec.operations().map((op) => [operationHref(op), op]));
  const routes = [...new Set(routesPaths)].filter((r) => sectionOf(r)).sort();
  const pages: AgentPage[] = [];
  const markdown = new Map<string, string>();
  for (const route of routes) {
    const section = sectionOf(route)!;
    const rel = route.slice(1);
    let twin: { title: string; description: string; markdown: string } | undefined;
    const json = await readFirst(outDir, [pageDataUrl(route).slice(1)]);
    if (json) {
      const data = JSON.parse(json) as ReferencePageData;
      twin = { title: data.title, description: data.description, markdown: referenceToMarkdown(data) };
    } else {
      const html = await readFirst(outDir, [`${rel}.html`, `${rel}/index.html`]);
      if (!html) continue;
      twin = docHtmlToMarkdown(html, route);
    }
    if (!twin) continue;
    const file = markdownFileOf(route);
    await fs.mkdir(path.dirname(path.join(outDir, file)), { recursive: true });
    await fs.writeFile(path.join(outDir, file), twin.markdown);
    markdown.set(route, twin.markdown);
    const op = byRoute.get(route);
    pages.push({
      route,
      title: twin.title,
      description: firstSentence(twin.description),
      section,
      gated: isGatedRoute(route),
      file,
      ...(op ? { operationId: op.operationId } : {}),
    });
  }
  const publicPages = pages.filter((p) => !p.gated);
  await fs.writeFile(path.join(outDir, 'llms.txt'), llmsTxt(publicPages, siteUrl));
  await fs.writeFile(path.join(outDir, 'llms-full.txt'), llmsFullTxt(publicPages, siteUrl, (p) => markdown.get(p.route) ?? ''));
  await fs.mkdir(path.join(outDir, AGENTS_DIR), { recursive: true });
  await fs.writeFile(path.join(outDir, PAGES_FILE), JSON.stringify(pages));
  await fs.writeFile(path.join(outDir, OPERATIONS_FILE), JSON.stringify(spec.operations().map((op) => operationOf(spec, op))));
  return { pages, publicPages: publicPages.length, gatedPages: pages.length - publicPages.length };
}
