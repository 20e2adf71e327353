/**
 * Entry point, the composition root: open the bundle, settle the annotator, build the store, the panes
 * and the views, start the controllers (controllers/), open the first record, then load the model lazily.
 * Every rule is the store's (state/store.js); the controllers only wire the page's events to its actions.
 */
import { firstRecord, opening, recordIdFromHash } from './boot.js';
import { draftCommands, labelDigits, mountCommands } from './controllers/commands.js';
import { resolveAnnotator, spellings } from './controllers/annotator.js';
import { mountHashSync } from './controllers/hashsync.js';
import { mountKeepAhead } from './controllers/keepahead.js';
import { mountHighlights } from './controllers/highlights.js';
import { mountModel } from './controllers/model.js';
import { openFirst, openQueue, recordNavigation } from './controllers/records.js';
import { mountSelection } from './controllers/selection.js';
import { mountFiles } from './controllers/files.js';
import { mountTimeOnTask } from './controllers/timeontask.js';
import { modelLabel, rankerLabel } from './data/data.js';
import { keepForOffline, registerOffline } from './offline.js';
import { pageSettings } from './state/settings.js';
import { WorkStorage } from './state/storage.js';
import { createAppStore, SIDES } from './state/store.js';
import { TextPane } from './text/textpane.js';
import { h } from './util.js';
import { mountViews } from './views/mount.js';
import { mountVerdicts } from './views/verdicts.js';
import { clientId, prefs } from './state/prefs.js';

const VERSION = document.body.dataset.toolVersion || 'dev';

function fatal(message) {
  document.getElementById('banners').replaceChildren(h('div', { class: 'banner error', role: 'alert' }, message));
}

/** The bundle boot.js opened (it requested the first record's data meanwhile); null: it could not (said). */
async function openBundle() {
  try {
    return await opening;
  } catch (err) {
    const hint = err.message.startsWith('manifest.json:') ? '' : ' Serve the folder over HTTP (mercury-static serve DIR).';
    fatal(`Cannot open this bundle: ${err.message}.${hint}`);
    return null;
  }
}

/** The modules of the settings' parts, requested at once: a bundle without them (the default) loads none. */
const settingsParts = (settings, manifest) => Promise.all([
  settings.questions.length ? import('./views/questions.js') : null,
  settings.fields.extra.length ? import('./views/fields.js') : null,
  settings.similar ? import('./assist/similar.js') : null,
  manifest.queues ? import('./io/queue.js') : null,
]).then(([questionsMod, fieldsMod, similarMod, queueMod]) => ({ questionsMod, fieldsMod, similarMod, queueMod }));

async function main() {
  const bundle = await openBundle();
  if (!bundle) return;
  const { manifest } = bundle;
  document.title = `${manifest.title || 'mercury-static'} · mercury-static`;
  registerOffline(manifest);
  if (manifest.review) { // a review bundle (docs/review.md): the review mode owns the page
    const { startReview } = await import('./review/app.js');
    await startReview({ bundle, reviewer: await resolveAnnotator(), version: VERSION });
    return;
  }
  document.getElementById('ranker-info').textContent = rankerLabel(manifest);
  document.getElementById('model-info').textContent = modelLabel(manifest);
  const wanted = recordIdFromHash();
  const first = await firstRecord(bundle).catch(() => null); // {id, position}: the deep-linked record, else the first
  const start = { wanted, linked: Boolean(wanted && first?.id === wanted), at: first ? first.position : 0 };
  const annotator = await resolveAnnotator();
  const settings = pageSettings(manifest, annotator);
  const parts = settingsParts(settings, manifest);
  const storage = new WorkStorage(manifest.bundle_id, annotator);
  window.addEventListener('pagehide', () => storage.saveJournal()); // changes still in flight survive a reload
  window.addEventListener('beforeunload', (ev) => { // ask first when they would not
    if (!storage.saveJournal()) ev.preventDefault();
  });
  const opened = await storage.open().catch((error) => ({ work: null, aside: [], lost: [], error }));
  const viewKey = `view:${manifest.bundle_id}`;
  const store = createAppStore({
    bundle, annotator, clientId: clientId(), storage, work: opened.work, aside: opened.aside, lost: opened.lost,
    openError: opened.error, blind: settings.blind, // blind: no suggestion reaches the store, hence the DOM
    view: prefs.get(viewKey, { minScore: manifest.ranker?.min_score ?? 0.2 }), questions: settings.all,
  });
  mountTimeOnTask(store);
  const mods = await parts;
  const queue = await openQueue(store, bundle, annotator, mods.queueMod);
  const nav = recordNavigation(store, bundle, queue, mods.queueMod);
  // Without a deep link, open the first record still to do (boot.js could only prefetch the first one).
  start.todo = await nav.todoFrom(-1, false).catch(() => 0);
  if (!start.linked && start.todo > 0) start.at = start.todo;
  const panes = Object.fromEntries(SIDES.map((side) => [side,
    new TextPane(document.getElementById(`pane-${side}`), document.getElementById(`mm-${side}`), side)]));
  const model = mountModel(store, bundle);
  const { assistant } = model;
  window.mercuryStatic = {
    store, version: VERSION, embed: model.embed, timings: () => ({ ...assistant.timings }), panes,
    queryVector: () => (assistant.last ? Array.from(assistant.last.vec) : null), // the last answer's vector
    stopAssistant: model.unfollow, // bench_page's Mercury path: the server's answers alone, as Mercury's client
    holdModel: (ms) => { assistant.holdMs = ms; }, // tests: a model's answer waited for, whatever the load
  };
  // The rest of the setup waits for the first record's shard: its texts are requested as soon as it
  // arrives instead of after the setup (on a long source that is the critical path of the first paint).
  if (bundle.recordIndex.count) {
    await bundle.recordIndex.rowAt(start.at).then((row) => bundle.recordShardData(row.shard)).catch(() => null);
  }
  const transfer = mountFiles(store, bundle, storage, annotator, spellings);
  const draft = draftCommands(store, panes);
  const views = mountViews(store, bundle, { settings, queue, mods, commands: { ...draft, ...nav, ...transfer } });
  const labelNumber = labelDigits(store);
  const matches = mountHighlights(store, panes, { manifest, labelNumber });
  const selection = mountSelection(store, panes, {
    goToMatch: matches.goToMatch, words: settings.span.granularity !== 'character',
  });
  const sentences = Boolean(mountVerdicts(store, manifest, panes));
  mountCommands(store, {
    manifest, panes, nav, transfer, draft, views, labelNumber, matches, selection, questionsMod: mods.questionsMod,
    viewKey, sentences,
  });
  storage.watch((work) => store.actions.mergeExternal(work)); // work saved by other tabs
  mountHashSync(store, nav.navigate);
  mountKeepAhead(store, bundle, queue, keepForOffline);
  await openFirst(store, bundle, {
    start, nav, layout: views.layout, settings, queue, offerEarlier: transfer.offerEarlier,
  });
  requestAnimationFrame(() => setTimeout(model.loadModel, 50)); // lazy: after the first record has painted
}

main().catch((err) => fatal(`The page failed to start: ${err.message}`));
