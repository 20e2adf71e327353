/**
 * The review mode's keyboard: every decision has a key (listed in the help, `?`). While typing in a field
 * only Esc (leaves it, or closes the editor / comment) and Enter (saves the editor or posts the comment;
 * Shift+Enter is a new line in a text box) act: letters are text there.
 */

export const REVIEW_SHORTCUTS = [
  ['n / j', 'next record (in the order shown: most contested first)'], ['p / k', 'previous record'],
  ['↓ / ↑', 'next / previous annotation of the record (all annotators, in text order; then your own)'],
  ['a', 'accept the annotation as gold'], ['r', 'reject it'],
  ['e', 'edit it (range, label, note, linked source span); Enter saves the edit, Esc cancels'],
  ['u', 'undo the decision on the annotation (undecided again; your own: delete it)'],
  ['+', 'add an annotation of your own (select text with the mouse, or type its offsets)'],
  ['q / Q', 'next / previous question'],
  ['1 … 9', 'take that annotator\'s answer (legend order) to the question (no sentence selected)'], ['0', 'give your own answer to the question'],
  ['c', 'comment on the annotation (on the record when none is selected)'], ['C', 'comment on the record'],
  ['s', 'mark the record adjudicated and open the next one not adjudicated; S: reopen it'],
  ['Alt+1 … 9', 'show / hide that annotator\'s spans; Alt+0: the gold spans'],
  ['v', 'all annotations of the selected annotation\'s annotator across records (Mercury\'s view); Esc closes'],
  ['/', 'filter the records'], ['Shift+E', 'export your review (download the file); Import restores one'], ['?', 'this help'],
];

/** The keys of the summary sentences, in the help only where the bundle asks sentence verdicts. */
export const REVIEW_SENTENCE_SHORTCUTS = [
  ['w / W', 'next / previous summary sentence (every judge\'s evidence for it lit on the source); Esc or q leaves it'],
  ['1 … 9 (a sentence selected)', 'take that annotator\'s verdict and evidence (legend order) on the sentence'],
  ['0 (a sentence selected)', 'give your own verdict on the sentence'],
  ['A', 'accept the agreed sentences: each one the judges agree on, with their verdict and evidence (the disputed and unchecked ones stay yours)'],
];

const FIELD = 'input:not([type=checkbox]):not([type=radio]), textarea, select, [contenteditable]';

/** The handler of `key` pressed with no modifier (a digit 1-9 picks), or undefined. */
function keyHandler(h, key) {
  const map = {
    n: h.next, j: h.next, p: h.prev, k: h.prev, ArrowDown: h.nextItem, ArrowUp: h.prevItem,
    a: h.accept, r: h.reject, e: h.edit, u: h.undecide, '+': h.add,
    q: h.nextQuestion, Q: h.prevQuestion, 0: h.ownAnswer,
    c: h.comment, C: h.commentRecord, s: h.adjudicate, S: h.reopen, v: h.byAnnotator,
    w: h.nextSentence, W: h.prevSentence, A: h.acceptAgreed,
    '/': h.filter, E: h.exportNow, '?': h.help,
  };
  return map[key] || (/^[1-9]$/.test(key) ? () => h.pick(Number(key)) : undefined);
}

/** handlers: {[name]: fn}; `escape`, `enterInField(target) -> bool` and `modal() -> bool` are asked first. */
export function mountReviewKeys(h) {
  document.addEventListener('keydown', (ev) => {
    const field = ev.target instanceof Element && ev.target.closest(FIELD);
    if (ev.key === 'Escape') {
      ev.preventDefault();
      h.escape(field ? ev.target : null);
      return;
    }
    // Enter in the editor saves it from any of its controls but its buttons (a label's checkbox too)
    const inEditor = ev.target instanceof Element && ev.target.closest('#rv-editor') && !(ev.target instanceof HTMLButtonElement);
    if (field || inEditor) {
      if (ev.key === 'Enter' && !ev.shiftKey && !ev.isComposing && h.enterInField(ev.target)) ev.preventDefault();
      if (field || ev.key === 'Enter') return;
    }
    if (ev.defaultPrevented || ev.ctrlKey || ev.metaKey) return;
    if (h.modal() && ev.key !== '?') return;
    if (ev.altKey) {
      const m = /^Digit([0-9])$/.exec(ev.code);
      if (m) {
        ev.preventDefault();
        h.toggleLane(Number(m[1]));
      }
      return;
    }
    const fn = keyHandler(h, ev.key);
    if (!fn) return;
    if (ev.target instanceof HTMLButtonElement && (ev.key === 'Enter' || ev.key === ' ')) return;
    ev.preventDefault();
    fn();
  });
}
