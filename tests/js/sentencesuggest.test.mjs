// Suggested sentence verdicts (sentencesuggest.js, docs/sentence-verdicts.md "Sentence-level datasets in"): a
// dataset's votes per summary sentence (people's prior_sentences, agents' sentence_suggestions), the majority
// the accept key takes (none on a tie), the bar's line; accepted in a store under node, `suggested_by` kept
// while the verdict stays, exported and imported as merge reads it; blind mode shows none.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { TextView } from '../../site_template/app/data/data.js';
import { groupVotes, isSuggestedBy, sentenceVotes, suggestedByProblem, suggestedVerdict, suggestionText } from '../../site_template/app/state/sentencesuggest.js';
import { createAppStore } from '../../site_template/app/state/store.js';
import { recordAsShown } from '../../site_template/app/state/suggestions.js';
import { exportedSentences, fittingVerdicts, givenVerdicts, importedSentences } from '../../site_template/app/state/verdicts.js';

const plain = (x) => JSON.parse(JSON.stringify(x));
const prior = (annotator, sentence, verdict) => ({ annotator, sentence, verdict });
const REC = {
  prior_sentences: [prior('worker-0', 0, 'yes'), prior('worker-1', 0, 'no'), prior('worker-2', 0, 'yes'),
    prior('worker-0', 1, 'yes'), prior('worker-1', 1, 'no'), { annotator: 'worker-9', sentence: 1 }],
  sentence_suggestions: [{ agent: 'summhay-eval', sentence: 2, verdict: 'no' }],
};
const ORDER = ['yes', 'no'];

test('the votes of a sentence: people\'s then agents\', malformed ones left out', () => {
  assert.deepEqual(sentenceVotes(REC, 0), [{ by: 'worker-0', verdict: 'yes' }, { by: 'worker-1', verdict: 'no' },
    { by: 'worker-2', verdict: 'yes' }]);
  assert.deepEqual(sentenceVotes(REC, 2), [{ by: 'summhay-eval', verdict: 'no' }]);
  assert.deepEqual(sentenceVotes(REC, 3), []);
  assert.deepEqual(sentenceVotes({}, 0), []);
});

test('the majority is accepted; a tie accepts none; a name votes once', () => {
  assert.deepEqual(suggestedVerdict(sentenceVotes(REC, 0), ORDER), { verdict: 'yes', by: ['worker-0', 'worker-2'] });
  assert.deepEqual(suggestedVerdict(sentenceVotes(REC, 1), ORDER), { tie: ['yes', 'no'] });
  assert.deepEqual(suggestedVerdict(sentenceVotes(REC, 2), ORDER), { verdict: 'no', by: ['summhay-eval'] });
  assert.equal(suggestedVerdict([], ORDER), null);
  const twice = [{ by: 'a', verdict: 'no' }, { by: 'a', verdict: 'no' }, { by: 'b', verdict: 'yes' }];
  assert.deepEqual(suggestedVerdict(twice, ORDER), { tie: ['yes', 'no'] }); // a's repeat is one vote
  // three ways, the two most voted tie: none; the most voted first, equal ones in the settings' order
  const three = [{ by: 'a', verdict: 'none' }, { by: 'b', verdict: 'full' }, { by: 'c', verdict: 'full' },
    { by: 'd', verdict: 'partial' }, { by: 'e', verdict: 'none' }];
  assert.deepEqual(suggestedVerdict(three, ['full', 'partial', 'none']), { tie: ['full', 'none'] });
  assert.deepEqual(groupVotes(three, ['full', 'partial', 'none']).map((g) => g.verdict), ['full', 'none', 'partial']);
});

test('the bar\'s line names who suggested what, a tie said', () => {
  const textOf = (v) => ({ yes: 'Yes', no: 'No' }[v]);
  assert.equal(suggestionText(sentenceVotes(REC, 0), ORDER, textOf), 'suggested: Yes (worker-0, worker-2), No (worker-1)');
  assert.equal(suggestionText(sentenceVotes(REC, 1), ORDER, textOf),
    'suggested: Yes (worker-0), No (worker-1) — a tie: none to accept');
  assert.equal(suggestionText(sentenceVotes(REC, 2), ORDER), 'suggested: no — summhay-eval');
  assert.equal(suggestionText([], ORDER), '');
});

test('suggested_by: distinct names, each of whom gave that verdict to that sentence', () => {
  assert.ok(isSuggestedBy(undefined) && isSuggestedBy(['worker-0']));
  for (const bad of [[], ['a', 'a'], [''], 'worker-0', [3], null]) assert.equal(isSuggestedBy(bad), false, JSON.stringify(bad));
  assert.equal(suggestedByProblem(REC, 0, 'yes', ['worker-0', 'worker-2']), null);
  assert.equal(suggestedByProblem(REC, 0, 'yes', undefined), null);
  assert.equal(suggestedByProblem(REC, 0, 'yes', ['worker-1']),
    'suggested_by: "worker-1" suggested no "yes" for this sentence here');
  assert.match(suggestedByProblem(REC, 1, 'yes', ['worker-2']), /"worker-2" suggested no "yes"/);
});

// --- accepted in a store -------------------------------------------------------------------------------

const SETTINGS = { mode: 'shown', evidence: ['yes'], flagged: 'no',
  options: [{ value: 'yes', text: 'Yes' }, { value: 'no', text: 'No' }] };
const SUMMARY = 'Cats purr. Dogs bark. Birds sing.';
const SOURCE = 'A cat purrs. A dog barks loudly.';
const view = (id, t) => new TextView({ id, text: t, sentences: t.split(/(?<=\.) /).reduce((acc, s) => {
  const start = acc.length ? acc[acc.length - 1][1] + 1 : 0;
  return [...acc, [start, start + s.length]];
}, []) });

async function openStore(blind = false) {
  const bundle = {
    manifest: { bundle_id: 'b', labels: ['Benign'], settings: { sentence_verdicts: SETTINGS } },
    recordIndex: {
      count: 1, row: () => ({ id: 'r0' }), rowAt: async () => ({ id: 'r0' }),
      positionsOf: async (ids) => new Map(ids.filter((id) => id === 'r0').map((id) => [id, 0])), positionOf: async () => 0,
    },
    record: async (id) => ({ id, summary: view('s', SUMMARY), source: view('src', SOURCE), prior_annotations: [], ...REC }),
    prefetch: () => {},
  };
  const storage = { write: async (c) => c, saveJournal: () => {} };
  const store = createAppStore({ bundle, annotator: 'ann', clientId: 'c1', storage, view: {}, questions: [], blind });
  await store.actions.goTo(0);
  return store;
}
const given = (store) => plain(givenVerdicts(store.state.work.records.r0 || {}));

test('accept: from no sentence the first is walked to; the majority given with who suggested it; a tie refused', async () => {
  const store = await openStore();
  const { actions } = store;
  actions.acceptSuggestedVerdict();
  assert.equal(store.state.verdicts.current, 0);
  assert.deepEqual(given(store), {}); // walked to, nothing accepted yet
  actions.acceptSuggestedVerdict();
  assert.deepEqual(given(store)[0].verdict, 'yes');
  assert.deepEqual(given(store)[0].suggested_by, ['worker-0', 'worker-2']);
  actions.confirmSentence(); // the same verdict again: still the suggestion's
  assert.deepEqual(given(store)[0].suggested_by, ['worker-0', 'worker-2']);
  actions.stepSentence(1);
  actions.acceptSuggestedVerdict();
  assert.equal(given(store)[1], undefined);
  assert.equal(store.state.ui.message, 'Sentence 2: the suggestions tie (yes, no); none accepted.');
  actions.stepSentence(1);
  actions.acceptSuggestedVerdict();
  assert.deepEqual([given(store)[2].verdict, given(store)[2].suggested_by], ['no', ['summhay-eval']]);
  actions.pickVerdict(0); // another verdict: the annotator's own
  assert.equal(given(store)[2].suggested_by, undefined);
  actions.undo();
  assert.deepEqual(given(store)[2].suggested_by, ['summhay-eval']);

  const out = exportedSentences(store.state.work.records.r0, SETTINGS);
  assert.deepEqual(out.map((s) => [s.index, s.verdict, s.suggested_by]), [[0, 'yes', ['worker-0', 'worker-2']], [2, 'no', ['summhay-eval']]]);
  const left = [];
  const back = importedSentences([...out, { index: 1, verdict: 'no', updated_at: 't', suggested_by: ['w', 'w'] }],
    (t) => (typeof t === 'string' ? t : null), (w) => left.push(w), 'record r0');
  assert.deepEqual(left, ["record r0, sentences[2]: field 'suggested_by': expected a list of distinct names"]);
  assert.deepEqual(back.sentences[0].value.suggested_by, ['worker-0', 'worker-2']);
  // against the record as shown: kept where the names suggested it; a blind annotator was shown none
  const rec = store.state.current.record;
  const why = [];
  const fit = fittingVerdicts(back.sentences, SETTINGS, rec, (w) => why.push(w));
  assert.deepEqual([Object.keys(fit.sentences), why], [['0', '2'], []]);
  const blindRec = recordAsShown(rec, { blind: true });
  fittingVerdicts(back.sentences, SETTINGS, blindRec, (w) => why.push(w));
  assert.deepEqual(why, [
    "field 'sentences', sentence 0: suggested_by: \"worker-0\" suggested no \"yes\" for this sentence here",
    "field 'sentences', sentence 2: suggested_by: \"summhay-eval\" suggested no \"no\" for this sentence here"]);
});

test('blind: the record as shown has no sentence votes, and accepting gives nothing', async () => {
  const store = await openStore(true);
  const rec = store.state.current.record;
  assert.deepEqual([rec.prior_sentences, rec.sentence_suggestions], [[], []]);
  store.actions.stepSentence(1);
  store.actions.acceptSuggestedVerdict();
  assert.deepEqual(given(store), {});
  assert.equal(store.state.ui.message, 'Sentence 1 has no suggested verdict.');
});
