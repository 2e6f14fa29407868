import { badRequest, type Envelope } from './errors.js';

// Pages of a list: `limit` with either `offset` or `cursor` (the `meta.cursor_pagination.cursor` of the previous
// page). A cursor is opaque to clients: base64url of a small JSON object. On lists ordered by an index (persons,
// events) it holds the sort key of the last item, so the next page starts there whatever was added or removed
// before it and costs the same at any depth (#23); on short lists it holds an offset.

/** Where a page starts: an offset, or just after the item with this sort key. */
export type Start = { offset: number; after?: undefined } | { offset?: undefined; after: Array<string | number> };

export interface PageRequest {
  limit: number;
  start: Start;
}

interface CursorBody {
  o?: number;
  k?: Array<string | number>;
}

const encode = (body: CursorBody) => Buffer.from(JSON.stringify(body)).toString('base64url');

function decode(cursor: string): CursorBody | undefined {
  try {
    const body = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
    const { o, k } = body as Record<string, unknown>;
    if (Number.isSafeInteger(o) && (o as number) >= 0 && k === undefined) return { o: o as number };
    if (o === undefined && Array.isArray(k) && k.length > 0 && k.length <= 4 && k.every((v) => typeof v === 'string' || Number.isSafeInteger(v))) return { k: k as Array<string | number> };
  } catch {
    // not JSON: answered below
  }
  return undefined;
}

const BAD_CURSOR = 'cursor is not one this list issued: pass meta.cursor_pagination.cursor of the previous page unchanged';

/**
 * The page a list request asks for. `keyShape` tells whether the list can start after a sort key, and which keys it
 * accepts; a cursor of another kind (from another list, or forged) is refused with a 400 naming it, as are `cursor`
 * and `offset` together.
 */
export function readPage(query: { limit?: number | string; offset?: number | string; cursor?: string }, keyShape?: (key: Array<string | number>) => boolean): PageRequest {
  const limit = Number(query.limit ?? 100);
  // An empty cursor (the last page's, or none yet) reads from the start, as no cursor does.
  if (!query.cursor) return { limit, start: { offset: Number(query.offset ?? 0) } };
  if (query.offset !== undefined) throw badRequest('give either cursor or offset, not both');
  const body = decode(query.cursor);
  if (!body || (body.k && !keyShape?.(body.k))) throw badRequest(BAD_CURSOR);
  return { limit, start: body.k ? { after: body.k } : { offset: body.o! } };
}

/** The page of a list read by offset only (its cursors stand for offsets). */
export function readOffsetPage(query: { limit?: number | string; offset?: number | string; cursor?: string }): { limit: number; offset: number } {
  const { limit, start } = readPage(query);
  return { limit, offset: start.offset ?? 0 };
}

/** A page of a list read by offset: the next cursor is the next offset, empty after the last item. */
export function offsetPage<T>(items: T[], limit: number, offset: number, total: number): Envelope<T[]> {
  const next = offset + items.length < total && items.length > 0 ? encode({ o: offset + items.length }) : '';
  return { result: items, meta: { pagination: { limit, offset, total_count: total }, cursor_pagination: { cursor: next, limit, total_count: total } } };
}

/**
 * A page of a list read by sort key. `nextKey` is the sort key of the page's last item when an item follows it
 * (the caller read one more than `limit`). `pagination` (with its offset) is there only when the page was asked by
 * offset: after a cursor the offset is not known without counting.
 */
export function keyedPage<T>(items: T[], request: PageRequest, total: number, nextKey: Array<string | number> | undefined): Envelope<T[]> {
  const { limit, start } = request;
  return {
    result: items,
    meta: {
      ...(start.offset !== undefined ? { pagination: { limit, offset: start.offset, total_count: total } } : {}),
      cursor_pagination: { cursor: nextKey ? encode({ k: nextKey }) : '', limit, total_count: total },
    },
  };
}
