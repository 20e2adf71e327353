/**
 * Offline, work goes on past the records already opened: each time a record opens, the files of the next
 * records to work on (along the annotator's queue, else in bundle order) are handed to the service worker,
 * which stores them without the page loading them. Only records whose index rows the page holds already are
 * kept: finding the others would make the page read index shards it does not need.
 */
export const KEEP_AHEAD = 20;

/** The bundle positions of the `n` records after position `index`: along `queue` ({positions}) when given. */
export function positionsAhead(queue, index, count, n = KEEP_AHEAD) {
  if (queue) {
    const at = queue.positions.indexOf(index);
    return queue.positions.slice(at + 1, at + 1 + n);
  }
  const out = [];
  for (let p = index + 1; p < Math.min(count, index + 1 + n); p++) out.push(p);
  return out;
}

/** `keep(urls)`: offline.js's keepForOffline. */
export function mountKeepAhead(store, bundle, queue, keep) {
  let last = null;
  store.subscribe((s) => {
    const { id, index, record } = s.current;
    if (!record || id === last) return;
    last = id;
    const rix = bundle.recordIndex;
    const rows = positionsAhead(queue, index, rix.count).map((p) => rix.row(p)).filter(Boolean);
    keep(rows.flatMap((row) => bundle.rowFiles(row)));
  });
}
