/**
 * Navigation for a day's work: which record to open first, which one is next to do, and whether
 * everything is done: functions of the bundle's record index and the annotator's work.
 */
import { recordStatus } from './store.js';

const isDone = (work, id) => {
  const st = recordStatus(work, id);
  return st === 'submitted' || st === 'discarded';
};

/**
 * Position of the first record not done from `from` on, wrapping around (with `after`, from the one
 * after `from`, `from` itself last); -1 when every record is done. Walks the sharded record index's
 * shards in order, stopping at the first hit (recordindex.js), never the whole index.
 */
export function nextTodoIndex(recordIndex, work, from = 0, after = false) {
  if (!recordIndex.count) return Promise.resolve(-1);
  return recordIndex.nextWhere((id) => !isDone(work, id), from, after);
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
