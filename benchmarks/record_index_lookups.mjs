// Time the page's record-index lookups (site_template/app/recordindex.js) over an index folder on disk:
// node benchmarks/record_index_lookups.mjs BUNDLE_DIR ID WORD META_NAME META_VALUE -> one JSON line.
// Each step starts from a fresh RecordIndex (cold caches); requests and bytes are what a page would fetch.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';

import { RecordIndex } from '../site_template/app/recordindex.js';

const [dir, id, word, metaName, metaValue] = process.argv.slice(2);

async function step(fn) {
  const reads = [];
  const fetchJson = async (path) => {
    const text = await readFile(join(dir, path), 'utf8');
    reads.push(text.length);
    return JSON.parse(text);
  };
  const t0 = performance.now();
  const index = await RecordIndex.open(fetchJson, { withFirstShard: true });
  const value = await fn(index);
  return { ms: +(performance.now() - t0).toFixed(1), requests: reads.length, bytes: reads.reduce((a, b) => a + b, 0), value };
}

const out = {
  first_row: await step(async (ix) => (await ix.rowAt(0)).id),
  jump_900000: await step(async (ix) => (await ix.rowAt(Math.min(900000, ix.count - 1))).id),
  id_lookup: await step(async (ix) => ix.positionOf(id)),
  next_todo_after_5000_done: await step(async (ix) => ix.nextWhere((rid) => !/^b0:\d{1,3}$|^b0:[0-4]\d{3}$/.test(rid), 0)),
  filter_word: await step(async (ix) => (await ix.textPositions(word)).length),
  filter_meta: await step(async (ix) => (await ix.metaPositions(metaName, [metaValue])).length),
};
process.stdout.write(`${JSON.stringify(out)}\n`);
