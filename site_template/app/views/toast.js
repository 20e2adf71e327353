/** The notice of the last undoable change. */
import { watch } from '../state/store.js';
import { h } from '../util.js';

/** The notice of the last undoable change (delete, edit, submit, discard) with "Undo" (also Ctrl+Z). */
export function mountToast(store, actions, box) {
  let timer = null;
  watch(store, (s) => [s.ui.toast], (s) => {
    clearTimeout(timer);
    const t = s.ui.toast;
    if (!t) {
      box.replaceChildren();
      box.hidden = true;
      return;
    }
    const undo = h('button', { type: 'button', 'data-action': 'undo' }, 'Undo');
    undo.addEventListener('click', () => actions.undo());
    box.replaceChildren(h('span', {}, t.text, ' '), undo, h('span', { class: 'muted' }, ' Ctrl+Z'));
    box.hidden = false;
    timer = setTimeout(() => {
      if (store.state.ui.toast === t) actions.dismissToast();
    }, 12_000);
  });
}
