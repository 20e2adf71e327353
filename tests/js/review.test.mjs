// The review mode's pure parts: overlapping spans cut into pieces (review/text.js), the reviewer's work in a work
// entry and its export (state/reviewentries.js, docs/review.md), merged between tabs like any entry (storage.js).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { filterRows } from '../../site_template/app/state/review.js';
import { segments } from '../../site_template/app/review/text.js';
import { addComment, buildReviewExport, commentsOf, decide, decisionOf, goldOf, setAnswer, touched } from '../../site_template/app/state/reviewentries.js';
import { mergeRecord } from '../../site_template/app/state/workmerge.js';

test('segments: overlapping spans cut the text at every boundary, each piece with the spans over it', () => {
  const spans = [{ start: 2, end: 8, key: 'a' }, { start: 5, end: 12, key: 'b' }, { start: 5, end: 8, key: 'c' }];
  const out = segments(15, spans).map((s) => [s.start, s.end, s.cover.map((c) => c.key).join('')]);
  assert.deepEqual(out, [[0, 2, ''], [2, 5, 'a'], [5, 8, 'abc'], [8, 12, 'b'], [12, 15, '']]);
  assert.deepEqual(segments(4, [{ start: 3, end: 9, key: 'x' }]).map((s) => [s.start, s.end]), [[0, 3], [3, 4]]);
});

const entry = () => ({ status: 'in_progress', status_at: null, updated_at: 't0', annotations: Object.create(null) });
const alice = {
  key: 'alice:a1', id: 'a1', annotator: 'alice', label: ['Benign'], note: 'n',
  summary: { start: 0, end: 3, text: 'The' }, source: null,
};

test('decisions: the newest wins per annotation, in another tab\'s entry too', () => {
  const mine = decide(entry(), 'alice:a1', { action: 'accept' }, '2026-12-01T10:00:00.000Z');
  const theirs = decide(decide(entry(), 'alice:a1', { action: 'reject' }, '2026-12-01T10:00:01.000Z'),
    'bob:b1', { action: 'accept' }, '2026-12-01T09:00:00.000Z');
  const merged = mergeRecord(mine, theirs);
  assert.deepEqual(decisionOf(merged, 'alice:a1'), { action: 'reject' });
  assert.deepEqual(decisionOf(merged, 'bob:b1'), { action: 'accept' });
  assert.equal(goldOf(alice, decisionOf(merged, 'alice:a1')), null);
  const edited = goldOf(alice, { action: 'edit', label: ['Questionable'], summary: { start: 0, end: 1, text: 'T' } });
  assert.deepEqual([edited.label, edited.summary.end, edited.note], [['Questionable'], 1, 'n']);
  assert.equal(touched(entry()), false);
  assert.equal(touched(decide(entry(), 'alice:a1', null, 't1')), false); // undecided again: untouched
});

test('the review export: decisions, added annotations, answers, comments, in review order', () => {
  let e = decide(entry(), 'alice:a1', { action: 'accept' }, '2026-12-01T10:00:00.000Z');
  e = decide(e, 'bob:b1', { action: 'edit', summary: { start: 4, end: 9, text: 'harbor' }, source: null, label: ['Benign'], note: '' }, '2026-12-01T10:00:01.000Z');
  e = setAnswer(e, 'verdict', { from: 'alice' }, '2026-12-01T10:00:02.000Z');
  e = setAnswer(e, 'quality', { value: 4 }, '2026-12-01T10:00:03.000Z');
  e = addComment(e, { id: 'm2', on: 'bob:b1', author: 'rita', time: '2026-12-01T10:00:05.000Z', text: 'wider' }, 'x');
  e = addComment(e, { id: 'm1', on: 'record', author: 'rita', time: '2026-12-01T10:00:04.000Z', text: 'hard' }, 'x');
  e.annotations.g1 = { id: 'g1', label: ['Questionable'], note: '', summary: { start: 0, end: 3, text: 'The' }, source: null, created_at: 'c', updated_at: 'u' };
  e.annotations.g2 = { id: 'g2', deleted: true, updated_at: 'u' };
  e.status = 'submitted';
  assert.deepEqual(commentsOf(e).map((c) => c.id), ['m1', 'm2']);
  const records = Object.create(null);
  records.r2 = e;
  records.r1 = decide(entry(), 'carol:c1', { action: 'reject' }, '2026-12-01T11:00:00.000Z');
  records.r3 = entry(); // opened, nothing decided: not exported
  const manifest = { bundle_id: 'b1', tool_version: '0.1.0', review: { review_id: 'rv1', merge_sha256: 'f'.repeat(64) } };
  const out = buildReviewExport({
    manifest, reviewer: 'rita', clientId: 'c', work: { records }, order: new Map([['r2', 0], ['r1', 1]]), exportedAt: '2026-12-01T12:00:00.123Z',
  });
  assert.equal(out.format, 'mercury-static/review');
  assert.deepEqual([out.review_id, out.merge_sha256, out.exported_at], ['rv1', 'f'.repeat(64), '2026-12-01T12:00:00Z']);
  assert.deepEqual(out.records.map((r) => r.record_id), ['r2', 'r1']);
  const [r2, r1] = out.records;
  assert.equal(r2.adjudicated, true);
  assert.equal(r1.adjudicated, false);
  assert.deepEqual(r2.decisions['alice:a1'], { action: 'accept', updated_at: '2026-12-01T10:00:00.000Z' });
  assert.deepEqual(r2.decisions['bob:b1'], {
    action: 'edit', updated_at: '2026-12-01T10:00:01.000Z', summary: { start: 4, end: 9, text: 'harbor' }, source: null, label: ['Benign'], note: '',
  });
  assert.deepEqual(r2.answers, { verdict: { from: 'alice' }, quality: { value: 4 } });
  assert.deepEqual(r2.added.map((a) => a.id), ['g1']);
  assert.deepEqual(r2.comments.map((c) => [c.id, c.on, c.text]), [['m1', 'record', 'hard'], ['m2', 'bob:b1', 'wider']]);
});

test('filterRows: not adjudicated, a question with disagreement, an annotator, a pair', () => {
  const rows = [
    { id: 'a', questions: ['spans', 'verdict'], annotators: ['alice', 'bob'] },
    { id: 'b', questions: ['spans'], annotators: ['alice', 'bob', 'carol'] },
    { id: 'c', questions: [], annotators: ['bob', 'carol'] },
  ];
  const work = { records: { a: { status: 'submitted' } } };
  const f = (filter) => filterRows(rows, { unreviewed: false, question: '', annotator: '', pair: '', ids: null, ...filter }, work);
  assert.deepEqual(f({ unreviewed: true }), [1, 2]);
  assert.deepEqual(f({ question: 'verdict' }), [0]);
  assert.deepEqual(f({ annotator: 'carol' }), [1, 2]);
  assert.deepEqual(f({ pair: 'alice\ncarol' }), [1]);
  assert.deepEqual(f({ ids: new Set(['c']) }), [2]);
});

test('identical spans of several judges are one group; a v1 record gets its statuses from the responses', async () => {
  const { spanGroups, judgeStatuses } = await import('../../site_template/app/state/reviewjudges.js');
  const a = (key, annotator, start, end, source, label) => ({
    key, annotator, label, summary: { start, end }, source: source && { start: source[0], end: source[1] },
  });
  const anns = [a('alice:1', 'alice', 0, 4, [1, 3], ['X']), a('bob:1', 'bob', 0, 4, null, ['X']),
    a('carol:1', 'carol', 0, 4, [1, 3], ['X']), a('dave:1', 'dave', 0, 4, [1, 3], ['Y'])];
  const groups = spanGroups(anns);
  assert.deepEqual(groups.map((g) => g.members.map((m) => m.key)), [['alice:1', 'carol:1'], ['bob:1'], ['dave:1']]);
  assert.equal(groups[0].key, 'alice:1');
  const rec = {
    annotators: ['alice', 'bob', 'carol', 'dave'], annotations: anns.slice(0, 1),
    responses: [{ annotator: 'alice', status: 'submitted' }, { annotator: 'bob', status: 'submitted' },
      { annotator: 'carol', status: 'discarded' }, { annotator: 'dave', status: 'in_progress' }],
  };
  assert.deepEqual(judgeStatuses(rec), { alice: 'flagged', bob: 'consistent', carol: 'discarded', dave: 'in_progress' });
  assert.deepEqual(judgeStatuses({ ...rec, statuses: { erin: 'not_opened' } }), { erin: 'not_opened' });
});

test('a settled sentence: a judge\'s verdict and evidence, or the reviewer\'s own; exported in sentence order', async () => {
  const { settledVerdict, exportSentences } = await import('../../site_template/app/state/reviewsentences.js');
  const sent = {
    sentence: 1,
    verdicts: [{ annotator: 'alice', verdict: 'supported', given: true, evidence: [2] },
      { annotator: 'bob', verdict: 'unsupported', given: false, evidence: [] },
      { annotator: 'carol', verdict: 'supported', given: true, evidence: [2] }],
  };
  assert.deepEqual(settledVerdict(sent, { from: 'alice' }), { verdict: 'supported', evidence: [2], judges: ['alice', 'carol'] });
  assert.deepEqual(settledVerdict(sent, { verdict: 'unsupported', evidence: null }), { verdict: 'unsupported', evidence: null, judges: ['bob'] });
  assert.equal(settledVerdict(sent, null), null);
  const entry = { review: { 's:3': { value: { verdict: 'supported', evidence: [0] }, updated_at: 't2' }, 's:1': { value: { from: 'bob' }, updated_at: 't1' }, 's:2': { value: null, updated_at: 't3' } } };
  assert.deepEqual(exportSentences(entry), [{ sentence: 1, from: 'bob', updated_at: 't1' },
    { sentence: 3, verdict: 'supported', evidence: [0], updated_at: 't2' }]);
});
