/** What the generator serializes into each operation page for the try-it panel (site/plugins/api-reference/render.ts). */
export interface TryItOperation {
  method: string;
  path: string;
  /** Security schemes of the first alternative of the contract: OrgId, ApiKey, UserToken, ClientBasic, OAuth2AccessToken… */
  security: string[];
  parameters: { name: string; in: 'path' | 'query' | 'header' | 'cookie'; required: boolean; example?: string }[];
  contentType?: string;
  /** The body text; for multipart/form-data, the content of the file part. */
  body?: string;
  /** multipart/form-data: the part that carries the body text as a file, and the plain fields sent beside it. */
  file?: { field: string; filename: string; contentType: string };
  fields?: [string, string][];
}

/**
 * One field of a body, parameter or header list, flat in reading order; `parent` is the index of the field it belongs
 * to (-1 at the top), so the page nests children under their parent (foldable) and the Markdown twin prints the old
 * table of dotted names.
 */
export interface FieldRow {
  /** The full dotted name (`handles[].type`), as the Markdown twin's table shows it. */
  name: string;
  /** The name under its parent (`type`). */
  label: string;
  type?: string;
  required?: boolean;
  /** Where a parameter goes: path, query, header, cookie. */
  in?: string;
  /** The description (the contract's Markdown, with its constraints) as inline HTML. */
  html: string;
  parent: number;
}

/** One tab of the request samples. */
export interface RequestSample {
  /** Tab value, the same on every page, so `groupId="api-language"` keeps the reader's choice. */
  value: string;
  label: string;
  language: string;
  code: string;
}

/**
 * A piece of a reference page, in reading order. Prose and tables are HTML made at build time from the contract's
 * Markdown (static, so the page needs no Markdown renderer); headings, code and interactive parts are React.
 */
export type ReferenceBlock = (
  | { kind: 'heading'; level: 2 | 3; id: string; text: string }
  | { kind: 'html'; html: string }
  | { kind: 'code'; language: string; code: string }
  | { kind: 'endpoint'; method: string; path: string }
  | { kind: 'warning'; text: string }
  | { kind: 'samples'; samples: RequestSample[]; model?: import('../../../plugins/api-reference/samples').RequestModel; sdk?: string }
  /** Fields of a body, parameters or response headers (`list` says which, for the columns of the Markdown twin). */
  | { kind: 'fields'; list: 'fields' | 'parameters' | 'headers'; rows: FieldRow[] }
  | { kind: 'tryIt'; operation: TryItOperation }
  | { kind: 'operations'; operations: { method: string; title: string; href: string; path: string; deprecated?: boolean }[] }
  /** A labelled example (the example response beside the request samples); not a heading of the page. */
  | { kind: 'example'; label: string; language: string; code: string }
) & {
  /** On an operation page: shown in the second column at desktop width (request samples, example response). */
  column?: 'aside';
};

export interface ReferenceLink {
  title: string;
  permalink: string;
}

/** Everything one page of the reference shows (an operation or a category), as JSON. */
export interface ReferencePageData {
  /** The page's path, e.g. /docs/api/get-me or /docs/category/api/persons. */
  permalink: string;
  kind: 'operation' | 'category';
  title: string;
  /** The operation is deprecated in the contract. */
  deprecated?: boolean;
  description: string;
  /** The page's `<meta name="keywords">` (operations: reader words derived from the contract, see `operationKeywords`). */
  keywords?: string[];
  /** Headings for the table of contents (level 2 and 3). */
  toc: { value: string; id: string; level: number }[];
  blocks: ReferenceBlock[];
  previous?: ReferenceLink;
  next?: ReferenceLink;
}

/** The api sidebar in the shape the theme's DocSidebar renders. */
export type ReferenceSidebarItem =
  | { type: 'link'; label: string; href: string; className?: string }
  | { type: 'category'; label: string; collapsed: boolean; collapsible: boolean; items: ReferenceSidebarItem[] };
