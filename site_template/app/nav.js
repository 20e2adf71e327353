/**
 * Navigation for a day's work: which record to open first, which one is next to do, and whether
 * everything is done. Pure functions of the bundle's record order and the annotator's work.
 */
import { recordStatus } from './store.js';

const isDone = (work, id) => {
  const st = recordStatus(work, id);
  return st === 'submitted' || st === 'discarded';
};

/**
 * Index of the first record not done from `from` on, wrapping around (with `after`, from the one after
 * `from`, `from` itself last); -1 when every record is done.
 */
export function nextTodoIndex(ids, work, from = 0, after = false) {
  const n = ids.length;
  const k0 = after ? 1 : 0;
  for (let k = k0; k < k0 + n; k++) {
    const i = (from + k) % n;
    if (!isDone(work, ids[i])) return i;
  }
  return -1;
}

/** Counts per status over the bundle's records: {todo, in_progress, submitted, discarded, done, total}. */
export function statusCounts(ids, position, work) {
  const c = { todo: 0, in_progress: 0, submitted: 0, discarded: 0, done: 0, total: ids.length };
  for (const id of Object.keys(work.records)) {
    if (position.has(id)) c[recordStatus(work, id)] += 1;
  }
  c.done = c.submitted + c.discarded;
  c.todo = c.total - c.done - c.in_progress;
  return c;
}
