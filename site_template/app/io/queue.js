/**
 * The annotator's queue (Argilla's distribution): with `manifest.queues`, `?annotator=alice`
 * works through the records `data/queues.json` assigns her, in its order: the first record opened, the
 * next to do and the progress count go by her queue; every other record stays reachable (list, n / p,
 * links). Loaded only for a bundle with queues; pure functions but `loadQueue`.
 */
import { QUEUES, checkFormat } from '../data/formats.js';
import { normalizeName } from '../state/names.js';
import { recordStatus } from '../state/store.js';

const isDone = (work, id) => {
  const st = recordStatus(work, id);
  return st === 'submitted' || st === 'discarded';
};

/**
 * The annotator's queue, {ids, positions} in queue order (its ids this bundle has, positioned through
 * the ids shards), or null (no queues in this bundle, or none for this name). A queues file that cannot
 * be read is an error for the caller to show.
 */
export async function loadQueue(bundle, annotator) {
  const q = bundle.manifest.queues;
  // names compare normalised (names.js): a bundle assigned before names were normalised keeps its spelling
  const name = Array.isArray(q?.annotators)
    ? q.annotators.find((n) => normalizeName(n) === normalizeName(annotator)) : undefined;
  if (name === undefined) return null;
  const path = q.path || 'data/queues.json';
  const res = await fetch(bundle.url(path));
  if (!res.ok) throw new Error(`${path}: HTTP ${res.status}`);
  const doc = await res.json();
  // version 1 (bundles built before the queues had a name): the bare {annotator: [ids]}
  const all = checkFormat(doc, path, QUEUES) === 1 ? doc : doc.queues;
  const ids = all && Object.prototype.hasOwnProperty.call(all, name) && Array.isArray(all[name]) ? all[name] : [];
  const placed = await bundle.recordIndex.positionsOf(ids);
  const kept = ids.filter((id) => placed.has(id));
  return { ids: kept, positions: kept.map((id) => placed.get(id)) };
}

/**
 * The bundle position of the next record of `queue` ({ids, positions}) not done, after the open record's
 * place (position `current`) in the queue (wrapping; the open one last), or from the start when it is
 * not in the queue; -1: all done.
 */
export function nextInQueue(queue, work, current = -1, after = false) {
  const n = queue.ids.length;
  const at = queue.positions.indexOf(current);
  const start = at < 0 ? 0 : at + (after ? 1 : 0);
  for (let k = 0; k < n; k++) {
    const j = (start + k) % n;
    if (!isDone(work, queue.ids[j])) return queue.positions[j];
  }
  return -1;
}
