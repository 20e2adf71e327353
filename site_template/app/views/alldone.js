/** The side panel's footer and the "all done" card. */
import { statusCounts } from '../state/nav.js';
import { recordStatus, undelivered, watch } from '../state/store.js';
import { h } from '../util.js';
import { plural } from './wording.js';

/** The footer under the side panel: "reopen" only on a record that is done. */
export function mountFinish(store, footer) {
  const reopen = footer.querySelector('[data-action="reopen"]');
  watch(store, (s) => [s.work, s.current.id], (s) => {
    const st = s.current.id ? recordStatus(s.work, s.current.id) : 'todo';
    reopen.hidden = st !== 'submitted' && st !== 'discarded';
  });
}

/**
 * "All done": after the last record still to do was finished, every record is done. Shown while
 * `ui.allDone` is set (the store's goNextTodo); says what is left: export and send the file.
 */
export function mountAllDone(store, bundle, box, { close, queue = null }) {
  const queueIds = queue?.ids;
  watch(store, (s) => [s.ui.allDone, s.work, s.placed, s.ui.upload], (s) => {
    box.hidden = !s.ui.allDone;
    if (!s.ui.allDone) return;
    const c = queueIds ? statusCounts(queueIds.length, queueIds, s.work)
      : statusCounts(bundle.recordIndex.count, s.placed.keys(), s.work);
    const { n, uploads } = undelivered(s.work, s.ui.upload);
    const uploadedText = n
      ? `${plural(n, 'change')} ${n === 1 ? 'is' : 'are'} not uploaded yet (your coordinator has the rest): wait for "uploaded", or press Export and send the file to your coordinator.`
      : 'Everything is uploaded: your coordinator has all your work.';
    const exp = h('button', { type: 'button', class: 'primary', 'data-action': 'export' }, 'Export');
    const review = h('button', { type: 'button', 'data-action': 'close-all-done' }, 'Review records');
    review.addEventListener('click', close);
    box.replaceChildren(
      h('h2', {}, `All ${plural(c.total, 'record')}${queueIds ? ' of your queue' : ''} done`),
      h('p', {}, `${c.submitted} submitted, ${c.discarded} discarded.`),
      h('p', { id: 'all-done-export' }, uploads ? uploadedText : n
        ? `${plural(n, 'change')} ${n === 1 ? 'is' : 'are'} only in this browser: press Export and send the file to your coordinator.`
        : 'Everything is exported. If you have not sent the latest export file to your coordinator yet, send it now.'),
      h('div', { class: 'row' }, exp, review));
  });
}
