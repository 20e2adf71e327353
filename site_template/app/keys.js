/**
 * Keyboard shortcuts. While typing in a field only Esc (leaves the field), Enter in the note (saves;
 * Shift+Enter is a newline) and Ctrl+Enter act: letters and digits are text there.
 */

export const SHORTCUTS = [
  ['n / j', 'next record'], ['p / k', 'previous record'], ['1 … 9', 'toggle label 1 … 9'],
  ['Enter', 'save the annotation (in the note too; Shift+Enter: new line; Ctrl+Enter also saves)'],
  ['s', 'submit the record (and go to the next); a finished draft is saved first'],
  ['d', 'discard the record (and go to the next)'],
  ['Esc', 'leave a field; close an overlay; clear the draft (twice when it has a label or a note)'],
  ['Ctrl+Z', 'undo the last delete, edit, submit or discard (while its notice shows)'],
  ['. / ,', 'next / previous highlighted match'], ['g', 'guidelines'], ['?', 'this help'],
];

/**
 * @param handlers {next, prev, label(i), save, submit, discard, escape, undo, nextMatch, prevMatch,
 *   guidelines, help}
 */
export function mountKeys(handlers) {
  document.addEventListener('keydown', (ev) => {
    if (ev.defaultPrevented) return;
    const field = ev.target instanceof Element
      && ev.target.closest('input:not([type=checkbox]):not([type=range]), textarea, select, [contenteditable]');
    if (ev.key === 'Escape') {
      if (field) ev.target.blur(); // leaving a field is all Esc does there
      else handlers.escape();
      return;
    }
    if (field) {
      if (ev.key === 'Enter' && ev.target.id === 'draft-note' && !ev.shiftKey && !ev.isComposing) {
        ev.preventDefault();
        handlers.save();
      }
      return;
    }
    if ((ev.ctrlKey || ev.metaKey) && !ev.altKey && !ev.shiftKey && ev.key.toLowerCase() === 'z') {
      if (handlers.undo()) ev.preventDefault();
      return;
    }
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const map = {
      n: handlers.next, j: handlers.next, p: handlers.prev, k: handlers.prev,
      Enter: handlers.save, s: handlers.submit, d: handlers.discard,
      '.': handlers.nextMatch, ',': handlers.prevMatch, g: handlers.guidelines, '?': handlers.help,
    };
    let fn = map[ev.key];
    if (!fn && /^[1-9]$/.test(ev.key)) fn = () => handlers.label(Number(ev.key) - 1);
    if (!fn) return;
    if (ev.key === 'Enter' && ev.target instanceof HTMLButtonElement) return; // let Enter press buttons
    ev.preventDefault();
    fn();
  });
}
