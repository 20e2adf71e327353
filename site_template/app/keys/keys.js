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
 * How long a digit waits for a second one where some option's number has two digits (a little longer than
 * Argilla's rating shortcut waits, for a slower typist).
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

const DIGIT = /^[0-9]$/;
const FIELD = 'input:not([type=checkbox]):not([type=radio]):not([type=range]), textarea, select, [contenteditable]';
const PANE = '.scroller[id^="pane-"]';
const ARROWS = { ArrowRight: ['word', 1], ArrowLeft: ['word', -1], ArrowDown: ['sentence', 1], ArrowUp: ['sentence', -1] };
/** Where the arrows are the element's own (they scroll or move in it), unless in a pane. */
const OWN_ARROWS = '#record-list, .guidelines, .overlay, [role=listbox]';
/** The keys that act while a dialog (help, guidelines) is open, besides Esc: the ones that close it. */
const DIALOG_KEYS = ['?', 'g'];
/** Ctrl (Cmd) + key: undo and redo. */
const HISTORY_KEYS = new Map([['z', 'undo'], ['Shift+z', 'redo'], ['y', 'redo']]);
/** Each action of keymap.js and the handler it calls; `find` and `other_pane` are given the focused pane. */
const ACTION_HANDLERS = new Map(Object.entries({
  next: 'next', prev: 'prev', submit: 'submit', discard: 'discard', next_match: 'nextMatch', prev_match: 'prevMatch',
  guidelines: 'guidelines', help: 'help', pair: 'pairMatch', no_source: 'noSource', note: 'note',
  other_pane: 'otherPane', next_todo: 'nextTodo', toggle_list: 'toggleList', toggle_side: 'toggleSide',
  export: 'exportNow', filter: 'filter', find: 'find', next_saved: 'nextSaved', prev_saved: 'prevSaved',
  delete_saved: 'deleteSaved', suggestions: 'suggestions',
  // the questions form (questions.js)
  next_question: 'nextQuestion', prev_question: 'prevQuestion', accept: 'accept',
  // the sentence verdicts (views/verdicts.js)
  next_sentence: 'nextSentence', prev_sentence: 'prevSentence', confirm_sentence: 'confirmSentence',
  sentence_verdict: 'sentenceVerdict', accept_sentence: 'acceptSentence',
}));
const WITH_SIDE = new Set(['otherPane', 'find']);

/**
 * Enter in a field ends the typing in the note (it saves) and in a one-line field of the page (the record
 * filter, k): the focus leaves even when nothing was saved, so the keys typed next are shortcuts, not text.
 */
function enterInField(ev, handlers) {
  const note = ev.target.id === 'draft-note';
  if (!note && !(ev.target instanceof HTMLInputElement && !ev.target.closest('form, .overlay'))) return;
  if (note && !ev.defaultPrevented) {
    ev.preventDefault();
    handlers.save();
  }
  handlers.leaveField();
}

/** A key in a field: only Enter (enterInField) and Esc (leaves the field) act; letters and digits are text. */
function fieldKey(ev, handlers) {
  if (ev.key === 'Enter' && !ev.shiftKey && !ev.isComposing) enterInField(ev, handlers);
  else if (ev.key === 'Escape' && !ev.defaultPrevented) ev.target.blur();
}

/**
 * Arrows: the selection by a word or a sentence, Alt+Shift+← / →: its start by a word, in the pane `pane`
 * (else the summary); whether the key was one of them (lists and panels keep their arrows).
 */
function selectionKey(ev, handlers, pane) {
  const side = pane ? pane.id.slice(5) : null;
  const noCtrl = !ev.ctrlKey && !ev.metaKey;
  if (ev.altKey && ev.shiftKey && noCtrl && (ev.key === 'ArrowLeft' || ev.key === 'ArrowRight')) {
    ev.preventDefault();
    handlers.stepStart(side, ev.key === 'ArrowLeft' ? -1 : 1);
    return true;
  }
  if (!ARROWS[ev.key] || !noCtrl || ev.altKey) return false;
  if (pane || !(ev.target instanceof Element) || !ev.target.closest(OWN_ARROWS)) {
    ev.preventDefault();
    handlers.step(side, ...ARROWS[ev.key], ev.shiftKey);
  }
  return true;
}

/** Ctrl+Z, Ctrl+Shift+Z, Ctrl+Y (or Cmd): whether the key was one of them; taken only when there was a step. */
function historyKey(ev, handlers) {
  if (!(ev.ctrlKey || ev.metaKey) || ev.altKey) return false;
  const name = HISTORY_KEYS.get(`${ev.shiftKey ? 'Shift+' : ''}${ev.key.toLowerCase()}`);
  if (!name) return false;
  if (handlers[name]()) ev.preventDefault();
  return true;
}

/**
 * The command of a key without modifiers: its action's handler (Enter: save, unless the settings give it an
 * action), else a digit's label; null when neither.
 */
function commandOf(key, handlers, byKey, side) {
  const name = Object.hasOwn(byKey, key) ? ACTION_HANDLERS.get(byKey[key]) : key === 'Enter' && 'save';
  if (name && handlers[name]) return WITH_SIDE.has(name) ? () => handlers[name](side) : () => handlers[name]();
  return DIGIT.test(key) ? () => handlers.labelDigit(key) : null;
}

/**
 * @param handlers {next, prev, labelDigit(d), flushNumber, save, submit, discard, escape, undo, nextMatch, prevMatch,
 *   pairMatch, noSource, note, leaveField, otherPane, step(side | null, unit, dir, extend), modal() -> bool,
 *   guidelines, help, nextTodo, toggleList, toggleSide, exportNow, filter, find(side | null),
 *   stepStart(side | null, dir),
 *   redo, nextSaved, prevSaved, deleteSaved, suggestions, nextQuestion?, prevQuestion?, accept?, nextSentence?,
 *   prevSentence?, confirmSentence?, sentenceVerdict?, acceptSentence?}
 * @param byKey {key: action} (keymap.js: the defaults and the settings' changes)
 */
export function mountKeys(handlers, byKey) {
  document.addEventListener('keydown', (ev) => {
    if (!DIGIT.test(ev.key)) handlers.flushNumber(); // any other key first takes a label number being typed
    if (ev.target instanceof Element && ev.target.closest(FIELD)) {
      fieldKey(ev, handlers);
      return;
    }
    if (ev.defaultPrevented) return;
    if (ev.key === 'Escape') {
      handlers.escape();
      return;
    }
    if (handlers.modal() && !DIALOG_KEYS.includes(ev.key)) return; // a dialog is open: Tab and its buttons only
    const pane = ev.target instanceof Element ? ev.target.closest(PANE) : null;
    if (selectionKey(ev, handlers, pane) || historyKey(ev, handlers) || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const fn = commandOf(ev.key, handlers, byKey, pane ? pane.id.slice(5) : null);
    if (!fn) return;
    if (ev.key === 'Enter' && ev.target instanceof HTMLButtonElement) return; // let Enter press buttons
    ev.preventDefault();
    fn();
  });
}
