/**
 * The work's merge rules, the page's twin of merge's (mercury_static/merge): two copies of the work (two
 * tabs, a stored entry and a change, an import and the browser's work) become one holding the newest of
 * everything: the newest status, the newest version of each annotation (a tombstone included, so a deleted
 * annotation never comes back), the newest draft, the answers and time on task merged per entry
 * (responses.js, timeontask.js).
 */
import { extrasAdd, mergeExtras } from './responses.js';
import { isAfter, later as newer } from './times.js';
import { activeAdds, mergeActive } from './timeontask.js';
import { dict, hasOwn } from '../util.js';

/** A record's statuses, as merge reads them. */
// [[[cog
// from mercury_static.merge.checks import STATUSES
// from mercury_static.tools.twins import const
// cog.outl(const("STATUSES", STATUSES))
// ]]]
export const STATUSES = ['submitted', 'discarded', 'in_progress'];
// [[[end]]]

/** No work: the shape storage.js reads into and merges over. */
export function emptyWork() {
  return { records: dict(), drafts: dict(), last_export_at: null };
}

/** Merge two record entries: newest status, newest version of each annotation. */
export function mergeRecord(a, b) {
  if (!a) return b;
  if (!b) return a;
  const statusFrom = isAfter(b.status_at, a.status_at) ? b : a;
  const annotations = dict(a.annotations);
  for (const id of Object.keys(b.annotations || {})) {
    const ann = b.annotations[id];
    const mine = annotations[id];
    if (!mine || isAfter(ann.updated_at, mine.updated_at)) annotations[id] = ann;
  }
  const active = mergeActive(a.active, b.active);
  return {
    status: statusFrom.status,
    status_at: statusFrom.status_at,
    updated_at: newer(a.updated_at, b.updated_at),
    annotations,
    ...mergeExtras(a, b),
    ...(active ? { active } : {}),
  };
}

/** The newer of two drafts. */
export function mergeDraft(a, b) {
  if (!a) return b;
  if (!b) return a;
  return isAfter(b.updated_at, a.updated_at) ? b : a;
}

/** Whether merging `b` into `a` changes anything (cheap: times and ids, no serialisation). */
function recordAdds(a, b) {
  if (!a) return true;
  if (isAfter(b.status_at, a.status_at)) return true;
  if (extrasAdd(a, b) || activeAdds(a.active, b.active)) return true;
  for (const id of Object.keys(b.annotations || {})) {
    const mine = a.annotations[id];
    if (!mine || isAfter(b.annotations[id].updated_at, mine.updated_at)) return true;
  }
  return false;
}

/** Merge two works; the result holds the newest of everything. Returns `a` itself when b adds nothing. */
export function mergeWork(a, b) {
  if (!b) return a;
  let records = a.records;
  let drafts = a.drafts;
  for (const id of Object.keys(b.records || {})) {
    const mine = hasOwn(a.records, id) ? a.records[id] : null;
    if (!recordAdds(mine, b.records[id])) continue;
    if (records === a.records) records = dict(a.records);
    records[id] = mergeRecord(mine, b.records[id]);
  }
  for (const id of Object.keys(b.drafts || {})) {
    const mine = hasOwn(a.drafts, id) ? a.drafts[id] : null;
    if (mergeDraft(mine, b.drafts[id]) === mine) continue;
    if (drafts === a.drafts) drafts = dict(a.drafts);
    drafts[id] = b.drafts[id];
  }
  const last = newer(a.last_export_at, b.last_export_at);
  if (records === a.records && drafts === a.drafts && last === a.last_export_at) return a;
  return { records, drafts, last_export_at: last };
}
