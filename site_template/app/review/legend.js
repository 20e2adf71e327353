/** The review's legend: one row per annotator's colour (and the gold's), each shown or hidden. */
import { lanesOf } from '../state/review.js';
import { watch } from '../state/store.js';
import { h } from '../util.js';
import { GOLD, swatch } from './swatch.js';

export function mountReviewLegend(store, legend) {
  const actions = store.actions.review;
  const { data } = store.state.review;
  const lanes = lanesOf(data);
  watch(store, (s) => [s.review.hidden], (s) => {
    const row = (lane, name, key, title) => {
      const box = h('input', { type: 'checkbox', 'data-lane': String(lane) });
      box.checked = !s.review.hidden.includes(lane);
      box.addEventListener('change', () => actions.toggleLane(lane));
      return h('label', { class: 'rv-legend-row', title }, box, swatch(lane), ` ${name} `, h('kbd', {}, `Alt+${key}`));
    };
    legend.replaceChildren(h('h3', {}, 'Annotators'),
      ...data.annotators.map((a, i) => row(lanes[i], a, String(i + 1), `show or hide ${a}'s spans`)),
      row(GOLD, 'gold (your decisions)', '0', 'show or hide the gold spans'));
  });
}
