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

/**
 * Counts per status over `total` records, of which `ids` (the stored work's records among them, e.g. the
 * keys of the store's `placed`) may have work: {todo, in_progress, submitted, discarded, done, total};
 * todo is the rest, so no record without work is ever read.
 */
export function statusCounts(total, ids, work) {
  const c = { todo: 0, in_progress: 0, submitted: 0, discarded: 0, done: 0, total };
  for (const id of ids) {
    const st = recordStatus(work, id);
    if (st !== 'todo') c[st] += 1;
  }
  c.done = c.submitted + c.discarded;
  c.todo = c.total - c.done - c.in_progress;
  return c;
}
