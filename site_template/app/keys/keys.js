/**
 * Keyboard shortcuts. While typing in a field only Esc (leaves the field), Enter in the note (saves and
 * leaves it; Shift+Enter is a newline), Ctrl+Enter and Enter in a one-line field (leaves it) act:
 * letters and digits are text there.
 */

/** The help rows of the fixed keys (the one-key shortcuts of actions are keymap.js's, settings may change them). */
export const SHORTCUTS = [
  ['1 … 9, 10 …', 'toggle the label of that number (from 10 labels on, two digits typed quickly make one number: 1 then 2 is label 12)'],
  ['Enter', 'save the annotation (in the note too, which it leaves; Shift+Enter: new line; Ctrl+Enter also saves); on a saved annotation walked to: open it in the draft (change its span, labels, note, source span; Enter saves it)'],
  ['Esc', 'leave a field; close an overlay; end a walk; clear the draft (twice when it has a label or a note)'],
  ['Ctrl+Z', 'undo the last change (again: the one before; the side panel lists this record\'s changes)'],
  ['Ctrl+Shift+Z / Ctrl+Y', 'redo the last change undone'],
  ['→ / ←', 'select the next / previous word (in the focused pane, else the summary)'],
  ['↓ / ↑', 'select the next / previous sentence'],
  ['Shift + arrows', 'extend / shrink the selection by a word or a sentence'],
  ['Alt+Shift + ← / →', 'grow / shrink the start of the selection by a word'],
  ['Tab', 'move between controls; in a dialog it stays in the dialog'],
];

/**
 * How long a digit waits for a second one where some option's number has two digits (Argilla's rating
 * shortcut waits 300 ms; a little more for a slower typist).
 */
export const NUMBER_MS = 500;

/**
 * Options picked by typing their number. `keys()` gives each option's key ('0' … '12'), `pick(i)` takes
 * option i. Digits typed in a row make one number while it can still grow into a longer key: 1 then 2 is
 * 12 where there are 12 options, 1 alone is taken after NUMBER_MS or by the next key (flush()); up to 9
 * options (or 2 … 9 of twelve) every digit acts at once, as before. Returns {digit(d) -> whether it is
 * (or may begin) a key, flush(), reset() (a new record: the pending digits are dropped)}.
 */
export function numberKeys(keys, pick) {
  let typed = '';
  let timer = 0;
  const reset = () => {
    clearTimeout(timer);
    typed = '';
  };
  const take = () => {
    const i = keys().indexOf(typed);
    reset();
    if (i >= 0) pick(i);
  };
  return {
    digit(d) {
      const ks = keys();
      const starts = (t) => ks.some((k) => k.startsWith(t));
      if (typed && !starts(typed + d)) take(); // 1 then 5 of twelve: option 1, then option 5
      clearTimeout(timer);
      typed += d;
      if (!starts(typed)) {
        typed = '';
        return false;
      }
      if (ks.some((k) => k !== typed && k.startsWith(typed))) timer = setTimeout(take, NUMBER_MS);
      else take();
      return true;
    },
    flush() {
      if (typed) take();
    },
    reset,
  };
}

const ARROWS = { ArrowRight: ['word', 1], ArrowLeft: ['word', -1], ArrowDown: ['sentence', 1], ArrowUp: ['sentence', -1] };

const FOCUSABLE = 'button, [href], input:not([type=hidden]), select, textarea, [tabindex]:not([tabindex="-1"])';

/**
 * Keep Tab inside `container` (a dialog) and focus its first control; the returned function releases
 * it and gives the focus back to where it was.
 */
export function trapFocus(container) {
  const back = document.activeElement;
  const focusables = () => [...container.querySelectorAll(FOCUSABLE)]
    .filter((el) => !el.disabled && el.getClientRects().length);
  const onKey = (ev) => {
    if (ev.key !== 'Tab') return;
    const f = focusables();
    if (!f.length) return;
    const at = f.indexOf(document.activeElement);
    if (at < 0 || (ev.shiftKey && at === 0) || (!ev.shiftKey && at === f.length - 1)) {
      ev.preventDefault();
      (ev.shiftKey ? f[f.length - 1] : f[0]).focus();
    }
  };
  document.addEventListener('keydown', onKey, true);
  (focusables()[0] || container).focus();
  return () => {
    document.removeEventListener('keydown', onKey, true);
    if (back && back !== document.body && back.isConnected && typeof back.focus === 'function') back.focus({ preventScroll: true });
    else if (container.contains(document.activeElement)) document.activeElement.blur(); // back to the page
  };
}

/**
 * @param handlers {next, prev, labelDigit(d), flushNumber, save, submit, discard, escape, undo, nextMatch, prevMatch,
 *   pairMatch, noSource, note, leaveField, otherPane, step(side | null, unit, dir, extend), modal() -> bool,
 *   guidelines, help, nextTodo, toggleList, toggleSide, exportNow, filter, find(side | null),
 *   stepStart(side | null, dir),
 *   redo, nextSaved, prevSaved, deleteSaved, suggestions, nextQuestion?, prevQuestion?, accept?}
 * @param byKey {key: action} (keymap.js: the defaults and the settings' changes)
 */
export function mountKeys(handlers, byKey) {
  // eslint-disable-next-line complexity -- dispatches every key context; a handler per context would split it
  document.addEventListener('keydown', (ev) => {
    if (!/^[0-9]$/.test(ev.key)) handlers.flushNumber(); // any other key first takes a label number being typed
    const field = ev.target instanceof Element
      && ev.target.closest('input:not([type=checkbox]):not([type=radio]):not([type=range]), textarea, select, [contenteditable]');
    // Enter ends the typing in the note (it saves) and in a one-line field of the page (the record filter,
    // k): the focus leaves even when nothing was saved, so the keys typed next are shortcuts, not text
    if (field && ev.key === 'Enter' && !ev.shiftKey && !ev.isComposing) {
      const note = ev.target.id === 'draft-note';
      if (note || (ev.target instanceof HTMLInputElement && !ev.target.closest('form, .overlay'))) {
        if (note && !ev.defaultPrevented) {
          ev.preventDefault();
          handlers.save();
        }
        handlers.leaveField();
      }
      return;
    }
    if (ev.defaultPrevented) return;
    if (ev.key === 'Escape') {
      if (field) ev.target.blur(); // leaving a field is all Esc does there
      else handlers.escape();
      return;
    }
    if (field) return;
    if (handlers.modal() && ev.key !== '?' && ev.key !== 'g') return; // a dialog is open: Tab and its buttons only
    const pane = ev.target instanceof Element ? ev.target.closest('.scroller[id^="pane-"]') : null;
    if (ev.altKey && ev.shiftKey && !ev.ctrlKey && !ev.metaKey && (ev.key === 'ArrowLeft' || ev.key === 'ArrowRight')) {
      ev.preventDefault(); // Alt+Shift+←/→: the start of the selection a word back / forward
      handlers.stepStart(pane ? pane.id.slice(5) : null, ev.key === 'ArrowLeft' ? -1 : 1);
      return;
    }
    if (ARROWS[ev.key] && !ev.ctrlKey && !ev.metaKey && !ev.altKey) {
      // in a pane: that pane; elsewhere (the page, a button) the summary; lists and panels keep their arrows
      if (pane || !(ev.target instanceof Element) || !ev.target.closest('#record-list, .guidelines, .overlay, [role=listbox]')) {
        ev.preventDefault();
        handlers.step(pane ? pane.id.slice(5) : null, ...ARROWS[ev.key], ev.shiftKey);
      }
      return;
    }
    if ((ev.ctrlKey || ev.metaKey) && !ev.altKey && !ev.shiftKey && ev.key.toLowerCase() === 'z') {
      if (handlers.undo()) ev.preventDefault();
      return;
    }
    if ((ev.ctrlKey || ev.metaKey) && !ev.altKey && ((ev.shiftKey && ev.key.toLowerCase() === 'z') || (!ev.shiftKey && ev.key.toLowerCase() === 'y'))) {
      if (handlers.redo()) ev.preventDefault();
      return;
    }
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const side = pane ? pane.id.slice(5) : null;
    const byAction = {
      next: handlers.next, prev: handlers.prev, submit: handlers.submit, discard: handlers.discard,
      next_match: handlers.nextMatch, prev_match: handlers.prevMatch, guidelines: handlers.guidelines,
      help: handlers.help, pair: handlers.pairMatch, no_source: handlers.noSource, note: handlers.note,
      other_pane: () => handlers.otherPane(side),
      next_todo: handlers.nextTodo, toggle_list: handlers.toggleList, toggle_side: handlers.toggleSide,
      export: handlers.exportNow, filter: handlers.filter, find: () => handlers.find(side),
      next_saved: handlers.nextSaved, prev_saved: handlers.prevSaved, delete_saved: handlers.deleteSaved,
      suggestions: handlers.suggestions,
      // the questions form (questions.js)
      next_question: handlers.nextQuestion, prev_question: handlers.prevQuestion, accept: handlers.accept,
    };
    const map = { Enter: handlers.save };
    for (const [k, action] of Object.entries(byKey)) map[k] = byAction[action];
    let fn = map[ev.key];
    if (!fn && /^[0-9]$/.test(ev.key)) fn = () => handlers.labelDigit(ev.key);
    if (!fn) return;
    if (ev.key === 'Enter' && ev.target instanceof HTMLButtonElement) return; // let Enter press buttons
    ev.preventDefault();
    fn();
  });
}
