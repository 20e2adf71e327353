/**
 * The record list's metadata filter and sort controls: terms properties filter by chosen
 * values, integer / float ones by a range; the list sorts by status or by a visible property. This module
 * holds the controls and their conditions only; listquery.js answers them on the sharded record index
 * (meta postings for terms, the index shards' meta column for ranges and sorts). Combined with the text
 * filter and the status buttons in recordlist.js (mountRecordList).
 */
import { h } from '../util.js';

/**
 * Mount the filter and sort controls after `anchor` (the status buttons); `onChange()` when they change.
 * Returns {conds (property name -> {chosen: Set} | {lo, hi}), sort() -> {key, dir}}.
 */
export function mountMetaFilters(anchor, metadata, onChange) {
  const conds = new Map(); // property name -> condition
  let sortKey = '';
  let sortDir = 1;
  const api = { conds, sort: () => ({ key: sortKey, dir: sortDir }) };
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
