/**
 * Each judge's status of the open review record (the side card #rv-judges): who flagged something, who
 * submitted it with nothing flagged, who discarded it, who has it in progress and who never opened it
 * (state/reviewjudges.js). Names go in as text.
 */
import { watch } from '../state/store.js';
import { judgeStatuses, STATUS_TEXT } from '../state/reviewjudges.js';
import { h } from '../util.js';

/** `swatch(annotator)`: the colour chip of an annotator of the review (null for one without a lane). */
export function mountReviewJudges(store, { swatchOf }) {
  const box = document.getElementById('rv-judges');
  watch(store, (s) => [s.review.rec], (s) => {
    const { rec } = s.review;
    if (!rec) {
      box.replaceChildren();
      return;
    }
    const statuses = judgeStatuses(rec);
    const spans = (name) => rec.annotations.filter((a) => a.annotator === name).length;
    const rows = Object.entries(statuses).map(([name, st]) => h('li', { 'data-judge': name, 'data-status': st },
      swatchOf(name), ` ${name}: `, h('span', { class: `rv-judge-${st}` },
        st === 'flagged' && spans(name) ? `${STATUS_TEXT[st]} (${spans(name)} span${spans(name) === 1 ? '' : 's'})` : STATUS_TEXT[st] || st)));
    box.replaceChildren(h('h3', {}, 'Judges'),
      rows.length ? h('ul', { class: 'rv-judges' }, ...rows) : h('p', { class: 'muted' }, 'No judge had this record.'));
  });
}
