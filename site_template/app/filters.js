/**
 * The record list's metadata filters and sort (issue 13): terms properties filter by chosen values,
 * integer / float ones by a range; the list sorts by status or by a visible property. Values come from
 * records.json `meta` (visible properties only: hidden ones never reach the page's index), so filtering
 * and sorting 10,000 records fetches no shard. Combined with the text filter and the status buttons in
 * views.js (mountRecordList), which asks `matches(i)` and `sort(order, status)`.
 */
import { h } from './util.js';

const STATUS_ORDER = { todo: 0, in_progress: 1, submitted: 2, discarded: 3 };

/** Whether a record's value passes a property's condition ({chosen: Set} or {lo, hi}); null: no condition. */
export function passes(prop, cond, value) {
  if (!cond) return true;
  if (prop.type === 'terms') {
    if (!cond.chosen.size) return true;
    return (Array.isArray(value) ? value : [value]).some((v) => cond.chosen.has(v));
  }
  if (cond.lo === null && cond.hi === null) return true;
  if (typeof value !== 'number') return false; // a range is set: a record without a value is not in it
  return (cond.lo === null || value >= cond.lo) && (cond.hi === null || value <= cond.hi);
}

/**
 * `order` (record indices, or null: all `n`) sorted by `key` ('' = as given, 'status', or 'meta:NAME'),
 * `dir` 1 / -1; stable, records without a value last in both directions.
 */
export function sortOrder(order, n, key, dir, { meta, status }) {
  if (!key) return order;
  const items = order ? [...order] : Array.from({ length: n }, (_, i) => i);
  let val;
  if (key === 'status') val = (i) => STATUS_ORDER[status[i]] ?? 0;
  else {
    const name = key.slice(5);
    val = (i) => {
      const v = meta[i]?.[name];
      return Array.isArray(v) ? v.join(', ') : v;
    };
  }
  const keyed = items.map((i, pos) => [val(i), pos, i]);
  keyed.sort((a, b) => {
    const [x, y] = [a[0], b[0]];
    const missing = (x === undefined || x === null) - (y === undefined || y === null);
    if (missing) return missing;
    if (x !== y && x !== undefined && x !== null) return (x < y ? -1 : 1) * dir;
    return a[1] - b[1];
  });
  return keyed.map((k) => k[2]);
}

/**
 * Mount the filter and sort controls after `anchor` (the status buttons); `onChange()` when they change.
 * Returns {matches(i), sort(order, status), active()} (active: a filter or a sort is set).
 */
export function mountMetaFilters(anchor, bundle, metadata, onChange) {
  const conds = new Map(); // property name -> condition
  let sortKey = '';
  let sortDir = 1;
  const n = bundle.ids.length;
  const api = {
    matches: (i) => metadata.every((p) => passes(p, conds.get(p.name), bundle.meta[i]?.[p.name])),
    sort: (order, status) => sortOrder(order, n, sortKey, sortDir, { meta: bundle.meta, status }),
    active: () => Boolean(sortKey) || [...conds.entries()].some(([name, c]) => {
      const p = metadata.find((m) => m.name === name);
      return p.type === 'terms' ? c.chosen.size > 0 : c.lo !== null || c.hi !== null;
    }),
  };
  const controls = metadata.map((p) => {
    if (p.type === 'terms') {
      const chosen = new Set();
      conds.set(p.name, { chosen });
      return h('fieldset', { class: 'meta-filter', 'data-meta': p.name }, h('legend', {}, p.title || p.name),
        (p.values || []).map((v) => {
          const box = h('input', { type: 'checkbox', value: v, 'data-value': v });
          box.addEventListener('change', () => {
            if (box.checked) chosen.add(v);
            else chosen.delete(v);
            onChange();
          });
          return h('label', { class: 'meta-term' }, box, ` ${v}`);
        }));
    }
    const cond = { lo: null, hi: null };
    conds.set(p.name, cond);
    const step = p.type === 'integer' ? '1' : 'any';
    const bound = (which, placeholder) => {
      const input = h('input', { type: 'number', step, placeholder: placeholder ?? '', 'data-bound': which, 'aria-label': `${p.title || p.name} ${which}` });
      input.addEventListener('input', () => {
        const v = input.value.trim() === '' ? null : Number(input.value);
        cond[which] = Number.isFinite(v) ? v : null;
        onChange();
      });
      return input;
    };
    return h('fieldset', { class: 'meta-filter meta-range', 'data-meta': p.name }, h('legend', {}, p.title || p.name),
      bound('lo', p.min), ' – ', bound('hi', p.max));
  });
  const sortSelect = h('select', { id: 'record-sort', 'aria-label': 'sort records' },
    h('option', { value: '' }, 'bundle order'), h('option', { value: 'status' }, 'status'),
    metadata.flatMap((p) => [h('option', { value: `meta:${p.name}|1` }, `${p.title || p.name} ↑`),
      h('option', { value: `meta:${p.name}|-1` }, `${p.title || p.name} ↓`)]));
  sortSelect.addEventListener('change', () => {
    const [key, dir] = sortSelect.value.split('|');
    sortKey = key;
    sortDir = Number(dir || 1);
    onChange();
  });
  const box = h('details', { class: 'meta-filters', id: 'meta-filters' },
    h('summary', {}, metadata.length ? 'Filter and sort' : 'Sort'), ...controls,
    h('label', { class: 'meta-sort' }, 'sort by ', sortSelect));
  anchor.after(box);
  return api;
}
