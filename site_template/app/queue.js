/**
 * The annotator's queue (issue 13, Argilla's distribution): with `manifest.queues`, `?annotator=alice`
 * works through the records `data/queues.json` assigns her, in its order: the first record opened, the
 * next to do and the progress count go by her queue; every other record stays reachable (list, n / p,
 * links). Loaded only for a bundle with queues; pure functions but `loadQueue`.
 */
import { recordStatus } from './store.js';

const isDone = (work, id) => {
  const st = recordStatus(work, id);
  return st === 'submitted' || st === 'discarded';
};

/**
 * The annotator's queue as bundle indices, in queue order, or null (no queues in this bundle, or none
 * for this name). A queues file that cannot be read is an error for the caller to show.
 */
export async function loadQueue(bundle, annotator) {
  const q = bundle.manifest.queues;
  if (!q || !Array.isArray(q.annotators) || !q.annotators.includes(annotator)) return null;
  const res = await fetch(bundle.url(q.path || 'data/queues.json'));
  if (!res.ok) throw new Error(`${q.path}: HTTP ${res.status}`);
  const all = await res.json();
  const ids = all && Object.prototype.hasOwnProperty.call(all, annotator) && Array.isArray(all[annotator]) ? all[annotator] : [];
  return ids.map((id) => bundle.position.get(id)).filter((i) => i !== undefined);
}

/**
 * The bundle index of the next record of `queue` not done, after the open record's place in the
 * queue (wrapping; the open one last), or from the start when it is not in the queue; -1: all done.
 */
export function nextInQueue(queue, ids, work, current = -1, after = false) {
  const at = queue.indexOf(current);
  const start = at < 0 ? 0 : at + (after ? 1 : 0);
  for (let k = 0; k < queue.length; k++) {
    const i = queue[(start + k) % queue.length];
    if (!isDone(work, ids[i])) return i;
  }
  return -1;
}
