/** Both texts of the review mode with every annotator's spans (text.js), and the focused annotation lit. */
import { reviewSpans } from '../state/review.js';
import { SIDES, watch } from '../state/store.js';
import { h } from '../util.js';
import { MarkedText } from './text.js';

/**
 * `roots`: {source, summary} elements. A selection in a pane is a span for the editor (`onSpan(side, span)`;
 * one in the summary opens the reviewer's own annotation first); a click walks the annotations under it.
 */
export function mountReviewPanes(store, roots, onSpan) {
  const rv = () => store.state.review;
  const actions = store.actions.review;
  const texts = Object.fromEntries(SIDES.map((side) => [side, new MarkedText(roots[side])]));
  let drawn = null;
  watch(store, (s) => [s.review.rec, s.review.texts, s.work, s.review.hidden, s.review.sentence], (s) => {
    const r = s.review;
    if (!r.rec || !r.texts) {
      for (const side of SIDES) texts[side].root.replaceChildren(h('p', { class: 'muted loading' }, r.error || 'Loading…'));
      document.body.dataset.record = '';
      return;
    }
    for (const side of SIDES) texts[side].render(r.texts[side], reviewSpans(side, s));
    document.body.dataset.record = r.row.id;
    drawn = null;
    showFocus(s);
  });
  function showFocus(s) {
    const key = s.review.focus;
    if (drawn === key) return;
    drawn = key;
    for (const side of SIDES) {
      const el = texts[side].focus(key);
      if (el && key) el.scrollIntoView({ block: 'nearest' });
    }
  }
  watch(store, (s) => [s.review.focus], showFocus);

  for (const side of SIDES) {
    const root = texts[side].root;
    root.addEventListener('mouseup', () => {
      const sel = window.getSelection();
      if (!rv().texts) return;
      if (sel.rangeCount && !sel.isCollapsed) {
        const span = texts[side].spanOf(sel.getRangeAt(0));
        if (!span) return;
        if (!rv().editor) {
          if (side !== 'summary') return;
          actions.startEdit(true);
        }
        onSpan(side, span);
        return;
      }
      const keys = texts[side].keysAt(sel.anchorNode);
      if (!keys.length) return;
      const i = keys.indexOf(rv().focus);
      actions.focus(keys[(i + 1) % keys.length]);
    });
  }
}
