/** The record list (the left column): its filter, status buttons and the current record's row. */
import { statusCounts } from '../state/nav.js';
import { fold } from '../data/recordindex.js';
import { selectPositions, STATUS_TEXT } from '../state/listquery.js';
import { recordStatus, watch } from '../state/store.js';
import { h } from '../util.js';
import { recordListKeys } from './recordkeys.js';
import { recordRows } from './recordrows.js';

/**
 * The record list, virtual (virtuallist.js) over the sharded record index's count: a row is read from
 * its index shard (`RecordIndex.row`); one not arrived yet is a placeholder, filled when its shard
 * arrives, so scrolling anywhere fetches only the visible rows' shards. Filter, status icons, the
 * current-record highlight and arrow-key navigation work on the whole list; rows keep `data-record` /
 * `data-position` / `data-status` / `aria-current`; `onPick(position)` opens a record.
 *
 * The filter: every word typed must occur in the record's id, row title, a short metadata value (the
 * index's tags) or its status in words (listquery.js: as a word prefix over the term index, as a
 * substring while one index shard holds every record); the status buttons (with their counts, the
 * list's legend) narrow it to one status. The shown positions are computed by listquery.js. ArrowDown moves
 * from the filter into the list, Enter opens the first match.
 * With visible metadata (`metadata`: settings.metadata), filters by their values and a sort (filters.js)
 * join them; with the annotator's `queue` (queue.js), its rows are marked and a button shows only them.
 */
export function mountRecordList(store, bundle, column, onPick, { metadata = [], queue = null } = {}) {
  const [list, filter, statusBox] = ['record-list', 'record-filter', 'status-filter'].map((id) => column.querySelector(`#${id}`));
  const index = bundle.recordIndex;
  const n = index.count;
  let words = []; // the filter's words, folded (recordindex.fold)
  let onlyStatus = null; // a STATUS_TEXT key, or null: any status
  let current = -1;
  const inQueue = queue ? new Set(queue.positions) : null;
  const queueSorted = queue ? Int32Array.from(queue.positions).sort() : null;
  let onlyQueue = false;
  let statusOf = new Map(); // position -> status of each record with work (placed by the store)

  const { rows, paint } = recordRows(store, index, list, { inQueue, isCurrent: (i) => i === current });

  let meta = null; // the metadata filters, loaded only for a bundle that has visible metadata
  const active = () => words.length || onlyStatus || onlyQueue || (meta && (meta.sort().key
    || [...meta.conds.values()].some((c) => (c.chosen ? c.chosen.size : c.lo !== null || c.hi !== null))));
  let asked = 0;
  /** Recompute the shown records (after typing, a status button, or a status change while filtered). */
  function refilter(keepScroll) {
    const seq = ++asked;
    selectPositions(index, {
      words, status: onlyStatus, queue: onlyQueue ? queueSorted : null, statusOf,
      metadata, conds: meta?.conds, sort: meta?.sort(), stale: () => seq !== asked,
    }).then((order) => {
      if (seq === asked) rows.setOrder(order, keepScroll, current);
    }, (err) => {
      if (seq === asked) store.actions.message(`The list could not be filtered (${err.message}).`);
    });
  }
  recordListKeys(list, filter, rows, onPick, () => current);
  filter.addEventListener('input', () => {
    words = fold(filter.value).split(/\s+/).filter(Boolean);
    refilter(false);
  });
  const statusButtons = Object.entries(STATUS_TEXT).map(([key, text]) => {
    const b = h('button', { type: 'button', 'data-status': key, 'aria-pressed': 'false', title: `show only the records ${text}` },
      h('span', { class: 'rec-status' }), h('span', { class: 'status-name' }, text), h('span', { class: 'status-count' }));
    b.addEventListener('click', () => {
      onlyStatus = onlyStatus === key ? null : key;
      for (const o of statusButtons) o.setAttribute('aria-pressed', String(o.dataset.status === onlyStatus));
      refilter(false);
    });
    return b;
  });
  statusBox.replaceChildren(...statusButtons);
  if (inQueue) {
    const b = h('button', { type: 'button', 'data-filter': 'queue', 'aria-pressed': 'false', title: 'show only the records of your queue' },
      h('span', { class: 'status-name' }, 'your queue'), h('span', { class: 'status-count' }, String(inQueue.size)));
    b.addEventListener('click', () => {
      onlyQueue = !onlyQueue;
      b.setAttribute('aria-pressed', String(onlyQueue));
      refilter(false);
    });
    statusBox.append(b);
  }
  if (metadata.length) {
    import('./filters.js').then(({ mountMetaFilters }) => {
      meta = mountMetaFilters(statusBox, metadata, () => refilter(false));
    });
  }
  watch(store, (s) => [s.current.index], (s) => {
    const was = rows.row(current);
    current = s.current.index;
    if (was && was.dataset.record) paint(was, Number(was.dataset.position));
    const li = rows.reveal(rows.posOf(current));
    if (li?.dataset.record) paint(li, current);
  });
  watch(store, (s) => [s.work, s.placed], (s) => {
    statusOf = new Map([...s.placed].map(([id, p]) => [p, recordStatus(s.work, id)]));
    const c = statusCounts(n, s.placed.keys(), s.work);
    for (const b of statusButtons) b.lastChild.textContent = String(c[b.dataset.status]);
    if (active()) refilter(true);
    else for (const [i, li] of rows.rendered()) if (li.dataset.record) paint(li, i);
  });
}
