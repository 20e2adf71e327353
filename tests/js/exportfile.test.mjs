// Export building and import parsing (state/exportfile.js): the file contract with `mercury-static merge`, and an
// import that refuses another bundle's or another annotator's file whole with one readable line.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { EXPORT } from '../../site_template/app/data/formats.js';
import { buildExport, exportFileName, parseImport } from '../../site_template/app/state/exportfile.js';

const manifest = { bundle_id: 'b1', title: 'Demo bundle', tool_version: '0.1.0' };
const positions = new Map([['r1', 0], ['r2', 1], ['r3', 2]]); // the work's ids placed by the ids shards
const span = (start, end, text) => ({ start, end, text });
const annotation = (id, at, extra = {}) => ({
  id, label: ['Unwanted', 'Unwanted.Intrinsic'], note: 'n', summary: span(0, 3, 'abc'), source: span(2, 4, 'xy'),
  created_at: at, updated_at: at, ...extra,
});
const [t1, t2, t3] = ['2026-11-29T10:00:01.000Z', '2026-11-29T10:00:02.000Z', '2026-11-29T10:00:03.000Z'];
const work = {
  records: {
    r3: { status: 'submitted', status_at: t3, updated_at: t3, annotations: { a: annotation('a', t3) } },
    r1: { status: 'discarded', status_at: t1, updated_at: t1, annotations: {
      b: annotation('b', t1, { source: null }), gone: { id: 'gone', deleted: true, updated_at: t2 } } },
    stale: { status: 'submitted', status_at: t1, updated_at: t1, annotations: {} },
  },
  last_export_at: null,
};
const exported = () => buildExport({ manifest, positions, annotator: 'alice', clientId: 'c1', work,
  exportedAt: '2026-11-29T12:00:00.123Z' });

test('buildExport: bundle order, known records only, no tombstones, seconds-precision time', () => {
  const e = exported();
  assert.equal(e.format, EXPORT.name);
  assert.equal(e.version, EXPORT.version);
  assert.equal(e.exported_at, '2026-11-29T12:00:00Z');
  assert.deepEqual([e.bundle_id, e.title, e.annotator, e.client_id, e.tool_version], ['b1', 'Demo bundle', 'alice', 'c1', '0.1.0']);
  assert.deepEqual(e.records.map((r) => r.record_id), ['r1', 'r3']);
  assert.deepEqual(e.records[0].annotations.map((a) => a.id), ['b']);
  assert.equal(e.records[0].annotations[0].source, null);
  assert.deepEqual(e.records[1].annotations[0].summary, span(0, 3, 'abc'));
});

test('an export imports back into the same work (minus tombstones and unknown records)', () => {
  const got = parseImport(JSON.stringify(exported()), { manifest, annotator: 'alice' });
  assert.equal(got.records, 2);
  assert.equal(got.annotations, 2);
  assert.equal(got.skipped, 0);
  const plain = (x) => JSON.parse(JSON.stringify(x)); // the page's maps have no prototype (ids like __proto__)
  assert.deepEqual(plain(got.work.records.r3), work.records.r3);
  assert.deepEqual(Object.keys(got.work.records.r1.annotations), ['b']);
  assert.deepEqual(plain(got.work.records.r1.annotations.b), work.records.r1.annotations.b);
});

test('import refuses whole files with one line', () => {
  const opts = { manifest, annotator: 'alice' };
  const refuse = (text, pattern) => assert.throws(() => parseImport(text, opts), (err) => {
    assert.match(err.message, pattern);
    assert.doesNotMatch(err.message, /\n/);
    return true;
  });
  refuse('{"format": ', /not JSON/);
  refuse('{"format": "something-else", "records": []}', /not a mercury-static annotations export/);
  refuse('null', /not a mercury-static annotations export/);
  refuse(JSON.stringify({ ...exported(), records: {} }), /not a mercury-static annotations export/);
  refuse(JSON.stringify({ ...exported(), bundle_id: 'b2', title: 'Other' }), /another bundle \(Other\)/);
  refuse(JSON.stringify({ ...exported(), annotator: 'bob' }), /"bob"'s work; you are "alice"/);
  const next = EXPORT.version + 1;
  refuse(JSON.stringify({ ...exported(), version: next }),
    new RegExp(`version ${next}, which this page \\(versions ${EXPORT.reads.join(' and ')}\\) cannot read`));
});

test('version 3: time on task exported when counted, imported as the file browser\'s counter', () => {
  const timed = {
    ...work,
    records: {
      ...work.records,
      r1: { ...work.records.r1, active: { s1: 1_500, s2: 500 } },
      r3: { ...work.records.r3, annotations: { a: { ...work.records.r3.annotations.a, elapsed_ms: 4_000 } } },
    },
  };
  const e = buildExport({ manifest, positions, annotator: 'alice', clientId: 'c1', work: timed, exportedAt: t1 });
  assert.equal(e.records[0].active_ms, 2_000);
  assert.ok(!('active_ms' in e.records[1]), 'no counter: no time (unknown, not zero)');
  assert.equal(e.records[1].annotations[0].elapsed_ms, 4_000);
  assert.ok(!('elapsed_ms' in e.records[0].annotations[0]));
  const other = parseImport(JSON.stringify(e), { manifest, annotator: 'alice', clientId: 'c2' });
  assert.deepEqual({ ...other.work.records.r1.active }, { 'file:c1': 2_000 });
  assert.equal(other.work.records.r3.annotations.a.elapsed_ms, 4_000);
  const own = parseImport(JSON.stringify(e), { manifest, annotator: 'alice', clientId: 'c1' });
  assert.ok(!own.work.records.r1.active, "this browser's own time is here already");
  for (const bad of [-1, 1.5, '3']) {
    const f = JSON.parse(JSON.stringify(e));
    f.records[0].active_ms = bad;
    f.records[1].annotations[0].elapsed_ms = bad;
    const got = parseImport(JSON.stringify(f), { manifest, annotator: 'alice' });
    assert.ok(got.left.some((l) => /record r1: field 'active_ms'/.test(l)), got.left.join('\n'));
    assert.ok(got.left.some((l) => /annotation a: field 'elapsed_ms'/.test(l)), got.left.join('\n'));
  }
});

test('import skips bad records and annotations, counts them, keeps the rest (records of other bundles: checkAgainstBundle)', () => {
  const e = exported();
  e.records.push({ record_id: 7, status: 'submitted', updated_at: t1, annotations: [] });
  e.records.push({ record_id: 'r2', status: 'finished', updated_at: t1, annotations: [] });
  e.records.push(null);
  e.records[1].annotations.push({ id: 7, label: ['Benign'], summary: span(0, 1, 'a') });
  e.records[1].annotations.push({ id: 'no-label', summary: span(0, 1, 'a') });
  e.records[1].annotations.push({ id: 'float', label: ['Benign'], summary: span(0.5, 1, 'a') });
  e.records[1].annotations.push({ id: 'bad-source', label: ['Benign'], summary: span(0, 1, 'a'), source: { start: 0 } });
  e.records[1].annotations.push({ id: 'ok', label: ['Benign'], summary: span(0, 1, 'a') });
  const got = parseImport(JSON.stringify(e), { manifest, annotator: 'alice' });
  assert.equal(got.skipped, 7);
  assert.equal(got.records, 2);
  assert.deepEqual(Object.keys(got.work.records.r3.annotations).sort(), ['a', 'ok']);
  const ok = got.work.records.r3.annotations.ok;
  assert.deepEqual([ok.note, ok.source, ok.created_at, ok.updated_at], ['', null, t3, t3]);
});

test('imported text stays data: extra fields are dropped, a label that is no text is refused', () => {
  const e = exported();
  e.records[1].annotations[0] = { ...e.records[1].annotations[0], label: ['<b>x</b>'], html: '<img src=x onerror=alert(1)>',
    summary: { ...span(0, 3, '<script>'), extra: 1 } };
  e.records[1].annotations.push(annotation('n', t3, { label: [1] }));
  const got = parseImport(JSON.stringify(e), { manifest, annotator: 'alice' });
  const { a } = got.work.records.r3.annotations;
  assert.deepEqual(a.label, ['<b>x</b>']);
  assert.equal('html' in a, false);
  assert.deepEqual(a.summary, span(0, 3, '<script>'));
  assert.deepEqual(got.left, ["record r3, annotation n: field 'label': expected a non-empty list of labels"]);
});

test('import reads times as instants in the page form, clamps those in the future, and says so', () => {
  const e = exported();
  const now = '2026-11-30T00:00:00.000Z';
  e.records[1].updated_at = '2026-11-29T21:00:00+09:00'; // 12:00Z
  e.records[1].annotations[0].updated_at = '9999-01-01';
  e.records[0].updated_at = '2026-11-29T12:00:00'; // no offset: UTC, as merge reads it
  const got = parseImport(JSON.stringify(e), { manifest, annotator: 'alice', now });
  assert.equal(got.work.records.r3.updated_at, '2026-11-29T12:00:00.000Z');
  assert.equal(got.work.records.r3.annotations.a.updated_at, now);
  assert.equal(got.work.records.r1.status_at, '2026-11-29T12:00:00.000Z');
  assert.equal(got.future, 1);
  e.records[0].updated_at = '29/11/2026';
  const bad = parseImport(JSON.stringify(e), { manifest, annotator: 'alice', now });
  assert.deepEqual(bad.left, ["record r1: field 'updated_at': missing or not an ISO-8601 time"]);
});

test('import leaves out what merge refuses: lone surrogates, numbers JSON cannot carry, acceptances not shown', () => {
  const e = exported();
  e.records[1].annotations[0].note = 'broken \ud83d here';
  e.records[0].responses = { score: null };
  e.records[1].suggestions = { shown: false, accepted: { quality: 'judge' } };
  const text = JSON.stringify(e).replace('"score":null', '"score":1e999');
  const got = parseImport(text, { manifest, annotator: 'alice' });
  assert.deepEqual(got.left, [
    "record r1: field 'responses.score': Infinity is not a JSON number",
    "record r3, annotation a: field 'note': lone surrogate U+D83D in the text (not valid Unicode)",
    "record r3: field 'suggestions.accepted.quality': accepted a suggestion that was not shown (suggestions.shown is false)",
  ]);
  assert.equal(got.records, 1); // r1 whole (as merge: the record entry), r3 without that annotation
  assert.deepEqual(Object.keys(got.work.records.r3.annotations), []);
  assert.equal(got.work.records.r3.accepted, undefined);
  assert.throws(() => parseImport(JSON.stringify({ ...e, title: 'x\udc00' }), { manifest, annotator: 'alice' }),
    /cannot be read as it is \(title: lone surrogate U\+DC00/);
});

test('exportFileName is made of safe characters only', () => {
  assert.equal(exportFileName(manifest, 'alice', '2026-11-29T12:00:00.123Z'), 'Demo-bundle-alice-20261129T120000Z.json');
  const odd = exportFileName({ bundle_id: 'b1', title: '../../etc/ Ünï 🎉' }, '../x y', '2026-11-29T12:00:00Z');
  assert.match(odd, /^etc-U[A-Za-z-]*ni-x-y-20261129T120000Z\.json$/);
  assert.equal(exportFileName({ bundle_id: 'b1', title: '🎉' }, '🎉', '2026-11-29T12:00:00Z'), 'bundle-annotator-20261129T120000Z.json');
});

test('import leaves out an object with a key twice (which one is meant?), as merge does', () => {
  const text = JSON.stringify(exported())
    .replace('"note":"n"', '"note":"n","note":"other"') // r1's annotation b
    .replace('"status":"submitted"', '"status":"submitted","st\\u0061tus":"discarded"'); // r3's entry, the key escaped
  const got = parseImport(text, { manifest, annotator: 'alice' });
  assert.deepEqual(got.left, [
    "record r1, annotation b: field 'note': duplicate key in one object (which one is meant?)",
    "record r3: field 'status': duplicate key in one object (which one is meant?)",
  ]);
  assert.deepEqual(Object.keys(got.work.records), ['r1']);
  assert.throws(() => parseImport(text.replace('"format":', '"annotator":"alice","format":'), { manifest, annotator: 'alice' }),
    /cannot be read as it is \(annotator: duplicate key/);
});
