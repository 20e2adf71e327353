/** Mercury's view in the review: one annotator's annotations across records, with the reviewer's decisions. */
import { decisionOf } from '../state/reviewentries.js';
import { watch } from '../state/store.js';
import { h } from '../util.js';
import { plural } from '../views/wording.js';
import { ACTION_TEXT, labelsLine } from './items.js';

/** Read one records shard at a time, in order; another annotator picked (or closed) stops the reading. */
export function mountReviewByAnnotator(store, by) {
  const actions = store.actions.review;
  const { data } = store.state.review;
  const labelTexts = () => store.state.labelTexts;
  let bySeq = 0;
  watch(store, (s) => [s.review.byAnnotator], async (s) => {
    const who = s.review.byAnnotator;
    by.hidden = !who;
    const seq = ++bySeq;
    if (!who) {
      by.replaceChildren();
      return;
    }
    const close = h('button', { type: 'button', 'data-rv': 'close-by' }, 'Close (Esc)');
    close.addEventListener('click', () => actions.showByAnnotator(null));
    const pick = h('select', { 'aria-label': 'annotator' }, ...data.annotators.map((a) => h('option', { value: a }, a)));
    pick.value = who;
    pick.addEventListener('change', () => actions.showByAnnotator(pick.value));
    const table = h('tbody');
    const status = h('p', { class: 'muted' }, 'Reading the records…');
    by.replaceChildren(h('div', { class: 'row' }, h('h3', {}, 'All annotations of '), pick, close), status,
      h('table', { class: 'rv-by-table' }, h('thead', {}, h('tr', {}, ...['record', 'label', 'summary span', 'source span', 'note', 'your decision'].map((t) => h('th', {}, t)))), table));
    const rows = await data.allRows();
    let n = 0;
    for (let p = 0; p < rows.length && seq === bySeq; p++) {
      if (!rows[p].annotators.includes(who)) continue;
      const rec = await data.record(rows[p]); // one shard at a time, in order
      if (seq !== bySeq) return;
      for (const a of rec.annotations.filter((x) => x.annotator === who)) {
        n += 1;
        const dec = decisionOf(store.state.work.records[rec.id], a.key);
        const tr = h('tr', { 'data-position': String(p), 'data-key': a.key },
          h('td', {}, h('button', { type: 'button', class: 'link' }, rec.id)), h('td', {}, labelsLine(a.label, labelTexts())),
          h('td', {}, a.summary.text), h('td', {}, a.source ? a.source.text : '—'), h('td', {}, a.note || ''), h('td', {}, dec ? ACTION_TEXT[dec.action] : '—'));
        tr.querySelector('button').addEventListener('click', () => {
          actions.showByAnnotator(null);
          actions.open(p).then(() => actions.focus(a.key));
        });
        table.append(tr);
      }
      status.textContent = `${plural(n, 'annotation')} of ${who} so far…`;
    }
    if (seq === bySeq) status.textContent = `${plural(n, 'annotation')} of ${who} across ${plural(rows.filter((r) => r.annotators.includes(who)).length, 'record')}.`;
  });
}
