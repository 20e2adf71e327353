/**
 * Entry point: open the bundle, settle the annotator, build the store, mount the renderers, wire
 * selection / keyboard / storage / hash events, paint the first record, then load the model lazily.
 */
import { Assistant, makeLevelOf } from './assist/assist.js';
import { firstRecord, opening, recordIdFromHash } from './boot.js';
import { rankerLabel } from './data/data.js';
import * as ranker from './assist/rank.js';
import { mountKeys, numberKeys, SHORTCUTS, trapFocus } from './keys/keys.js';
import { KeyboardSelection } from './keys/keysel.js';
import { mountLayout } from './views/layout.js';
import { mountMarks } from './text/marks.js';
import { nextTodoIndex } from './state/nav.js';
import { mountPairing } from './text/pairing.js';
import { mountScrollMemory } from './state/scrollmemory.js';
import { clientId, prefs, WorkStorage } from './state/storage.js';
import { createAppStore, liveAnnotations, SIDES, unexportedCount } from './state/store.js';
import { TextPane } from './text/textpane.js';
import { buildExport, checkAgainstBundle, downloadJson, exportFileName, exportText, parseImport } from './state/transfer.js';
import { startUploads, takeLink } from './state/upload.js';
import { missingRequired } from './state/responses.js';
import { normalizeName } from './state/names.js';
import { pageSettings } from './state/settings.js';
import { acceptedPriors, spanSuggestionsAsPrior } from './state/suggestions.js';
import { isAfter } from './state/times.js';
import { mountFind } from './keys/find.js';
import { actionsByKey, keyRows, resolveKeys } from './keys/keymap.js';
import { mountHistory } from './views/historyview.js';
import { mountSavedNav } from './keys/savednav.js';
import { mountSuggestionWalk } from './views/suggestwalk.js';
import { h, nowIso, shortHash } from './util.js';
import {
  mountAllDone, mountAnnotations, mountBanners, mountDraft, mountFinish, mountOverlays, mountRecordInfo,
  mountRecordList, mountSuggestions, mountToast, mountTopbar, mountUploadStatus, renderSaveStatus,
} from './views/views.js';

const VERSION = document.body.dataset.toolVersion || 'dev';

function fatal(message) {
  document.getElementById('banners').replaceChildren(h('div', { class: 'banner error', role: 'alert' }, message));
}

/**
 * The names as given before they were normalised (the link's, the remembered one), under which an earlier
 * page may have saved this annotator's work (offered for import, offerEarlier).
 */
const spellings = [(new URLSearchParams(window.location.search).get('annotator') || '').trim(), String(prefs.get('annotator') || '')];

/** The annotator (normalised, names.js): ?annotator=NAME (remembered), else the remembered name, else ask once. */
function resolveAnnotator() {
  const fromUrl = normalizeName(new URLSearchParams(window.location.search).get('annotator'));
  if (fromUrl) {
    prefs.set('annotator', fromUrl);
    return Promise.resolve(fromUrl);
  }
  const saved = normalizeName(prefs.get('annotator'));
  if (saved) return Promise.resolve(saved);
  const dialog = document.getElementById('annotator-dialog');
  const form = dialog.querySelector('form');
  dialog.hidden = false;
  const release = trapFocus(form);
  const input = dialog.querySelector('input');
  return new Promise((resolve) => {
    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      const name = normalizeName(input.value);
      if (!name) return;
      prefs.set('annotator', name);
      dialog.hidden = true;
      release();
      resolve(name);
    });
  });
}

/** One line on what the highlights show, e.g. "3 related · model" or "none above 0.30 (best 0.22)". */
function assistInfo({ assist, view }) {
  if (assist.pending) return 'ranking with the model…';
  const how = assist.kind === 'model' ? 'model' : 'precomputed vectors';
  if (assist.citation) return `${assist.citation} · ${how}`; // citecheck.js
  if (assist.results.length) return `${assist.results.length} related · ${how}`;
  const best = assist.best === null ? '' : ` (best ${assist.best.toFixed(2)})`;
  return `no sentence above ${view.minScore.toFixed(2)}${best} · ${how}`;
}

/**
 * What an import did, in plain words: what it brought in, what it left out (the entries merge would
 * refuse too, the first few named) and the times it found in the future (a wrong clock), counted as now.
 * `shared`: records of the file this browser already had work on (only then can newer work here be kept).
 */
function importMessage(res, fileName, left, future, shared) {
  const n = (k, one) => `${k} ${one}${k === 1 ? '' : 's'}`;
  let text = `Imported ${n(res.annotations, 'annotation')} on ${n(res.records, 'record')} from ${fileName}`;
  text += shared ? `; on ${n(shared, 'record')} this browser also had work: its newer changes were kept.` : '.';
  if (left.length) {
    const shown = left.slice(0, 3).join('; ');
    text += ` Left out ${left.length} unusable entr${left.length === 1 ? 'y' : 'ies'} (merge would refuse ${left.length === 1 ? 'it' : 'them'} too): ${shown}${left.length > 3 ? '; …' : ''}.`;
  }
  if (future) text += ` ${n(future, 'time')} in the file ${future === 1 ? 'was' : 'were'} later than now (the computer that exported it had a wrong clock?): counted as the time of this import.`;
  return text;
}

// eslint-disable-next-line complexity -- the composition root wiring every module; to move to its own module
async function main() {
  let bundle;
  try {
    bundle = await opening; // boot.js opened it and requested the first record's data
  } catch (err) {
    const hint = err.message.startsWith('manifest.json:') ? '' : ' Serve the folder over HTTP (mercury-static serve DIR).';
    fatal(`Cannot open this bundle: ${err.message}.${hint}`);
    return;
  }
  const { manifest } = bundle;
  document.title = `${manifest.title || 'mercury-static'} · mercury-static`;
  if (manifest.review) { // a review bundle (docs/review.md): the review mode owns the page
    const { startReview } = await import('./review/app.js');
    await startReview({ bundle, reviewer: await resolveAnnotator(), version: VERSION });
    return;
  }
  document.getElementById('ranker-info').textContent = rankerLabel(manifest);
  const wanted = recordIdFromHash();
  const first = await firstRecord(bundle).catch(() => null); // {id, position}: the deep-linked record, else the first
  const linked = Boolean(wanted && first?.id === wanted);
  let firstAt = first ? first.position : 0;
  const annotator = await resolveAnnotator();
  const settings = pageSettings(manifest, annotator);
  bundle.hideSuggestions = settings.blind; // blind: no suggestion reaches the store, hence the DOM
  bundle.spanSuggestions = (suggestions, texts) => spanSuggestionsAsPrior(suggestions, bundle.spanQuestion, texts);
  // The modules of the settings' parts, requested now: a bundle without them (the default) loads none.
  const parts = Promise.all([
    settings.questions.length ? import('./views/questions.js') : null,
    settings.fields.extra.length ? import('./views/fields.js') : null,
    settings.similar ? import('./assist/similar.js') : null,
    manifest.queues ? import('./state/queue.js') : null,
  ]);
  const storage = new WorkStorage(manifest.bundle_id, annotator);
  window.addEventListener('pagehide', () => storage.saveJournal()); // changes still in flight survive a reload
  const opened = await storage.open().catch((error) => ({ work: null, aside: [], error }));
  const viewKey = `view:${manifest.bundle_id}`;
  const view = prefs.get(viewKey, { minScore: manifest.ranker?.min_score ?? 0.2 });
  const store = createAppStore({
    bundle, annotator, clientId: clientId(), storage, work: opened.work, aside: opened.aside, view,
  });
  if (opened.error) {
    store.update({ ui: { ...store.state.ui, storageError: `This browser refuses to save (${opened.error.message || opened.error}): nothing you do here is saved. Export to keep your work.` } });
  }
  const { actions } = store;
  const [questionsMod, fieldsMod, similarMod, queueMod] = await parts;
  // The annotator's queue (manifest.queues): the first record, the next to do and the progress follow it.
  const queue = queueMod && await queueMod.loadQueue(bundle, annotator).catch((err) => {
    actions.message(`Your queue could not be read (${err.message}): working through every record in bundle order.`);
    return undefined;
  });
  const names = manifest.queues?.annotators;
  if (queue === null && Array.isArray(names) && names.length) { // a name typed differently has no queue: say so
    actions.message(`No queue for “${annotator}” in this bundle (queues: ${names.join(', ')}): working through every record in bundle order. Open the link your coordinator gave you.`);
  }
  /** A promise of the next record to do (a position, -1: none). */
  const todoFrom = async (from, after) => (queue ? queueMod.nextInQueue(queue, store.state.work, from, after)
    : nextTodoIndex(bundle.recordIndex, store.state.work, Math.max(0, from), after));
  // Without a deep link, open the first record still to do (boot.js could only prefetch the first one).
  const todoAtStart = await todoFrom(-1, false).catch(() => 0);
  if (!linked && todoAtStart > 0) firstAt = todoAtStart;
  const levelOf = makeLevelOf(manifest);
  const panes = Object.fromEntries(SIDES.map((side) => [side,
    new TextPane(document.getElementById(`pane-${side}`), document.getElementById(`mm-${side}`), side)]));

  let embedder = null;
  const assistant = new Assistant(store, manifest, () => embedder);

  window.mercuryStatic = {
    store,
    version: VERSION,
    embed: async (texts) => {
      if (!embedder) await loadModel();
      return embedder.embed(texts);
    },
    timings: () => ({ ...assistant.timings }),
    panes,
  };

  // The rest of the setup waits for the first record's shard: its texts are requested as soon as it
  // arrives instead of after the setup (on a long source that is the critical path of the first paint).
  if (bundle.recordIndex.count) {
    await bundle.recordIndex.rowAt(firstAt).then((row) => bundle.recordShardData(row.shard)).catch(() => null);
  }

  // --- export / import -------------------------------------------------------------------------
  /**
   * Export the work as it is now, records in bundle order: their positions are the store's placed ones,
   * the few not placed yet read from their ids shards. If those cannot be read, these records are
   * exported all the same, after the others (merge checks every id against the bundle): no stored work
   * is ever left out of an export.
   */
  async function exportData(at) {
    const s = store.state;
    const unplaced = Object.keys(s.work.records).filter((id) => !s.placed.has(id));
    let positions = s.placed;
    let unlooked = [];
    if (unplaced.length) {
      positions = new Map(s.placed);
      try {
        const found = await bundle.recordIndex.positionsOf(unplaced);
        for (const [id, p] of found) positions.set(id, p);
      } catch {
        unlooked = unplaced.sort();
        unlooked.forEach((id, k) => positions.set(id, bundle.recordIndex.count + k));
      }
    }
    return {
      data: buildExport({ manifest, positions, annotator, clientId: s.clientId, work: s.work, exportedAt: at }),
      unlooked,
    };
  }
  async function exportNow() {
    const at = nowIso();
    const { data, unlooked } = await exportData(at);
    downloadJson(data, exportFileName(manifest, annotator, at));
    actions.markExported(at);
    const n = unlooked.length;
    if (n) actions.message(`${n} record${n === 1 ? '' : 's'} with work could not be looked up in this bundle's index (its files did not load): exported all the same, after the others.`);
  }
  const importInput = document.getElementById('import-file');
  importInput.addEventListener('change', async () => {
    const file = importInput.files[0];
    importInput.value = '';
    if (!file) return;
    try {
      const parsed = parseImport(await file.text(), { manifest, annotator, now: nowIso() });
      const res = await checkAgainstBundle(parsed.work, bundle);
      // With nothing unexported here, all the work after the import is in that file: it is exported
      // (re-importing a file just exported does not report its content as unexported changes).
      const clean = unexportedCount(store.state.work) === 0;
      const shared = Object.keys(res.work.records).filter((id) => store.state.work.records[id]).length;
      actions.importWork(res.work);
      // Everything in the file counts as exported up to its newest change (not its whole-second
      // exported_at, which reads "…:05Z": a later change at "…:05.400Z" is after it).
      const newest = Object.values(res.work.records)
        .flatMap((r) => [r.status_at, ...Object.values(r.annotations).map((a) => a.updated_at)])
        .reduce((m, t) => (isAfter(t, m) ? t : m), '');
      const left = [...parsed.left, ...res.left];
      if (clean && !left.length && parsed.exportedAt && isAfter(newest, store.state.work.last_export_at)) {
        actions.markExported(newest);
      }
      actions.message(importMessage(res, file.name, left, parsed.future, shared));
    } catch (err) {
      actions.message(err.message);
    }
  });

  /**
   * Work saved here under an earlier build of this bundle (same title, another bundle id): offered for
   * import, through the export format and checked against this bundle's texts like an export file.
   */
  async function offerEarlier() {
    const mine = spellings.filter((n) => normalizeName(n) === annotator); // not another name remembered here
    const found = await storage.earlierBundles(manifest.bundle_id, manifest.title, annotator, mine).catch(() => []);
    if (!found.length) return;
    const importEarlier = async ({ key, bundleId, work }) => {
      const at = nowIso();
      // every record: checkAgainstBundle keeps this bundle's
      const all = new Map(Object.keys(work.records).map((id, i) => [id, i]));
      const file = buildExport({
        manifest, positions: all, annotator, clientId: store.state.clientId, work, exportedAt: at,
      });
      const parsed = parseImport(JSON.stringify(file), { manifest, annotator });
      const res = await checkAgainstBundle(parsed.work, bundle);
      actions.importWork(res.work);
      prefs.set(`earlier-done:${manifest.bundle_id}:${key}`, at);
      const skipped = parsed.skipped + res.skipped;
      const from = bundleId === manifest.bundle_id ? 'the work saved under your name as you gave it before' : 'the earlier build';
      actions.message(`Imported ${res.annotations} annotation${res.annotations === 1 ? '' : 's'} on ${res.records} record${res.records === 1 ? '' : 's'} from ${from}.${skipped ? ` ${skipped} did not match this bundle's texts and were left out (they stay where they were stored).` : ''}`);
    };
    const later = ({ key }) => prefs.set(`earlier-done:${manifest.bundle_id}:${key}`, nowIso());
    actions.offerEarlier(found.map((f) => ({
      key: f.key, bundleId: f.bundleId, spelling: f.spelling, earlierBuild: f.bundleId !== manifest.bundle_id,
      records: Object.keys(f.work.records).length, accept: () => importEarlier(f), decline: () => later(f),
    })));
  }

  // --- renderers -------------------------------------------------------------------------------
  mountTopbar(store, bundle, queue);
  mountRecordInfo(store, manifest.settings?.metadata, settings.blind);
  // the settings' fields and questions: titles of the texts, extra fields above them, the form under them
  for (const side of SIDES) document.querySelector(`.pane[data-pane="${side}"] .pane-title`).firstChild.data = `${settings.fields[side].title} `;
  const layoutEl = document.querySelector('.layout');
  const fieldsBox = h('section', { id: 'fields', class: 'fields', 'aria-label': 'fields', hidden: true });
  const formBox = h('section', { id: 'questions', class: 'questions', 'aria-label': 'questions', hidden: true });
  if (settings.fields.extra.length || settings.questions.length) {
    layoutEl.append(fieldsBox, formBox);
    document.body.dataset.form = 'true';
  }
  if (fieldsMod) fieldsMod.mountFields(store, settings.fields.extra, fieldsBox);
  if (similarMod) {
    const similarBox = h('section', { class: 'card similar', id: 'similar-card' });
    document.querySelector('#side .side-scroll').append(similarBox);
    similarMod.mountSimilar(store, bundle, similarBox, (id) => navigate(() => actions.goToId(id)));
  }
  /**
   * An answer cleared on a submitted record that leaves a required question unanswered takes the record back
   * to in progress, saying so: merge refuses a submitted record without its required answers (spans and all).
   */
  const formActions = {
    ...actions,
    setResponse(name, value, opts) {
      actions.setResponse(name, value, opts);
      const { work, current } = store.state;
      const entry = current.id ? work.records[current.id] : null;
      if (entry?.status !== 'submitted') return;
      const missing = missingRequired(settings.all, entry, liveAnnotations(entry).length);
      if (!missing.length) return;
      actions.setStatus('in_progress');
      actions.message(`Back to in progress: “${missing[0]}” is required; answer it, then submit again (s).`);
    },
  };
  const form = questionsMod ? questionsMod.mountQuestions(store, formActions, settings.questions, formBox)
    : { focusQuestion: () => false, accept: () => false, focusQuestionNamed: () => {} };
  mountDraft(store, actions, { save: () => save(), clear: () => clear() });
  mountAnnotations(store, actions);
  const savedNav = mountSavedNav(store, actions);
  const suggestionWalk = mountSuggestionWalk(store, actions, document.getElementById('toast'));
  mountHistory(store, actions, document.getElementById('history'));
  mountSuggestions(store, actions);
  mountBanners(store, actions, exportNow);
  mountToast(store, actions);
  mountOverlays(store, actions, manifest);
  mountFinish(store);
  const closeAllDone = () => store.update({ ui: { ...store.state.ui, allDone: false } });
  mountAllDone(store, bundle, exportNow, closeAllDone, queue);
  const layout = mountLayout(store);
  // The "saved" indicator of the top bar: "saved" only once storage says the change is on disk.
  const saveStatus = document.getElementById('save-status');
  store.subscribe((s, prev) => {
    if (s.ui.save === prev.ui.save && s.ui.storageError === prev.ui.storageError) return;
    if (s.ui.storageError) renderSaveStatus(saveStatus, { state: 'error', message: s.ui.storageError });
    else renderSaveStatus(saveStatus, { state: s.ui.save.state === 'failed' ? 'error' : s.ui.save.state, at: s.ui.save.at });
  });
  // The upload to the team's storage (upload.js), when the coordinator's link gave one: never blocks, never
  // touches the work; its state is the store's ui.upload, shown in the top bar.
  const collect = takeLink(prefs, manifest.bundle_id, annotator);
  if (collect.problem) actions.message(collect.problem);
  if (collect.link) {
    const setUpload = (upload) => store.update({ ui: { ...store.state.ui, upload } });
    const uploads = startUploads({
      link: collect.link, annotator, clientId: store.state.clientId, bundleId: manifest.bundle_id, prefs,
      state: setUpload,
      exportText: async () => exportText((await exportData(nowIso())).data),
    });
    mountUploadStatus(store, document.getElementById('upload-status'));
    store.subscribe((s, prev) => {
      if (s.work !== prev.work) uploads.changed();
    });
    if (Object.keys(store.state.work.records).length) uploads.now(); // catch up on what a closed page left
  }
  const keys = resolveKeys(manifest.settings?.keys); // the settings file's hotkeys over the defaults
  document.getElementById('help-keys').replaceChildren(
    ...[
      ...keyRows(keys, { form: Boolean(questionsMod) }), ...SHORTCUTS,
      ...(questionsMod ? questionsMod.QUESTION_SHORTCUTS : []),
    ]
      .map(([k, what]) => h('tr', {}, h('td', {}, h('kbd', {}, k)), h('td', {}, what))));

  const scrollMemory = mountScrollMemory(manifest.bundle_id, panes, SIDES);
  // span labels by number (from 10 labels on, two digits typed quickly: keys.js)
  const labelNumber = numberKeys(() => store.state.labelChoices.map((_, i) => String(i + 1)),
    (i) => actions.toggleLabel(store.state.labelChoices[i]));
  let shownRecord = null;
  let shownAssist = null;
  let scrolledTo = { query: null, index: -1 }; // the query and best match the pane last scrolled to
  let matchCursor = -1;
  let focused = null;
  /** A new record (or none, while one loads): render its panes, restore its scroll and draft assistance. */
  function showRecord(s) {
    const rec = s.current.record;
    shownRecord = rec;
    labelNumber.reset();
    assistant.reset();
    scrollMemory.leave();
    for (const side of SIDES) {
      // summary bullets' [N] link to the source's documents
      if (rec) panes[side].render(rec[side], { cites: side === 'summary' ? rec.source.sections?.length || 0 : 0 });
      else panes[side].scroller.replaceChildren(h('p', { class: 'muted loading' }, s.current.error ? '' : 'Loading…'));
    }
    if (rec) scrollMemory.restore(rec.id);
    document.body.dataset.record = rec ? rec.id : '';
    // a restored draft gets its assistance back, as if just selected
    const d = s.draft;
    if (rec && d.anchor && d[d.anchor]) queueMicrotask(() => assistant.run(d.anchor, d[d.anchor][0], d[d.anchor][1]));
    // Index the texts for ranking in idle time, so the first selection on a long text is fast too.
    if (rec && typeof ranker.prepareSentences === 'function') {
      const idle = window.requestIdleCallback || ((fn) => setTimeout(fn, 200));
      idle(() => {
        if (shownRecord !== rec) return;
        for (const side of SIDES) ranker.prepareSentences(rec[side].rankInput(), manifest.ranker);
      });
    }
  }
  /** A new assistance answer: its info line, highlights and minimap, scrolled to its best match. */
  function showAssist(s) {
    const rec = s.current.record;
    shownAssist = s.assist;
    matchCursor = -1;
    if (focused) focused.removeAttribute('data-focus');
    focused = null;
    const target = s.assist.side;
    for (const side of SIDES) document.getElementById(`assist-${side}`).textContent = rec && side === target ? assistInfo(s) : '';
    if (!rec) return;
    for (const side of SIDES) {
      if (side !== target && panes[side].lit.length) panes[side].setHighlights([], levelOf);
      showMatch(side, -1);
    }
    if (target) {
      const shown = s.assist;
      const best = shown.results[0];
      panes[target].setHighlights(shown.results, levelOf);
      // The pane scrolls to the best match at the next frame, with the minimap (both read the layout,
      // which the frame computes anyway), once per query and best match.
      if (best && (scrolledTo.query !== shown.query || scrolledTo.index !== best.index)) {
        scrolledTo = { query: shown.query, index: best.index };
        requestAnimationFrame(() => { if (shownAssist === shown) panes[target].scrollToSentence(best.index); });
      }
    }
  }
  store.subscribe((s) => {
    if (s.current.record !== shownRecord) showRecord(s);
    if (s.assist !== shownAssist) showAssist(s);
  });
  // dialogs keep the focus while open and give it back when closed
  const traps = { help: null, guidelines: null };
  store.subscribe((s) => {
    for (const [name, el] of [['help', document.querySelector('#overlay-help .dialog')], ['guidelines', document.getElementById('guidelines')]]) {
      if (s.ui[name] && !traps[name]) traps[name] = trapFocus(el);
      else if (!s.ui[name] && traps[name]) {
        const release = traps[name];
        traps[name] = null;
        release();
      }
    }
  });
  const refreshMarks = mountMarks(store, panes);
  const refreshPairing = mountPairing(store, panes);
  for (const side of SIDES) {
    panes[side].onMaterialize = () => { // marks hold ranges into replaced nodes
      refreshMarks();
      refreshPairing();
    };
  }

  // --- selection and clicks in the panes --------------------------------------------------------
  // The span of the page's selection last taken into the draft (or put there by the keyboard): after a
  // save the selection still shows it, and a key-up must not take it again as a new draft.
  let taken = '';
  let pressedInText = false; // a mouse press in a pane's text, not on its scrollbar
  const spanKey = (side, s, e) => `${store.state.current.id}:${side}:${s}:${e}`;
  /** Take a span into the draft; a new query's vector is asked of the worker first (assist.js prefetch). */
  const take = (side, s, e) => {
    if (actions.roleOf(side) === 'anchor') assistant.prefetch(side, s, e);
    if (actions.select(side, s, e) === 'anchor') assistant.run(side, s, e);
  };
  const keysel = new KeyboardSelection(panes, (side) => store.state.draft[side], (side, s, e) => {
    taken = spanKey(side, s, e);
    take(side, s, e);
  });
  const snapWords = settings.span.granularity !== 'character';
  const finder = mountFind(panes, keysel, { words: snapWords });
  /**
   * A selection made: after a press in the text (`fresh`, a drag) any, at a key-up or another mouse-up
   * (a scrollbar's) only one not taken already.
   */
  function onSelectionDone(fresh) {
    const sel = window.getSelection();
    if (!sel.rangeCount || sel.isCollapsed || !store.state.current.record) return;
    const range = sel.getRangeAt(0);
    const side = SIDES.find((sd) => panes[sd].root && panes[sd].root.contains(range.commonAncestorContainer));
    if (!side) return;
    let span = panes[side].spanOf(range);
    if (!span) return;
    if (fresh && snapWords) span = keysel.snapSelection(side, span); // a drag grows to whole words
    const cur = store.state.draft[side];
    if (cur && cur[0] === span[0] && cur[1] === span[1]) return;
    if (!fresh && taken === spanKey(side, span[0], span[1])) return;
    taken = spanKey(side, span[0], span[1]);
    keysel.moved(side, span[1]);
    take(side, span[0], span[1]);
  }
  for (const side of SIDES) {
    const scroller = panes[side].scroller;
    scroller.addEventListener('mousedown', (ev) => { pressedInText = Boolean(panes[side].root?.contains(ev.target)); });
    scroller.addEventListener('mouseup', () => {
      onSelectionDone(pressedInText);
      pressedInText = false;
    });
    scroller.addEventListener('keydown', (ev) => {
      // Enter on a focused citation follows it (and does not save the draft)
      const cite = ev.key === 'Enter' && ev.target instanceof Element && ev.target.closest('.cite');
      if (!cite) return;
      ev.preventDefault();
      ev.stopPropagation();
      panes[SIDES.find((sd) => sd !== side)].scrollToDoc(Number(cite.dataset.doc));
    });
    scroller.addEventListener('click', (ev) => {
      const cite = ev.target.closest('.cite');
      if (cite && window.getSelection().isCollapsed) {
        panes[SIDES.find((sd) => sd !== side)].scrollToDoc(Number(cite.dataset.doc));
        return;
      }
      const el = ev.target.closest('.s[data-rank]');
      if (!el || !window.getSelection().isCollapsed) return;
      actions.pairSentence(side, Number(el.dataset.sentence));
    });
    document.getElementById(`mm-${side}`).addEventListener('click', (ev) => {
      const m = ev.target.closest('.mm-mark');
      if (m) goToMatch(Number(m.dataset.match) - 1); // the clicked match is the current one (`l` pairs it)
    });
  }
  document.addEventListener('keyup', (ev) => {
    if (ev.shiftKey || ev.key === 'Shift') onSelectionDone(false); // Shift+End and the like: the browser's own selection
  });

  /**
   * The pane header's match counter: "match 2 of 5 · document 72" after a jump (`pos` in text order),
   * "5 matches · best in document 11" before one, nothing without matches.
   */
  function showMatch(side, pos) {
    const el = document.getElementById(`match-${side}`);
    const { side: target, results } = store.state.assist;
    if (side !== target || !results.length) {
      el.textContent = '';
      return;
    }
    const order = results.map((r) => r.index).sort((a, b) => a - b);
    const i = pos < 0 ? results[0].index : order[pos];
    const doc = panes[side].docOf(i);
    const where = doc ? ` · ${pos < 0 ? 'best in ' : ''}document ${doc}` : '';
    el.textContent = pos < 0 ? `${results.length} match${results.length === 1 ? '' : 'es'}${where}` : `match ${pos + 1} of ${order.length}${where}`;
  }

  /** Jump to the next (+1) or previous (-1) highlighted sentence in text order. */
  function jumpMatch(dir) {
    const n = store.state.assist.results.length;
    if (n) goToMatch((matchCursor + dir + n + (matchCursor < 0 && dir < 0 ? 1 : 0)) % n);
  }

  /** Make match `pos` (text order, as the counter and the minimap number them) the current one. */
  function goToMatch(pos) {
    const { side, results } = store.state.assist;
    if (!side || pos < 0 || pos >= results.length) return;
    const order = results.map((r) => r.index).sort((a, b) => a - b);
    matchCursor = pos;
    const pane = panes[side];
    if (focused) focused.removeAttribute('data-focus');
    focused = pane.sentenceEl(order[matchCursor]);
    focused.dataset.focus = 'true';
    pane.scrollToSentence(order[matchCursor], true);
    showMatch(side, matchCursor);
  }

  /** Pair the match under the cursor (`.` / `,`), else the best match, with the span. */
  function pairMatch() {
    const { side, results } = store.state.assist;
    if (!side || !results.length) return;
    const order = results.map((r) => r.index).sort((a, b) => a - b);
    actions.pairSentence(side, matchCursor >= 0 ? order[matchCursor] : results[0].index);
  }

  /** Focus a pane's text (keyboard selection then works in it). */
  function focusPane(side) {
    panes[side].scroller.focus({ preventScroll: true });
  }

  // --- toolbar, keyboard --------------------------------------------------------------------------
  /** The next record still to do after the open one; when none is left, show "all done". */
  const goNextTodo = async () => {
    const from = store.state.current.index;
    let i;
    try {
      i = await todoFrom(from, true);
    } catch (err) {
      actions.message(`The next record to do could not be found (${err.message}).`);
      return;
    }
    if (store.state.current.index !== from) return; // the annotator moved on meanwhile
    if (i < 0) store.update({ ui: { ...store.state.ui, allDone: true } });
    else if (i !== from) await actions.goTo(i);
  };
  /** A submit with a required question unanswered is refused, naming it (its control gets the focus). */
  const refused = () => {
    const { work, current } = store.state;
    const entry = current.id ? work.records[current.id] : null;
    const missing = missingRequired(settings.all, entry, liveAnnotations(entry).length);
    if (!missing.length) return false;
    actions.message(`Not submitted: “${missing[0]}” is required and not answered yet${missing.length > 1 ? ` (also: ${missing.slice(1).join(', ')})` : ''}.`);
    form.focusQuestionNamed(missing[0]);
    return true;
  };
  const finish = (status) => actions.leaveDraft(status === 'submitted' ? 'submit' : 'discard', () => {
    if (status === 'submitted' && refused()) return;
    actions.setStatus(status);
    goNextTodo();
  });
  const navigate = (go) => actions.leaveDraft('navigate', go);
  const next = () => navigate(() => actions.next());
  const prev = () => navigate(() => actions.prev());
  const nextTodo = () => navigate(goNextTodo);
  /** After a save from the form, focus returns to the summary (where `s` submits and the next span starts). */
  const save = () => {
    if (actions.saveDraft()) panes.summary.scroller.focus({ preventScroll: true });
  };
  const clear = () => {
    if (!actions.requestClear()) return;
    window.getSelection().removeAllRanges();
    assistant.reset();
  };
  /** `a` once every record-level suggestion is accepted: the first span suggestion not yet among the annotations. */
  const acceptSpanSuggestion = () => {
    const { current, work } = store.state;
    const prior = current.record?.prior_annotations || [];
    const i = acceptedPriors(prior, liveAnnotations(current.id ? work.records[current.id] : null)).indexOf(false);
    return i >= 0 && Boolean(actions.acceptPrior(i));
  };
  const clickActions = {
    prev, next, export: exportNow, 'next-todo': nextTodo,
    import: () => importInput.click(), help: () => actions.toggleHelp(), guidelines: () => actions.toggleGuidelines(),
    submit: () => finish('submitted'), discard: () => finish('discarded'), reopen: () => actions.setStatus('in_progress'),
    'toggle-list': () => layout.toggle('list'), 'toggle-side': () => layout.toggle('side'),
  };
  document.addEventListener('click', (ev) => {
    const b = ev.target.closest('button[data-action]');
    if (b && clickActions[b.dataset.action] && !b.closest('#banners')) clickActions[b.dataset.action]();
  });
  mountKeys({
    next, prev,
    labelDigit: (d) => labelNumber.digit(d), flushNumber: () => labelNumber.flush(),
    save: () => savedNav.open() || save(), submit: () => finish('submitted'), discard: () => finish('discarded'),
    suggestions: () => suggestionWalk.start(), nextSaved: () => savedNav.step(1), prevSaved: () => savedNav.step(-1),
    deleteSaved: () => savedNav.remove(),
    escape: () => {
      const { ui } = store.state;
      if (ui.choice) actions.choose('stay');
      else if (ui.help || ui.guidelines) {
        actions.toggleHelp(false);
        actions.toggleGuidelines(false);
      } else if (ui.allDone) closeAllDone();
      else if (!savedNav.end()) clear();
    },
    undo: () => actions.undo(), redo: () => actions.redo(),
    step: (side, unit, dir, extend) => {
      const target = side || 'summary';
      if (!store.state.current.record) return;
      focusPane(target);
      keysel.step(target, unit, dir, extend);
    },
    otherPane: (side) => focusPane(side === 'source' ? 'summary' : 'source'),
    find: (side) => store.state.current.record && finder.open(side || 'summary'),
    stepStart: (side, dir) => keysel.stepStart(side || 'summary', dir),
    pairMatch,
    noSource: () => {
      const { anchor } = store.state.draft;
      if (anchor) actions.clearSpan(anchor === 'summary' ? 'source' : 'summary');
    },
    note: () => document.getElementById('draft-note').focus(),
    leaveField: () => focusPane('summary'),
    modal: () => store.state.ui.help || store.state.ui.guidelines,
    nextTodo, toggleList: () => layout.toggle('list'), toggleSide: () => layout.toggle('side'),
    exportNow,
    filter: () => {
      layout.show('list');
      document.getElementById('record-filter').focus();
    },
    nextMatch: () => jumpMatch(1), prevMatch: () => jumpMatch(-1),
    guidelines: () => actions.toggleGuidelines(), help: () => actions.toggleHelp(),
    ...(questionsMod ? {
      nextQuestion: () => form.focusQuestion(1), prevQuestion: () => form.focusQuestion(-1),
      accept: () => form.accept() || acceptSpanSuggestion(),
    } : {}),
  }, actionsByKey(keys));

  // k and minimum score
  const kInput = document.getElementById('ctl-k');
  const minInput = document.getElementById('ctl-min');
  const minOut = document.getElementById('ctl-min-out');
  kInput.value = String(store.state.view.k);
  minInput.value = String(store.state.view.minScore);
  minOut.textContent = store.state.view.minScore.toFixed(2);
  const onView = () => {
    const k = Math.max(1, Math.min(50, Number(kInput.value) || 5));
    const minScore = Number(minInput.value);
    minOut.textContent = minScore.toFixed(2);
    actions.setView({ k, minScore });
    prefs.set(viewKey, { k, minScore });
    assistant.rerank();
  };
  kInput.addEventListener('change', onView);
  minInput.addEventListener('input', onView);

  // --- storage from other tabs, deep links --------------------------------------------------------
  storage.watch((work) => actions.mergeExternal(work));
  store.subscribe((s, prev) => {
    if (s.current.id && s.current.id !== prev.current.id) {
      window.history.replaceState(null, '', `${window.location.pathname}${window.location.search}#record=${encodeURIComponent(s.current.id)}`);
    }
  });
  window.addEventListener('hashchange', () => {
    const id = recordIdFromHash();
    if (!id || id === store.state.current.id) return;
    // the address shows the open record until the draft lets the page leave it
    window.history.replaceState(null, '', `${window.location.pathname}${window.location.search}#record=${encodeURIComponent(store.state.current.id)}`);
    navigate(() => actions.goToId(id));
  });

  // --- first record, then guidelines and the model -------------------------------------------------
  if (wanted && !linked) actions.message(`No record with id “${wanted}” in this bundle: showing the first one.`);
  await actions.goTo(firstAt);
  performance.mark('mercury-first-record');
  actions.placeWork(); // the status of the stored work's records: their ids shards, after the first record
  requestAnimationFrame(() => setTimeout(() => {
    performance.mark('mercury-first-paint');
    mountRecordList(store, bundle, (position) => { // after the first paint
      layout.closeDrawer();
      navigate(() => actions.goTo(position));
    }, { metadata: settings.metadata, queue });
  }, 0));
  if (todoAtStart < 0 && !wanted) store.update({ ui: { ...store.state.ui, allDone: true } });
  document.body.dataset.ready = 'true';
  offerEarlier();
  // per text: the guidelines are not part of the bundle id, and rewritten ones open again once
  const seenKey = `guidelines-seen:${manifest.bundle_id}:${shortHash(manifest.guidelines?.text || '')}`;
  if (manifest.guidelines && manifest.guidelines.text && !prefs.get(seenKey)) {
    actions.toggleGuidelines(true);
    prefs.set(seenKey, true);
  }

  let modelPromise = null;
  function loadModel() {
    if (!modelPromise) {
      actions.setModel({ status: 'loading', message: '' });
      modelPromise = import('./assist/embedder.js').then(({ createEmbedder }) => {
        embedder = createEmbedder(manifest, bundle.baseUrl);
        const report = () => {
          if (embedder.status === 'ready' && store.state.model.status !== 'ready') performance.mark('mercury-model-ready');
          actions.setModel({ status: embedder.status, message: embedder.error ? String(embedder.error) : '' });
        };
        embedder.onStatus(report);
        report();
        return embedder.ready.then(() => {
          report();
          assistant.refine();
        });
      }).catch((err) => {
        actions.setModel({ status: 'failed', message: String(err && err.message ? err.message : err) });
        throw err;
      });
      modelPromise.catch(() => {});
    }
    return modelPromise;
  }
  // Lazy: after the first record has painted.
  requestAnimationFrame(() => setTimeout(loadModel, 50));
}

main().catch((err) => fatal(`The page failed to start: ${err.message}`));
