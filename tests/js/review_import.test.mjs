// Import of a review export (review/reviewimport.js, review/importcheck.js): the file is checked against this
// review bundle and reviewer, every record entry by gold's rules against its review record and texts; the
// first fault refuses the whole file with one line naming the entry and the field. (That each rule agrees
// with gold's is tests/test_review_import_parity.py, in Chromium against the CLI.)
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { REVIEW } from '../../site_template/app/data/formats.js';
import { TextView } from '../../site_template/app/data/data.js';
import { checkReviewImport, parseReviewImport, readReviewFile } from '../../site_template/app/review/reviewimport.js';
import { buildReviewExport, decide } from '../../site_template/app/state/reviewentries.js';

const manifest = {
  bundle_id: 'b1', labels: ['Benign', 'Unwanted', 'Unwanted.Intrinsic'],
  review: { review_id: 'rv1', merge_sha256: 'a'.repeat(64) },
  settings: { questions: [{ name: 'spans', type: 'span' }, { name: 'verdict', type: 'label', options: [{ value: 'yes' }, { value: 'no' }] },
    { name: 'score', type: 'rating', values: [1, 2, 3] }] },
};
const header = { format: REVIEW.name, version: REVIEW.version, bundle_id: 'b1', review_id: 'rv1', merge_sha256: 'a'.repeat(64), reviewer: 'rita' };
const dict = (o) => Object.assign(Object.create(null), o);
const span = (start, end, text) => ({ start, end, text });
const T = '2026-12-01T10:00:00.000Z';
const T1 = '2026-12-01T11:00:00.000Z';
const SUMMARY = 'The quick 😀 fox';
const record = {
  id: 'r1',
  annotations: [{ key: 'alice:a1', id: 'a1', annotator: 'alice', label: ['Benign'], note: '', summary: span(0, 3, 'The'), source: null, updated_at: T }],
  responses: [{ annotator: 'alice', values: { verdict: 'yes' } }],
};
const texts = { summary: new TextView({ id: 's', text: SUMMARY, sentences: [] }), source: new TextView({ id: 'o', text: 'Source text', sentences: [] }) };

/** The import of `doc`'s text; `asked` collects the lookups ([id, withTexts]). */
async function load(doc, asked = [], now = undefined) {
  const parsed = parseReviewImport(typeof doc === 'string' ? doc : JSON.stringify(doc), { manifest, reviewer: 'rita', name: 'r.json' });
  return checkReviewImport(parsed, {
    manifest, name: 'r.json', now,
    lookup: async (id, withTexts) => {
      asked.push([id, withTexts]);
      return id === 'r1' ? { record, texts: withTexts ? texts : null } : null;
    },
  });
}
const full = () => ({
  record_id: 'r1', updated_at: T, adjudicated: true,
  decisions: { 'alice:a1': { action: 'edit', updated_at: T1, summary: span(4, 11, 'quick 😀'), label: 'Unwanted.Intrinsic', note: null, created_at: 5 } },
  answers: { verdict: { from: 'alice' }, score: { value: 3 } },
  comments: [{ id: 'k1', on: 'n1', author: 'rita', time: T, text: 'why', extra: 1 }],
  added: [{ id: 'n1', label: ['Benign'], summary: span(12, 15, 'fox'), source: span(0, 6, 'Source'), updated_at: T }],
});

test('a whole record entry: decisions, answers, comments and added annotations back as a work entry', async () => {
  const asked = [];
  const work = await load({ ...header, records: [full()] }, asked);
  assert.deepEqual(asked, [['r1', true]]);
  assert.deepEqual(work.records, dict({
    r1: {
      status: 'submitted', status_at: T, updated_at: T,
      annotations: dict({ n1: { id: 'n1', label: ['Benign'], note: '', summary: span(12, 15, 'fox'), source: span(0, 6, 'Source'), created_at: T, updated_at: T } }),
      review: dict({
        'd:alice:a1': { value: { action: 'edit', summary: span(4, 11, 'quick 😀'), label: ['Unwanted', 'Unwanted.Intrinsic'], note: '' }, updated_at: T1 },
        'q:verdict': { value: { from: 'alice' }, updated_at: T },
        'q:score': { value: { value: 3 }, updated_at: T },
        'c:k1': { value: { on: 'n1', author: 'rita', time: T, text: 'why' }, updated_at: T },
      }),
    },
  }));
});

test('an entry without edits or added annotations loads no texts; one record twice keeps the newest', async () => {
  const asked = [];
  const older = { record_id: 'r1', updated_at: '2026-11-01T00:00:00Z', adjudicated: true };
  const work = await load({ ...header, records: [{ record_id: 'r1', updated_at: T, adjudicated: false }, older] }, asked);
  assert.deepEqual(asked, [['r1', false], ['r1', false]]);
  assert.equal(work.records.r1.status, 'in_progress');
});

test('the first fault refuses the whole file, naming the entry and the field', async () => {
  const cases = [
    [(e) => { e.record_id = 'r9'; }, "record r9: field 'record_id': unknown record id"],
    [(e) => { e.record_id = 7; }, "records[1]: field 'record_id'"],
    [(e) => { e.adjudicated = 'yes'; }, "field 'adjudicated'"],
    [(e) => { e.updated_at = '2026-02-30'; }, "field 'updated_at'"],
    [(e) => { e.decisions = []; }, "field 'decisions': expected an object, got array"],
    [(e) => { e.decisions['bob:b1'] = { action: 'accept' }; }, "field 'decisions.bob:b1': no annotation"],
    [(e) => { e.decisions['alice:a1'].action = 'approve'; }, "field 'decisions.alice:a1.action'"],
    [(e) => { e.decisions['alice:a1'].summary = span(4, 12, 'quick 😀'); }, "field 'decisions.alice:a1.summary': quoted text"],
    [(e) => { e.decisions['alice:a1'].summary = span(4, 16, 'x'); }, "field 'decisions.alice:a1.summary': offsets 4..16 out of range (text has 15 characters)"],
    [(e) => { e.decisions['alice:a1'].label = ['Fine']; }, "field 'decisions.alice:a1.label': unknown label"],
    [(e) => { e.added[0].source = span(0, 3, 'Sou!'); }, "field 'added[0].source'"],
    [(e) => { e.added[0].note = 5; }, "field 'added[0].note'"],
    [(e) => { e.added[0].id = ''; }, "field 'added[0].id'"],
    [(e) => { e.answers.verdict = { from: 'bob' }; }, "field 'answers.verdict.from'"],
    [(e) => { e.answers.score = { value: 4 }; }, "field 'answers.score.value'"],
    [(e) => { e.answers.spans = { value: 1 }; }, "field 'answers.spans': unknown question (the span question"],
    [(e) => { e.answers.verdict = { from: 'alice', value: 'yes' }; }, "field 'answers.verdict': expected"],
    [(e) => { e.comments[0].on = 'x'; }, "field 'comments[0].on'"],
    [(e) => { e.comments[0].time = 'noon'; }, "field 'comments[0].time'"],
    [(e) => { e.comments[0].text = '\ud800'; }, "field 'comments[0].text': lone surrogate"],
  ];
  for (const [change, part] of cases) {
    const e = full();
    change(e);
    await assert.rejects(load({ ...header, records: [{ record_id: 'r1', updated_at: T, adjudicated: true }, e] }), (err) => {
      assert.ok(err.message.startsWith('r.json: ') && err.message.includes(part) && err.message.endsWith(': nothing was imported.'), err.message);
      return true;
    });
  }
  // a key twice in one object, as gold reads it (JSON.parse would keep the last silently)
  const text = JSON.stringify({ ...header, records: [full()] }).replace('"adjudicated":true', '"adjudicated":true,"adjudicated":false');
  await assert.rejects(load(text), { message: "r.json: record r1: field 'adjudicated': duplicate key in one object (which one is meant?): nothing was imported." });
});

test('a file of another format, bundle, review, merge or reviewer is refused whole with one line', () => {
  const cases = [
    ['{', /^r\.json: not JSON \(/],
    [JSON.stringify([]), /^r\.json: field 'format': not a review export \(mercury-static\/review version 2\): nothing was imported\.$/],
    [JSON.stringify({ ...header, version: 3 }), /^r\.json: field 'version': unsupported version 3/],
    [JSON.stringify({ ...header, bundle_id: 'b2' }), /^r\.json: field 'bundle_id': a review of another bundle/],
    [JSON.stringify({ ...header, review_id: 'rv2' }), /^r\.json: field 'merge_sha256': a stale review/],
    [JSON.stringify({ ...header, merge_sha256: 'b'.repeat(64) }), /^r\.json: field 'merge_sha256': a stale review, made on a review bundle of another merge/],
    [JSON.stringify({ ...header, reviewer: '\u200b' }), /^r\.json: field 'reviewer': missing or empty/],
    [JSON.stringify({ ...header, reviewer: 'ron' }), /^r\.json: the review of "ron", not yours \("rita"\): open the page as that reviewer to import it: nothing was imported\.$/],
    [JSON.stringify({ ...header, client_id: 1, records: [] }), /^r\.json: field 'client_id'/],
    [JSON.stringify({ ...header, records: 'none' }), /^r\.json: field 'records': expected a list of records/],
    [`${'['.repeat(600)}${']'.repeat(600)}`, /^r\.json: invalid JSON: nested too deeply/],
  ];
  for (const [text, message] of cases) {
    assert.throws(() => parseReviewImport(text, { manifest, reviewer: 'rita', name: 'r.json' }), { message }, text);
  }
  assert.equal(parseReviewImport(JSON.stringify({ ...header, reviewer: 'rita\u200b', records: [] }), { manifest, reviewer: 'rita', name: 'r.json' }).reviewer, 'rita\u200b');
});

test('the file is read as gold reads it: UTF-8 only, a BOM dropped', async () => {
  const file = (bytes) => Object.assign(new Blob([bytes]), { name: 'r.json' });
  assert.equal(await readReviewFile(file(new Uint8Array([0xef, 0xbb, 0xbf, 0x7b, 0x7d]))), '{}');
  await assert.rejects(readReviewFile(file(new Uint8Array([0x7b, 0xff, 0x7d]))), { message: 'r.json: not UTF-8: nothing was imported.' });
});

test('the page\'s own review export imports back to the same decisions', async () => {
  const entry = decide({ status: 'submitted', status_at: T, updated_at: T, annotations: dict({}) },
    'alice:a1', { action: 'edit', summary: span(0, 3, 'The'), source: null, label: ['Benign'], note: 'x' }, T1);
  const doc = buildReviewExport({ manifest, reviewer: 'rita', work: { records: { r1: entry } }, order: new Map([['r1', 0]]), exportedAt: T });
  const work = await load(doc);
  assert.equal(work.records.r1.status, 'submitted');
  assert.deepEqual(work.records.r1.review['d:alice:a1'],
    { value: { action: 'edit', summary: span(0, 3, 'The'), source: null, label: ['Benign'], note: 'x' }, updated_at: T1 });
});

// The reviewer's own annotations, on the cases gold is tested with (tests/review_added_cases.json).
const ADDED = JSON.parse(readFileSync(new URL('../review_added_cases.json', import.meta.url), 'utf8')).cases;

test('each added annotation needs its own id: two with one id are refused, never one of them dropped', async () => {
  for (const c of ADDED) {
    const added = c.added.map(({ id, summary: [start, end] }) => ({
      id, label: ['Unwanted', 'Unwanted.Intrinsic'], note: '', source: null, created_at: T, updated_at: T,
      summary: span(start, end, [...SUMMARY].slice(start, end).join('')),
    }));
    const doc = { ...header, records: [{ record_id: 'r1', updated_at: T, adjudicated: true, added }] };
    if (c.field === null) {
      const work = await load(doc);
      assert.deepEqual(Object.keys(work.records.r1.annotations).sort(), c.added.map((a) => a.id).sort(), c.name);
      continue;
    }
    await assert.rejects(load(doc), (err) => {
      assert.ok(err.message.startsWith(`r.json: record r1: field '${c.field}': `) && err.message.includes(c.says), `${c.name}: ${err.message}`);
      return true;
    });
  }
});

test('a time later than now is imported as now, and counted: a wrong clock states no decision in the future', async () => {
  const NOW = '2026-12-05T00:00:00.000Z';
  const LATE = '2999-01-01T00:00:00Z';
  const e = full();
  e.updated_at = LATE;
  e.decisions['alice:a1'].updated_at = LATE;
  e.comments[0].time = LATE;
  Object.assign(e.added[0], { created_at: LATE, updated_at: LATE });
  const work = await load({ ...header, records: [e, { record_id: 'r1', updated_at: '2026-12-04T00:00:00Z', adjudicated: false }] }, [], NOW);
  assert.equal(work.future, 5);
  assert.ok(!JSON.stringify(work).includes('2999'), JSON.stringify(work));
  const r1 = work.records.r1;
  assert.equal(r1.status, 'submitted'); // counted as now, still the newer of the two entries
  assert.equal(r1.updated_at, NOW);
  assert.equal(r1.review['c:k1'].value.time, NOW);
  assert.equal(r1.annotations.n1.created_at, NOW);
  assert.equal((await load({ ...header, records: [full()] }, [], NOW)).future, 0);
});
