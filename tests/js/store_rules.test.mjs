// The rules the store owns (store.js createAppStore), run under node without a browser: a submit held up
// by a required question, an answer cleared on a submitted record taking it back to in progress, the next
// record to do and "all done", an import counted as exported, the next span suggestion accepted. The
// bundle and the storage are in-memory stand-ins (appstore.mjs).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createAppStore, emptyAssist, recordStatus, refusedText } from '../../site_template/app/state/store.js';
import { bundleOf, memoryStorage, reviewStore } from './appstore.mjs';

const VERDICT = { name: 'verdict', title: 'Verdict', type: 'label', required: true, options: ['ok', 'bad'] };

async function openStore({ questions = [VERDICT], work = null, openError = null } = {}) {
  const bundle = bundleOf(questions);
  const m = bundle.manifest;
  const store = createAppStore({
    bundle, annotator: 'ann', clientId: 'c1', storage: memoryStorage(), work, openError, view: {},
    questions: [{ name: 'spans', type: 'span', title: 'Spans', required: false }, ...m.settings.questions],
  });
  await store.actions.goTo(0);
  return store;
}

const status = (store, id = 'r0') => recordStatus(store.state.work, id);

test('a submit with a required question unanswered is refused, naming it; answered, it submits', async () => {
  const store = await openStore({ questions: [VERDICT, { ...VERDICT, name: 'why', title: 'Why' }] });
  assert.equal(store.actions.finish('submitted'), 'Verdict');
  assert.equal(store.state.ui.message, 'Not submitted: “Verdict” is required and not answered yet (also: Why).');
  assert.equal(status(store), 'todo');
  store.actions.setResponse('verdict', 'ok');
  store.actions.setResponse('why', 'bad');
  assert.equal(store.actions.finish('submitted'), null);
  assert.equal(status(store), 'submitted');
  store.actions.setStatus('in_progress');
  assert.equal(store.actions.finish('discarded'), null); // a discard needs no answer
  assert.equal(status(store), 'discarded');
});

test('a required span question holds up a submit until the record has an annotation', async () => {
  const store = await openStore({ questions: [{ name: 'spans', type: 'span', title: 'Spans', required: true }] });
  assert.equal(store.actions.finish('submitted'), 'Spans');
  store.actions.acceptPrior(0);
  assert.equal(store.actions.finish('submitted'), null);
  assert.equal(status(store), 'submitted');
});

test('an answer cleared on a submitted record that leaves a required question unanswered reopens it', async () => {
  const optional = { name: 'note', title: 'Note', type: 'text', required: false };
  const store = await openStore({ questions: [VERDICT, optional] });
  store.actions.setResponse('verdict', 'ok');
  store.actions.setResponse('note', 'fine');
  store.actions.finish('submitted');
  store.actions.setResponse('note', null); // not required: the record stays submitted
  assert.equal(status(store), 'submitted');
  store.actions.message(null);
  store.actions.setResponse('verdict', null);
  assert.equal(status(store), 'in_progress');
  assert.equal(store.state.ui.message, 'Back to in progress: “Verdict” is required; answer it, then submit again (s).');
  store.actions.setResponse('verdict', 'bad'); // answering on a record in progress changes no status
  assert.equal(status(store), 'in_progress');
});

test('the next record to do opens; none left shows "all done"; a failed lookup says so; a move meanwhile wins', async () => {
  const store = await openStore();
  const asked = [];
  await store.actions.goNextTodo(async (from, after) => {
    asked.push([from, after]);
    return 2;
  });
  assert.deepEqual(asked, [[0, true]]);
  assert.equal(store.state.current.id, 'r2');
  await store.actions.goNextTodo(async () => -1);
  assert.equal(store.state.ui.allDone, true);
  assert.equal(store.state.current.id, 'r2');
  store.actions.showAllDone(false);
  assert.equal(store.state.ui.allDone, false);
  await store.actions.goNextTodo(async () => { throw new Error('shard 3: HTTP 404'); });
  assert.equal(store.state.ui.message, 'The next record to do could not be found (shard 3: HTTP 404).');
  await store.actions.goNextTodo(async () => {
    await store.actions.goTo(1); // the annotator moved on while the next one was looked up
    return 0;
  });
  assert.equal(store.state.current.id, 'r1');
});

const imported = (at) => ({
  records: { r1: { status: 'submitted', status_at: at, updated_at: at, annotations: {
    a1: { id: 'a1', label: ['Benign'], note: '', summary: { start: 0, end: 4, text: 'Cats' }, source: null,
      created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-02T00:00:05.400Z' },
  } } },
  last_export_at: null,
});

test('an export file imported into a browser with nothing unexported counts as exported up to its newest change', async () => {
  const store = await openStore();
  assert.equal(store.actions.importFile(imported('2026-01-02T00:00:01Z'), true), 0);
  assert.equal(status(store, 'r1'), 'submitted');
  assert.equal(store.state.work.last_export_at, '2026-01-02T00:00:05.400Z'); // the annotation's, not a whole second
  const partial = await openStore();
  partial.actions.importFile(imported('2026-01-02T00:00:01Z'), false); // something of the file was left out
  assert.equal(partial.state.work.last_export_at, null);
});

test('an import into a browser with unexported work leaves it unexported, and counts the records both had', async () => {
  const store = await openStore();
  store.actions.setResponse('verdict', 'ok'); // r0: a change not exported
  store.actions.setStatus('in_progress');
  const both = imported('2026-01-02T00:00:01Z');
  both.records.r0 = { status: 'discarded', status_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z', annotations: {} };
  assert.equal(store.actions.importFile(both, true), 1);
  assert.equal(store.state.work.last_export_at, null);
  assert.equal(status(store), 'in_progress'); // the newer work here is kept
});

test('`a` accepts the first span suggestion not yet among the annotations, then none', async () => {
  const store = await openStore();
  store.actions.acceptPrior(0);
  assert.equal(store.actions.acceptNextSpan(), true);
  const spans = () => Object.values(store.state.work.records.r0.annotations).map((x) => x.summary.text).sort();
  assert.deepEqual(spans(), ['Cats', 'purr']);
  assert.equal(store.actions.acceptNextSpan(), false);
  await store.actions.goTo(1); // no suggestions
  assert.equal(store.actions.acceptNextSpan(), false);
});

test('`x` drops the span paired with the anchor, never the anchor', async () => {
  const store = await openStore();
  store.actions.clearPair(); // no draft: nothing to drop
  store.actions.select('summary', 0, 4);
  store.actions.showRelated({ ...emptyAssist(), side: 'source' });
  assert.equal(store.actions.select('source', 0, 5), 'pair');
  store.actions.clearPair();
  assert.deepEqual([store.state.draft.anchor, store.state.draft.summary, store.state.draft.source], ['summary', [0, 4], null]);
});

test('storage that refused to open shows from the start; layout and upload are slices of the store', async () => {
  const store = await openStore({ openError: new Error('QuotaExceededError') });
  assert.equal(store.state.ui.storageError, refusedText(new Error('QuotaExceededError')));
  assert.match(store.state.ui.storageError, /refuses to save \(QuotaExceededError\): nothing you do here is saved/);
  assert.equal((await openStore()).state.ui.storageError, null);
  store.actions.setLayout({ list: false, side: null });
  store.actions.setUpload({ state: 'sent' });
  assert.deepEqual([store.state.layout, store.state.ui.upload], [{ list: false, side: null }, { state: 'sent' }]);
});

test("the review mode's view is a slice of the store, changed only through its actions", async () => {
  const store = reviewStore();
  assert.equal(store.actions.setReview, undefined); // no setter of the whole slice
  const review = store.actions.review;
  await review.open(1);
  assert.deepEqual([store.state.review.pos, store.state.review.row.id, store.state.review.focus], [1, 'r1', null]);
  review.decide('accept'); // nothing focused: said, nothing decided
  assert.equal(store.state.ui.message, 'Select an annotation first (↓ / ↑, or click it).');
  assert.equal(store.state.work.records.r1, undefined);
  review.focus('alice:a1');
  review.decide('accept');
  assert.equal(store.state.work.records.r1.review['d:alice:a1'].value.action, 'accept');
  review.toggleLane(8);
  assert.deepEqual(store.state.review.hidden, [8]);
  review.setFilter({ annotator: 'bob', ghost: 'x' });
  await new Promise((r) => setTimeout(r, 0));
  assert.deepEqual([store.state.review.filter.annotator, 'ghost' in store.state.review.filter], ['bob', false]);
  assert.deepEqual(store.state.review.order, [1]);
  // the editor: the reviewer's own annotation, its fields set through the slice's actions
  review.startEdit(true);
  const opened = store.state.review.editor.opened;
  review.setEditorSpan('summary', [0, 4]);
  review.toggleEditorLabel('Benign', true);
  review.toggleEditorLabel('Unwanted', true);
  review.toggleEditorLabel('Benign', false);
  review.setEditorNote('mine');
  assert.equal(store.state.review.editor.opened, opened); // the same editor, its fields changed
  assert.equal(review.saveEdit(), true);
  const own = Object.values(store.state.work.records.r1.annotations);
  assert.deepEqual(own.map((a) => [a.summary.text, a.label, a.note]), [['Cats', ['Unwanted'], 'mine']]);
  assert.deepEqual([store.state.review.editor, store.state.review.focus], [null, own[0].id]);
});

test('time on task: a look alone makes no work; the time goes with the first change, and the save times it', async () => {
  const RealDate = Date;
  let now = RealDate.now() + 1e9; // after every time stamped so far (nowIso never goes back)
  globalThis.Date = class extends RealDate { // the page's clock, moved by the test
    constructor(...args) {
      super(...(args.length ? args : [now]));
    }

    static now() {
      return now;
    }
  };
  try {
    const store = await openStore({ questions: [] });
    const { actions } = store;
    actions.trackTime();
    const at = (ms) => {
      now += ms;
      actions.activity();
    };
    at(0);
    at(3_000);
    at(120_000); // away two minutes: none of it
    actions.tabHidden(true);
    now += 30_000; // hidden: none of it
    actions.tabHidden(false);
    at(2_000);
    assert.equal(status(store), 'todo', 'looking at a record is no work on it');
    actions.select('summary', 0, 4);
    at(4_000);
    actions.toggleLabel('Benign');
    const id = actions.saveDraft();
    const entry = store.state.work.records.r0;
    assert.equal(Object.values(entry.active).reduce((s, v) => s + v, 0), 9_000);
    const { elapsed_ms: elapsed } = entry.annotations[id];
    assert.ok(Math.abs(elapsed - 4_000) <= 2, `from the first selection to the save: ${elapsed}`); // stamps differ by a millisecond or more
    at(5_000);
    await actions.goTo(1); // leaving saves what was counted since
    assert.equal(Object.values(store.state.work.records.r0.active).reduce((s, v) => s + v, 0), 14_000);
  } finally {
    globalThis.Date = RealDate;
  }
});

test('no time on task is counted before the page hands its events over (the review mode has none)', async () => {
  const store = await openStore({ questions: [] });
  store.actions.select('summary', 0, 4);
  store.actions.toggleLabel('Benign');
  store.actions.saveDraft();
  await store.actions.goTo(1);
  assert.equal(store.state.work.records.r0.active, undefined);
});
