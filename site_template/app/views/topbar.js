/** The top bar's counters: position, progress, what is not exported or uploaded, the model's state. */
import { statusCounts } from '../state/nav.js';
import { undelivered, watch } from '../state/store.js';
import { downloadText, plural } from './wording.js';

/**
 * Record position, progress, unexported counter, model status, annotator name. With the annotator's
 * `queue` (queue.js), the progress counts her queue: "12 / 40 of your queue".
 */
export function mountTopbar(store, bundle, bar, queue = null) {
  const [pos, fill, ptext, unexp, model] = ['rec-pos', 'progress-fill', 'progress-text', 'unexported', 'model-status']
    .map((id) => bar.querySelector(`#${id}`));
  bar.querySelector('#annotator').textContent = store.state.annotator;
  const total = bundle.recordIndex.count;
  const queueIds = queue?.ids;
  watch(store, (s) => [s.current.index], (s) => {
    pos.textContent = total ? `${s.current.index + 1} / ${total}` : '0 / 0';
  });
  watch(store, (s) => [s.work, s.placed, s.ui.upload], (s) => {
    const c = statusCounts(total, s.placed.keys(), s.work);
    const q = queueIds ? statusCounts(queueIds.length, queueIds, s.work) : null;
    fill.style.width = q ? `${q.total ? (100 * q.done) / q.total : 0}%` : `${total ? (100 * c.done) / total : 0}%`;
    ptext.textContent = q ? `${q.done} / ${q.total} of your queue` : `${c.done} / ${total} done`;
    ptext.parentElement.title = `${c.submitted} submitted · ${c.discarded} discarded · ${c.in_progress} in progress · ${c.todo} to do`;
    // with an upload link the storage is how work reaches the coordinator: count what it lacks
    const { n, uploads } = undelivered(s.work, s.ui.upload);
    if (uploads) {
      unexp.textContent = n ? `${n} not uploaded` : 'all uploaded';
      unexp.title = n ? `${plural(n, 'change')} not uploaded yet; your coordinator has everything else` : 'Your coordinator has all your work';
    } else {
      unexp.textContent = n ? `${n} not exported` : 'all exported';
      unexp.title = n ? `${plural(n, 'change')} not yet in an export file: press Export` : 'Everything is in an export file';
    }
    unexp.dataset.count = String(n);
  });
  watch(store, (s) => [s.model], (s) => {
    const text = {
      idle: 'model: waiting', loading: 'model: loading…', ready: 'model: ready',
      failed: 'precomputed only', // no model: its title says why
    };
    model.dataset.status = s.model.status;
    model.textContent = text[s.model.status] || s.model.status;
    model.title = [s.model.status === 'failed' ? 'model unavailable: using precomputed vectors' : model.textContent, s.model.message]
      .filter(Boolean).join(': ');
    if (s.model.status === 'loading' && s.model.loaded !== null) {
      const { short, long } = downloadText(s.model.loaded, s.model.total, performance.now() - s.model.since);
      model.textContent = short;
      model.title = `${long}. The evidence shown meanwhile is precomputed.`;
    }
  });
}
