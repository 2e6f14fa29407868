// Checks for the React SDK reference pages (site/docs/access/react-sdk/reference/**). Every props / options /
// return table is compared, row by row and both ways, with the types `@keyway/react` really exports (read with the
// TypeScript compiler from the package's declarations): name, declared type, whether it is required. Every TSX/TS
// sample is type-checked against the installed packages, and the generic page checks of docs-helpers.ts apply
// (front matter, headings, links, prose length, wording).
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import fs from 'node:fs';
import { createElement, type ReactElement } from 'react';
import { renderToString } from 'react-dom/server';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  allRoutes,
  anonymousPerson,
  categoryProblems,
  docsDir,
  frontMatterProblems,
  headingProblems,
  linkProblems,
  readPage,
  startLocalServer,
  type LocalServer,
  siteDir,
  textOf,
  typeCheck,
  walk,
  wordingProblems,
  type MdNode,
  type Page,
} from './docs-helpers';

const roomDir = path.join(docsDir, 'access', 'react-sdk', 'reference');
const roomRoute = '/docs/access/react-sdk/reference';

// What each page documents: the exported interface whose members its table lists, or the exported function whose
// parameters it lists.
const DOCUMENTS: Record<string, { type?: string; fn?: string; component?: string }> = {
  'components/configuration-provider': { type: 'ConfigurationProviderProps', component: 'ConfigurationProvider' },
  'components/dynamic-flow': { type: 'DynamicFlowProps', component: 'DynamicFlow' },
  'components/form': { type: 'FormProps', component: 'Form' },
  'components/gdpr-consent-dialog': { type: 'GDPRConsentDialogProps', component: 'GDPRConsentDialog' },
  'components/groups': { type: 'GroupsProps', component: 'Groups' },
  'components/logged-in': { type: 'LoggedInProps', component: 'LoggedIn' },
  'components/logged-out': { type: 'LoggedOutProps', component: 'LoggedOut' },
  'components/multi-factor-auth': { type: 'MultiFactorAuthProps', component: 'MultiFactorAuth' },
  'components/organization-switcher': { type: 'OrganizationSwitcherProps', component: 'OrganizationSwitcher' },
  'components/loaded': { type: 'LoadedProps', component: 'Loaded' },
  'components/provider': { type: 'KeywayProviderProps', component: 'KeywayProvider' },
  'components/slot': { type: 'SlotProps', component: 'Slot' },
  'components/step-up-auth': { type: 'StepUpAuthProps', component: 'StepUpAuth' },
  'hooks/use-gdpr-consent': { type: 'GDPRConsentState', component: 'useGDPRConsent' },
  'hooks/use-organizations': { type: 'OrganizationsState', component: 'useOrganizations' },
  'hooks/use-sdk': { type: 'KeywayState', component: 'useKeyway' },
  'middleware/default-organization': { fn: 'defaultOrganization', component: 'defaultOrganization' },
  'middleware/login-middleware': { type: 'LoginMiddlewareOptions', component: 'loginMiddleware' },
};

// ---------------------------------------------------------------------------------------------
// The exported API of @keyway/react, read from its declarations
// ---------------------------------------------------------------------------------------------
type Member = { name: string; type: string; required: boolean; defaultDoc?: string };
// The installed package (the workspace link in node_modules), through the `types` its package.json names.
const packageDir = fs.realpathSync(path.join(siteDir, '..', 'node_modules', '@keyway', 'react'));
const declarations = path.join(packageDir, (JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as { types: string }).types);
const program = ts.createProgram([declarations], {
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  skipLibCheck: true,
});
const checker = program.getTypeChecker();
const moduleSymbol = checker.getSymbolAtLocation(program.getSourceFile(declarations)!)!;
const exported = new Map(
  checker.getExportsOfModule(moduleSymbol).map((e) => [e.name, e.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(e) : e]),
);
const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

/** The members of an exported interface: name, declared type (methods as arrow types), required or not. */
function membersOf(typeName: string): Member[] {
  const symbol = exported.get(typeName);
  if (!symbol) throw new Error(`@keyway/react exports no ${typeName}`);
  return checker.getPropertiesOfType(checker.getDeclaredTypeOfSymbol(symbol)).map((p) => {
    const d = p.valueDeclaration ?? p.declarations?.[0];
    let type = '';
    if (d && ts.isMethodSignature(d)) type = `(${d.parameters.map((x) => x.getText()).join(', ')}) => ${d.type?.getText() ?? 'void'}`;
    else if (d && ts.isPropertySignature(d)) type = d.type?.getText() ?? '';
    // The default the declaration's comment documents, as in "Storage key of the token (default `keyway.token`)".
    const comment = ts.displayPartsToString(p.getDocumentationComment(checker));
    const defaultDoc = /\(default `([^`]+)`/.exec(comment)?.[1];
    return { name: p.name, type: squash(type), required: !(p.flags & ts.SymbolFlags.Optional), ...(defaultDoc === undefined ? {} : { defaultDoc }) };
  });
}

/** The parameters of an exported function. */
function parametersOf(fnName: string): Member[] {
  const symbol = exported.get(fnName);
  const decl = symbol?.declarations?.find(ts.isFunctionDeclaration);
  if (!decl) throw new Error(`@keyway/react exports no function ${fnName}`);
  return decl.parameters.map((p) => ({ name: p.name.getText(), type: squash(p.type?.getText() ?? ''), required: !p.questionToken && !p.initializer }));
}

// ---------------------------------------------------------------------------------------------
// The tables of a page
// ---------------------------------------------------------------------------------------------
type Row = { name: string; type: string; default: string; required: string; description: string };
const TABLE_KEYS = ['Prop', 'Member', 'Option', 'Parameter'];

/** Rows of the API tables of a page (a table whose first header cell is Prop, Member, Option or Parameter). */
function apiRows(p: Page): Row[] {
  const rows: Row[] = [];
  const visitNode = (node: MdNode) => {
    if (node.type === 'table') {
      const [head, ...body] = node.children ?? [];
      const headers = (head?.children ?? []).map((c) => textOf(c).trim());
      if (!TABLE_KEYS.includes(headers[0] ?? '')) return;
      expect(headers, `${p.rel}: table columns`).toEqual([headers[0], 'Type', 'Default', 'Required', 'Description']);
      for (const r of body) {
        const cells = r.children ?? [];
        const code = (i: number) => (cells[i]?.children ?? []).find((c) => c.type === 'inlineCode')?.value ?? textOf(cells[i] ?? { type: 'text' });
        rows.push({ name: code(0), type: code(1), default: textOf(cells[2] ?? { type: 'text' }).trim(), required: textOf(cells[3] ?? { type: 'text' }).trim(), description: textOf(cells[4] ?? { type: 'text' }).trim() });
      }
      return;
    }
    for (const c of node.children ?? []) visitNode(c);
  };
  visitNode(p.tree);
  return rows;
}

/** Words of prose outside the API tables (the tables come on top of the 150-word minimum). */
function proseOutsideTables(p: Page): number {
  const strip = (node: MdNode): MdNode => ({ ...node, children: (node.children ?? []).filter((c) => c.type !== 'table' && c.type !== 'code').map(strip) });
  const words = (node: MdNode): string[] =>
    node.type === 'text' ? (node.value ?? '').split(/\s+/) : (node.children ?? []).flatMap(words);
  return words(strip(p.tree)).filter((w) => /[A-Za-z0-9]/.test(w)).length;
}

let pages: Page[] = [];
const byRoute = new Map<string, Page>();
const keyOf = (p: Page) => p.route.slice(roomRoute.length + 1);

beforeAll(async () => {
  const files = walk(roomDir).filter((f) => /\.mdx?$/.test(f)).sort();
  pages = await Promise.all(files.map((f) => readPage(f, roomDir)));
  for (const p of pages) byRoute.set(p.route, p);
});

describe('the React SDK reference pages', () => {
  it('has exactly one page per route of the room, and every route of routes.txt is one of them', () => {
    const routes = [...allRoutes].filter((r) => r.startsWith(`${roomRoute}/`)).sort();
    expect(pages.map((p) => p.route).sort()).toEqual(routes);
    expect(Object.keys(DOCUMENTS).sort()).toEqual(routes.map((r) => r.slice(roomRoute.length + 1)));
  });

  it('has valid front matter, folders with _category_.json, unique headings and working links', () => {
    expect(categoryProblems([roomDir, ...pages.map((p) => path.dirname(p.file))])).toEqual([]);
    expect(frontMatterProblems(pages)).toEqual([]);
    expect(pages.flatMap(headingProblems)).toEqual([]);
    expect(pages.flatMap((p) => linkProblems(p, byRoute))).toEqual([]);
  });

  it('has at least 150 words of prose besides the tables, and no banned wording', () => {
    expect(pages.flatMap((p) => wordingProblems(p, 150))).toEqual([]);
    for (const p of pages) expect(proseOutsideTables(p), `${p.rel}: words of prose outside tables and code`).toBeGreaterThanOrEqual(150);
  });

  it('names the export it documents, shows how to import it, and links to related pages', () => {
    for (const p of pages) {
      const name = DOCUMENTS[keyOf(p)]?.component ?? '';
      expect(p.raw, `${p.rel}: import of ${name}`).toMatch(new RegExp(`import \\{[^}]*\\b${name}\\b[^}]*\\} from '@keyway/react'`));
      expect(p.headings.map((h) => h.text), p.rel).toEqual(expect.arrayContaining(['Import', 'Example', 'Related pages']));
      expect(p.links.length, `${p.rel}: links to related pages`).toBeGreaterThanOrEqual(3);
    }
  });
});

/** What is wrong with the API table of a page, compared with the members the package exports. */
function tableProblems(key: string, rows: Row[], members: Member[]): string[] {
  const problems: string[] = [];
  const names = new Set(members.map((m) => m.name));
  for (const r of rows) if (!names.has(r.name)) problems.push(`${key}: row ${r.name} is not exported`);
  for (const m of members) {
    const matching = rows.filter((r) => r.name === m.name);
    const row = matching[0];
    if (!row) {
      problems.push(`${key}: ${m.name} (${m.type}) has no row`);
      continue;
    }
    if (matching.length > 1) problems.push(`${key}: ${m.name} has ${matching.length} rows`);
    if (squash(row.type) !== m.type) problems.push(`${key}: type of ${m.name} is ${m.type}, the table says ${row.type}`);
    if (row.required !== (m.required ? 'Yes' : 'No')) problems.push(`${key}: ${m.name} is ${m.required ? '' : 'not '}required, the table says ${row.required}`);
    if (!row.default) problems.push(`${key}: ${m.name} has an empty default cell (use – for none)`);
    if (m.required && row.default !== '–') problems.push(`${key}: required ${m.name} has a default`);
    if (row.description.split(/\s+/).length < 3) problems.push(`${key}: ${m.name} has no real description`);
    // A default the declaration documents (`(default \`x\`)` in its comment) must be the one the table shows.
    const documented = m.defaultDoc;
    if (documented !== undefined && !row.default.replace(/'/g, '').includes(documented.replace(/'/g, '')))
      problems.push(`${key}: default of ${m.name} is ${documented} (declaration), the table says ${row.default}`);
  }
  return problems;
}

describe('tables against the exported types of @keyway/react', () => {
  for (const [key, doc] of Object.entries(DOCUMENTS)) {
    it(`${key}: every ${doc.type ?? `parameter of ${doc.fn}`} member is a row (name, type, required, default) and every row a member`, () => {
      const p = byRoute.get(`${roomRoute}/${key}`);
      if (!p) throw new Error(`no page for ${key}`);
      const members = doc.type ? membersOf(doc.type) : parametersOf(doc.fn ?? '');
      expect(members.length).toBeGreaterThan(0);
      expect(tableProblems(key, apiRows(p), members)).toEqual([]);
    });
  }

  it('the type reader sees real types (a renamed or removed member would fail the tables)', () => {
    expect(membersOf('FormProps').map((m) => m.name)).toContain('onSuccess');
    expect(membersOf('GroupsProps').find((m) => m.name === 'belongsTo')?.required).toBe(true);
    expect(membersOf('KeywayState').find((m) => m.name === 'setToken')?.type).toBe('(token: string) => User');
    expect(membersOf('KeywayProviderProps').find((m) => m.name === 'tokenStorageKey')?.defaultDoc).toBe('keyway.token');
    expect(parametersOf('defaultOrganization')).toEqual([{ name: 'pick', type: 'OrganizationPicker', required: true }]);
    expect(() => membersOf('NoSuchProps')).toThrow(/exports no NoSuchProps/);
  });

  it('reports the table mistakes a reader would be misled by', () => {
    const p = byRoute.get(`${roomRoute}/components/groups`);
    if (!p) throw new Error('no groups page');
    const members = membersOf('GroupsProps');
    const rows = apiRows(p);
    expect(tableProblems('groups', rows, members)).toEqual([]);
    // A prop the package no longer has, a prop left out, a wrong type, a wrong required flag, a wrong default.
    const edited = rows
      .filter((r) => r.name !== 'fallback')
      .map((r) => (r.name === 'match' ? { ...r, type: "'any'", default: "'all'" } : r.name === 'belongsTo' ? { ...r, required: 'No' } : r));
    edited.push({ name: 'role', type: 'string', default: '–', required: 'No', description: 'Not a prop at all.' });
    const problems = tableProblems('groups', edited, members.map((m) => (m.name === 'match' ? { ...m, defaultDoc: 'any' } : m)));
    expect(problems).toEqual(
      expect.arrayContaining([
        'groups: row role is not exported',
        expect.stringMatching(/fallback \(ReactNode\) has no row/),
        expect.stringMatching(/type of match is 'any' \| 'all'/),
        'groups: belongsTo is required, the table says No',
        expect.stringMatching(/default of match is any/),
      ]),
    );
  });
});

describe('code samples', () => {
  it('type-checks every TSX/TS sample against the installed @keyway/react and @keyway/sdk', () => {
    const blocks = pages.flatMap((p) =>
      p.code
        .filter((c) => ['tsx', 'ts', 'typescript'].includes(c.lang))
        .map((c, i) => ({ name: `reference_${keyOf(p).replace(/[^a-z0-9]+/gi, '_')}_${i}`, source: c.value })),
    );
    expect(blocks.length, 'one complete example per page at least').toBeGreaterThanOrEqual(pages.length);
    expect(typeCheck(blocks, { docusaurus: true })).toEqual([]);
  }, 120_000);

  it('imports only names @keyway/react and @keyway/sdk export', () => {
    for (const p of pages) {
      for (const c of p.code) {
        for (const m of c.value.matchAll(/import (?:type )?\{([^}]*)\} from '@keyway\/react'/g)) {
          for (const name of (m[1] ?? '').split(',').map((s) => s.replace(/^\s*type\s+/, '').trim()).filter(Boolean))
            expect(exported.has(name), `${p.rel}: @keyway/react exports ${name}`).toBe(true);
        }
      }
    }
  });
});

describe('runnable samples', () => {
  it('shows every documented export in use in a sample of its page', () => {
    for (const [key, doc] of Object.entries(DOCUMENTS)) {
      const p = byRoute.get(`${roomRoute}/${key}`);
      const name = doc.component ?? '';
      const used = new RegExp(`(<${name}[\\s/>])|(\\b${name}\\()`);
      expect(p?.code.some((c) => ['tsx', 'ts'].includes(c.lang) && used.test(c.value)), `${key}: a sample uses ${name}`).toBe(true);
    }
  });

  it('runs the loader sample of the loginMiddleware page: 302 to the sign-in page with redirect_to, safe redirects only', async () => {
    const p = byRoute.get(`${roomRoute}/middleware/login-middleware`);
    const block = p?.code.find((c) => /\brunnable\b/.test(c.meta));
    expect(block, 'the page marks its loader sample runnable').toBeDefined();
    // Compiled next to this file so that `@keyway/react` resolves from site/ exactly as in the type check.
    const js = ts.transpileModule(block?.value ?? '', { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText;
    const file = path.join(siteDir, 'test', `.login-middleware-sample-${process.pid}.mjs`);
    fs.writeFileSync(file, js);
    try {
      const sample = (await import(/* @vite-ignore */ pathToFileURL(file).href)) as {
        clientLoader(args: { request: Request }): Promise<Response | { path: string }>;
        afterLogin(search: string): string;
      };
      // No browser storage here and no token: the loader answers the redirect the page describes.
      const answer = await sample.clientLoader({ request: new Request('http://localhost:3000/account?tab=billing#cards') });
      expect(answer).toBeInstanceOf(Response);
      const res = answer as Response;
      expect(res.status).toBe(302);
      expect(res.headers.get('Location')).toBe(`/login?redirect_to=${encodeURIComponent('/account?tab=billing#cards')}`);
      expect(sample.afterLogin(`?redirect_to=${encodeURIComponent('/account?tab=billing')}`)).toBe('/account?tab=billing');
      for (const evil of ['https://evil.example/', '//evil.example/x', 'javascript:alert(1)', '/\\evil.example'])
        expect(sample.afterLogin(`?redirect_to=${encodeURIComponent(evil)}`), evil).toBe('/account');
    } finally {
      fs.rmSync(file, { force: true });
    }
  });
});

describe('texts and names quoted from the package', () => {
  const source = fs
    .readdirSync(path.join(packageDir, 'src'))
    .map((f) => fs.readFileSync(path.join(packageDir, 'src', f), 'utf8'))
    .join('\n');

  it('quotes only texts the components really show (“…” is a text of DEFAULT_TEXT, ERROR_MESSAGES or the source)', async () => {
    const { DEFAULT_TEXT, ERROR_MESSAGES } = (await import('@keyway/react')) as typeof import('@keyway/react');
    // Templates such as "Continue with {provider}" match any filled-in value.
    const templates = [...Object.values(DEFAULT_TEXT), ...Object.values(ERROR_MESSAGES)].map(
      (t) => new RegExp(`^${t.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{\w+\\?\}/g, '.+')}$`),
    );
    let quoted = 0;
    const unknown: string[] = [];
    for (const p of pages) {
      for (const m of p.prose.matchAll(/“([^”]+)”/g)) {
        const text = m[1] ?? '';
        quoted++;
        // A quote may show several texts of one view joined by " / ", or a text with "…" where the value goes.
        for (const part of text.split(' / ')) {
          // "…" stands for a value filled in (a handle, a provider), or for a text the page shortened.
          const pattern = new RegExp(part.split('…').map((x) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*'));
          const known =
            templates.some((re) => re.test(part)) ||
            source.includes(part) ||
            (part.includes('…') && (pattern.test(source) || Object.values({ ...DEFAULT_TEXT, ...ERROR_MESSAGES }).some((t) => pattern.test(t))));
          if (!known) unknown.push(`${p.rel}: “${part}” is not a text of @keyway/react`);
        }
      }
    }
    expect(unknown).toEqual([]);
    expect(quoted, 'the pages quote the texts people see').toBeGreaterThanOrEqual(15);
  });

  it('names only text keys of DEFAULT_TEXT and error slugs of ERROR_MESSAGES', async () => {
    const { DEFAULT_TEXT, ERROR_MESSAGES } = (await import('@keyway/react')) as typeof import('@keyway/react');
    const prefixes = new Set(Object.keys(DEFAULT_TEXT).map((k) => k.split('.')[0]));
    let keys = 0;
    for (const p of pages) {
      for (const code of p.inlineCode) {
        if (/^[a-zA-Z]+(\.[a-zA-Z_]+)+$/.test(code) && prefixes.has(code.split('.')[0])) {
          keys++;
          expect(Object.keys(DEFAULT_TEXT), `${p.rel}: text key ${code}`).toContain(code);
        }
      }
      for (const m of p.prose.matchAll(/slug `?([a-z_]+)`?/g)) expect(Object.keys(ERROR_MESSAGES), `${p.rel}: slug ${m[1]}`).toContain(m[1]);
      for (const m of p.raw.matchAll(/errorMessages=\{\{\s*(\w+):/g)) expect(Object.keys(ERROR_MESSAGES), `${p.rel}: slug ${m[1]}`).toContain(m[1]);
    }
    expect(keys, 'the pages name the text keys they mention').toBeGreaterThanOrEqual(5);
  });

  it('gives the helpers of loginMiddleware their exported signatures', () => {
    const p = byRoute.get(`${roomRoute}/middleware/login-middleware`);
    const rows: [string, string][] = [];
    const visitNode = (node: MdNode) => {
      if (node.type === 'table' && textOf(node.children?.[0]?.children?.[0] ?? { type: 'text' }).trim() === 'Helper')
        for (const r of (node.children ?? []).slice(1)) rows.push([textOf(r.children?.[0] ?? { type: 'text' }), textOf(r.children?.[1] ?? { type: 'text' })]);
      for (const c of node.children ?? []) visitNode(c);
    };
    if (p) visitNode(p.tree);
    expect(rows.map(([name]) => name).sort()).toEqual(['isUsableToken', 'loginRedirectURL', 'safeRedirect']);
    for (const [name, signature] of rows) {
      const decl = exported.get(name)?.declarations?.find(ts.isFunctionDeclaration);
      const params = (decl?.parameters ?? []).map((x) => `${x.name.getText()}${x.questionToken ? '?' : ''}: ${x.type?.getText() ?? ''}`);
      expect(squash(signature), name).toBe(squash(`(${params.join(', ')}) => ${decl?.type?.getText() ?? ''}`));
    }
  });

  it('lists the Theme keys and the Slot names exactly as exported', () => {
    const tableOf = (p: Page | undefined, first: string) => {
      const rows: string[] = [];
      const visitNode = (node: MdNode) => {
        if (node.type === 'table' && textOf(node.children?.[0]?.children?.[0] ?? { type: 'text' }).trim() === first)
          for (const r of (node.children ?? []).slice(1)) rows.push(textOf(r.children?.[0] ?? { type: 'text' }).trim());
        for (const c of node.children ?? []) visitNode(c);
      };
      if (p) visitNode(p.tree);
      return rows.sort();
    };
    expect(tableOf(byRoute.get(`${roomRoute}/components/configuration-provider`), 'Theme key')).toEqual(membersOf('Theme').map((m) => m.name).sort());
    const slotName = exported.get('SlotName');
    const union = slotName ? checker.getDeclaredTypeOfSymbol(slotName) : undefined;
    const names = (union?.isUnion() ? union.types : []).map((t) => (t.isStringLiteral() ? t.value : '')).sort();
    expect(names.length).toBe(5);
    expect(tableOf(byRoute.get(`${roomRoute}/components/slot`), 'Name')).toEqual(names);
  });
});

describe('samples rendered on the server, as the pages promise', () => {
  // Runnable TSX samples: compiled next to this file (so `@keyway/react` resolves from site/) and rendered with
  // react-dom/server, where the provider is always loading: fallbacks only, never signed-in or signed-out content.
  const EXPECT: Record<string, { contains: string[]; lacks: string[] }> = {
    'components/loaded': { contains: ['Restoring your session…'], lacks: ['You are signed in.', 'kw-form'] },
    'components/logged-out': { contains: ['<header>', 'aria-hidden="true"'], lacks: ['Sign in</a>', 'Welcome back'] },
    'components/logged-in': { contains: ['Loading…'], lacks: ['Payouts', 'kw-form'] },
    'components/groups': { contains: ['Only administrators see this menu.'], lacks: ['Billing', 'Tickets'] },
  };

  for (const [key, want] of Object.entries(EXPECT)) {
    it(`${key}: the sample's server-rendered HTML holds only what may be shown before the session is known`, async () => {
      const p = byRoute.get(`${roomRoute}/${key}`);
      const block = p?.code.find((c) => c.lang === 'tsx' && /\brunnable\b/.test(c.meta));
      expect(block, `${key}: a runnable TSX sample`).toBeDefined();
      const js = ts.transpileModule(block?.value ?? '', {
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, jsx: ts.JsxEmit.ReactJSX },
      }).outputText;
      const file = path.join(siteDir, 'test', `.sample-${key.replace(/\W+/g, '-')}-${process.pid}.mjs`);
      fs.writeFileSync(file, js);
      try {
        const mod = (await import(/* @vite-ignore */ pathToFileURL(file).href)) as Record<string, unknown>;
        const Component = Object.values(mod).find((v) => typeof v === 'function') as (() => ReactElement) | undefined;
        expect(Component, `${key}: the sample exports a component`).toBeDefined();
        const html = renderToString(createElement(Component!));
        for (const s of want.contains) expect(html, `${key}: server HTML shows ${s}`).toContain(s);
        for (const s of want.lacks) expect(html, `${key}: server HTML never shows ${s}`).not.toContain(s);
      } finally {
        fs.rmSync(file, { force: true });
      }
    });
  }
});

describe('loginMiddleware with tokens of the local identity server', () => {
  let local: LocalServer | undefined;
  beforeAll(async () => {
    local = await startLocalServer();
  }, 60_000);
  afterAll(async () => {
    await local?.close();
  });

  /** A token minted by the server for a new person, listing `methods` as its authenticated methods. */
  async function mintedToken(methods: string[]): Promise<string> {
    const { live, apiKey } = local!;
    const headers = { 'Keyway-OrgID': live.orgId, 'Keyway-API-Key': apiKey, 'Content-Type': 'application/json' };
    const email = `reference-${methods.join('-')}-${Date.now()}@example.com`;
    const created = await fetch(`${live.url}/persons`, { method: 'POST', headers, body: JSON.stringify({ handles: [{ type: 'email_address', value: email }] }) });
    const person = ((await created.json()) as { result?: { person_id?: string } }).result;
    expect(person?.person_id, 'person created').toBeTruthy();
    const minted = await fetch(`${live.url}/persons/${encodeURIComponent(person?.person_id ?? '')}/mint-token`, { method: 'POST', headers, body: JSON.stringify({ authenticated_methods: methods }) });
    // The answer's result is the token itself.
    const token = ((await minted.json()) as { result?: string }).result;
    expect(token, 'token minted').toBeTruthy();
    return token ?? '';
  }

  it('lets a signed-in token through, redirects anonymous tokens and tokens lacking requiredFactors, as the page says', async () => {
    const { loginMiddleware } = (await import('@keyway/react')) as typeof import('@keyway/react');
    const request = new Request('http://localhost:3000/payouts?month=5');
    const emailOnly = await mintedToken(['otp_via_email']);
    const withTotp = await mintedToken(['otp_via_email', 'totp']);
    const anonymous = (await anonymousPerson(local!.live)).token;
    const location = (r: Response | null) => r?.headers.get('Location') ?? null;

    expect(await loginMiddleware({ getToken: () => emailOnly })({ request })).toBeNull();
    expect(location(await loginMiddleware({ getToken: () => anonymous })({ request }))).toBe('/login?redirect_to=%2Fpayouts%3Fmonth%3D5');
    expect(location(await loginMiddleware({ getToken: async () => undefined })({ request }))).toBe('/login?redirect_to=%2Fpayouts%3Fmonth%3D5');
    const mfa = loginMiddleware({ getToken: (r) => r.headers.get('X-Token'), requiredFactors: ['totp'], loginPath: '/signin', redirectParam: 'next' });
    const withHeader = (t: string) => new Request(request.url, { headers: { 'X-Token': t } });
    expect(location(await mfa({ request: withHeader(emailOnly) }))).toBe('/signin?next=%2Fpayouts%3Fmonth%3D5');
    expect(await mfa({ request: withHeader(withTotp) })).toBeNull();
    expect(() => loginMiddleware({ loginPath: 'https://other.example/login' })).toThrow(TypeError);
    expect(() => loginMiddleware({ loginPath: '//other.example/login' })).toThrow(/loginPath must be a path on this site/);
  }, 60_000);

  it('defaultOrganization keeps the person where they are when the target is unreachable or the picker declines', async () => {
    const { defaultOrganization } = (await import('@keyway/react')) as typeof import('@keyway/react');
    const { Keyway } = (await import('@keyway/sdk')) as typeof import('@keyway/sdk');
    const sdk = new Keyway({ oid: local!.live.orgId, baseURL: local!.live.url, analytics: false });
    const user = sdk.setToken(await mintedToken(['otp_via_email']));
    const seen: string[][] = [];
    // A picker receives the person's /me/orgs entries (the organization of the token among them).
    const declined = await defaultOrganization((orgs) => {
      seen.push(orgs.map((o) => o.id));
      return undefined;
    })({ sdk, user });
    expect(declined).toBe(user);
    expect(seen[0], 'the picker sees the organizations of /me/orgs').toContain(local!.live.orgId);
    expect(await defaultOrganization('org_nobody_can_reach')({ sdk, user })).toBe(user);
    expect(await defaultOrganization(local!.live.orgId)({ sdk, user })).toBe(user);
    expect(sdk.user?.token).toBe(user.token);
    expect(() => defaultOrganization('')).toThrow(TypeError);
  }, 60_000);
});
