/**
 * The review record's annotations (the side card #rv-items): each item with its decision, identical spans of
 * several judges as one item ("2 of 3 judges: alice, carol"), accepted or rejected as one; the reviewer's own
 * after them; the comments on each. Every text of the dataset goes in as text (util.js h), never HTML.
 */
import { watch } from '../state/store.js';
import { leafLabels } from '../state/labels.js';
import { commentsOf, decisionOf, goldOf } from '../state/reviewentries.js';
import { reviewItems } from '../state/review.js';
import { judgeCount } from '../state/reviewjudges.js';
import { h } from '../util.js';
import { labelText } from '../views/wording.js';

export const ACTION_TEXT = { accept: 'accepted', reject: 'rejected', edit: 'edited' };
/** The label paths of an annotation as one line ("Unwanted › Intrinsic"). */
export const labelsLine = (label, texts) => leafLabels(label).map((l) => labelText(l, texts)).join(', ');
const quote = (span) => (span ? `“${span.text}”` : 'no source span');
export const commentsOn = (entry, on) => commentsOf(entry).filter((c) => c.on === on);
export const commentLine = (c) => h('li', { class: 'rv-comment' }, h('b', {}, c.author), ' ', h('time', { datetime: c.time }, c.time.replace('T', ' ').slice(0, 16)), ': ', c.text);

/** The decision shared by every member of a group, 'mixed' when they differ (decided apart, e.g. imported). */
function groupDecision(entry, it) {
  const decs = it.members.map((m) => decisionOf(entry, m.key));
  const first = decs[0];
  const same = decs.every((d) => (d?.action ?? null) === (first?.action ?? null));
  return same ? first : { action: 'mixed' };
}

/** `swatch(lane)`: the colour chip of a lane (swatch.js). */
export function mountReviewItems(store, { swatch }) {
  const actions = store.actions.review;
  const labelTexts = () => store.state.labelTexts;
  const box = document.getElementById('rv-items');
  watch(store, (s) => [s.review.rec, s.work, s.review.focus, s.review.hidden], (s) => {
    const r = s.review;
    if (!r.rec) {
      box.replaceChildren();
      return;
    }
    const entry = s.work.records[r.row.id];
    const of = judgeCount(r.rec);
    const list = reviewItems(s).map((it) => {
      const dec = it.kind === 'theirs' ? groupDecision(entry, it) : { action: 'added' };
      const shown = it.kind === 'own' ? it.ann : goldOf(it.ann, dec) || it.ann;
      const who = it.kind === 'own' ? [`${r.reviewer} (yours)`]
        : it.members.flatMap((m, i) => [...(i ? [', '] : []), swatch(m.lane), ` ${m.annotator}`]);
      const count = it.kind === 'theirs' && it.members.length > 1
        ? h('span', { class: 'rv-group', 'data-judges': String(it.members.length) }, ` · ${it.members.length} of ${of} judges`) : null;
      const btn = (action, text, key) => h('button', { type: 'button', class: 'link', 'data-rv-act': action, 'data-key': it.key, title: `${text} (${key})` }, text);
      const hidden = it.kind === 'theirs' && it.members.every((m) => r.hidden.includes(m.lane));
      return h('li', {
        class: `rv-item ${r.focus === it.key ? 'focused' : ''} ${hidden ? 'rv-hidden' : ''}`,
        'data-key': it.key, 'data-decision': dec?.action || 'none', 'aria-current': r.focus === it.key ? 'true' : null,
        'data-members': it.kind === 'theirs' ? it.members.map((m) => m.key).join(' ') : null,
      },
      h('div', { class: 'rv-item-head' }, ...(it.kind === 'own' ? [swatch(it.lane), ' '] : []), ...who, count, ' · ', h('b', {}, labelsLine(shown.label, labelTexts())),
        h('span', { class: 'rv-decision' }, dec ? ` ${ACTION_TEXT[dec.action] || dec.action}` : '')),
      h('div', { class: 'rv-quote' }, quote(shown.summary), ' ← ', h('span', { class: 'muted' }, quote(shown.source))),
      ...(it.kind === 'theirs' ? it.members : [it]).filter((m) => m.ann.note)
        .map((m) => h('div', { class: 'rv-note' }, it.members?.length > 1 ? `${m.annotator}: ${m.ann.note}` : m.ann.note)),
      dec?.action === 'edit' ? h('div', { class: 'muted' }, `was: ${labelsLine(it.ann.label, labelTexts())} ${quote(it.ann.summary)}${it.ann.note ? ` · ${it.ann.note}` : ''}`) : null,
      h('div', { class: 'rv-acts' }, ...(it.kind === 'theirs' ? [btn('accept', 'accept', 'a'), btn('reject', 'reject', 'r')] : [btn('reject', 'delete', 'r')]),
        btn('edit', 'edit', 'e'), btn('comment', 'comment', 'c')),
      h('ul', { class: 'rv-thread' }, ...commentsOn(entry, it.key).map(commentLine)));
    });
    box.replaceChildren(h('h3', {}, `Annotations (${r.rec.annotations.length} from the annotators)`),
      list.length ? h('ol', { class: 'rv-items' }, ...list) : h('p', { class: 'muted' }, 'No annotator marked a span on this record.'),
      h('button', { type: 'button', 'data-rv-act': 'add', title: 'Add an annotation of your own (+)' }, '+ my own annotation'));
    const f = box.querySelector('li.focused');
    if (f) f.scrollIntoView({ block: 'nearest' });
  });
  box.addEventListener('click', (ev) => {
    const b = ev.target.closest('[data-rv-act]');
    const li = ev.target.closest('li.rv-item');
    if (li) actions.focus(li.dataset.key);
    if (!b) return;
    const what = b.dataset.rvAct;
    if (what === 'accept' || what === 'reject') actions.decide(what);
    else if (what === 'edit') actions.startEdit(false);
    else if (what === 'add') actions.startEdit(true);
    else if (what === 'comment') actions.openComment(b.dataset.key);
  });
}
