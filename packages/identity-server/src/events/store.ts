import type { Db } from '../db/index.js';

/** The organization's events (of one name when given), to page newest first: the indexes (org_id, id) and (org_id, name, id) serve it. */
export function eventsQuery(db: Db, orgId: string, name?: string) {
  const base = db.selectFrom('events').where('org_id', '=', orgId);
  return name ? base.where('name', '=', name) : base;
}
