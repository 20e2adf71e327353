// Export building and import parsing (transfer.js): the file contract with `mercury-static merge`, and an
// import that refuses another bundle's or another annotator's file whole with one readable line.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { EXPORT_FORMAT, buildExport, exportFileName, parseImport } from '../../site_template/app/transfer.js';

const manifest = { bundle_id: 'b1', title: 'Demo bundle', tool_version: '0.1.0' };
const positions = new Map([['r1', 0], ['r2', 1], ['r3', 2]]); // the work's ids placed by the ids shards
const span = (start, end, text) => ({ start, end, text });
const annotation = (id, at, extra = {}) => ({
  id, label: ['Unwanted', 'Unwanted.Intrinsic'], note: 'n', summary: span(0, 3, 'abc'), source: span(2, 4, 'xy'),
  created_at: at, updated_at: at, ...extra,
});
const work = {
  records: {
    r3: { status: 'submitted', status_at: 't3', updated_at: 't3', annotations: { a: annotation('a', 't3') } },
    r1: { status: 'discarded', status_at: 't1', updated_at: 't1', annotations: {
      b: annotation('b', 't1', { source: null }), gone: { id: 'gone', deleted: true, updated_at: 't2' } } },
    stale: { status: 'submitted', status_at: 't1', updated_at: 't1', annotations: {} },
  },
  last_export_at: null,
};
const exported = () => buildExport({ manifest, positions, annotator: 'alice', clientId: 'c1', work,
  exportedAt: '2026-11-29T12:00:00.123Z' });

test('buildExport: bundle order, known records only, no tombstones, seconds-precision time', () => {
  const e = exported();
  assert.equal(e.format, EXPORT_FORMAT);
  assert.equal(e.version, 2);
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
  refuse(JSON.stringify({ ...exported(), version: 3 }), /version 3, which this page \(versions 1 and 2\) cannot read/);
});

test('import skips bad records and annotations, counts them, keeps the rest (records of other bundles: checkAgainstBundle)', () => {
  const e = exported();
  e.records.push({ record_id: 7, status: 'submitted', updated_at: 't', annotations: [] });
  e.records.push({ record_id: 'r2', status: 'finished', updated_at: 't', annotations: [] });
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
  assert.deepEqual([ok.note, ok.source, ok.created_at, ok.updated_at], ['', null, 't3', 't3']);
});

test('imported text stays data: labels become strings, extra fields are dropped', () => {
  const e = exported();
  e.records[1].annotations[0] = { ...e.records[1].annotations[0], label: [1, '<b>x</b>'], html: '<img src=x onerror=alert(1)>',
    summary: { ...span(0, 3, '<script>'), extra: 1 } };
  const a = parseImport(JSON.stringify(e), { manifest, annotator: 'alice' }).work.records.r3.annotations.a;
  assert.deepEqual(a.label, ['1', '<b>x</b>']);
  assert.equal('html' in a, false);
  assert.deepEqual(a.summary, span(0, 3, '<script>'));
});

test('exportFileName is made of safe characters only', () => {
  assert.equal(exportFileName(manifest, 'alice', '2026-11-29T12:00:00.123Z'), 'Demo-bundle-alice-20261129T120000Z.json');
  const odd = exportFileName({ bundle_id: 'b1', title: '../../etc/ Ünï 🎉' }, '../x y', '2026-11-29T12:00:00Z');
  assert.match(odd, /^etc-U[A-Za-z-]*ni-x-y-20261129T120000Z\.json$/);
  assert.equal(exportFileName({ bundle_id: 'b1', title: '🎉' }, '🎉', '2026-11-29T12:00:00Z'), 'bundle-annotator-20261129T120000Z.json');
});
