/** The review's top bar: the record's position in the order shown, how many are adjudicated, what is not exported. */
import { isAdjudicated } from '../state/reviewentries.js';
import { unexportedCount, watch } from '../state/store.js';

export function mountReviewProgress(store, bar) {
  const { data } = store.state.review;
  const [pos, fill, ptext, unexp] = ['rec-pos', 'progress-fill', 'progress-text', 'unexported'].map((id) => bar.querySelector(`#${id}`));
  watch(store, (s) => [s.review.row, s.review.rec, s.work, s.review.order], (s) => {
    const r = s.review;
    const order = r.order;
    pos.textContent = order ? `${order.indexOf(r.pos) + 1} / ${order.length} shown` : `${r.pos + 1} / ${data.count}`;
    const done = Object.values(s.work.records).filter(isAdjudicated).length;
    fill.style.width = `${data.count ? (100 * done) / data.count : 0}%`;
    ptext.textContent = `${done} / ${data.count} adjudicated`;
    const n = unexportedCount(s.work);
    unexp.textContent = n ? `${n} not exported` : 'all exported';
    unexp.dataset.count = String(n);
  });
}
