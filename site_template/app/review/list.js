/** The review's record list, most contested first, and its filters. */
import { isAdjudicated } from '../state/reviewentries.js';
import { watch } from '../state/store.js';
import { h } from '../util.js';
import { plural } from '../views/wording.js';

const MAX_ROWS = 300; // rows drawn in the list (the filter narrows it; n / p walk the whole order)

/** `column`: the list's column (review/layout.js), with its filters. */
export function mountReviewList(store, column) {
  const actions = store.actions.review;
  const { data } = store.state.review;
  const byId = (id) => column.querySelector(`#${id}`);
  const list = byId('rv-list');
  const count = byId('rv-list-count');
  watch(store, (s) => [s.review.order, s.review.rowsLoaded, s.work, s.review.pos], (s) => {
    const r = s.review;
    const positions = r.order || data.rows.map((row, i) => (row ? i : -1)).filter((i) => i >= 0);
    count.textContent = r.order ? `${plural(r.order.length, 'record')} shown of ${data.count}` : `${data.count} records, most contested first`;
    list.replaceChildren(...positions.slice(0, MAX_ROWS).map((p) => {
      const row = data.rows[p];
      const adj = isAdjudicated(s.work.records[row.id]);
      return h('li', { 'data-position': String(p), 'data-record': row.id, 'data-status': adj ? 'submitted' : 'todo', 'aria-current': p === r.pos ? 'true' : null },
        h('button', { type: 'button' }, h('span', { class: 'rec-status' }), ` ${row.id} `, h('span', { class: 'muted' }, row.score.toFixed(2))));
    }), ...(positions.length > MAX_ROWS ? [h('li', { class: 'muted' }, `… ${positions.length - MAX_ROWS} more (n / p, or filter)`)] : []));
  });
  list.addEventListener('click', (ev) => {
    const li = ev.target.closest('li[data-position]');
    if (li) actions.open(Number(li.dataset.position));
  });
  byId('rv-filter-unreviewed').addEventListener('change', (ev) => actions.setFilter({ unreviewed: ev.target.checked }));
  byId('rv-filter-question').addEventListener('change', (ev) => actions.setFilter({ question: ev.target.value }));
  byId('rv-filter-annotator').addEventListener('change', (ev) => actions.setFilter({ annotator: ev.target.value }));
  byId('rv-filter-pair').addEventListener('change', (ev) => actions.setFilter({ pair: ev.target.value }));
  const textFilter = byId('rv-filter-text');
  textFilter.addEventListener('change', () => actions.filterText(textFilter.value));
}
