/**
 * Span suggestions one at a time (as Prodigy does): `w` walks the record's suggested spans
 * (prior annotations of a Mercury dump, a detector's span suggestions) in summary order, each lit in both
 * texts and scrolled to; accept (a or Enter: it becomes the annotator's annotation), reject (r), edit (e: it
 * becomes the draft, to change and save with Enter), next (n or →), previous (←), Esc ends the walk. The
 * bar's buttons do the same on a touch screen. Accepted ones are skipped; rejected and edited ones for the
 * session (the export has the annotator's own annotations: a rejected suggestion is simply not among them).
 */
import { acceptedPriors } from '../state/suggestions.js';
import { liveAnnotations } from '../state/store.js';
import { clip, h } from '../util.js';

const KEYS = { a: 'accept', Enter: 'accept', r: 'reject', e: 'edit', n: 'next', ArrowRight: 'next', ArrowLeft: 'prev', Escape: 'close' };

/** Positions of `prior` in summary order (a suggestion without a summary span last). */
export function walkOrder(prior) {
  const at = (p) => (p.summary && Number.isInteger(p.summary.start) ? p.summary.start : Infinity);
  return prior.map((p, i) => i).sort((a, b) => at(prior[a]) - at(prior[b]) || a - b);
}

/**
 * @param store the page's store; actions: acceptPrior(i), draftFrom(prior), hover(key), message(text)
 * @param before the element the bar goes before (it is in the flow under the texts, never over them)
 * @returns {start(), active()}
 */
export function mountSuggestionWalk(store, actions, before) {
  const bar = h('section', { id: 'suggest-walk', class: 'walk-bar', 'aria-label': 'suggested spans, one at a time', hidden: true });
  before.before(bar);
  let walk = null; // {at: prior index, rejected: Set}
  const rejectedOf = new Map(); // record id -> the suggestions rejected in this session

  const prior = () => store.state.current.record?.prior_annotations || [];
  const accepted = () => acceptedPriors(prior(), liveAnnotations(store.state.work.records[store.state.current.id]));
  /** The next suggestion to decide from order position `k` in direction `dir` (accepted / rejected ones skipped). */
  const pending = (from, dir) => {
    const order = walkOrder(prior());
    const done = accepted();
    const k0 = order.indexOf(from);
    for (let n = 1; n <= order.length; n++) {
      const i = order[(((k0 < 0 ? (dir > 0 ? -1 : 0) : k0) + dir * n) % order.length + order.length) % order.length];
      if (!done[i] && !walk.rejected.has(i)) return i;
    }
    return -1;
  };

  function draw() {
    if (!walk) {
      bar.hidden = true;
      bar.replaceChildren();
      return;
    }
    const list = prior();
    const p = list[walk.at];
    const left = list.filter((_, i) => !accepted()[i] && !walk.rejected.has(i)).length;
    const button = (what, text, key) => {
      const b = h('button', { type: 'button', 'data-walk': what, title: key }, text);
      b.addEventListener('click', () => act(what));
      return b;
    };
    bar.hidden = false;
    bar.replaceChildren(
      h('div', { class: 'walk-what' },
        h('b', {}, `Suggestion ${walkOrder(list).indexOf(walk.at) + 1} of ${list.length}`),
        h('span', { class: 'muted' }, ` · ${left} to decide · ${(p.label || []).slice(-1)[0] || ''}${p.annotator ? ` · ${p.annotator}` : ''}`),
        h('q', {}, clip(p.summary?.text || '', 120)), p.note ? h('span', { class: 'muted' }, ` ${clip(p.note, 120)}`) : null),
      h('div', { class: 'walk-buttons' }, button('accept', 'Accept', 'a or Enter'), button('reject', 'Reject', 'r'),
        button('edit', 'Edit', 'e'), button('next', 'Next', 'n or →'), button('close', 'Close', 'Esc')));
  }

  function go(i) {
    if (i < 0) {
      actions.message('Every suggested span of this record is decided.');
      close();
      return;
    }
    walk.at = i;
    actions.hover(`prior:${i}`); // lit in both texts, both scrolled to it (marks.js)
    draw();
  }

  function close() {
    if (!walk) return;
    walk = null;
    actions.hover(null);
    draw();
  }

  function act(what) {
    if (!walk) return;
    const i = walk.at;
    if (what === 'accept') {
      if (actions.acceptPrior(i) === null) return; // refused (it overlaps one of yours): the message says so
      go(pending(i, 1));
    } else if (what === 'reject') {
      walk.rejected.add(i);
      go(pending(i, 1));
    } else if (what === 'edit') {
      const p = prior()[i];
      walk.rejected.add(i); // decided: what the annotator saves from it is hers
      close();
      actions.draftFrom(p);
    } else if (what === 'next' || what === 'prev') {
      go(pending(i, what === 'next' ? 1 : -1));
    } else {
      close();
    }
  }

  document.addEventListener('keydown', (ev) => {
    if (!walk || ev.ctrlKey || ev.metaKey || ev.altKey || ev.defaultPrevented) return;
    const field = ev.target instanceof Element && ev.target.closest('input, textarea, select, [contenteditable]');
    const what = KEYS[ev.key];
    if (field || !what || (ev.key === 'Enter' && ev.target instanceof HTMLButtonElement)) return;
    ev.preventDefault();
    ev.stopImmediatePropagation(); // the page's keys (keys.js) do not see it: n is "next suggestion" here
    act(what);
  }, true);
  store.subscribe((s, prev) => {
    if (walk && s.current.id !== prev.current.id) close();
    else if (walk && s.work !== prev.work) draw();
  });

  return {
    /** Start the walk at the first suggestion still to decide; false when the record has none. */
    start() {
      if (!prior().length) {
        actions.message('This record has no suggested spans.');
        return false;
      }
      const id = store.state.current.id;
      if (!rejectedOf.has(id)) rejectedOf.set(id, new Set());
      walk = { at: -1, rejected: rejectedOf.get(id) };
      go(pending(-1, 1));
      return true;
    },
    active: () => Boolean(walk),
  };
}
