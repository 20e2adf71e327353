// Import of a review export (review/transfer.js parseReviewImport): the file is checked against this review
// bundle and reviewer, each record entry read back into a work entry, and an entry with a bad part left out
// with one reason naming the record and the part.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { REVIEW } from '../../site_template/app/data/formats.js';
import { parseReviewImport } from '../../site_template/app/review/transfer.js';
import { buildReviewExport, decide } from '../../site_template/app/review/work.js';

const manifest = { bundle_id: 'b1', review: { review_id: 'rv1', merge_sha256: 'a'.repeat(64) } };
const header = { format: REVIEW.name, version: REVIEW.version, bundle_id: 'b1', review_id: 'rv1', merge_sha256: 'a'.repeat(64), reviewer: 'rita' };
const parse = (doc, reviewer = 'rita') => parseReviewImport(JSON.stringify(doc), { manifest, reviewer, name: 'r.json' });
const dict = (o) => Object.assign(Object.create(null), o);
const span = (start, end, text) => ({ start, end, text });
const T = '2026-12-01T10:00:00.000Z';

test('a whole record entry: decisions, answers, comments and added annotations back as a work entry', () => {
  const rec = {
    record_id: 'r1', updated_at: T, adjudicated: true,
    decisions: {
      'alice:a1': { action: 'accept', updated_at: 't1' },
      'bob:b1': { action: 'reject' },
      'carol:c1': { action: 'edit', updated_at: 't2', summary: span(0, 3, 'The'), label: ['Benign'], note: 'n', source: null },
    },
    answers: { verdict: { from: 'alice' }, score: { value: 3 }, both: { from: 'bob', value: 9 } },
    comments: [{ id: 'k1', on: 'record', author: 'rita', time: 't3', text: 'why', extra: 1 }],
    added: [
      { id: 'n1', label: ['Unwanted'], note: 'mine', summary: span(4, 9, 'quick'), source: span(0, 2, 'ab'), created_at: 't4', updated_at: 't5' },
      { id: 'n2', label: ['Benign'], summary: span(1, 2, 'h'), source: { start: 3 }, updated_at: 't6' },
      { id: 'n3', label: [], summary: span(1, 2, 'h') },
    ],
  };
  const { work, left } = parse({ ...header, records: [rec] });
  assert.deepEqual(left, []);
  assert.deepEqual(work.drafts, dict({}));
  assert.equal(work.last_export_at, null);
  assert.deepEqual(work.records, dict({
    r1: {
      status: 'submitted', status_at: T, updated_at: T,
      annotations: dict({
        n1: { id: 'n1', label: ['Unwanted'], note: 'mine', summary: span(4, 9, 'quick'), source: span(0, 2, 'ab'), created_at: 't4', updated_at: 't5' },
        n2: { id: 'n2', label: ['Benign'], note: '', summary: span(1, 2, 'h'), source: null, created_at: 't6', updated_at: 't6' },
        n3: { id: 'n3', label: [], note: '', summary: span(1, 2, 'h'), source: null, created_at: T, updated_at: T },
      }),
      review: dict({
        'd:alice:a1': { value: { action: 'accept' }, updated_at: 't1' },
        'd:bob:b1': { value: { action: 'reject' }, updated_at: T },
        'd:carol:c1': { value: { action: 'edit', summary: span(0, 3, 'The'), label: ['Benign'], note: 'n', source: null }, updated_at: 't2' },
        'q:verdict': { value: { from: 'alice' }, updated_at: T },
        'q:score': { value: { value: 3 }, updated_at: T },
        'q:both': { value: { from: 'bob' }, updated_at: T },
        'c:k1': { value: { on: 'record', author: 'rita', time: 't3', text: 'why' }, updated_at: 't3' },
      }),
    },
  }));
  const label = work.records.r1.annotations.n1.label;
  assert.notEqual(label, rec.added[0].label); // a copy of the file's list
});

test('an entry with only its id and time: in progress, nothing else; parts of the wrong type are none', () => {
  const { work, left } = parse({ ...header, records: [
    { record_id: 'r1', updated_at: T },
    { record_id: 'r2', updated_at: T, adjudicated: 'yes', decisions: [], answers: 'x', comments: {}, added: {} },
  ] });
  assert.deepEqual(left, []);
  for (const id of ['r1', 'r2']) {
    assert.deepEqual(work.records[id], { status: 'in_progress', status_at: T, updated_at: T, annotations: dict({}), review: dict({}) }, id);
  }
});

test('a bad part leaves its record out with one reason; the other records are read', () => {
  const ok = { record_id: 'ok', updated_at: T };
  const bad = [
    [{ record_id: 7, updated_at: T }, 'not a record entry'],
    [{ record_id: 'x' }, 'not a record entry'],
    ['a string', 'not a record entry'],
    [{ record_id: 'x', updated_at: T, decisions: { k: { action: 'approve' } } }, 'decision "k": unknown action'],
    [{ record_id: 'x', updated_at: T, decisions: { k: 'accept' } }, 'decision "k": unknown action'],
    [{ record_id: 'x', updated_at: T, decisions: { k: { action: 'edit', label: ['B'] } } }, 'decision "k": an edit needs a summary span and a label'],
    [{ record_id: 'x', updated_at: T, decisions: { k: { action: 'edit', summary: span(3, 3, ''), label: ['B'] } } }, 'decision "k": an edit needs a summary span and a label'],
    [{ record_id: 'x', updated_at: T, decisions: { k: { action: 'edit', summary: span(0, 3, 'The'), label: 'B' } } }, 'decision "k": an edit needs a summary span and a label'],
    [{ record_id: 'x', updated_at: T, answers: { q: {} } }, 'answer "q": neither from nor value'],
    [{ record_id: 'x', updated_at: T, answers: { q: null } }, 'answer "q": neither from nor value'],
    [{ record_id: 'x', updated_at: T, comments: [{ id: 'c', text: 't' }] }, 'a comment without id, text or time'],
    [{ record_id: 'x', updated_at: T, comments: [{ id: 1, text: 't', time: 't' }] }, 'a comment without id, text or time'],
    [{ record_id: 'x', updated_at: T, comments: ['c'] }, 'a comment without id, text or time'],
    [{ record_id: 'x', updated_at: T, added: [{ id: 'n', summary: span(0, 1, 'a') }] }, 'an added annotation without id, summary span or label'],
    [{ record_id: 'x', updated_at: T, added: [{ id: 'n', label: [], summary: { start: 0, end: 1 } }] }, 'an added annotation without id, summary span or label'],
    [{ record_id: 'x', updated_at: T, added: [{ label: [], summary: span(0, 1, 'a') }] }, 'an added annotation without id, summary span or label'],
  ];
  for (const [rec, reason] of bad) {
    const { work, left } = parse({ ...header, records: [ok, rec] });
    assert.deepEqual(left, [`record ${JSON.stringify(rec?.record_id)}: ${reason}`], JSON.stringify(rec));
    assert.deepEqual(Object.keys(work.records), ['ok']);
  }
  // the first bad part of an entry is its reason
  const two = { record_id: 'x', updated_at: T, decisions: { k: { action: 'no' } }, added: [{}] };
  assert.deepEqual(parse({ ...header, records: [two] }).left, ['record "x": decision "k": unknown action']);
  assert.deepEqual(parse({ ...header, records: 'none' }), { work: { records: dict({}), drafts: dict({}), last_export_at: null }, left: [] });
});

test('a file of another format, bundle, review, merge or reviewer is refused whole with one line', () => {
  const cases = [
    ['{', /^r\.json: not JSON \(/],
    [JSON.stringify([]), /^r\.json: not a review export \(mercury-static\/review version 1\)\.$/],
    [JSON.stringify({ ...header, version: 2 }), /^r\.json: not a review export/],
    [JSON.stringify({ ...header, format: 'mercury-static/export' }), /^r\.json: not a review export/],
    [JSON.stringify({ ...header, bundle_id: 'b2' }), /^r\.json: a review of another bundle \(review "rv1"; this one is "rv1"\)\.$/],
    [JSON.stringify({ ...header, review_id: 'rv2' }), /^r\.json: a review of another bundle \(review "rv2"; this one is "rv1"\)\.$/],
    [JSON.stringify({ ...header, merge_sha256: 'b'.repeat(64) }), /^r\.json: a stale review, made on a review bundle of another merge \(merge_sha256 bbbbbbbbbbbb…, this bundle's is aaaaaaaaaaaa…\)\.$/],
    [JSON.stringify({ ...header, reviewer: 'ron' }), /^r\.json: the review of "ron", not yours \("rita"\): open the page as that reviewer to import it\.$/],
  ];
  for (const [text, message] of cases) {
    assert.throws(() => parseReviewImport(text, { manifest, reviewer: 'rita', name: 'r.json' }), { message }, text);
  }
});

test('the page\'s own review export imports back to the same decisions', () => {
  const entry = decide({ status: 'submitted', status_at: T, updated_at: T, annotations: dict({}) },
    'alice:a1', { action: 'edit', summary: span(0, 3, 'The'), label: ['Benign'], note: 'x' }, 't1');
  const doc = buildReviewExport({ manifest, reviewer: 'rita', work: { records: { r1: entry } }, order: new Map([['r1', 0]]), exportedAt: T });
  const { work, left } = parse(doc);
  assert.deepEqual(left, []);
  assert.equal(work.records.r1.status, 'submitted');
  assert.deepEqual(work.records.r1.review['d:alice:a1'],
    { value: { action: 'edit', summary: span(0, 3, 'The'), label: ['Benign'], note: 'x' }, updated_at: 't1' });
});
