/** The review's decisions bar under the side panel: mark the record adjudicated, or reopen it. */
import { isAdjudicated } from '../state/reviewentries.js';
import { watch } from '../state/store.js';

export function mountReviewFinish(store, footer) {
  const actions = store.actions.review;
  const adjudicate = footer.querySelector('[data-rv=adjudicate]');
  const reopen = footer.querySelector('[data-rv=reopen]');
  adjudicate.addEventListener('click', () => actions.adjudicate());
  reopen.addEventListener('click', () => actions.reopen());
  watch(store, (s) => [s.review.row, s.review.rec, s.work, s.review.order], (s) => {
    const r = s.review;
    if (!r.rec) return;
    const adj = isAdjudicated(s.work.records[r.row.id]);
    adjudicate.disabled = adj;
    reopen.hidden = !adj;
  });
}
