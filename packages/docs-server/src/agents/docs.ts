import fs from 'node:fs';
import path from 'node:path';
import { markdownUrlOf, OPERATIONS_FILE, PAGES_FILE, SECTIONS, type AgentOperation, type AgentPage, type Section } from './pages.js';

/** The build's pages for agents (written by the site's markdown plugin), read once; twins are read on demand. */
export class AgentDocs {
  private readonly byRoute: Map<string, AgentPage>;
  private readonly cache = new Map<string, string>();

  constructor(
    readonly siteDir: string,
    readonly pages: AgentPage[],
    readonly operations: AgentOperation[],
  ) {
    this.byRoute = new Map(pages.map((p) => [p.route, p]));
  }

  /** Undefined when the build has no agents' index (built before the plugin existed). */
  static load(siteDir: string): AgentDocs | undefined {
    const read = <T>(rel: string): T | undefined => {
      const file = path.join(siteDir, rel);
      if (!fs.existsSync(file)) return undefined;
      try {
        return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
      } catch (error) {
        throw new Error(`${file} is not valid JSON: ${(error as Error).message}`);
      }
    };
    const pages = read<AgentPage[]>(PAGES_FILE);
    if (!pages) return undefined;
    return new AgentDocs(siteDir, pages, read<AgentOperation[]>(OPERATIONS_FILE) ?? []);
  }

  page(route: string): AgentPage | undefined {
    return this.byRoute.get(route);
  }

  /**
   * The route a reader means: `/docs/x`, `/docs/x.md`, `docs/x`, a full URL of the site, with or without a hash, query
   * or trailing slash.
   */
  routeOf(input: string): string {
    let p = input.trim();
    try {
      if (/^https?:\/\//i.test(p)) p = new URL(p).pathname;
    } catch {
      // not a URL: a path
    }
    p = p.replace(/[?#].*$/, '').replace(/\.md$/, '').replace(/\/+$/, '');
    if (!p.startsWith('/')) p = `/${p}`;
    return p;
  }

  markdown(page: AgentPage): string {
    let text = this.cache.get(page.route);
    if (text === undefined) {
      text = fs.readFileSync(path.join(this.siteDir, page.file), 'utf8');
      this.cache.set(page.route, text);
    }
    return text;
  }

  /** Whether a page is gated: the docs server sets the gate's own decision; by default, the build's. */
  gatedBy: (page: AgentPage) => boolean = (page) => page.gated;

  isGated(page: AgentPage): boolean {
    return this.gatedBy(page);
  }

  visiblePages(signedIn: boolean): AgentPage[] {
    return signedIn ? this.pages : this.pages.filter((p) => !this.isGated(p));
  }

  sections(): readonly Section[] {
    return SECTIONS;
  }

  operation(query: { operationId?: string; method?: string; path?: string }): AgentOperation | undefined {
    if (query.operationId) {
      const id = query.operationId.trim().toLowerCase();
      return this.operations.find((o) => o.operationId.toLowerCase() === id);
    }
    if (query.method && query.path) {
      const method = query.method.trim().toUpperCase();
      const wanted = query.path.trim().replace(/\/+$/, '') || '/';
      // `{param}` segments match any value, so a concrete path (`/persons/pid:1`) finds its operation too.
      const matches = (template: string) => {
        const a = template.split('/');
        const b = wanted.split('/');
        return a.length === b.length && a.every((seg, i) => seg === b[i] || (/^\{.+\}$/.test(seg) && b[i] !== ''));
      };
      return (
        this.operations.find((o) => o.method === method && o.path === wanted) ??
        this.operations.find((o) => o.method === method && matches(o.path))
      );
    }
    return undefined;
  }
}

export { markdownUrlOf };
