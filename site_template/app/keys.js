/** Keyboard shortcuts (ignored while typing in a field, except Esc and Ctrl+Enter). */

export const SHORTCUTS = [
  ['n / j', 'next record'], ['p / k', 'previous record'], ['1 … 9', 'toggle label 1 … 9'],
  ['Enter', 'save the annotation'], ['s', 'submit the record (and go to the next)'],
  ['d', 'discard the record (and go to the next)'], ['Esc', 'clear selection, highlights, overlays'],
  ['. / ,', 'next / previous highlighted match'], ['t', 'next record still to do'],
  ['[ / ]', 'show / hide the record list / the annotation panel'], ['g', 'guidelines'], ['?', 'this help'],
];

/**
 * @param handlers {next, prev, label(i), save, submit, discard, clear, nextMatch, prevMatch, guidelines, help,
 *   nextTodo, toggleList, toggleSide}
 */
export function mountKeys(handlers) {
  document.addEventListener('keydown', (ev) => {
    const field = ev.target instanceof Element
      && ev.target.closest('input:not([type=checkbox]):not([type=range]), textarea, select, [contenteditable]');
    if (ev.key === 'Escape') {
      if (field) ev.target.blur();
      handlers.clear();
      return;
    }
    if (field) {
      if (ev.key === 'Enter' && (ev.ctrlKey || ev.metaKey) && ev.target.id === 'draft-note') {
        ev.preventDefault();
        handlers.save();
      }
      return;
    }
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const map = {
      n: handlers.next, j: handlers.next, p: handlers.prev, k: handlers.prev,
      Enter: handlers.save, s: handlers.submit, d: handlers.discard,
      '.': handlers.nextMatch, ',': handlers.prevMatch, g: handlers.guidelines, '?': handlers.help,
      t: handlers.nextTodo, '[': handlers.toggleList, ']': handlers.toggleSide,
    };
    let fn = map[ev.key];
    if (!fn && /^[1-9]$/.test(ev.key)) fn = () => handlers.label(Number(ev.key) - 1);
    if (!fn) return;
    if (ev.key === 'Enter' && ev.target instanceof HTMLButtonElement) return; // let Enter press buttons
    ev.preventDefault();
    fn();
  });
}
