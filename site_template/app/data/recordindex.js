/**
 * The sharded record index (docs/DESIGN.md "The sharded record index"; written by
 * mercury_static/bundle/record_index.py): rows, id → position, next without work and filter postings of a
 * bundle of any size, each answer reading only the shards it needs. Shards are fetched through the
 * caller's `fetchJson(path)` (the bundle's base URL is data.js's business) and kept LRU.
 */
import { RECORD_INDEX, checkFormat } from './formats.js';

const pad4 = (n) => String(n).padStart(4, '0');
const INDEX_CACHE = 16; // index shards: a scrolled list window, the open record's and the walk's
const LOOKUP_CACHE = 8; // ids and term shards each
// Between a property name and a value in a meta term.
// [[[cog
// from mercury_static.bundle.record_index import META_SEP
// from mercury_static.tools.twins import const
// cog.outl(const("META_SEP", META_SEP, export=False))
// ]]]
const META_SEP = '\x1f';
// [[[end]]]
const utf8 = new TextEncoder();

/** FNV-1a 32-bit of the UTF-8 bytes of `key` (record_index.fnv1a). */
export function fnv1a(key) {
  let h = 0x811c9dc5;
  for (const b of utf8.encode(key)) h = Math.imul(h ^ b, 0x01000193) >>> 0;
  return h;
}

/**
 * A text as the filter compares it (record_index.fold): NFKC (composed and decomposed "café" alike, full-width
 * letters as ASCII), lower case, the dot of a lower-cased "İ" dropped and the final sigma as σ.
 */
export function fold(text) {
  return String(text).normalize('NFKC').toLowerCase().replaceAll('i\u0307', 'i').replaceAll('ς', 'σ');
}

/** The words of a text, folded: runs of letters, digits and combining marks (record_index.words). */
export function words(text) {
  return fold(text).match(/[\p{L}\p{N}\p{M}]+/gu) || [];
}

/** Positions from a posting list: its deltas (an array) or the base64 of its bitmap (record_index.encode_postings). */
export function decodePostings(postings) {
  if (typeof postings === 'string') {
    const bytes = atob(postings);
    const out = [];
    for (let i = 0; i < bytes.length; i++) {
      for (let byte = bytes.charCodeAt(i); byte; byte &= byte - 1) out.push(i * 8 + 31 - Math.clz32(byte & -byte));
    }
    return out;
  }
  const out = new Array(postings.length);
  let p = 0;
  for (let k = 0; k < postings.length; k++) {
    p = k ? p + postings[k] : postings[k];
    out[k] = p;
  }
  return out;
}

/** The ascending positions in every one of `lists` (ascending arrays). */
export function intersect(lists) {
  if (!lists.length) return [];
  const sorted = [...lists].sort((a, b) => a.length - b.length);
  let out = sorted[0];
  for (const other of sorted.slice(1)) {
    const next = [];
    let j = 0;
    for (const p of out) {
      while (j < other.length && other[j] < p) j++;
      if (j < other.length && other[j] === p) next.push(p);
    }
    out = next;
  }
  return out;
}

/** The ascending union of ascending arrays of positions below `count` (marked in a byte a record when large). */
function union(lists, count) {
  if (lists.length < 2) return lists[0] || [];
  if (lists.reduce((n, l) => n + l.length, 0) < count / 16) return [...new Set(lists.flat())].sort((a, b) => a - b);
  const marks = new Uint8Array(count);
  for (const list of lists) for (const p of list) marks[p] = 1;
  const out = [];
  for (let p = 0; p < count; p++) if (marks[p]) out.push(p);
  return out;
}

/** A Map keeping the `limit` most recently used entries (a promise per shard). */
export class Lru extends Map {
  constructor(limit) {
    super();
    this.limit = limit;
  }

  get(key) {
    const v = super.get(key);
    if (v !== undefined) {
      super.delete(key);
      super.set(key, v);
    }
    return v;
  }

  set(key, value) {
    super.delete(key);
    super.set(key, value);
    while (this.size > this.limit) this.delete(this.keys().next().value);
    return this;
  }
}

export class RecordIndex {
  /** `top`: data/index.json; `fetchJson(path)`: a promise of the JSON at a bundle-relative path. */
  constructor(top, fetchJson) {
    checkFormat(top, 'data/index.json', RECORD_INDEX);
    this.count = top.count;
    this.size = top.index_size;
    this.prefix = top.prefix;
    this.split = new Set(top.split || []); // version 1: none
    this.idShards = top.id_shards;
    this.termShards = top.term_shards;
    this.metaNames = top.meta || [];
    this._fetch = fetchJson;
    this._rows = new Lru(INDEX_CACHE); // shard n -> the shard, once arrived (row() reads it synchronously)
    this._cache = { index: new Lru(INDEX_CACHE), ids: new Lru(LOOKUP_CACHE), terms: new Lru(LOOKUP_CACHE) };
  }

  /** Open the index; with `withFirstShard`, index shard 0 is requested alongside the top file. */
  static async open(fetchJson, { withFirstShard = false } = {}) {
    const first = withFirstShard ? fetchJson('data/index-0000.json') : null;
    first?.catch(() => {}); // an empty bundle has none
    const index = new RecordIndex(await fetchJson('data/index.json'), fetchJson);
    if (first && index.count) index._cache.index.set(0, first);
    return index;
  }

  _once(kind, n) {
    const cache = this._cache[kind];
    let p = cache.get(n);
    if (!p) {
      p = this._fetch(`data/${kind}-${pad4(n)}.json`);
      p.catch(() => {
        if (cache.get(n) === p) cache.delete(n); // a failed fetch may be retried
      });
      cache.set(n, p);
    }
    return p;
  }

  /** Index shard `n` (records [n·size, n·size + size)). */
  async indexShard(n) {
    const shard = await this._once('index', n);
    this._rows.set(n, shard);
    return shard;
  }

  _rowOf(shard, pos) {
    const k = pos - shard.first;
    return {
      position: pos, id: shard.ids[k], title: shard.titles[k], tags: shard.tags[k], shard: shard.shard[k],
      textShards: shard.text_shards[k], meta: shard.meta ? shard.meta[k] : {},
    };
  }

  /** The row at `pos` if its shard has arrived, else null (a list row renders a placeholder). */
  row(pos) {
    if (pos < 0 || pos >= this.count) return null;
    const shard = this._rows.get(Math.floor(pos / this.size));
    return shard ? this._rowOf(shard, pos) : null;
  }

  /** The row at `pos` (fetching its shard). */
  async rowAt(pos) {
    if (!(pos >= 0 && pos < this.count)) throw new Error(`no record at position ${pos}`);
    return this._rowOf(await this.indexShard(Math.floor(pos / this.size)), pos);
  }

  /** The index files that find `row` (by position: its index shard; by id: its ids shard), bundle-relative. */
  filesOf(row) {
    return [`data/index-${pad4(Math.floor(row.position / this.size))}.json`,
      `data/ids-${pad4(fnv1a(row.id) % this.idShards)}.json`];
  }

  /** The position of record `id`, or -1: one ids shard read. */
  async positionOf(id) {
    const shard = await this._once('ids', fnv1a(id) % this.idShards);
    return Object.hasOwn(shard.ids, id) ? shard.ids[id] : -1;
  }

  /** Map id -> position for the `ids` in the bundle (the stored work's ids): each ids shard read once. */
  async positionsOf(ids) {
    const byShard = new Map();
    for (const id of ids) {
      const n = fnv1a(id) % this.idShards;
      if (!byShard.has(n)) byShard.set(n, []);
      byShard.get(n).push(id);
    }
    const out = new Map();
    await Promise.all([...byShard].map(async ([n, some]) => {
      const shard = await this._once('ids', n);
      for (const id of some) if (Object.hasOwn(shard.ids, id)) out.set(id, shard.ids[id]);
    }));
    return out;
  }

  /**
   * The first position from `from` on (with `after`, from the next one, `from` itself last), wrapping,
   * whose id `isTodo(id)` accepts; -1 when none does. Index shards are read in order, stopping at
   * the first hit.
   */
  async nextWhere(isTodo, from = 0, after = false) {
    const n = this.count;
    const k0 = after ? 1 : 0;
    let k = k0;
    while (k < k0 + n) {
      const pos = (from + k) % n;
      const shard = await this.indexShard(Math.floor(pos / this.size));
      const end = Math.min(shard.first + shard.ids.length, pos + (k0 + n - k));
      for (let p = pos; p < end; p++, k++) if (isTodo(shard.ids[p - shard.first])) return p;
    }
    return -1;
  }

  /** What a word is sharded by (record_index.word_key): its first `prefix` code points, one more a split prefix. */
  keyOf(word) {
    const cps = [...word];
    let n = this.prefix;
    while (n < cps.length && this.split.has(cps.slice(0, n).join(''))) n++;
    return cps.slice(0, n).join('');
  }

  /**
   * Positions of the records having a word that `word` (one word, lower-case) prefixes: one term shard, that
   * of its key (a split prefix: the union of its words, stored whole); shorter than the prefix, only itself.
   */
  async wordPositions(word) {
    const shard = await this._once('terms', fnv1a(this.keyOf(word)) % this.termShards);
    if ([...word].length < this.prefix) {
      return Object.hasOwn(shard.words, word) ? decodePostings(shard.words[word]) : [];
    }
    if (this.split.has(word)) return decodePostings(shard.prefixes[word]);
    const lists = Object.entries(shard.words).filter(([w]) => w.startsWith(word)).map(([, p]) => decodePostings(p));
    return union(lists, this.count);
  }

  /** Positions matching every word of the filter text (as today's filter's words: AND); null: no words. */
  async textPositions(text) {
    const ws = [...new Set(words(text))];
    if (!ws.length) return null;
    return intersect(await Promise.all(ws.map((w) => this.wordPositions(w))));
  }

  /** Positions whose visible property `name` has one of `values` (strings). */
  async metaPositions(name, values) {
    const lists = await Promise.all([...values].map(async (v) => {
      const key = name + META_SEP + v;
      const shard = await this._once('terms', fnv1a(key) % this.termShards);
      return Object.hasOwn(shard.meta, key) ? decodePostings(shard.meta[key]) : [];
    }));
    return union(lists, this.count);
  }
}
