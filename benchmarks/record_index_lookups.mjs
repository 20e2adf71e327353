// Time the page's record-index lookups (site_template/app/data/recordindex.js) and list queries (listquery.js)
// over an index folder on disk:
// node benchmarks/record_index_lookups.mjs BUNDLE_DIR ID WORD META_NAME META_VALUE [COMMON RARE] -> one JSON line
// (COMMON, RARE: a frequent and a rare word of the texts).
// Each step starts from a fresh RecordIndex (cold caches); requests and bytes are what a page would fetch.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';

import { selectPositions } from '../site_template/app/state/listquery.js';
import { RecordIndex } from '../site_template/app/data/recordindex.js';

const [dir, id, word, metaName, metaValue, common, rare] = process.argv.slice(2);
const META = [{ name: metaName, type: 'terms' }, { name: 'score', type: 'integer' }];
/** The record list's query (listquery.js) with `part` set, over the index. */
const list = (part) => async (ix) => (await selectPositions(ix, {
  words: [], status: null, queue: null, statusOf: new Map(), metadata: META, conds: new Map(), sort: { key: '' }, ...part,
})).length;

async function step(fn) {
  const reads = [];
  let termBytes = 0; // of these, the term shards'
  const fetchJson = async (path) => {
    const text = await readFile(join(dir, path), 'utf8');
    reads.push(text.length);
    if (path.startsWith('data/terms-')) termBytes += text.length;
    return JSON.parse(text);
  };
  const t0 = performance.now();
  const index = await RecordIndex.open(fetchJson, { withFirstShard: true });
  const value = await fn(index);
  return {
    ms: +(performance.now() - t0).toFixed(1), requests: reads.length, bytes: reads.reduce((a, b) => a + b, 0), termBytes, value,
  };
}

const out = {
  first_row: await step(async (ix) => (await ix.rowAt(0)).id),
  jump_900000: await step(async (ix) => (await ix.rowAt(Math.min(900000, ix.count - 1))).id),
  id_lookup: await step(async (ix) => ix.positionOf(id)),
  next_todo_after_5000_done: await step(async (ix) => ix.nextWhere((rid) => !/^b0:\d{1,3}$|^b0:[0-4]\d{3}$/.test(rid), 0)),
  filter_word: await step(async (ix) => (await ix.textPositions(word)).length),
  ...(common ? {
    filter_text_word_common: await step(async (ix) => (await ix.textPositions(common)).length),
    filter_text_word_rare: await step(async (ix) => (await ix.textPositions(rare)).length),
    filter_text_prefix_2: await step(async (ix) => (await ix.textPositions(common.slice(0, 2))).length),
  } : {}),
  filter_meta: await step(async (ix) => (await ix.metaPositions(metaName, [metaValue])).length),
  list_status_todo_3_done: await step(list({ status: 'todo', statusOf: new Map([[5, 'submitted'], [1, 'discarded'], [7, 'submitted']]) })),
  list_range_over_all: await step(list({ conds: new Map([['score', { lo: 4, hi: 4 }]]) })),
  list_word_then_range: await step(list({ words: [word], conds: new Map([['score', { lo: 0, hi: 0 }]]) })),
  list_sort_all: await step(list({ sort: { key: 'meta:score', dir: -1 } })),
  place_300_worked_records: await step(async (ix) => (await ix.positionsOf(Array.from({ length: 300 }, (_, k) => {
    const i = (k * 3331) % ix.count; // spread over the bundle, as a day's work over a shuffled queue
    return `b${Math.floor(i / 5000)}:${i % 5000}`;
  }))).size),
};
process.stdout.write(`${JSON.stringify(out)}\n`);
