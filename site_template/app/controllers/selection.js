/**
 * Selection → span: a mouse selection in a pane (a drag grows to whole words), the keyboard's selection
 * (keysel.js) and find (find.js) take a span into the draft (the assistant observes the query it makes);
 * clicks in the panes follow citations, pair a highlighted sentence, jump to a minimap's match.
 */
import { KeyboardSelection } from '../keys/keysel.js';
import { mountFind } from '../keys/find.js';
import { SIDES, draftHasWork } from '../state/store.js';

/**
 * Wire the `panes`' selection and clicks; `goToMatch`: highlights.js's. `words`: selections snap to whole
 * words (the span question's granularity is not `character`). Returns {keysel, finder}.
 */
export function mountSelection(store, panes, { goToMatch, words }) {
  const { actions } = store;
  // The span of the page's selection last taken into the draft (or put there by the keyboard): after a
  // save the selection still shows it, and a key-up must not take it again as a new draft.
  let taken = '';
  let pressedInText = false; // a mouse press in a pane's text, not on its scrollbar
  const spanKey = (side, s, e) => `${store.state.current.id}:${side}:${s}:${e}`;
  /**
   * A span selected: the draft's, or, in the source while a summary sentence is current and no span draft is
   * open, that sentence's evidence (verdicts.js).
   */
  const take = (side, s, e) => {
    const { verdicts, draft } = store.state;
    if (side === 'source' && verdicts.current !== null && !draftHasWork(draft)) actions.sentenceEvidence(s, e);
    else actions.select(side, s, e);
  };
  const keysel = new KeyboardSelection(panes, (side) => store.state.draft[side], (side, s, e) => {
    taken = spanKey(side, s, e);
    take(side, s, e);
  });
  const finder = mountFind(panes, keysel, { words });
  /**
   * A selection made: after a press in the text (`fresh`, a drag) any, at a key-up or another mouse-up
   * (a scrollbar's) only one not taken already.
   */
  function onSelectionDone(fresh) {
    const sel = window.getSelection();
    if (!sel.rangeCount || sel.isCollapsed || !store.state.current.record) return;
    const range = sel.getRangeAt(0);
    const side = SIDES.find((sd) => panes[sd].root && panes[sd].root.contains(range.commonAncestorContainer));
    if (!side) return;
    let span = panes[side].spanOf(range);
    if (!span) return;
    if (fresh && words) span = keysel.snapSelection(side, span); // a drag grows to whole words
    const cur = store.state.draft[side];
    if (cur && cur[0] === span[0] && cur[1] === span[1]) return;
    if (!fresh && taken === spanKey(side, span[0], span[1])) return;
    taken = spanKey(side, span[0], span[1]);
    keysel.moved(side, span[1]);
    take(side, span[0], span[1]);
  }
  for (const side of SIDES) {
    const scroller = panes[side].scroller;
    scroller.addEventListener('mousedown', (ev) => { pressedInText = Boolean(panes[side].root?.contains(ev.target)); });
    scroller.addEventListener('mouseup', () => {
      onSelectionDone(pressedInText);
      pressedInText = false;
    });
    scroller.addEventListener('keydown', (ev) => {
      // Enter on a focused citation follows it (and does not save the draft)
      const cite = ev.key === 'Enter' && ev.target instanceof Element && ev.target.closest('.cite');
      if (!cite) return;
      ev.preventDefault();
      ev.stopPropagation();
      panes[SIDES.find((sd) => sd !== side)].scrollToDoc(Number(cite.dataset.doc));
    });
    scroller.addEventListener('click', (ev) => {
      const cite = ev.target.closest('.cite');
      if (cite && window.getSelection().isCollapsed) {
        panes[SIDES.find((sd) => sd !== side)].scrollToDoc(Number(cite.dataset.doc));
        return;
      }
      const el = ev.target.closest('.s[data-rank]');
      if (!el || !window.getSelection().isCollapsed) return;
      actions.pairSentence(side, Number(el.dataset.sentence));
    });
    document.getElementById(`mm-${side}`).addEventListener('click', (ev) => {
      const m = ev.target.closest('.mm-mark');
      if (m) goToMatch(Number(m.dataset.match) - 1); // the clicked match is the current one (`l` pairs it)
    });
  }
  document.addEventListener('keyup', (ev) => {
    if (ev.shiftKey || ev.key === 'Shift') onSelectionDone(false); // Shift+End and the like: the browser's own selection
  });
  return { keysel, finder };
}
