// Every top-level field of the store has one owning slice, and only that slice's module writes it (store.js):
// the store is driven through real actions (every slice's, and the writes they make later: a record
// loaded, a save completed, a record placed) while each `store.update` is recorded with the module and the
// function that called it, read from the call stack.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { createAppStore } from '../../site_template/app/state/store.js';
import { bundleOf, memoryStorage, reviewStore } from './appstore.mjs';

/** Each field's owner: the slice module that alone writes it. */
const OWNERS = {
  work: 'entries.js', placed: 'entries.js', history: 'entries.js',
  draft: 'draft.js', drafts: 'draft.js', query: 'draft.js',
  current: 'current.js',
  assist: 'related.js',
  review: 'review.js',
  ui: 'ui.js', view: 'ui.js', model: 'ui.js', layout: 'ui.js',
  verdicts: 'verdicts.js',
};

const HERE = fileURLToPath(import.meta.url);
const FRAME = /at (?:async )?(?:(\S+) \()?(file:\/\/[^)\s]+?):\d+:\d+\)?$/;

/**
 * The module of the first frame of `stack` outside this file, and the first function named in that module
 * (an arrow inside `store.batch` goes by its caller's name): [module file name, function name].
 */
function callerOf(stack) {
  const frames = stack.split('\n').map((line) => FRAME.exec(line.trim())).filter(Boolean)
    .map((m) => ({ path: fileURLToPath(m[2]), fn: m[1] })).filter((f) => f.path !== HERE);
  if (!frames.length) return ['(unknown)', '(unknown)'];
  const { path } = frames[0];
  const named = frames.find((f) => f.path === path && f.fn);
  return [path.split('/').pop(), named ? named.fn.replace(/^Object\./, '') : '(anonymous)'];
}

/** Record, from now on, every field `store.update` writes: {field: Map("module function" -> module)}. */
function recordWrites(store) {
  const writes = {};
  const update = store.update.bind(store);
  store.update = (part) => {
    const p = typeof part === 'function' ? part(store.state) : part;
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 50;
    const [module, fn] = callerOf(new Error().stack);
    Error.stackTraceLimit = limit;
    for (const field of Object.keys(p)) (writes[field] ||= new Map()).set(`${module} ${fn}`, module);
    update(p);
  };
  return writes;
}

/** "field written by module fn" for each write not by the field's owner. */
const foreign = (writes) => Object.entries(writes).flatMap(([field, by]) => [...by]
  .filter(([, module]) => module !== OWNERS[field]).map(([who]) => `${field} written by ${who}`));

const tick = () => new Promise((r) => setTimeout(r, 0));
const VERDICT = { name: 'verdict', title: 'Verdict', type: 'label', required: true, options: ['ok', 'bad'] };
const SENTENCES = { mode: 'shown', options: [{ value: 'ok', text: 'OK' }, { value: 'bad', text: 'Bad' }], evidence: ['ok'] };

test("every field of the annotator's store is written only by its owner's module", async (t) => {
  const store = createAppStore({
    bundle: bundleOf([VERDICT], { sentence_verdicts: SENTENCES }), annotator: 'ann', clientId: 'c1',
    storage: memoryStorage(), view: {}, questions: [{ name: 'spans', type: 'span', title: 'Spans', required: false }, VERDICT],
  });
  const writes = recordWrites(store);
  const a = store.actions;
  a.trackTime();
  await a.goTo(0);
  a.activity();
  // a draft: selected, highlighted, labelled, saved; edited, deleted, undone and redone
  a.select('summary', 0, 4);
  a.rankingPending('source', store.state.query);
  a.showRelated({ side: 'source', results: [{ index: 0, score: 1 }], kind: 'model', query: store.state.query, best: 1 });
  a.select('source', 0, 5);
  a.saveDraft(); // no label: the draft card says so
  a.toggleLabel('Benign');
  a.setNote('n');
  const id = a.saveDraft();
  a.editAnnotation(id);
  a.saveDraft();
  a.hover(id);
  a.deleteAnnotation(id);
  a.undo();
  a.redo();
  a.dismissToast();
  // a draft cleared on the second request; one kept by the inline choice; a span suggestion accepted
  a.select('summary', 5, 9);
  a.toggleLabel('Benign');
  a.requestClear();
  a.requestClear();
  a.select('summary', 5, 9);
  a.setNote('later');
  a.leaveDraft('navigate', () => {});
  a.choose('keep');
  a.draftFrom(store.state.current.record.prior_annotations[0]);
  a.clear();
  a.acceptNextSpan();
  // answers, the sentence walk, submit held and refused, an answer cleared on a submitted record
  a.finish('submitted');
  a.setResponse('verdict', 'ok', { undo: 'Answer given.' });
  a.focusSentence(0);
  a.finish('submitted');
  a.pickVerdict(1);
  a.acceptSuggestedVerdict();
  a.togglePicker(true);
  a.clearVerdict();
  a.dismissSentenceMessage();
  a.finish('submitted');
  a.setResponse('verdict', '');
  // another tab's work and its newer drafts, the open record's shown in place of ours; an import; an export
  a.select('summary', 0, 4);
  const theirs = { ...store.state.drafts.r0, note: 'theirs', updated_at: '2999-01-01T00:00:00.000Z' };
  a.mergeExternal({
    records: { r2: { status: 'discarded', status_at: '2999-01-01T00:00:00Z', annotations: {} } },
    drafts: { r0: theirs, r2: { ...theirs, id: 'd2' } },
  });
  assert.equal(store.state.draft.note, 'theirs');
  a.importWork({ records: { r1: { status: 'submitted', status_at: '2999-01-01T00:00:00Z', annotations: {} } }, last_export_at: null });
  a.markExported('2999-01-02T00:00:00.000Z');
  a.placeWork();
  // navigation and its messages; the page's own controls
  await a.goToId('r1');
  await a.goToId('nope');
  await a.goNextTodo(async () => -1);
  a.showAllDone(false);
  await a.next();
  await a.prev();
  a.setView({ k: 3, minScore: 0.1 });
  a.setModel({ status: 'ready', message: '' });
  a.setLayout({ list: false, side: null });
  a.setUpload({ state: 'sent' });
  a.toggleHelp(true);
  a.toggleGuidelines(true);
  a.message('hello');
  a.dismissAside();
  a.offerEarlier([{ key: 'k', accept: () => null, decline: () => null }]);
  a.answerEarlier('k', false);
  a.tabHidden(true);
  a.tabHidden(false);
  a.pageGone();
  await tick();
  await tick();

  const fields = Object.keys(OWNERS).filter((f) => f !== 'review');
  assert.deepEqual(fields.filter((f) => !writes[f]), [], 'every field is written by the actions driven');
  for (const [field, by] of Object.entries(writes)) t.diagnostic(`${field}: ${[...by.keys()].join(', ')}`);
  assert.deepEqual(foreign(writes), []);
});

test("the review mode's fields are written only by their owners' modules", async (t) => {
  const store = reviewStore();
  const writes = recordWrites(store);
  const review = store.actions.review;
  await review.open(1);
  review.decide('accept');
  review.focus('alice:a1');
  review.decide('accept');
  review.toggleLane(8);
  review.setFilter({ annotator: 'bob' });
  await tick();
  review.startEdit(true);
  review.setEditorSpan('summary', [0, 4]);
  review.toggleEditorLabel('Benign', true);
  review.setEditorNote('mine');
  review.saveEdit();
  await review.nextUnadjudicated();
  await tick();
  for (const field of ['review', 'work', 'ui']) assert.ok(writes[field], `${field} is written`);
  for (const [field, by] of Object.entries(writes)) t.diagnostic(`${field}: ${[...by.keys()].join(', ')}`);
  assert.deepEqual(foreign(writes), []);
});

test('a write by a module other than the owner is named', () => {
  const store = createAppStore({ bundle: bundleOf([]), annotator: 'ann', clientId: 'c1', storage: memoryStorage(), view: {} });
  const writes = recordWrites(store);
  store.actions.message('by the ui slice');
  store.update({ ui: { ...store.state.ui, message: 'by no slice' } }); // called from here: no module of the page
  assert.deepEqual(foreign(writes), ['ui written by (unknown) (unknown)']);
});
