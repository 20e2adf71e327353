/** The top bar's "saved" indicator (the annotation page and the review mode both mount it). */
import { SAVE_WORDS, saveStatusOf } from '../state/saving.js';

/**
 * The "saved" indicator: `{state: 'idle'|'saving'|'saved'|'error', at?: ISO time, message?}`. Whoever
 * knows a change is durable calls it (storage decides; this only draws).
 */
let clock = null; // made once: toLocaleTimeString builds a formatter per call (at every save)

function renderSaveStatus(el, { state, at = null, message = '' }) {
  el.dataset.state = state;
  if (!clock) clock = new Intl.DateTimeFormat([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });
  const time = at && state === 'saved' && !message ? clock.format(new Date(at)) : '';
  el.textContent = SAVE_WORDS[state === 'error' ? 'failed' : state]?.short ?? '';
  el.title = message || (state === 'saved' ? `Your last change is saved in this browser (${time}).` : '');
}

/**
 * The top bar's "saved" indicator, drawn from the store (saving.js `saveStatusOf`: "saved" only once storage
 * says the change is on disk); the annotation page and the review mode both mount it.
 */
export function mountSaveStatus(store, el) {
  const show = (s) => renderSaveStatus(el, saveStatusOf(s.ui));
  store.subscribe((s, prev) => {
    if (s.ui.save !== prev.ui.save || s.ui.storageError !== prev.ui.storageError) show(s);
  });
  if (store.state.ui.storageError) show(store.state); // known at load: refused, or lost as a page closed
}
