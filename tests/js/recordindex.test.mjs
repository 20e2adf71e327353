// recordindex.js against record_index.py: a generated index of 5,000 records in shards of 40, written by
// record_index_fixture.py at every run ($PYTHON, else the checkout's .venv, else python3), with what a
// full scan of its rows answers. Each lookup must give the scan's answer and read only the shards named
// in DESIGN.md (the requests are counted).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { runFixture, scratchDir } from './fixture.mjs';

import { selectPositions } from '../../site_template/app/state/listquery.js';
import { decodePostings, fnv1a, RecordIndex } from '../../site_template/app/data/recordindex.js';

const dir = scratchDir('record-index-');
const want = JSON.parse(runFixture('record_index_fixture.py', dir));

/** A fresh index over the fixture's files, and the paths it has read. */
async function open() {
  const requests = [];
  const fetchJson = async (path) => {
    requests.push(path);
    return JSON.parse(readFileSync(join(dir, path), 'utf8'));
  };
  return { index: await RecordIndex.open(fetchJson), requests };
}

test('fnv1a hashes the UTF-8 bytes, as record_index.fnv1a', () => {
  assert.equal(fnv1a(''), 0x811c9dc5);
  assert.equal(fnv1a('a'), 0xe40c292c);
  assert.equal(fnv1a('foobar'), 0xbf9cf968);
});

test('the first rows need the top file and one index shard', async () => {
  const { index, requests } = await open();
  assert.equal(index.count, want.count);
  assert.equal(index.row(0), null); // not loaded yet: the list shows a placeholder
  const first = await index.rowAt(0);
  assert.equal(first.id, want.ids[0]);
  assert.equal(index.row(want.size - 1).title, want.titles[want.size - 1]);
  assert.equal(index.row(want.size), null);
  assert.deepEqual(requests, ['data/index.json', 'data/index-0000.json']);
});

test('a row anywhere reads its one shard; a position past the end is refused', async () => {
  const { index, requests } = await open();
  const last = want.count - 1;
  assert.equal((await index.rowAt(last)).id, want.ids[last]);
  assert.deepEqual((await index.rowAt(2345)).textShards, [Math.floor(2345 / 300), Math.floor(2345 / 300) + 1]);
  assert.deepEqual(requests.slice(1), [`data/index-${String(Math.floor(last / want.size)).padStart(4, '0')}.json`,
    `data/index-${String(Math.floor(2345 / want.size)).padStart(4, '0')}.json`]);
  await assert.rejects(index.rowAt(want.count), /no record at position/);
});

test('every id is found with one ids shard, an unknown one is -1', async () => {
  const { index, requests } = await open();
  for (const pos of [0, 1, 97, 2345, want.count - 1]) {
    const before = requests.length;
    assert.equal(await index.positionOf(want.ids[pos]), pos);
    assert.ok(requests.length - before <= 1 && requests.slice(before).every((r) => r.startsWith('data/ids-')));
  }
  assert.equal(await index.positionOf('no-such-record'), -1);
  assert.equal(await index.positionOf('constructor'), -1); // an object's own keys only
  const all = await index.positionsOf(want.ids);
  assert.equal(all.size, want.count);
  assert.ok(want.ids.every((id, i) => all.get(id) === i));
});

test('next to do walks the shards in order and stops at the first hit', async () => {
  const { index, requests } = await open();
  const done = new Set(want.ids.slice(0, 100));
  assert.equal(await index.nextWhere((id) => !done.has(id), 0), 100);
  assert.deepEqual(requests.slice(1), ['data/index-0000.json', 'data/index-0001.json', 'data/index-0002.json']);
  assert.equal(await index.nextWhere((id) => !done.has(id), 4990, true), 4991);
  done.add(want.ids[4991]);
  done.add(want.ids[4999]);
  assert.equal(await index.nextWhere((id) => !done.has(id), 4998, true), 100); // wraps around
  assert.equal(await index.nextWhere((id) => id === want.ids[50], 50, true), 50); // itself last
  assert.equal(await index.nextWhere(() => false, 7, true), -1);
});

test('a text filter gives what a full scan gives, reading one term shard a word', async () => {
  for (const [query, hits] of Object.entries(want.queries)) {
    const { index, requests } = await open();
    assert.deepEqual(await index.textPositions(query), hits, query);
    const terms = requests.filter((r) => r.startsWith('data/terms-'));
    assert.equal(requests.length - 1, terms.length, query); // no index shard read
    assert.ok(terms.length <= new Set(query.split(/\W+/u)).size + 1, query);
  }
  const { index } = await open();
  assert.equal(await index.textPositions('  · '), null); // no words: no filter
});

test('the texts\' words: a heavy prefix split (twice and more), bitmap and delta lists, an AND across them', async () => {
  // the fixture's layout, so that the lookups below go through every path of wordPositions
  assert.deepEqual(want.split, ['co', 'con', 'cont', 'cont1', 'cont2', 'cont3', 'cont4']);
  assert.deepEqual(want.lists, { 'w:the': 'bitmap', 'w:council': 'bitmap', 'p:co': 'bitmap', 'p:con': 'bitmap',
    'p:cont3': 'bitmap', 'w:cont12': 'deltas' });
  const { index } = await open();
  assert.equal(index.keyOf('council'), 'cou'); // in split "co"
  assert.equal(index.keyOf('cont12'), 'cont12'); // "co" → "con" → "cont" → "cont1" split: its key has 6 characters
  assert.equal(index.keyOf('cont'), 'cont'); // itself a split prefix: the shard of its union
  assert.equal(index.keyOf('the'), 'th');
  for (const query of ['the', 'council', 'co', 'con', 'cont1', 'cont12', 'the council', 'council cont3', 'the cont12',
    'conz', 'c']) {
    const { index: fresh, requests } = await open();
    assert.deepEqual(await fresh.textPositions(query), want.queries[query], query);
    assert.equal(requests.length - 1, query.split(' ').length, query); // one term shard a word
  }
  assert.equal(want.queries.conz.length, 0);
  assert.ok(want.queries['the council'].length > 100 && want.queries['the cont12'].length > 10);
});

test('posting lists decode from deltas and from bitmaps', () => {
  assert.deepEqual(decodePostings([3, 1, 10]), [3, 4, 14]);
  assert.deepEqual(decodePostings([]), []);
  assert.deepEqual(decodePostings(Buffer.from([0b10000001, 0, 0b00000110]).toString('base64')), [0, 7, 17, 18]);
  assert.deepEqual(decodePostings(''), []);
});

test('a metadata filter is the union of its values\' postings', async () => {
  for (const [k, [name, values]] of want.meta.entries()) {
    const { index, requests } = await open();
    assert.deepEqual(await index.metaPositions(name, values), want.meta_hits[k], `${name} ${values}`);
    assert.ok(requests.length - 1 <= values.length);
  }
});

// The fixture's rows: score = i % 11, topic = TOPICS[i % 4] (record_index_fixture.py)
const META = [{ name: 'topic', type: 'terms' }, { name: 'score', type: 'integer' }];
const query = (part) => ({ words: [], status: null, queue: null, statusOf: new Map(), metadata: META, conds: new Map(), sort: { key: '' }, ...part });
const shardsRead = (requests) => new Set(requests.filter((r) => r.startsWith('data/index-')));
const range = (n) => Array.from({ length: n }, (_, i) => i);

test('the list query: text, terms and status filters read no index shard; a range reads only the shards of the records still in', async () => {
  const { index, requests } = await open();
  assert.equal(await selectPositions(index, query({})), null); // nothing set: every record in bundle order
  assert.deepEqual([...await selectPositions(index, query({ words: ['model'] }))], want.queries.model);
  const statusOf = new Map([[3, 'submitted'], [4000, 'discarded'], [41, 'in_progress']]);
  assert.deepEqual([...await selectPositions(index, query({ status: 'submitted', statusOf }))], [3]);
  const todo = await selectPositions(index, query({ status: 'todo', statusOf }));
  assert.equal(todo.length, want.count - 3);
  assert.ok(!todo.includes(4000) && todo.includes(4001));
  // a filter word may name a status (a word prefix over the term index): AND with the other words
  assert.deepEqual([...await selectPositions(index, query({ words: ['submitted'], statusOf }))], [3]);
  assert.deepEqual([...await selectPositions(index, query({ words: ['·', 'submitted'], statusOf }))], [3]); // no word in '·'
  const cnn = new Map([['topic', { chosen: new Set(['cnn']) }]]);
  assert.deepEqual([...await selectPositions(index, query({ conds: cnn }))],
    range(want.count).filter((p) => p % 4 === 2));
  assert.deepEqual(shardsRead(requests), new Set()); // postings only
  // a range narrowed by a text filter reads only the shards of the records the text filter kept
  const rec42 = want.queries['rec-42'];
  const conds = new Map([['score', { lo: 2, hi: 5 }]]);
  assert.deepEqual([...await selectPositions(index, query({ words: ['rec-42'], conds }))], rec42.filter((p) => p % 11 >= 2 && p % 11 <= 5));
  assert.deepEqual(shardsRead(requests), new Set(rec42.map((p) => `data/index-${String(Math.floor(p / want.size)).padStart(4, '0')}.json`)));
});

test('the list query: a range over everything reads every index shard in order; sorts are stable, missing values last', async () => {
  const { index, requests } = await open();
  const conds = new Map([['score', { lo: 10, hi: null }]]);
  assert.deepEqual([...await selectPositions(index, query({ conds }))], range(want.count).filter((p) => p % 11 === 10));
  const shards = requests.filter((r) => r.startsWith('data/index-'));
  assert.deepEqual(shards, range(want.count / want.size).map((n) => `data/index-${String(n).padStart(4, '0')}.json`));
  // a query replaced by a newer one stops reading shards
  const { index: other, requests: read } = await open();
  let left = 2;
  await selectPositions(other, query({ conds, stale: () => left-- <= 0 }));
  assert.equal(read.filter((r) => r.startsWith('data/index-')).length, 2);
  const byScore = await selectPositions(index, query({ sort: { key: 'meta:score', dir: -1 } }));
  assert.deepEqual([...byScore.slice(0, 3)], [10, 21, 32]);
  assert.equal(byScore.length, want.count);
  const statusOf = new Map([[7, 'discarded'], [2, 'submitted']]);
  const byStatus = await selectPositions(index, query({ words: ['part'], statusOf, sort: { key: 'status', dir: 1 } }));
  assert.deepEqual([...byStatus.slice(-2)], [2, 7]);
  assert.deepEqual([...byStatus.slice(0, 3)], [0, 1, 3]);
});

test('the index of another format or version is refused; one without a name (earlier bundles) is version 1', () => {
  const top = { count: 0, index_size: 1, prefix: 2, index_shards: 1, id_shards: 1, term_shards: 1, meta: [] };
  const fetchJson = () => Promise.reject(new Error('not fetched'));
  assert.equal(new RecordIndex({ ...top, version: 1 }, fetchJson).count, 0);
  assert.equal(new RecordIndex({ ...top, format: 'mercury-static/record-index', version: 1 }, fetchJson).count, 0);
  const v2 = new RecordIndex({ ...top, format: 'mercury-static/record-index', version: 2, split: ['co'] }, fetchJson);
  assert.equal(v2.keyOf('council'), 'cou');
  assert.equal(new RecordIndex({ ...top, version: 1 }, fetchJson).keyOf('council'), 'co'); // version 1: no split
  assert.throws(() => new RecordIndex({ ...top, format: 'mercury-static/record-index', version: 3 }, fetchJson),
    /^Error: data\/index.json: field 'version': unsupported version 3 of mercury-static\/record-index \(this page reads versions 1 and 2\)$/);
  assert.throws(() => new RecordIndex({ ...top, version: 2 }, fetchJson), /unsupported version 2/);
  assert.throws(() => new RecordIndex({ ...top, format: 'mercury-static/queues', version: 1 }, fetchJson),
    /data\/index.json: field 'format': "mercury-static\/queues" is not 'mercury-static\/record-index'/);
});
