/**
 * Find-and-select: `f` opens a box over the focused text; what is typed lights its next
 * occurrence from the pane's caret (case-insensitive, any run of spaces matching any other); Enter takes
 * it as the selection (grown to whole words unless the span question's granularity is "character"),
 * Shift+Enter or ↓ / ↑ move to the next / previous occurrence, Esc closes the box. The phrase stays:
 * `f` then Enter takes its next occurrence.
 *
 * The occurrence is shown with a CSS highlight while the box has the focus (the page's selection would
 * take the focus from the box); taking it goes through KeyboardSelection.select, as a word key does.
 */
import { h } from '../util.js';

const HIGHLIGHT = 'ms-find';
const MAX_MATCHES = 10000; // a one-letter phrase in a long source: counted up to this many

const escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The UTF-16 spans of `phrase` in `text` (case-insensitive; whitespace matches any whitespace run). */
export function occurrences(text, phrase) {
  const words = phrase.trim().split(/\s+/).filter(Boolean);
  if (!words.length) return [];
  const re = new RegExp(words.map(escapeRe).join('\\s+'), 'giu');
  const out = [];
  for (let m = re.exec(text); m && out.length < MAX_MATCHES; m = re.exec(text)) {
    out.push([m.index, m.index + m[0].length]);
    if (!m[0].length) re.lastIndex += 1;
  }
  return out;
}

/**
 * @param panes {source, summary} TextPane
 * @param keysel KeyboardSelection (its caret: where a search starts; its select: taking the occurrence)
 * @param opts {words: whether a taken occurrence grows to whole words}
 * @returns {open(side), close(), isOpen()}
 */
export function mountFind(panes, keysel, { words = true } = {}) {
  const input = h('input', {
    id: 'find-input', type: 'search', autocomplete: 'off', spellcheck: 'false', 'aria-label': 'find in the text',
  });
  const count = h('span', { id: 'find-count', class: 'find-count', 'aria-live': 'polite' });
  const bar = h('div', { id: 'find-bar', class: 'find-bar', role: 'search', hidden: true }, input, count);
  let side = null;
  let matches = []; // code-point spans
  let at = -1;
  let origin = 0;

  const highlight = (range) => {
    if (typeof CSS === 'undefined' || !CSS.highlights || typeof Highlight !== 'function') return;
    if (range) CSS.highlights.set(HIGHLIGHT, new Highlight(range));
    else CSS.highlights.delete(HIGHLIGHT);
  };

  function show() {
    const m = matches[at];
    count.textContent = !input.value.trim() ? '' : m ? `${at + 1} of ${matches.length}${matches.length >= MAX_MATCHES ? '+' : ''}` : 'not found';
    bar.classList.toggle('none', Boolean(input.value.trim()) && !m);
    highlight(m ? panes[side].rangeFor(m[0], m[1]) : null);
    if (m) panes[side].scrollToOffset(m[0]);
  }

  /** The occurrences of the phrase in the pane's text; the current one the first at or after `origin`. */
  function search() {
    const view = panes[side].view;
    if (!view) return;
    const o = view.offsets;
    matches = occurrences(view.text, input.value).map((span) => o.spanCp(span));
    at = matches.length ? Math.max(0, matches.findIndex(([s]) => s >= origin)) : -1;
    show();
  }

  function move(dir) {
    if (!matches.length) return;
    at = (at + dir + matches.length) % matches.length;
    show();
  }

  function close() {
    if (bar.hidden) return;
    bar.hidden = true;
    highlight(null);
  }

  function take() {
    const m = matches[at];
    const target = side;
    close();
    panes[target].scroller.focus({ preventScroll: true });
    if (!m) return;
    const [s, e] = words ? keysel.snap(target, m[0], m[1]) : m;
    keysel.select(target, s, e);
  }

  input.addEventListener('input', search);
  input.addEventListener('keydown', (ev) => {
    // the page's keys (keys.js) never see these: Enter there would leave the field, Esc clear the draft
    if (ev.key === 'Enter' && !ev.isComposing) {
      if (ev.shiftKey) move(1);
      else take();
    } else if (ev.key === 'ArrowDown' || ev.key === 'ArrowUp') {
      move(ev.key === 'ArrowDown' ? 1 : -1);
    } else if (ev.key === 'Escape') {
      const target = side;
      close();
      panes[target].scroller.focus({ preventScroll: true });
    } else {
      return;
    }
    ev.preventDefault();
    ev.stopPropagation();
  });
  input.addEventListener('blur', close);

  return {
    /** Open the box over `side`'s text; a phrase kept from before lights its next occurrence at once. */
    open(target) {
      if (!panes[target].view) return;
      side = target;
      keysel.reset(); // a new record since the last selection: its caret starts at 0
      const cur = keysel.getSpan(side);
      origin = cur ? cur[1] : keysel.caret[side];
      document.querySelector(`.pane[data-pane="${side}"]`).append(bar);
      input.setAttribute('aria-label', `find in the ${side}`);
      bar.hidden = false;
      input.focus();
      input.select();
      search();
    },
    close,
    isOpen: () => !bar.hidden,
  };
}
