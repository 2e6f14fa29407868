import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { contractApi } from './contract.js';
import { BACKENDS, useTestServer } from './helpers.js';

// Lists page by `offset` or by `cursor` (`meta.cursor_pagination.cursor` of the previous page), as the public
// reference contract's envelope carries it (#24) and so that a deep page of persons costs what the first one does
// (#23). Every answer is checked against the contract by contractApi.
const KEY = { headers: { 'keyway-api-key': 'kw_dev_api_key_not_secret' } };
type Page = { status: number; body: { result: Array<Record<string, unknown> | string>; meta: { pagination?: { offset: number; total_count: number }; cursor_pagination: { cursor: string; limit: number; total_count: number } }; errors?: Array<{ message: string }> } };

describe.each(BACKENDS)('pagination by cursor (%s)', (backend) => {
  const t = useTestServer(backend);

  /** Every item of a list, following the cursors from the first page; also the number of pages read. */
  async function walk(path: string, limit: number, key: string) {
    const call = contractApi(t.server);
    const seen: unknown[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const sep = path.includes('?') ? '&' : '?';
      const r = (await call('GET', `${path}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, undefined, KEY)) as Page;
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.meta.cursor_pagination.limit).toBe(limit);
      // After a cursor the offset is not counted: pagination is there only for pages asked by offset.
      if (cursor && path.startsWith('/persons')) expect(r.body.meta.pagination).toBeUndefined();
      // Some lists answer names or ids (strings), others objects.
      seen.push(...r.body.result.map((item) => (typeof item === 'string' ? item : item[key])));
      cursor = r.body.meta.cursor_pagination.cursor;
      pages++;
    } while (cursor && pages < 50);
    return { seen, pages };
  }

  async function makePersons(n: number, prefix: string) {
    const call = contractApi(t.server);
    const ids: string[] = [];
    for (let i = 0; i < n; i++) ids.push((await call('POST', '/persons', { active: true, handles: [{ type: 'email_address', value: `${prefix}${i}@page.example` }] }, KEY)).body.result.person_id as string);
    return ids;
  }

  it('GET /persons: following the cursors lists every person once, in the order of the offset pages, ties included', async () => {
    const ids = await makePersons(7, 'walk');
    // Four persons created in the same millisecond: the cursor must settle ties by id, not skip or repeat them.
    await sql`update persons set created_at = '2026-01-01T00:00:00.000Z' where id in (${sql.join(ids.slice(1, 5))})`.execute(t.server.db);
    const byCursor = await walk('/persons', 3, 'person_id');
    expect(byCursor.pages).toBe(3);
    expect(byCursor.seen).toHaveLength(7);
    expect(new Set(byCursor.seen).size).toBe(7);
    const byOffset = ((await contractApi(t.server)('GET', '/persons?limit=7&offset=0', undefined, KEY)) as Page).body;
    expect(byCursor.seen).toEqual(byOffset.result.map((p) => (p as Record<string, unknown>).person_id));
    expect(byOffset.meta.pagination).toEqual({ limit: 7, offset: 0, total_count: 7 });
    // The last page says so with an empty cursor.
    expect(byOffset.meta.cursor_pagination).toEqual({ cursor: '', limit: 7, total_count: 7 });
  });

  it('GET /persons: a cursor keeps its place when persons are added before it, where an offset shows one twice', async () => {
    await makePersons(4, 'place');
    const call = contractApi(t.server);
    const first = (await call('GET', '/persons?limit=2', undefined, KEY)) as Page;
    await makePersons(1, 'newcomer'); // the newest person goes to the top of the list
    const byCursor = (await call('GET', `/persons?limit=2&cursor=${encodeURIComponent(first.body.meta.cursor_pagination.cursor)}`, undefined, KEY)) as Page;
    const byOffset = (await call('GET', '/persons?limit=2&offset=2', undefined, KEY)) as Page;
    const firstIds = first.body.result.map((p) => (p as Record<string, unknown>).person_id);
    expect(byCursor.body.result.map((p) => (p as Record<string, unknown>).person_id).filter((id) => firstIds.includes(id))).toEqual([]);
    expect(byOffset.body.result.map((p) => (p as Record<string, unknown>).person_id).filter((id) => firstIds.includes(id))).toHaveLength(1);
    expect(byCursor.body.meta.cursor_pagination.total_count).toBe(first.body.meta.cursor_pagination.total_count + 1);
  });

  it('a filter narrows the pages a cursor walks through', async () => {
    await makePersons(5, 'filtered');
    await makePersons(3, 'other');
    const { seen } = await walk(`/persons?filter=${encodeURIComponent('handles.value sw "filtered"')}`, 2, 'person_id');
    expect(seen).toHaveLength(5);
  });

  it('GET /groups, a group\'s persons, and GET /events page by cursor too', async () => {
    const call = contractApi(t.server);
    for (const name of ['alpha', 'beta', 'gamma', 'delta', 'epsilon']) await call('POST', '/groups', { name }, KEY);
    expect((await walk('/groups', 2, 'name')).seen).toEqual(['alpha', 'beta', 'delta', 'epsilon', 'gamma']);
    const ids = await makePersons(3, 'member');
    await call('POST', '/groups/alpha/persons', { persons: ids }, KEY);
    expect(new Set((await walk('/groups/alpha/persons', 2, 'person_id')).seen)).toEqual(new Set(ids));
    const event = { event_name: 'VirtualPageLoaded_v1', organization_id: t.server.orgId, analytics_correlation_id: 'x', window_location: 'http://localhost:3000/', user_agent: 'ua', event_data: { event_name: 'VirtualPageLoaded_v1' } };
    const posted = await call('POST', '/events', [event, event, event, event, event]);
    expect(posted.status, JSON.stringify(posted.body)).toBe(200);
    const events = await walk('/events?event_name=VirtualPageLoaded_v1', 2, 'id');
    expect(events.pages).toBe(3);
    expect(events.seen).toHaveLength(5);
    expect([...(events.seen as number[])]).toEqual([...(events.seen as number[])].sort((a, b) => b - a));
  });

  it('refuses a cursor with an offset, a cursor it did not issue, and a cursor of another kind of list, naming the cursor', async () => {
    const call = contractApi(t.server);
    await makePersons(3, 'bad');
    const first = (await call('GET', '/persons?limit=1', undefined, KEY)) as Page;
    const personsCursor = first.body.meta.cursor_pagination.cursor;
    expect(personsCursor).not.toBe('');
    const both = (await call('GET', `/persons?limit=1&offset=1&cursor=${encodeURIComponent(personsCursor)}`, undefined, KEY)) as Page;
    expect(both.status).toBe(400);
    expect(both.body.errors![0]!.message).toBe('give either cursor or offset, not both');
    // Forged: not base64url JSON, a negative offset, not an object, a sort key of the wrong shape for persons.
    for (const cursor of ['garbage!', Buffer.from('{"o":-1}').toString('base64url'), Buffer.from('[1]').toString('base64url'), Buffer.from('{"k":[1]}').toString('base64url')]) {
      const r = (await call('GET', `/persons?cursor=${encodeURIComponent(cursor)}`, undefined, KEY)) as Page;
      expect(r.status, cursor).toBe(400);
      expect(r.body.errors![0]!.message).toMatch(/^cursor is not one this list issued/);
    }
    // A persons cursor holds a sort key: the groups list, read by offset, cannot start there.
    const onGroups = (await call('GET', `/groups?cursor=${encodeURIComponent(personsCursor)}`, undefined, KEY)) as Page;
    expect(onGroups.status).toBe(400);
    expect(onGroups.body.errors![0]!.message).toMatch(/^cursor is not one this list issued/);
    const onEvents = (await call('GET', `/events?cursor=${encodeURIComponent(personsCursor)}`, undefined, KEY)) as Page;
    expect(onEvents.status).toBe(400);
  });
});
