/**
 * The review slice (review mode only): what the review shows (`review`: the open review record, its texts,
 * the focused item, the editor, the comment box, filters, hidden lanes) and every rule of reviewing: a
 * decision on an annotator's annotation, the reviewer's own annotations, answers taken from an annotator or
 * given, comments (kept as they are typed), adjudication and the next record to do. The reviewer's work
 * goes in ordinary work entries (reviewentries.js) through the work slice, saved as annotation work is.
 */
import { fold } from '../data/recordindex.js';
import { liveAnnotations } from './entries.js';
import { chosenLabels, labelPrefixes } from './labels.js';
import { selectPositions } from './listquery.js';
import { addComment, decide, decisionOf, goldOf, isAdjudicated, setAnswer, settleSentence } from './reviewentries.js';
import { spanGroups } from './reviewjudges.js';
import { agreedSentences, NOT_CHECKED, sentenceOf } from './reviewsentences.js';
import { nowIso, uuid } from '../util.js';
import { prefs } from './prefs.js';

/** The lane of the gold spans (after the annotators', CSS .rv-l8). */
export const GOLD_LANE = 8;
/** The lane of the focused sentence and its evidence (CSS .rv-l9: a background, no line). */
export const EVIDENCE_LANE = 9;
const FILTER = { unreviewed: false, question: '', annotator: '', pair: '', ids: null };

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

/** Each annotator's lane (underline depth), in the review's annotator order. */
export const lanesOf = (data) => data.annotators.map((_, i) => i % GOLD_LANE);

/**
 * The open record's items in focus order: annotators' annotations in text order, identical ones from several
 * judges as one item (`members`, reviewjudges.js spanGroups), then the reviewer's own.
 */
export function reviewItems(s) {
  const r = s.review;
  if (!r.rec) return [];
  const { annotators } = r.data;
  const lanes = lanesOf(r.data);
  const rank = (a) => annotators.indexOf(a.annotator);
  const sorted = [...r.rec.annotations].sort((a, b) => a.summary.start - b.summary.start || rank(a) - rank(b)
    || (a.key < b.key ? -1 : 1));
  const theirs = spanGroups(sorted).map((g) => ({
    kind: 'theirs', key: g.key, ann: g.ann, lane: lanes[rank(g.ann)],
    members: g.members.map((a) => ({ key: a.key, annotator: a.annotator, ann: a, lane: lanes[rank(a)] })),
  }));
  const own = liveAnnotations(s.work.records[r.row.id]).map((a) => ({ kind: 'own', key: a.id, ann: a, lane: GOLD_LANE }));
  return [...theirs, ...own];
}

/** The spans drawn on side `side`: visible annotators' and the gold (decided, edited or own) ones. */
export function reviewSpans(side, s) {
  const r = s.review;
  const entry = s.work.records[r.row?.id];
  const out = [];
  for (const it of reviewItems(s)) {
    for (const m of it.members || []) {
      if (!r.hidden.includes(m.lane) && m.ann[side]) out.push({ ...m.ann[side], lane: m.lane, key: it.key });
    }
    const gold = it.kind === 'own' ? it.ann : goldOf(it.ann, decisionOf(entry, it.key));
    if (gold && gold[side] && !r.hidden.includes(GOLD_LANE)) out.push({ ...gold[side], lane: GOLD_LANE, key: it.key });
  }
  return [...out, ...sentenceSpans(side, s)];
}

/**
 * The focused summary sentence lit, and on the source every judge's evidence for it and the reviewer's (lane
 * EVIDENCE_LANE): the reviewer sees what each verdict was checked against.
 */
function sentenceSpans(side, s) {
  const r = s.review;
  const sent = r.sentence === null ? null : r.rec?.sentences?.[r.sentence];
  const view = r.texts?.[side];
  if (!sent || !view) return [];
  const key = `s:${sent.sentence}`;
  if (side === 'summary') return [{ start: sent.start, end: sent.end, lane: EVIDENCE_LANE, key }];
  const own = sentenceOf(s.work.records[r.row.id], sent.sentence);
  const lit = new Set([...sent.verdicts.flatMap((v) => v.evidence), ...(own?.evidence || [])]);
  return [...lit].filter((k) => k < view.sentences.length)
    .map((k) => ({ start: view.sentences[k][0], end: view.sentences[k][1], lane: EVIDENCE_LANE, key }));
}

/** `entry` with one decision on every member of a group (identical spans are decided as one). */
const decideAll = (entry, members, decision, at) => members.reduce((e, m) => decide(e, m.key, decision, at), entry);

/**
 * The review slice for `data` (review/data.js ReviewData) and `reviewer`: returns the slice factory
 * createAppStore takes (`review`), whose actions are `store.actions.review`.
 */
export function reviewSlice({ data, reviewer }) {
  return (ctx) => {
    const { store, bundle, actions: all } = ctx;
    const get = () => store.state.review;
    const set = (part) => store.update({ review: { ...get(), ...part } });
    const entryOf = (id) => store.state.work.records[id] || null;
    const questions = data.questions.filter((q) => q.type !== 'span');
    store.update({
      review: {
        data, reviewer, pos: -1, row: null, rec: null, texts: null, error: null, focus: null, question: 0,
        hidden: [], filter: FILTER, order: null, editor: null, comment: null, byAnnotator: null, rowsLoaded: 0,
        sentence: null,
      },
    });
    // A comment being typed is kept as it is typed (synchronously: a reload right after a keystroke keeps
    // it), one per reviewer and review, and shown again when its record opens; posting or Esc ends it.
    const commentKey = `review-comment:${bundle.manifest.review.review_id}:${reviewer}`;
    let commentKept = true;
    const change = (fn) => {
      const { row } = get();
      if (row) all.changeRecord(row.id, (entry) => fn(entry, nowIso()));
    };
    const focused = () => reviewItems(store.state).find((it) => it.key === get().focus) || null;
    const edit = (part) => {
      if (get().editor) set({ editor: { ...get().editor, ...part } });
    };
    let loadSeq = 0;
    let opened = 0;

    const review = {
      questions,
      /** Open the review record at position `pos` of the order (the next one's shards asked for meanwhile). */
      async open(pos) {
        if (pos < 0 || pos >= data.count) return;
        const seq = ++loadSeq;
        set({ pos, error: null, editor: null, comment: null });
        try {
          const row = await data.rowAt(pos);
          const [rec, texts] = await Promise.all([data.record(row), bundle.record(row.id)]);
          if (seq !== loadSeq) return;
          const kept = prefs.get(commentKey, null); // a comment typed on this record before a reload
          const comment = kept && kept.record === row.id && typeof kept.on === 'string' ? { on: kept.on } : null;
          set({ row, rec, texts, focus: null, question: 0, comment, sentence: null });
          const next = get().order ? get().order[get().order.indexOf(pos) + 1] : pos + 1;
          if (next !== undefined && next < data.count) {
            data.rowAt(next).then((r2) => { data.record(r2); bundle.prefetch(r2.id); }).catch(() => {});
          }
        } catch (err) {
          if (seq === loadSeq) set({ error: String(err.message || err) });
        }
      },
      /** The next (+1) or previous (-1) record of those shown (the filter's, else all). */
      step(dir) {
        const { pos, order } = get();
        if (!order) return review.open(Math.max(0, Math.min(data.count - 1, pos + dir)));
        const i = order.indexOf(pos);
        const j = i < 0 ? (dir > 0 ? order.findIndex((p) => p > pos) : order.findLastIndex((p) => p < pos)) : i + dir;
        if (j >= 0 && j < order.length) return review.open(order[j]);
        return null;
      },
      async nextUnadjudicated() {
        await data.allRows();
        const { rows } = data;
        const { pos } = get();
        const order = get().order || rows.map((_, i) => i);
        const todo = order.find((p) => p > pos && !isAdjudicated(entryOf(rows[p].id)))
          ?? order.find((p) => !isAdjudicated(entryOf(rows[p].id)));
        if (todo !== undefined && todo !== pos) await review.open(todo);
        else all.message('Every record shown is adjudicated: export your review and send the file to your coordinator.');
      },
      /** Every row of the order read (the record list shows them all). */
      loadRows() {
        data.allRows().then(() => set({ rowsLoaded: data.count }), () => {});
      },
      focus(key) {
        set({ focus: key });
      },
      /** Accept, reject or undecide (null) the focused annotation; on the reviewer's own, reject deletes it. */
      decide(action) {
        const it = focused();
        if (!it) {
          all.message('Select an annotation first (↓ / ↑, or click it).');
          return;
        }
        if (it.kind === 'own') {
          if (action === 'reject' || action === null) {
            change((e, at) => ({
              ...e, annotations: { ...e.annotations, [it.key]: { id: it.key, deleted: true, updated_at: at } },
            }));
            set({ focus: null });
          }
          return;
        }
        change((e, at) => decideAll(e, it.members, action === null ? null : { action }, at));
      },
      /** The editor on the focused item (its gold version), or on a new annotation of the reviewer's (`add`). */
      startEdit(add = false) {
        const it = add ? null : focused();
        if (!add && !it) {
          all.message('Select an annotation to edit first (↓ / ↑, or click it).');
          return;
        }
        const base = it ? (it.kind === 'own' ? it.ann : goldOf(it.ann, decisionOf(entryOf(get().row.id), it.key)) || it.ann) : null;
        set({
          editor: {
            opened: ++opened, key: it ? it.key : null, kind: it ? it.kind : 'own', members: it?.members || null,
            summary: base ? [base.summary.start, base.summary.end] : null,
            source: base?.source ? [base.source.start, base.source.end] : null,
            labels: base ? chosenLabels(base.label, store.state.labelChoices) : [],
            note: base ? base.note || '' : '',
          },
          comment: null,
        });
      },
      closeEditor() {
        set({ editor: null });
      },
      /** The editor's span of `side` ([start, end] code points, or null: none). */
      setEditorSpan(side, span) {
        edit({ [side]: span });
      },
      /** A label picked or unpicked in the editor (one label per span: picking one drops the others). */
      toggleEditorLabel(label, on) {
        const { labels } = get().editor;
        edit({ labels: !on ? labels.filter((l) => l !== label) : ctx.oneLabel ? [label] : [...labels, label] });
      },
      setEditorNote(note) {
        edit({ note });
      },
      /** Save the editor: an edit decision on an annotator's annotation, or the reviewer's own annotation. */
      saveEdit() {
        const ed = get().editor;
        if (!ed) return false;
        const spanFrom = (side, range) => {
          const view = get().texts[side];
          if (!range) return null;
          const [s, e] = range;
          if (!(Number.isInteger(s) && Number.isInteger(e) && s >= 0 && s < e && e <= view.length)) throw new Error(`the ${side} span ${s}–${e} is not inside its text (0–${view.length})`);
          return { start: s, end: e, text: view.slice(s, e) };
        };
        let summary;
        let source;
        try {
          summary = spanFrom('summary', ed.summary);
          source = spanFrom('source', ed.source);
        } catch (err) {
          all.message(`Not saved: ${err.message}.`);
          return true;
        }
        if (!summary || !ed.labels.length) {
          all.message('Not saved: an annotation needs a summary span and a label.');
          return true;
        }
        const fields = { summary, source, label: labelPrefixes(ed.labels, ctx.labelOrder), note: ed.note };
        if (ed.kind === 'theirs') change((e, at) => decideAll(e, ed.members, { action: 'edit', ...fields }, at));
        else {
          const id = ed.key || uuid();
          change((e, at) => {
            const prev = e.annotations[id];
            const ann = { id, ...fields, created_at: prev?.created_at || at, updated_at: at };
            return { ...e, annotations: { ...e.annotations, [id]: ann } };
          });
          set({ focus: id });
        }
        set({ editor: null });
        return true;
      },
      /** The summary sentence the reviewer looks at (its evidence lit on the source), null: none. */
      focusSentence(i) {
        set({ sentence: i });
      },
      /** Summary sentence `i` settled: a judge's verdict and evidence ({from}), the reviewer's own ({verdict,
       * evidence}), or null (unsettled again). */
      settleSentence(i, value) {
        change((e, at) => settleSentence(e, i, value, at));
      },
      /** The next (+1) or previous (-1) summary sentence of the record (from none: the first, or the last). */
      stepSentence(dir) {
        const n = get().rec?.sentences?.length || 0;
        if (!n) return;
        const i = get().sentence;
        set({ sentence: i === null ? (dir > 0 ? 0 : n - 1) : Math.max(0, Math.min(n - 1, i + dir)) });
      },
      /** Every sentence the judges agree on settled at once with their shared verdict and evidence (one change);
       * the disputed and unchecked ones stay for the reviewer. */
      acceptAgreed() {
        const { row, rec } = get();
        const agreed = row ? agreedSentences(rec, entryOf(row.id)) : [];
        if (!agreed.length) {
          all.message(rec?.sentences ? 'No sentence left that the judges agree on: settle the others one by one.'
            : 'This review asks no sentence verdicts.');
          return;
        }
        change((e, at) => agreed.reduce((x, a) => settleSentence(x, a.sentence, { from: a.from }, at), e));
      },
      /** Question `name` answered with annotator `from`'s answer ({from}), or with the reviewer's own ({value}). */
      answer(name, ans) {
        change((e, at) => setAnswer(e, name, ans, at));
      },
      /** The `n`-th annotator's (1-based, legend order) verdict and evidence taken on the selected sentence, or
       * else their answer to the current question, when they gave one. */
      pick(n) {
        const who = data.annotators[n - 1];
        const sent = get().sentence === null ? null : get().rec?.sentences?.[get().sentence];
        if (sent && who) {
          const v = sent.verdicts.find((x) => x.annotator === who);
          if (v && v.verdict !== NOT_CHECKED) review.settleSentence(sent.sentence, { from: who });
          else all.message(`${who} gave no verdict on sentence ${sent.sentence + 1}.`);
          return;
        }
        const q = questions[get().question];
        if (!q || !who) return;
        const has = get().rec?.responses.some((r) => r.annotator === who && r.values && q.name in r.values);
        if (has) review.answer(q.name, { from: who });
        else all.message(`${who} did not answer “${q.title || q.name}” on this record.`);
      },
      /** The next (+1) or previous (-1) question (the digits answer it again, not a sentence). */
      stepQuestion(dir) {
        if (!questions.length) return;
        set({ question: (get().question + questions.length + dir) % questions.length, sentence: null });
      },
      /** The comment box on `on` ('record' or an item's key; the focused item when not given). */
      openComment(on = get().focus || 'record') {
        set({ comment: { on }, editor: null });
      },
      keepComment(text) {
        const c = get().comment;
        const id = get().row?.id;
        if (!c || !id) return;
        commentKept = prefs.set(commentKey, text ? { record: id, on: c.on, text } : null);
      },
      /** The kept text of the comment box now open, or ''. */
      keptComment() {
        const d = prefs.get(commentKey, null);
        const c = get().comment;
        return d && c && d.record === get().row?.id && d.on === c.on && typeof d.text === 'string' ? d.text : '';
      },
      /** Whether the text typed in the comment box is kept (localStorage took it). */
      commentKept: () => commentKept,
      dropComment() {
        prefs.set(commentKey, null);
        commentKept = true;
        set({ comment: null });
      },
      postComment(text) {
        const c = get().comment;
        if (!c || !text.trim()) return;
        const at = nowIso();
        change((e) => addComment(e, { id: uuid(), on: c.on, author: reviewer, time: at, text: text.trim() }, at));
        review.dropComment();
      },
      /** Mark the open record adjudicated, then open the next one that is not. */
      adjudicate() {
        change((e, at) => ({ ...e, status: 'submitted', status_at: at }));
        review.nextUnadjudicated();
      },
      reopen() {
        change((e, at) => ({ ...e, status: 'in_progress', status_at: at }));
      },
      /** Narrow the order by the filter's fields given (unreviewed, question, annotator, pair, ids). */
      setFilter(part) {
        const filter = { ...get().filter };
        for (const k of Object.keys(FILTER)) if (k in part) filter[k] = part[k];
        set({ filter });
        data.allRows().then(() => {
          const everything = !filter.unreviewed && !filter.question && !filter.annotator && !filter.pair && !filter.ids;
          set({ order: everything ? null : filterRows(data.rows, filter, store.state.work) });
        }, (err) => all.message(`The records could not be filtered (${err.message}).`));
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
        review.setFilter({ ids });
      },
      toggleLane(lane) {
        const { hidden } = get();
        set({ hidden: hidden.includes(lane) ? hidden.filter((l) => l !== lane) : [...hidden, lane] });
      },
      /** Mercury's view: every annotation of one annotator (null: closed). */
      showByAnnotator(name) {
        set({ byAnnotator: name });
      },
      /** Esc: close the innermost of help, editor, comment box, annotator view; false when none was open. */
      closeTop() {
        const r = get();
        if (store.state.ui.help) all.toggleHelp(false);
        else if (r.editor) set({ editor: null });
        else if (r.comment) review.dropComment();
        else if (r.byAnnotator) set({ byAnnotator: null });
        else return false;
        return true;
      },
    };
    return { review };
  };
}
