/**
 * The record list's rows, virtual (virtuallist.js) over the sharded record index's count: a row is read from
 * its index shard (`RecordIndex.row`); one not arrived yet is a placeholder, filled when its shard arrives.
 */
import { STATUS_TEXT } from '../state/listquery.js';
import { recordStatus } from '../state/store.js';
import { h } from '../util.js';
import { virtualList } from './virtuallist.js';

/**
 * The rows of `list` over `index`: {rows (virtuallist.js), paint(li, position)}; `paint` redraws a row's status
 * and whether it is the current record (`isCurrent(position)`); `inQueue`: the queue's positions, marked.
 */
export function recordRows(store, index, list, { inQueue, isCurrent }) {
  const paint = (li, i) => {
    const st = recordStatus(store.state.work, li.dataset.record);
    li.dataset.status = st;
    li.firstChild.firstChild.title = STATUS_TEXT[st];
    if (isCurrent(i)) li.setAttribute('aria-current', 'true');
    else li.removeAttribute('aria-current');
  };
  /** A row title: ids alone when untitled; a "head · tail" title keeps its tail (the part that differs). */
  const titleEl = (row) => {
    const title = row.title || row.id;
    const cut = title.lastIndexOf(' · ');
    return cut > 0
      ? h('span', { class: 'rec-title' }, h('span', { class: 'rec-head' }, title.slice(0, cut)),
        h('span', { class: 'rec-tail' }, title.slice(cut)))
      : h('span', { class: 'rec-title' }, h('span', { class: 'rec-head' }, title));
  };
  const pending = new Set(); // index shards requested for placeholder rows
  /** A row whose index shard has not arrived: a placeholder, filled in when it arrives. */
  const placeholder = (i) => {
    const n = Math.floor(i / index.size);
    if (!pending.has(n)) {
      pending.add(n);
      index.indexShard(n).then(() => {
        pending.delete(n);
        rows.refresh((j) => Math.floor(j / index.size) === n);
      }, () => pending.delete(n)); // not arrived: the row stays a placeholder until it is rendered again
    }
    return h('li', { 'data-position': String(i), class: 'rec-placeholder' },
      h('button', { type: 'button', class: 'rec', tabindex: '-1', 'aria-busy': 'true' },
        h('span', { class: 'rec-status' }), h('span', { class: 'rec-title muted' }, '…')));
  };
  const makeRow = (i) => {
    const row = index.row(i);
    if (!row) return placeholder(i);
    const li = h('li', { 'data-record': row.id, 'data-position': String(i), 'data-queue': inQueue?.has(i) ? 'true' : null },
      h('button', { type: 'button', class: 'rec', title: row.title ? `${row.id}: ${row.title}` : row.id, tabindex: '-1' },
        h('span', { class: 'rec-status' }), titleEl(row)));
    paint(li, i);
    return li;
  };
  const rows = virtualList(list, index.count, makeRow);
  return { rows, paint };
}
