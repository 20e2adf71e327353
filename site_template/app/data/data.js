/**
 * Bundle data access: the manifest, the record index, record/text/vector shards (fetched lazily and
 * cached) and float16 vector decoding.
 *
 * The bundle stores offsets as Python code points, and so does the page (offsets.js converts to UTF-16
 * only at the DOM). Everything here follows docs/DESIGN.md.
 */

import { BUNDLE } from './formats.js';
import { Offsets } from './offsets.js';
import { Lru, RecordIndex } from './recordindex.js';

const pad4 = (n) => String(n).padStart(4, '0');
// Shards kept per kind (records, texts, vectors), least recently used dropped first. A record needs one
// record shard and one or two text + vector shards, and neighbouring records mostly share them: 4 per
// kind keep the open record's, the prefetched next record's and one or two more. Eviction never breaks
// the open record: its TextViews hold their own text and vectors, and a
// shard still loading stays referenced by whoever awaits it. (More per kind only kept more memory
// on the 10k-record bundle.)
const SHARD_CACHE = 4;
const TEXT_CACHE = 4; // TextViews: the open and the prefetched record's texts
const LITTLE_ENDIAN = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;

async function fetchJson(url) {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
  return res.json();
}

async function fetchBuffer(url) {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
  return res.arrayBuffer();
}

/**
 * A text of the bundle, ready for the page: code-point sentence spans, sections, and per-sentence
 * vectors (`sentenceVectors[i]` = list of Float32Array rows of sentence i), which arrive after the
 * text (`vectorsReady` resolves to true once attached, false if the shard could not be loaded).
 */
export class TextView {
  constructor(raw) {
    this.id = raw.id;
    this.text = raw.text;
    this.offsets = new Offsets(raw.text);
    this.length = this.offsets.lengthCp; // in code points, as every offset of the page
    this.sentences = raw.sentences;
    this.sections = raw.sections
      ? raw.sections.map(([start, end, title, docId]) => ({ start, end, title, docId })) : null;
    this.sentenceVectors = this.sentences.map(() => []);
    this.rows = raw.rows || []; // embedding rows [sentence, start, end]
    this.tokenRows = this.rows.map(() => null); // per row, its tokens in context (assist/tokens.js), once run
    this._rowsOf = null;
    this.hasVectors = false;
    this.vectorsReady = Promise.resolve(false);
    this._rankInput = null;
  }

  /**
   * Fill `sentenceVectors` in place from the text's rows of its vector shard: the rows are decoded
   * into one Float32Array for the whole text, each sentence gets views into it.
   */
  attachVectors(raw, vectorShard) {
    const { dim } = vectorShard;
    const all = vectorShard.rows(raw.row0, raw.rows.length);
    raw.rows.forEach(([i], r) => {
      if (this.sentenceVectors[i]) this.sentenceVectors[i].push(all.subarray(r * dim, (r + 1) * dim));
    });
    this.hasVectors = true;
    return true;
  }

  /** The text of the code-point span [start, end) (Python's text[start:end]). */
  slice(start, end) {
    const o = this.offsets;
    return this.text.slice(o.to16(start), o.to16(end));
  }

  /** Sentence text by index. */
  sentenceText(i) {
    const [s, e] = this.sentences[i];
    return this.slice(s, e);
  }

  /** Indices of the sentences overlapping the code-point span [start, end) (binary search). */
  sentencesIn(start, end) {
    const sents = this.sentences;
    let lo = 0;
    let hi = sents.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (sents[mid][1] <= start) lo = mid + 1;
      else hi = mid;
    }
    const out = [];
    for (let i = lo; i < sents.length && sents[i][0] < Math.max(end, start + 1); i++) out.push(i);
    return out;
  }

  /** Indices of the embedding rows of the sentences `idx`. */
  rowsOf(idx) {
    if (!this._rowsOf) {
      this._rowsOf = this.sentences.map(() => []);
      this.rows.forEach(([i], r) => { if (this._rowsOf[i]) this._rowsOf[i].push(r); });
    }
    return idx.flatMap((i) => this._rowsOf[i] || []);
  }

  /** The `sentences` argument of rank.js, built once per text. */
  rankInput() {
    if (!this._rankInput) {
      this._rankInput = this.sentences.map((_, i) => ({
        index: i, text: this.sentenceText(i), vectors: this.sentenceVectors[i],
      }));
    }
    return this._rankInput;
  }
}

/** float16 bit pattern -> float32 value, for all 65536 patterns (built on first use, from the bits). */
let HALF = null;
export function halfTable() {
  if (HALF) return HALF;
  HALF = new Float32Array(65536);
  const bits = new Uint32Array(HALF.buffer);
  for (let h = 0; h < 65536; h++) {
    const sign = (h & 0x8000) << 16;
    const exp = (h >> 10) & 0x1f;
    const frac = h & 0x3ff;
    if (exp === 0) HALF[h] = (sign ? -1 : 1) * frac * 2 ** -24; // zero and subnormals
    else if (exp === 31) bits[h] = sign | 0x7f800000 | (frac << 13); // inf, NaN
    else bits[h] = sign | ((exp + 112) << 23) | (frac << 13); // rebias 15 -> 127
  }
  return HALF;
}

/** Resolves after the next frame has painted (or after a short timeout in a tab that paints no frames). */
function afterPaint() {
  return new Promise((resolve) => {
    requestAnimationFrame(() => setTimeout(resolve, 0));
    setTimeout(resolve, 100);
  });
}

/** One vector shard: float16 LE [n * dim] (manifest vectors.encoding "float16"); rows decoded on demand. */
class VectorShard {
  constructor(buffer, dim) {
    const n = Math.floor(buffer.byteLength / (2 * dim));
    this.n = n;
    this.dim = dim;
    if (LITTLE_ENDIAN) this.h = new Uint16Array(buffer, 0, n * dim); // the fetched bytes, no copy
    else {
      const bytes = new Uint8Array(buffer, 0, 2 * n * dim);
      this.h = new Uint16Array(n * dim);
      for (let i = 0; i < this.h.length; i++) this.h[i] = bytes[2 * i] | (bytes[2 * i + 1] << 8);
    }
  }

  /** Rows [r0, r0 + count) as one float32 array (count * dim). */
  rows(r0, count) {
    const table = halfTable();
    const out = new Float32Array(count * this.dim);
    const h = this.h.subarray(r0 * this.dim, (r0 + count) * this.dim);
    for (let j = 0; j < out.length; j++) out[j] = table[h[j]];
    return out;
  }
}

/**
 * The opened bundle: manifest + the sharded record index (`recordIndex`, recordindex.js: rows by
 * position, positions by id, filter postings); shards load lazily and are cached. No
 * column of every record is held: a bundle of any size opens with the top file and one index shard.
 */
export class Bundle {
  constructor(baseUrl, manifest, recordIndex) {
    this.baseUrl = baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`;
    this.manifest = manifest;
    this.recordIndex = recordIndex;
    this.spanQuestion = (manifest.settings?.questions || []).find((q) => q.type === 'span')?.name || 'spans';
    this.dim = (manifest.vectors && manifest.vectors.dim) || (manifest.model && manifest.model.dim) || 384;
    this._cache = { r: new Lru(SHARD_CACHE), t: new Lru(SHARD_CACHE), v: new Lru(SHARD_CACHE) };
    this._texts = new Lru(TEXT_CACHE);
  }

  url(path) {
    return this.baseUrl + path;
  }

  /** Cached promise of shard `n` of a kind ('r', 't', 'v'); per kind, the SHARD_CACHE most recently used. */
  _once(kind, n, make) {
    const cache = this._cache[kind];
    let p = cache.get(n);
    if (!p) {
      p = make();
      p.catch(() => {
        if (cache.get(n) === p) cache.delete(n); // a failed fetch may be retried
      });
      cache.set(n, p);
    }
    return p;
  }

  recordShardData(n) {
    return this._once('r', n, () => fetchJson(this.url(`data/records-${pad4(n)}.json`)));
  }

  textShardData(n) {
    return this._once('t', n, () => fetchJson(this.url(`data/texts-${pad4(n)}.json`)));
  }

  vectorShard(n) {
    return this._once('v', n, async () => new VectorShard(await fetchBuffer(this.url(`data/vectors-${pad4(n)}.bin`)), this.dim));
  }

  /** Shard of a text, as its record names it (source_shard / summary_shard, written by bundle/writer.py). */
  _textShardOf(rec, side) {
    const own = rec[`${side}_shard`];
    if (Number.isInteger(own)) return own;
    throw new Error(`record ${rec.id}: no shard known for its ${side} text ${rec[side]}`);
  }

  /** The TextView of a text (cached promise: a record and the prefetched next one share texts). */
  text(textId, shard) {
    let p = this._texts.get(textId);
    if (!p) {
      p = this._makeText(textId, shard);
      p.catch(() => {
        if (this._texts.get(textId) === p) this._texts.delete(textId);
      });
      this._texts.set(textId, p);
    }
    return p;
  }

  async _makeText(textId, shard) {
    // Vectors are requested once the text has arrived: the text paints without them, and on a long
    // source the two downloads would otherwise compete.
    const data = await this.textShardData(shard);
    const vectors = this.vectorShard(shard);
    const raw = data.texts.find((t) => t.id === textId);
    if (!raw) throw new Error(`text ${textId} missing from data/texts-${pad4(shard)}.json`);
    const view = new TextView(raw);
    // The page reads without vectors: decode them after the text has painted.
    view.vectorsReady = vectors.then(async (vs) => {
      await afterPaint();
      return view.attachVectors(raw, vs);
    }, () => false);
    return view;
  }

  /**
   * The index row of record `id` (its record and text shard numbers), from the sharded index: an ids
   * shard, unless `at` (its position, as the caller knows it) gives its position, and its index shard
   * (both cached).
   */
  async indexRow(id, at = undefined) {
    if (at !== undefined) {
      const row = await this.recordIndex.rowAt(at);
      if (row.id === id) return row;
    }
    const pos = await this.recordIndex.positionOf(id);
    if (pos < 0) throw new Error(`no record with id ${JSON.stringify(id)}`);
    return this.recordIndex.rowAt(pos);
  }

  /**
   * Load a record (at position `at`, if the caller knows it) with both texts resolved, as stored: {id,
   * title, metadata, prior_annotations, gold, source, summary, fields, meta, suggestions, prior_sentences,
   * sentence_suggestions} (the page shows it through suggestions.js `recordAsShown`).
   */
  async record(id, at = undefined) {
    const row = await this.indexRow(id, at);
    // The texts' shards load alongside the record's shard (one round trip instead of two). This also
    // marks them recently used whenever the record's texts are, so an open text's shard stays cached.
    for (const n of new Set(row.textShards)) this.textShardData(n).catch(() => {});
    const shard = await this.recordShardData(row.shard);
    const rec = shard.records.find((r) => r.id === id);
    if (!rec) throw new Error(`record ${id} missing from its shard`);
    const [source, summary] = await Promise.all([
      this.text(rec.source, this._textShardOf(rec, 'source')),
      this.text(rec.summary, this._textShardOf(rec, 'summary')),
    ]);
    return {
      id: rec.id, title: rec.title || null, metadata: rec.metadata || {},
      prior_annotations: rec.prior_annotations || [], gold: rec.gold || null, source, summary,
      fields: rec.fields || {}, meta: rec.meta || {}, suggestions: rec.suggestions || [],
      prior_sentences: rec.prior_sentences || [], sentence_suggestions: rec.sentence_suggestions || [],
    };
  }

  /**
   * The files that find and show the record of an index row (its index and ids shards, its record shard, its
   * texts' shards and their vectors), as URLs.
   */
  rowFiles(row) {
    const texts = [...new Set(row.textShards)].flatMap((n) => [`data/texts-${pad4(n)}.json`, `data/vectors-${pad4(n)}.bin`]);
    return [...this.recordIndex.filesOf(row), `data/records-${pad4(row.shard)}.json`, ...texts].map((path) => this.url(path));
  }

  /** Start fetching a record's shards without waiting (e.g. the next record, at position `at`). */
  prefetch(id, at = undefined) {
    this.record(id, at).catch(() => {});
  }
}

/**
 * Problems of the manifest's ranker options against its `ranker_spec` (written by ranker_options.py, the
 * one table build and eval check with): the page must rank as `eval` does, never with a value it would
 * silently ignore. Returns a list of one-line messages (empty: the options are usable).
 */
export function rankerOptionProblems(options, spec) {
  if (!Array.isArray(spec) || !spec.length) return [];
  const problems = [];
  const byName = new Map(spec.map((o) => [o.name, o]));
  const finite = (x) => typeof x === 'number' && Number.isFinite(x);
  const inRange = (o, x) => (o.minimum === null || x >= o.minimum) && (o.maximum === null || x <= o.maximum);
  for (const [name, value] of Object.entries(options || {})) {
    const o = byName.get(name);
    if (!o) {
      problems.push(`ranker option '${name}' is unknown`);
      continue;
    }
    let ok;
    if (o.kind === 'choice') ok = o.choices.includes(value);
    else if (o.kind === 'integer') ok = Number.isInteger(value) && inRange(o, value);
    else if (o.kind === 'number') ok = finite(value) && inRange(o, value);
    else if (o.kind === 'bands') {
      ok = Array.isArray(value) && value.length <= o.length && value.every((r) => Array.isArray(r) && r.length === 4
        && Number.isInteger(r[0]) && r[0] >= 1 && r.slice(1).every((x) => finite(x) && inRange(o, x)))
        && value.every((r, i) => i === 0 || value[i - 1][0] < r[0]);
    } else ok = Array.isArray(value) && value.length === o.length && value.every((x) => finite(x) && inRange(o, x))
      && value.every((x, i) => i === 0 || value[i - 1] <= x);
    if (!ok) problems.push(`ranker option '${name}': ${JSON.stringify(value)} is not valid (${o.kind})`);
  }
  // ranker_options.combination_problem: a normalised fusion needs a c_* weight for its confidence
  const all = Object.fromEntries(spec.map((o) => [o.name, o.default]));
  Object.assign(all, options || {});
  if (all.norm !== 'none' && !Object.entries(all).some(([k, v]) => k.startsWith('c_') && v > 0)) {
    problems.push(`ranker options: with norm '${all.norm}' at least one c_* weight must be above 0`);
  }
  return problems;
}

/** Which options the page ranks with (the help panel says it): tuned by `tune --apply`, the default, or custom. */
export function rankerLabel(manifest) {
  const tuned = manifest.ranker_tuned;
  if (tuned && Number.isInteger(tuned.pairs)) return `ranker: tuned on ${tuned.pairs} pairs, ${tuned.date}`;
  const options = manifest.ranker || {};
  const spec = Array.isArray(manifest.ranker_spec) ? manifest.ranker_spec : [];
  const custom = spec.some((o) => o.name in options && JSON.stringify(options[o.name]) !== JSON.stringify(o.default));
  return `ranker: ${options.algorithm || 'fused-v4'} (${custom ? 'custom options' : 'default'})`;
}

/** Which model embeds the selections (the help panel says it): a model `train` wrote names its pairs. */
export function modelLabel(manifest) {
  const model = manifest.model || {};
  const trained = model.trained;
  if (trained && Number.isInteger(trained.pairs)) return `model: ${model.name}, trained on ${trained.pairs} pairs`;
  return `model: ${model.name || 'unknown'}`;
}

/**
 * Fetch manifest.json and the record index (data/index.json and its first shard); refuses another
 * format or version, or unusable options.
 */
export async function openBundle(baseUrl = './') {
  const base = baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`;
  const [manifest, recordIndex] = await Promise.all([
    fetchJson(`${base}manifest.json`), RecordIndex.open((path) => fetchJson(base + path), { withFirstShard: true }),
  ]);
  if (manifest.format !== BUNDLE.name) throw new Error('manifest.json: not a mercury-static bundle');
  if (!BUNDLE.reads.includes(manifest.version)) {
    throw new Error(`manifest.json: bundle version ${JSON.stringify(manifest.version)} is not the version this page reads (${BUNDLE.reads.join(' and ')}); rebuild the bundle with this mercury-static`);
  }
  const problems = rankerOptionProblems(manifest.ranker, manifest.ranker_spec);
  if (problems.length) throw new Error(`manifest.json: ${problems.join('; ')}`);
  return new Bundle(base, manifest, recordIndex);
}
