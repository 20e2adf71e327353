// Annotator names (names.js) against the cases mercury_static/core/names.py is tested against (tests/names_cases.json).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { normalizeName } from '../../site_template/app/state/names.js';
import { loadQueue } from '../../site_template/app/io/queue.js';
import { pageSettings } from '../../site_template/app/state/settings.js';
import { parseImport } from '../../site_template/app/state/exportfile.js';

const CASES = JSON.parse(readFileSync(new URL('../names_cases.json', import.meta.url), 'utf8'));
const show = (s) => JSON.stringify(s).replace(/[^\x20-\x7e]/gu, (c) => `\\u{${c.codePointAt(0).toString(16)}}`);

test('normalizeName gives the normalised form of every case', () => {
  for (const [raw, want] of CASES.normalize) assert.equal(normalizeName(raw), want, show(raw));
});

test('spellings of one name are one, other names stay apart', () => {
  for (const group of CASES.same) assert.equal(new Set(group.map(normalizeName)).size, 1, show(group));
  for (const group of CASES.different) assert.equal(new Set(group.map(normalizeName)).size, group.length, show(group));
});

test('the queue lookup, blind mode and an import compare names normalised', async () => {
  const fetched = [];
  globalThis.fetch = async (url) => { fetched.push(url); return { ok: true, json: async () => ({ 'Jose\u0301': ['r1', 'r2'] }) }; };
  const bundle = {
    manifest: { queues: { path: 'data/queues.json', annotators: ['Jose\u0301'] } },
    url: (p) => p,
    recordIndex: { positionsOf: async (ids) => new Map(ids.map((id, i) => [id, i])) },
  };
  assert.deepEqual(await loadQueue(bundle, 'Jos\u00e9'), { ids: ['r1', 'r2'], positions: [0, 1] });
  assert.equal(await loadQueue(bundle, 'Jos'), null);
  assert.equal(pageSettings({ settings: { suggestions: { blind: ['alice\u200b'] } } }, 'alice').blind, true);
  const manifest = { bundle_id: 'b1', settings: {} };
  const file = JSON.stringify({ format: 'mercury-static/annotations', version: 2, bundle_id: 'b1', annotator: 'Jose\u0301', records: [] });
  assert.doesNotThrow(() => parseImport(file, { manifest, annotator: 'Jos\u00e9' }));
  assert.throws(() => parseImport(file, { manifest, annotator: 'Joe' }), /work; you are/);
});
