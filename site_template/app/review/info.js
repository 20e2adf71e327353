/** The open record's card in the review: id, adjudicated or not, its disagreement, its metadata. */
import { isAdjudicated } from '../state/reviewentries.js';
import { watch } from '../state/store.js';
import { h } from '../util.js';

export function mountReviewInfo(store, info) {
  watch(store, (s) => [s.review.row, s.review.rec, s.work, s.review.order], (s) => {
    const r = s.review;
    if (!r.rec) {
      info.replaceChildren();
      return;
    }
    const d = r.rec.disagreement || {};
    const adj = isAdjudicated(s.work.records[r.row.id]);
    const contested = Object.entries(d.questions || {}).filter(([, v]) => v).map(([k]) => k);
    info.replaceChildren(
      h('h3', {}, r.row.id, ' ', h('span', { class: `rv-status ${adj ? 'done' : ''}`, id: 'rv-status' }, adj ? 'adjudicated' : 'not adjudicated')),
      h('p', { class: 'muted' }, `disagreement ${(d.score ?? r.row.score ?? 0).toFixed(2)}`,
        contested.length ? ` · disagree on: ${contested.join(', ')}` : ' · no disagreement'),
      ...(d.pairs?.length ? [h('p', { class: 'muted rv-pairs' }, d.pairs.map((p) => `${p.a}–${p.b} ${p.spans.toFixed(2)}`).join(' · '))] : []),
      ...(r.texts?.metadata && Object.keys(r.texts.metadata).length
        ? [h('p', { class: 'muted' }, Object.entries(r.texts.metadata).map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`).join(' · '))] : []));
  });
}
