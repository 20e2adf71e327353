/**
 * The history of the open record's changes, in the side panel: the steps of the session
 * (history.js) on this record, oldest first, the undone ones (redo can bring them back) struck through,
 * with Undo and Redo.
 */
import { watch } from '../state/store.js';
import { h } from '../util.js';

const time = (ms) => new Date(ms).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });

export function mountHistory(store, actions, box) {
  watch(store, (s) => [s.history, s.current.id], (s) => {
    const { past, future } = s.history;
    const id = s.current.id;
    const done = past.filter((st) => st.id === id);
    const undone = [...future].reverse().filter((st) => st.id === id);
    const undo = h('button', { type: 'button', 'data-action': 'history-undo', disabled: !past.length, title: 'Ctrl+Z' }, 'Undo');
    const redo = h('button', { type: 'button', 'data-action': 'history-redo', disabled: !future.length, title: 'Ctrl+Shift+Z or Ctrl+Y' }, 'Redo');
    undo.addEventListener('click', () => actions.undo());
    redo.addEventListener('click', () => actions.redo());
    const row = (st, state) => h('li', { class: state, 'data-step': state }, h('span', {}, st.text), ' ',
      h('span', { class: 'muted' }, time(st.at)), state === 'undone' ? h('span', { class: 'muted' }, ' · undone') : null);
    box.replaceChildren(h('h3', {}, `Changes to this record (${done.length})`),
      done.length || undone.length
        ? h('ol', { class: 'history-list', id: 'history-list' }, done.map((st) => row(st, 'done')), undone.map((st) => row(st, 'undone')))
        : h('p', { class: 'muted' }, 'None in this session yet.'),
      h('div', { class: 'row' }, undo, redo));
  });
}
