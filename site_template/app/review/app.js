/**
 * The review mode (docs/review.md): started by main.js when the manifest has `review`. One store (the
 * annotation page's, store.js: the same saving, tabs, journal and "saved" truth) holds the reviewer's
 * work (review/work.js) and a `review` slice for what is shown; the renderers (review/views.js) draw it,
 * the keys (review/keys.js) and clicks call the actions here.
 */
import { createAppStore, labelPrefixes, liveAnnotations, unexportedCount } from '../state/store.js';
import { clientId, prefs, WorkStorage } from '../state/storage.js';
import { trapFocus } from '../keys/keys.js';
import { fold } from '../data/recordindex.js';
import { selectPositions } from '../state/listquery.js';
import { downloadJson, exportFileName } from '../state/transfer.js';
import { h, nowIso, uuid } from '../util.js';
import { mountBanners, renderSaveStatus } from '../views/views.js';
import { ReviewData } from './data.js';
import { checkReviewImport, parseReviewImport, readReviewFile } from './transfer.js';
import { mountReviewKeys, REVIEW_SHORTCUTS } from './keys.js';
import { mountReviewViews, reviewLayout } from './views.js';
import {
  addComment, buildReviewExport, decide, decisionOf, goldOf, isAdjudicated, setAnswer,
} from './work.js';

/** The lane of the gold spans (after the annotators', CSS .rv-l8). */
export const GOLD_LANE = 8;

/** The rows a filter keeps: {unreviewed, question, annotator, pair: "a|b"} over the order rows. */
export function filterRows(rows, filter, work) {
  const [pa, pb] = filter.pair ? filter.pair.split('\n') : [];
  const out = [];
  rows.forEach((row, pos) => {
    if (!row) return;
    if (filter.unreviewed && isAdjudicated(work.records[row.id])) return;
    if (filter.question && !row.questions.includes(filter.question)) return;
    if (filter.annotator && !row.annotators.includes(filter.annotator)) return;
    if (pa && !(row.annotators.includes(pa) && row.annotators.includes(pb))) return;
    if (filter.ids && !filter.ids.has(row.id)) return;
    out.push(pos);
  });
  return out;
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
    lost: opened.lost || [], openError: opened.error, view: {},
  });
  const { actions } = store;
  const lanes = data.annotators.map((_, i) => i % GOLD_LANE);
  actions.setReview({
    data, reviewer, pos: -1, row: null, rec: null, texts: null, error: null, focus: null, question: 0,
    hidden: [], filter: { unreviewed: false, question: '', annotator: '', pair: '', ids: null }, order: null,
    editor: null, comment: null, byAnnotator: null, rowsLoaded: 0,
  });
  const get = () => store.state.review;
  const setReview = actions.setReview;
  const entryOf = (id) => store.state.work.records[id] || null;

  /** The open record's items in focus order: annotators' annotations in text order, then the reviewer's own. */
  function items(s = store.state) {
    const r = s.review;
    if (!r.rec) return [];
    const rank = (a) => data.annotators.indexOf(a.annotator);
    const theirs = [...r.rec.annotations].sort((a, b) => a.summary.start - b.summary.start || rank(a) - rank(b)
      || (a.key < b.key ? -1 : 1)).map((a) => ({ kind: 'theirs', key: a.key, ann: a, lane: lanes[rank(a)] }));
    const own = liveAnnotations(s.work.records[r.row.id]).map((a) => ({ kind: 'own', key: a.id, ann: a, lane: GOLD_LANE }));
    return [...theirs, ...own];
  }

  /** The spans drawn on side `side`: visible annotators' and the gold (decided, edited or own) ones. */
  function spansOf(side, s = store.state) {
    const r = s.review;
    const entry = s.work.records[r.row?.id];
    const out = [];
    for (const it of items(s)) {
      if (it.kind === 'theirs' && !r.hidden.includes(it.lane) && it.ann[side]) out.push({ ...it.ann[side], lane: it.lane, key: it.key });
      const gold = it.kind === 'own' ? it.ann : goldOf(it.ann, decisionOf(entry, it.key));
      if (gold && gold[side] && !r.hidden.includes(GOLD_LANE)) {
        out.push({ ...gold[side], lane: GOLD_LANE, key: it.key });
      }
    }
    return out;
  }

  // --- opening records ----------------------------------------------------------------------------
  let loadSeq = 0;
  async function open(pos) {
    if (pos < 0 || pos >= data.count) return;
    const seq = ++loadSeq;
    setReview({ pos, error: null, editor: null, comment: null });
    try {
      const row = await data.rowAt(pos);
      const [rec, texts] = await Promise.all([data.record(row), bundle.record(row.id)]);
      if (seq !== loadSeq) return;
      const kept = prefs.get(commentKey, null); // a comment typed on this record before a reload
      const comment = kept && kept.record === row.id && typeof kept.on === 'string' ? { on: kept.on } : null;
      setReview({ row, rec, texts, focus: null, question: 0, comment });
      window.history.replaceState(null, '', `${window.location.pathname}${window.location.search}#record=${encodeURIComponent(row.id)}`);
      const next = get().order ? get().order[get().order.indexOf(pos) + 1] : pos + 1;
      if (next !== undefined && next < data.count) {
        data.rowAt(next).then((r2) => { data.record(r2); bundle.prefetch(r2.id); }).catch(() => {});
      }
    } catch (err) {
      if (seq === loadSeq) setReview({ error: String(err.message || err) });
    }
  }
  /** The positions shown (the filter's, else all) and a step through them. */
  const shown = () => get().order || null;
  function step(dir) {
    const { pos } = get();
    const order = shown();
    if (!order) return open(Math.max(0, Math.min(data.count - 1, pos + dir)));
    const i = order.indexOf(pos);
    const j = i < 0 ? (dir > 0 ? order.findIndex((p) => p > pos) : order.findLastIndex((p) => p < pos)) : i + dir;
    if (j >= 0 && j < order.length) return open(order[j]);
    return null;
  }
  async function nextUnadjudicated() {
    await data.allRows();
    const rows = data.rows;
    const { pos } = get();
    const order = shown() || rows.map((_, i) => i);
    const todo = order.find((p) => p > pos && !isAdjudicated(entryOf(rows[p].id)))
      ?? order.find((p) => !isAdjudicated(entryOf(rows[p].id)));
    if (todo !== undefined && todo !== pos) await open(todo);
    else actions.message('Every record shown is adjudicated: export your review and send the file to your coordinator.');
  }

  // --- decisions ----------------------------------------------------------------------------------
  const change = (fn) => {
    const { row } = get();
    if (row) actions.changeEntry(row.id, (entry) => fn(entry, nowIso()));
  };
  const focused = () => items().find((it) => it.key === get().focus) || null;
  function setDecision(action) {
    const it = focused();
    if (!it) {
      actions.message('Select an annotation first (↓ / ↑, or click it).');
      return;
    }
    if (it.kind === 'own') {
      if (action === 'reject' || action === null) {
        change((e, at) => ({
          ...e, annotations: { ...e.annotations, [it.key]: { id: it.key, deleted: true, updated_at: at } },
        }));
        setReview({ focus: null });
      }
      return;
    }
    change((e, at) => decide(e, it.key, action === null ? null : { action }, at));
  }
  function startEdit(add = false) {
    const it = add ? null : focused();
    if (!add && !it) {
      actions.message('Select an annotation to edit first (↓ / ↑, or click it).');
      return;
    }
    const base = it ? (it.kind === 'own' ? it.ann : goldOf(it.ann, decisionOf(entryOf(get().row.id), it.key)) || it.ann) : null;
    const choices = store.state.labelChoices;
    setReview({
      editor: {
        key: it ? it.key : null, kind: it ? it.kind : 'own',
        summary: base ? [base.summary.start, base.summary.end] : null,
        source: base?.source ? [base.source.start, base.source.end] : null,
        labels: base ? base.label.filter((l) => choices.includes(l) && !base.label.some((o) => o.startsWith(`${l}.`))) : [],
        note: base ? base.note || '' : '',
      },
      comment: null,
    });
  }
  const spanFrom = (side, range) => {
    const view = get().texts[side];
    if (!range) return null;
    const [s, e] = range;
    if (!(Number.isInteger(s) && Number.isInteger(e) && s >= 0 && s < e && e <= view.length)) throw new Error(`the ${side} span ${s}–${e} is not inside its text (0–${view.length})`);
    return { start: s, end: e, text: view.slice(s, e) };
  };
  /** Save the editor: an edit decision on an annotator's annotation, or the reviewer's own annotation. */
  function saveEdit() {
    const ed = get().editor;
    if (!ed) return false;
    let summary;
    let source;
    try {
      summary = spanFrom('summary', ed.summary);
      source = spanFrom('source', ed.source);
    } catch (err) {
      actions.message(`Not saved: ${err.message}.`);
      return true;
    }
    if (!summary || !ed.labels.length) {
      actions.message('Not saved: an annotation needs a summary span and a label.');
      return true;
    }
    const label = labelPrefixes(ed.labels, manifest.labels || []);
    const fields = { summary, source, label, note: ed.note };
    if (ed.kind === 'theirs') change((e, at) => decide(e, ed.key, { action: 'edit', ...fields }, at));
    else {
      const id = ed.key || uuid();
      change((e, at) => {
        const prev = e.annotations[id];
        const ann = { id, ...fields, created_at: prev?.created_at || at, updated_at: at };
        return { ...e, annotations: { ...e.annotations, [id]: ann } };
      });
      setReview({ focus: id });
    }
    setReview({ editor: null });
    return true;
  }
  /** Question `name` answered with annotator `from`'s answer, or with the reviewer's own `value`. */
  function answer(name, ans) {
    change((e, at) => setAnswer(e, name, ans, at));
  }
  // A comment being typed is kept as it is typed (synchronously: a reload right after a keystroke keeps it),
  // one per reviewer and review, and shown again when its record opens; posting or Esc ends it.
  const commentKey = `review-comment:${manifest.review.review_id}:${reviewer}`;
  let commentKept = true;
  function keepComment(text) {
    const c = get().comment;
    const id = get().row?.id;
    if (!c || !id) return;
    commentKept = prefs.set(commentKey, text ? { record: id, on: c.on, text } : null);
  }
  /** The kept text of the comment box now open, or ''. */
  function keptComment() {
    const d = prefs.get(commentKey, null);
    const c = get().comment;
    return d && c && d.record === get().row?.id && d.on === c.on && typeof d.text === 'string' ? d.text : '';
  }
  function dropComment() {
    prefs.set(commentKey, null);
    commentKept = true;
    setReview({ comment: null });
  }
  window.addEventListener('beforeunload', (ev) => { // not kept (localStorage refused it): ask first
    const box = document.getElementById('rv-comment');
    if (!commentKept && box && box.value.trim()) ev.preventDefault();
  });
  function postComment(text) {
    const c = get().comment;
    if (!c || !text.trim()) return;
    const at = nowIso();
    change((e) => addComment(e, { id: uuid(), on: c.on, author: reviewer, time: at, text: text.trim() }, at));
    dropComment();
  }
  const questions = data.questions.filter((q) => q.type !== 'span');
  /** Mark the open record adjudicated, then open the next one that is not. */
  function adjudicate() {
    change((e, at) => ({ ...e, status: 'submitted', status_at: at }));
    nextUnadjudicated();
  }
  const reopen = () => change((e, at) => ({ ...e, status: 'in_progress', status_at: at }));

  // --- export ---------------------------------------------------------------------------------------
  async function exportNow() {
    const at = nowIso();
    await data.allRows().catch(() => null);
    const order = new Map(data.rows.filter(Boolean).map((r, i) => [r.id, i]));
    const file = buildReviewExport({
      manifest, reviewer, clientId: store.state.clientId, work: store.state.work, order, exportedAt: at,
    });
    downloadJson(file, exportFileName(manifest, `review-${reviewer}`, at));
    actions.markExported(at);
  }

  const importInput = document.getElementById('import-file');
  /** The review record of `id` (null: not in this review) and, when asked, its texts. */
  let rowsById = null;
  async function lookup(id, withTexts) {
    rowsById ??= new Map((await data.allRows()).filter(Boolean).map((r) => [r.id, r]));
    const row = rowsById.get(id);
    if (!row) return null;
    const [record, texts] = await Promise.all([data.record(row), withTexts ? bundle.record(id) : null]);
    return { record, texts };
  }
  importInput.addEventListener('change', async () => {
    const file = importInput.files[0];
    importInput.value = '';
    if (!file) return;
    try {
      const doc = parseReviewImport(await readReviewFile(file), { manifest, reviewer, name: file.name });
      const work = await checkReviewImport(doc, { manifest, name: file.name, lookup });
      actions.importWork(work);
      const n = Object.keys(work.records).length;
      actions.message(`Imported your review of ${n} record${n === 1 ? '' : 's'} from ${file.name}; newer decisions here were kept.`);
    } catch (err) {
      actions.message(err.message);
    }
  });

  const api = {
    open, step, nextUnadjudicated, setDecision, startEdit, saveEdit, answer, postComment, keepComment, keptComment,
    exportNow, items, spansOf,
    questions, setReview, lanes, adjudicate, reopen,
    setFilter(part) {
      const filter = { ...get().filter, ...part };
      setReview({ filter });
      data.allRows().then(() => {
        const all = !filter.unreviewed && !filter.question && !filter.annotator && !filter.pair && !filter.ids;
        setReview({ order: all ? null : filterRows(data.rows, filter, store.state.work) });
      }, (err) => actions.message(`The records could not be filtered (${err.message}).`));
    },
    /**
     * The usual filter of the record list (listquery.js): every word must occur in a record's id, title or a
     * metadata value; the matching bundle records narrow the review order.
     */
    async filterText(text) {
      const words = fold(text).split(/\s+/).filter(Boolean);
      const index = bundle.recordIndex;
      const positions = words.length
        ? await selectPositions(index, { words, status: null, queue: null, statusOf: new Map() }) : null;
      let ids = null;
      if (positions) {
        ids = new Set();
        for (const p of positions) ids.add((index.row(p) || await index.rowAt(p)).id); // cached shards
      }
      api.setFilter({ ids });
    },
    toggleLane(lane) {
      const { hidden } = get();
      setReview({ hidden: hidden.includes(lane) ? hidden.filter((l) => l !== lane) : [...hidden, lane] });
    },
  };

  // --- the page ---------------------------------------------------------------------------------------
  reviewLayout(manifest, data);
  document.getElementById('annotator').textContent = reviewer;
  const help = document.getElementById('help-keys');
  help.replaceChildren(...REVIEW_SHORTCUTS.map(([k, what]) => {
    const tr = document.createElement('tr');
    const a = document.createElement('td');
    const kbd = document.createElement('kbd');
    kbd.textContent = k;
    a.append(kbd);
    const b = document.createElement('td');
    b.textContent = what;
    tr.append(a, b);
    return tr;
  }));
  mountBanners(store, actions, exportNow);
  const saveStatus = document.getElementById('save-status');
  store.subscribe((s, prev) => {
    if (s.ui.save === prev.ui.save && s.ui.storageError === prev.ui.storageError) return;
    if (s.ui.storageError) renderSaveStatus(saveStatus, { state: 'error', message: s.ui.storageError });
    else renderSaveStatus(saveStatus, { state: s.ui.save.state === 'failed' ? 'error' : s.ui.save.state, at: s.ui.save.at });
  });
  storage.watch((work) => actions.mergeExternal(work));
  const views = mountReviewViews(store, api);
  mountReviewKeys({
    escape: (field) => {
      const r = get();
      if (store.state.ui.help) actions.toggleHelp(false);
      else if (r.editor) setReview({ editor: null });
      else if (r.comment) dropComment();
      else if (r.byAnnotator) setReview({ byAnnotator: null });
      else if (field) field.blur();
      else setReview({ focus: null });
    },
    enterInField: (target) => {
      if (target.closest('#rv-editor')) return saveEdit();
      if (target.closest('#rv-comment')) {
        postComment(target.value);
        return true;
      }
      if (target.id === 'rv-filter-text') { // Enter filters (its change) and leaves the box: the keys work again
        target.blur();
        return true;
      }
      if (target.closest('.rv-own')) {
        views.submitOwn(target);
        return true;
      }
      return false;
    },
    modal: () => store.state.ui.help,
    next: () => step(1), prev: () => step(-1),
    nextItem: () => views.moveFocus(1), prevItem: () => views.moveFocus(-1),
    accept: () => setDecision('accept'), reject: () => setDecision('reject'), undecide: () => setDecision(null),
    edit: () => startEdit(false), add: () => startEdit(true),
    nextQuestion: () => questions.length && setReview({ question: (get().question + 1) % questions.length }),
    prevQuestion: () => questions.length
      && setReview({ question: (get().question + questions.length - 1) % questions.length }),
    pick: (n) => {
      const q = questions[get().question];
      const who = data.annotators[n - 1];
      if (!q || !who) return;
      const has = get().rec?.responses.some((r) => r.annotator === who && r.values && q.name in r.values);
      if (has) answer(q.name, { from: who });
      else actions.message(`${who} did not answer “${q.title || q.name}” on this record.`);
    },
    ownAnswer: () => views.focusOwn(),
    comment: () => setReview({ comment: { on: get().focus || 'record' }, editor: null }),
    commentRecord: () => setReview({ comment: { on: 'record' }, editor: null }),
    adjudicate, reopen,
    toggleLane: (n) => api.toggleLane(n === 0 ? GOLD_LANE : n - 1),
    byAnnotator: () => {
      const it = focused();
      setReview({ byAnnotator: it?.kind === 'theirs' ? it.ann.annotator : data.annotators[0] });
    },
    filter: () => document.getElementById('rv-filter-unreviewed').focus(),
    exportNow,
    help: () => actions.toggleHelp(),
  });
  const toggle = (which) => {
    document.body.dataset[which] = document.body.dataset[which] === 'closed' ? 'open' : 'closed';
  };
  const clicks = {
    export: exportNow, import: () => importInput.click(), help: () => actions.toggleHelp(),
    'close-help': () => actions.toggleHelp(false), prev: () => step(-1), next: () => step(1),
    'toggle-list': () => toggle('list'), 'toggle-side': () => toggle('side'),
  };
  document.addEventListener('click', (ev) => {
    const b = ev.target.closest('button[data-action]');
    if (b && !b.closest('#banners') && clicks[b.dataset.action]) clicks[b.dataset.action]();
  });
  // the help overlay (?): shown while ui.help, keeping the focus inside while open
  const helpBox = document.getElementById('overlay-help');
  helpBox.addEventListener('click', (ev) => {
    if (ev.target === helpBox) actions.toggleHelp(false);
  });
  let release = null;
  store.subscribe((s, prev) => {
    if (s.ui.help === prev.ui.help) return;
    helpBox.hidden = !s.ui.help;
    if (s.ui.help) release = trapFocus(helpBox.querySelector('.dialog'));
    else if (release) {
      release();
      release = null;
    }
  });
  window.mercuryStatic = { store, version, review: api, unexported: () => unexportedCount(store.state.work) };

  // --- the first record: the deep-linked one, else the most contested -----------------------------------
  await firstRows;
  let first = 0;
  if (wanted) {
    const id = decodeURIComponent(wanted[1]);
    let at = data.rows.findIndex((r) => r && r.id === id);
    if (at < 0) at = (await data.allRows()).findIndex((r) => r && r.id === id);
    if (at >= 0) first = at;
  }
  await open(first);
  performance.mark('mercury-review-first-record');
  document.body.dataset.ready = 'true';
  data.allRows().then(() => setReview({ rowsLoaded: data.count }), () => {});
}
