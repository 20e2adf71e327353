/**
 * The review mode (docs/review.md), its composition root: started by main.js when the manifest has
 * `review`. One store (the annotation page's, state/store.js: the same saving, tabs, journal and "saved"
 * truth) holds the reviewer's work and the review slice (state/review.js: what is shown and every rule of
 * reviewing); the renderers (mount.js) draw it, the controllers (commands.js: keys, buttons, help;
 * files.js: export and import) only hand the page's events to its actions.
 */
import { createAppStore, unexportedCount, watch } from '../state/store.js';
import { reviewSlice } from '../state/review.js';
import { WorkStorage } from '../state/storage.js';
import { clientId } from '../state/prefs.js';
import { h } from '../util.js';
import { mountBanners } from '../views/banners.js';
import { mountSaveStatus } from '../views/savestatus.js';
import { mountReviewCommands } from './commands.js';
import { ReviewData } from './data.js';
import { mountReviewFiles } from './files.js';
import { reviewLayout } from './layout.js';
import { mountReviewViews } from './mount.js';

/** The address follows the open review record (`#record=ID`). */
function mountAddress(store) {
  watch(store, (s) => [s.review.row], (s) => {
    const { row } = s.review;
    if (row) window.history.replaceState(null, '', `${window.location.pathname}${window.location.search}#record=${encodeURIComponent(row.id)}`);
  });
}

/** The first record: the deep-linked one (`#record=ID`), else the most contested. */
async function firstPosition(data, firstRows, wanted) {
  await firstRows;
  if (!wanted) return 0;
  const id = decodeURIComponent(wanted[1]);
  let at = data.rows.findIndex((r) => r && r.id === id);
  if (at < 0) at = (await data.allRows()).findIndex((r) => r && r.id === id);
  return Math.max(at, 0);
}

export async function startReview({ bundle, reviewer, version }) {
  const { manifest } = bundle;
  document.head.append(h('link', { rel: 'stylesheet', href: 'app/review/review.css' }));
  const storage = new WorkStorage(manifest.review.review_id, reviewer);
  window.addEventListener('pagehide', () => storage.saveJournal());
  const opening = storage.open().catch((error) => ({ work: null, aside: [], error }));
  // The first contested record is the critical path: its rows, review record and texts are asked for at once.
  const data = await ReviewData.open(bundle);
  const wanted = /(?:^#|&)record=([^&]*)/.exec(window.location.hash);
  const firstRows = data.orderShard(0);
  if (!wanted) firstRows.then((rows) => rows.length && bundle.prefetch(rows[0].id), () => {});
  const opened = await opening;
  const store = createAppStore({
    bundle, annotator: reviewer, clientId: clientId(), storage, work: opened.work, aside: opened.aside,
    lost: opened.lost || [], openError: opened.error, view: {}, review: reviewSlice({ data, reviewer }),
  });
  const { actions } = store;

  reviewLayout(manifest, data);
  document.getElementById('annotator').textContent = reviewer;
  const files = mountReviewFiles(store, { bundle, data, reviewer });
  mountBanners(store, actions, document.getElementById('banners'), files.exportNow);
  mountSaveStatus(store, document.getElementById('save-status'));
  storage.watch((work) => actions.mergeExternal(work));
  const views = mountReviewViews(store);
  mountReviewCommands(store, { views, files });
  mountAddress(store);
  window.mercuryStatic = { store, version, unexported: () => unexportedCount(store.state.work) };

  await actions.review.open(await firstPosition(data, firstRows, wanted));
  performance.mark('mercury-review-first-record');
  document.body.dataset.ready = 'true';
  actions.review.loadRows();
}
