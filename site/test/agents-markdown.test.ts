// Docs for agents in the build output: llms.txt, llms-full.txt and the Markdown twins (site/plugins/markdown).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentPage } from '@keyway/docs-server/agents';
import { gatedSentences } from '../../e2e/gated-sentences';
import { routeContract, siteBuild } from '../../e2e/paths';
import { docHtmlToMarkdown, firstSentence } from '../plugins/markdown';

const read = (rel: string) => fs.readFileSync(path.join(siteBuild, rel), 'utf8');
const twin = (route: string) => read(`${route.slice(1)}.md`);
const pages = (): AgentPage[] => JSON.parse(read('.agents/pages.json')) as AgentPage[];
const siteUrl = process.env.KEYWAY_SITE_URL ?? 'http://localhost:3000';

/** The structure of a Markdown document: its headings, fences (language and meta), quotes and table headers. */
function outline(md: string) {
  const body = md.replace(/^---\n[\s\S]*?\n---\n/, '');
  const fences = [...body.matchAll(/^```(\S*)(.*)$/gm)].filter((_, i) => i % 2 === 0).map((m) => `${m[1]}${m[2]}`.trim());
  return {
    frontMatter: /^---\ntitle: "[^"]+"\ndescription: ".*"\nurl: "\/docs[^"]*"\n---\n/.test(md),
    headings: [...body.matchAll(/^(#{1,4}) (.+)$/gm)].map((m) => `${m[1]} ${m[2]}`),
    fences,
    quotes: [...body.matchAll(/^> \*\*(.+?)\*\*$/gm)].map((m) => m[1]),
    tables: [...body.matchAll(/^\| (.+) \|\n\| (?:-+ \| )*-+ \|$/gm)].map((m) => m[1]),
    html: /<\/?(div|span|button|svg|details|summary)\b/.test(body),
  };
}

describe('llms.txt and llms-full.txt of the build', () => {
  const llms = read('llms.txt');
  const full = read('llms-full.txt');

  it('lists every public page of the route contract, in the six sections, each with its Markdown URL and one sentence', () => {
    for (const s of ['Access', 'React SDK', 'Gate', 'Identity Protection', 'API reference', 'SDK reference']) expect(llms).toContain(`\n## ${s}\n`);
    const listed = new Set([...llms.matchAll(/^- \[[^\]]+\]\(([^)]+)\.md\): \S.*$/gm)].map((m) => m[1]!.slice(siteUrl.length)));
    const publicDocs = routeContract().filter((r) => !r.gated && r.route.startsWith('/docs/'));
    expect(publicDocs.length).toBeGreaterThan(150);
    for (const { route } of publicDocs) expect(listed.has(route), route).toBe(true);
    // Generated pages (API operations, SDK reference) are there too.
    expect([...listed].filter((r) => r.startsWith('/docs/api/')).length).toBeGreaterThan(100);
    expect([...listed].filter((r) => r.startsWith('/docs/access/sdk/')).length).toBeGreaterThan(20);
  });

  it('names no gated page: no gated URL, no gated title', () => {
    const gated = pages().filter((p) => p.gated);
    expect(gated.length).toBe(routeContract().filter((r) => r.gated).length);
    for (const p of gated) {
      expect(llms, p.route).not.toContain(`](${siteUrl}${p.route}.md)`);
      expect(llms, p.title).not.toContain(`[${p.title}]`);
      expect(full, p.route).not.toContain(`: ${siteUrl}${p.route}.md -->`);
    }
    expect(llms).not.toMatch(/\/docs\/identity-protection\/(detections|queries)[/.]/);
  });

  it('holds every public page in llms-full.txt and not one gated sentence (the leak scan)', () => {
    const sentences = gatedSentences(siteBuild);
    expect(sentences.size).toBeGreaterThan(100);
    expect([...sentences].filter((s) => full.includes(s))).toEqual([]);
    expect(full).toContain('# Get started with Keyway Gate');
    expect(full).toContain('# Get the signed-in person');
    expect((full.match(/^<!-- page: /gm) ?? []).length).toBe(pages().filter((p) => !p.gated).length);
  });
});

describe('the Markdown twins of ten representative pages', () => {
  it('/docs/gate/getting-started: tabs flattened under their labels, code blocks with language and title', () => {
    const o = outline(twin('/docs/gate/getting-started'));
    expect(o.frontMatter).toBe(true);
    expect(o.headings[0]).toBe('# Get started with Keyway Gate');
    expect(o.headings).toContain('## Step 2: write the configuration');
    expect(o.fences).toEqual(expect.arrayContaining(['yaml title="gate.yaml"', 'json title="gate.json"', 'toml title="gate.toml"', 'hcl title="gate.hcl"', 'bash']));
    const md = twin('/docs/gate/getting-started');
    for (const label of ['YAML', 'JSON', 'TOML', 'HCL']) expect(md).toMatch(new RegExp(`^\\*\\*${label}\\*\\*\\n\\n\`\`\`${label.toLowerCase()} title=`, 'm'));
    expect(o.html).toBe(false);
  });

  it('/docs/access/concepts/anonymous-persons: an admonition is a blockquote opened by its title', () => {
    const md = twin('/docs/access/concepts/anonymous-persons');
    expect(outline(md).quotes).toContain('Warning');
    expect(md).toMatch(/^> \*\*Warning\*\*\n>\n> Never grant access/m);
  });

  it('/docs/access/concepts/data-protection-compliance/gdpr: a custom admonition title', () => {
    expect(outline(twin('/docs/access/concepts/data-protection-compliance/gdpr')).quotes).toContain('Not legal advice');
  });

  it('/docs/identity-protection/sinks/splunk: a table as a GFM table with its cells and links', () => {
    const md = twin('/docs/identity-protection/sinks/splunk');
    expect(outline(md).tables).toContain('Sourcetype | Content | When');
    expect(md).toMatch(/^\| `keyway:detection` \| One event per detection change\./m);
  });

  it('/docs/access/react-sdk/tutorials/quickstart: code titles that name files', () => {
    expect(outline(twin('/docs/access/react-sdk/tutorials/quickstart')).fences).toEqual(expect.arrayContaining(['tsx title="src/main.tsx"', 'tsx title="src/App.tsx"']));
  });

  it('/docs/access/react-sdk/guides/setup: package-manager tabs flattened', () => {
    const md = twin('/docs/access/react-sdk/guides/setup');
    for (const label of ['npm', 'Yarn', 'pnpm']) expect(md).toContain(`\n**${label}**\n`);
  });

  it('/docs/api: the ApiMethod component reads as code', () => {
    const md = twin('/docs/api');
    expect(md).toContain('(`POST` [`/persons`](/docs/api/post-persons))');
    expect(outline(md).html).toBe(false);
  });

  it('/docs/api/get-me: an API operation from the contract: endpoint, parameters, responses and one curl sample', () => {
    const md = twin('/docs/api/get-me');
    const o = outline(md);
    expect(md).toContain('\n`GET /me`\n');
    expect(o.headings).toEqual(expect.arrayContaining(['## Authentication', '## Parameters', '## Responses', '### 200 OK', '## Request samples']));
    expect(o.headings).not.toContain('## Try it');
    expect(o.tables).toEqual(expect.arrayContaining(['Name | In | Type | Required | Description', 'Field | Type | Required | Description']));
    const samples = md.slice(md.indexOf('## Request samples'));
    expect(outline(samples).fences).toEqual(['bash']);
    expect(samples).toMatch(/```bash\n(#.*\n)*curl /);
    expect(samples).not.toMatch(/fetch\(|import requests|net\/http/);
  });

  it('/docs/category/api/persons: the operations of a tag as a table', () => {
    const md = twin('/docs/category/api/persons');
    expect(outline(md).tables).toContain('Method | Operation | Path');
    expect(md).toContain('| `GET` | [Get the signed-in person](/docs/api/get-me) | `/me` |');
  });

  it('/docs/access/sdk/classes/APIResponseError: the TypeDoc reference', () => {
    const o = outline(twin('/docs/access/sdk/classes/APIResponseError'));
    expect(o.headings).toEqual(expect.arrayContaining(['# Class: APIResponseError', '## Constructors']));
    expect(o.html).toBe(false);
  });

  it('a gated page has its twin in the build (served only with a session), with the same structure', () => {
    const gated = pages().find((p) => p.route === '/docs/identity-protection/detections/webhooks');
    expect(gated?.gated).toBe(true);
    expect(outline(twin('/docs/identity-protection/detections/webhooks')).frontMatter).toBe(true);
  });
});

describe('the HTML to Markdown conversion', () => {
  it('keeps nested tabs apart, details as quotes, and tells a page without doc content', () => {
    const html = `<html><head><title>T | Keyway Docs</title><meta name="description" content="D."></head><body><main><article><div class="theme-doc-markdown markdown"><header><h1>T</h1></header>
      <div class="tabs-container"><ul role="tablist"><li role="tab">One</li><li role="tab">Two</li></ul><div>
        <div role="tabpanel"><p>first</p></div><div role="tabpanel" hidden><p>second</p></div></div></div>
      <details><summary>More</summary><div><p>hidden text</p></div></details></div></article></main></body></html>`;
    const md = docHtmlToMarkdown(html, '/docs/t')!.markdown;
    expect(md).toContain('# T\n\n**One**\n\nfirst\n\n**Two**\n\nsecond');
    expect(md).toContain('> **More**\n>\n> hidden text');
    expect(docHtmlToMarkdown('<html><body><p>x</p></body></html>', '/docs/x')).toBeUndefined();
  });

  it('cuts descriptions to their first sentence', () => {
    expect(firstSentence('Sign in people. Then more.')).toBe('Sign in people.');
    expect(firstSentence('Version 3.29 of the SDK adds passkeys. More.')).toBe('Version 3.29 of the SDK adds passkeys.');
  });
});
