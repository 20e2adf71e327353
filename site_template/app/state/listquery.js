/**
 * Which records the record list shows, in which order: the positions passing the text,
 * status, queue and metadata filters, sorted, as one Int32Array, computed on the sharded record index
 * (recordindex.js) so that each filter reads only the shards it needs:
 * - text: the term postings of the rows' and the texts' words (one term shard a word, prefix matching);
 *   while one index shard holds every record (N ≤ K) also substring matching over its rows;
 * - status: the store's placed work (positions of the records with work; todo is the complement);
 * - terms properties: the meta postings (one term shard a value);
 * - ranges and sorts: the `meta` column of the index shards of the records still in (all shards, read in
 *   order, when no other filter narrowed them: ~N/K shard reads, the cost of a range over everything).
 */
import { fold, intersect, words as wordsOf } from '../data/recordindex.js';

export const STATUS_TEXT = { todo: 'to do', in_progress: 'in progress', submitted: 'submitted', discarded: 'discarded' };
const STATUS_ORDER = { todo: 0, in_progress: 1, submitted: 2, discarded: 3 };

/** Whether a record's value passes a property's condition ({chosen: Set} or {lo, hi}); null: no condition. */
export function passes(prop, cond, value) {
  if (!cond) return true;
  if (prop.type === 'terms') {
    if (!cond.chosen.size) return true;
    return (Array.isArray(value) ? value : [value]).some((v) => cond.chosen.has(v));
  }
  if (cond.lo === null && cond.hi === null) return true;
  if (typeof value !== 'number') return false; // a range is set: a record without a value is not in it
  return (cond.lo === null || value >= cond.lo) && (cond.hi === null || value <= cond.hi);
}

/**
 * `positions` sorted by `valueOf(position)` (a sort key: a number or a string; undefined / null: none),
 * `dir` 1 / -1; stable, records without a value last in both directions.
 */
export function sortOrder(positions, valueOf, dir) {
  const keyed = Array.from(positions, (p, k) => [valueOf(p), k, p]);
  keyed.sort((a, b) => {
    const [x, y] = [a[0], b[0]];
    const missing = (x === undefined || x === null) - (y === undefined || y === null);
    if (missing) return missing;
    if (x !== y && x !== undefined && x !== null) return (x < y ? -1 : 1) * dir;
    return a[1] - b[1];
  });
  return Int32Array.from(keyed, (k) => k[2]);
}

/** The positions of [0, n) not in `sorted` (ascending). */
function complement(n, sorted) {
  const out = new Int32Array(n - sorted.length);
  let j = 0;
  let k = 0;
  for (let p = 0; p < n; p++) {
    if (j < sorted.length && sorted[j] === p) j++;
    else out[k++] = p;
  }
  return out;
}

const ascending = (list) => Int32Array.from(list).sort();
const and = (a, b) => (a === null ? b : Int32Array.from(intersect([Array.from(a), Array.from(b)])));
const union = (lists) => ascending(new Set(lists.flatMap((l) => Array.from(l))));

/** Positions of the records of `statuses` (a Set of status keys), from `statusOf` (position -> status). */
function withStatus(n, statusOf, statuses) {
  if (statuses.has('todo')) {
    const others = [...statusOf].filter(([, st]) => !statuses.has(st)).map(([p]) => p);
    return complement(n, ascending(others));
  }
  return ascending([...statusOf].filter(([, st]) => statuses.has(st)).map(([p]) => p));
}

/** The statuses whose text a filter word matches: a substring, or (over the term index) a word prefix. */
function statusesOf(word, substring) {
  const hit = (text) => (substring ? text.includes(word) : wordsOf(text).some((w) => w.startsWith(word)));
  return new Set(Object.keys(STATUS_TEXT).filter((k) => hit(STATUS_TEXT[k])));
}

/**
 * Positions matching every filter word (id, row title, tags, a word of either text, or the status in
 * words). The texts' words are in the term index only: with every row in one index shard, a word matches
 * a substring of the row or, through the term index, a word of its texts that it prefixes (a filter word
 * of one word: `model-a` is matched against the row only).
 */
async function textMatches(index, words, statusOf) {
  if (index.count <= index.size) { // one index shard holds every row: substring matching, as before the index
    // a filter word of several parts (model-a, 3.2) is a substring of the row only: in the texts each part
    // alone would match (the `a` of every text), the term index has no phrases
    const oneWord = (w) => { const ws = wordsOf(w); return ws.length === 1 && ws[0] === w; };
    const [shard, inTexts] = await Promise.all([index.indexShard(0),
      Promise.all(words.map(async (w) => new Set(oneWord(w) ? await index.textPositions(w) : [])))]);
    const out = [];
    for (let p = 0; p < index.count; p++) {
      const hay = fold(`${shard.ids[p]} ${shard.titles[p] || ''} ${(shard.tags[p] || []).join(' ')}`);
      const st = STATUS_TEXT[statusOf.get(p) || 'todo'];
      if (words.every((w, k) => hay.includes(w) || st.includes(w) || inTexts[k].has(p))) out.push(p);
    }
    return Int32Array.from(out);
  }
  let out = null;
  for (const w of words) {
    const [found, statuses] = [await index.textPositions(w), statusesOf(w, false)];
    if (found === null && !statuses.size) continue; // no letter or digit in it: no word to look up
    const byText = found === null ? new Int32Array(0) : Int32Array.from(found);
    const hits = statuses.size ? union([byText, withStatus(index.count, statusOf, statuses)]) : byText;
    out = and(out, hits);
  }
  return out;
}

/**
 * Call `fn(position, row)` for each of `positions` (ascending; null: every record), reading their index
 * shards in order, one at a time (the LRU cache keeps the last few); stops early once `stale()` (a newer
 * query replaced this one: typing in a range box must not queue up scans of every shard).
 */
async function eachRow(index, positions, fn, stale) {
  const n = positions ? positions.length : index.count;
  let k = 0;
  while (k < n && !stale()) {
    const p0 = positions ? positions[k] : k;
    const shardNo = Math.floor(p0 / index.size);
    await index.indexShard(shardNo);
    const end = (shardNo + 1) * index.size;
    for (; k < n && (positions ? positions[k] : k) < end; k++) {
      const p = positions ? positions[k] : k;
      fn(p, index.row(p));
    }
  }
}

/**
 * The list's positions for `q` = {words (lower-case), status (a STATUS_TEXT key or null), queue (ascending
 * positions or null), statusOf (position -> status of the records with work), metadata (settings.metadata),
 * conds (name -> condition), sort: {key: '' | 'status' | 'meta:NAME', dir}, stale?: () => true once the
 * answer is no longer wanted}; null: every record in bundle order. A range or a sort over every record
 * reads every index shard (seconds at a million records); narrowed first by a text, status or terms
 * filter, only the shards of the records kept.
 */
export async function selectPositions(index, q) {
  const n = index.count;
  const stale = q.stale || (() => false);
  const props = (q.metadata || []).filter((p) => {
    const c = q.conds?.get(p.name);
    return c && (p.type === 'terms' ? c.chosen.size > 0 : c.lo !== null || c.hi !== null);
  });
  const sortKey = q.sort?.key || '';
  if (!q.words.length && !q.status && !q.queue && !props.length && !sortKey) return null;
  let out = null;
  if (q.words.length) out = await textMatches(index, q.words, q.statusOf);
  if (q.status) out = and(out, withStatus(n, q.statusOf, new Set([q.status])));
  if (q.queue) out = and(out, q.queue);
  for (const p of props.filter((m) => m.type === 'terms')) {
    out = and(out, Int32Array.from(await index.metaPositions(p.name, [...q.conds.get(p.name).chosen].map(String))));
  }
  const ranges = props.filter((m) => m.type !== 'terms');
  if (ranges.length) {
    const kept = [];
    await eachRow(index, out, (pos, row) => {
      if (ranges.every((m) => passes(m, q.conds.get(m.name), row.meta[m.name]))) kept.push(pos);
    }, stale);
    out = Int32Array.from(kept);
  }
  if (!sortKey) return out ?? null;
  const all = out ?? null;
  if (sortKey === 'status') {
    const order = all ?? Int32Array.from({ length: n }, (_, i) => i);
    return sortOrder(order, (p) => STATUS_ORDER[q.statusOf.get(p) || 'todo'], q.sort.dir);
  }
  const name = sortKey.slice(5);
  const values = new Map();
  await eachRow(index, all, (pos, row) => {
    const v = row.meta[name];
    values.set(pos, Array.isArray(v) ? v.join(', ') : v);
  }, stale);
  return sortOrder(all ?? Int32Array.from({ length: n }, (_, i) => i), (p) => values.get(p), q.sort.dir);
}
