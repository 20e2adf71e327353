// The related-sentence ranker: JavaScript twin of mercury_static/rank.py (same options, same numbers;
// the formula is documented there). Scores are absolute: compare them with options.min_score.

export const DEFAULT_OPTIONS = Object.freeze({
  algorithm: 'fused-v3',
  w_dense: 0.25,
  w_context: 0.1,
  w_lexical: 0.25,
  w_context_lexical: 0.4,
  span_idf_mass: 20,
  dense_idf_mass: 4,
  neighbor: 0.4,
  position: 0.2,
  prefix: 5,
  min_score: 0.2,
  grades: Object.freeze([0.3, 0.45]),
});

const DIGIT_SEP = /(?<=\d)[,.](?=\d)/g;
const TOKEN = /[\p{L}\p{N}]+/gu;

/** Lower-cased letter/digit runs, digit groups joined, cut to `prefix` code points (0: whole). */
export function tokenize(text, prefix = 0) {
  const tokens = text.toLowerCase().replace(DIGIT_SEP, '').match(TOKEN) || [];
  if (!(prefix > 0)) return tokens;
  return tokens.map((t) => (t.length <= prefix ? t : Array.from(t).slice(0, prefix).join('')));
}

const cache = new WeakMap();

/**
 * Precompute what ranking needs from the sentences of one text (token postings, neighbours).
 * Cached per `sentences` array (and prefix): pass the same array again to reuse it.
 * @param {{index:number,text:string,vectors:Float32Array[]}[]} sentences
 */
export function prepareSentences(sentences, options) {
  const prefix = Number({ ...DEFAULT_OPTIONS, ...(options || {}) }.prefix);
  const hit = cache.get(sentences);
  if (hit && hit.prefix === prefix) return hit;
  const n = sentences.length;
  const postings = new Map();
  const where = new Map();
  sentences.forEach((s, p) => {
    where.set(s.index, p);
    for (const tok of new Set(tokenize(s.text, prefix))) {
      let list = postings.get(tok);
      if (!list) postings.set(tok, (list = []));
      list.push(p);
    }
  });
  // midpoint of each sentence as a share of the text, from cumulative code-point lengths (as rank.py)
  const lengths = sentences.map((s) => codePoints(s.text));
  const total = lengths.reduce((a, b) => a + b, 0);
  const mid = new Float64Array(n);
  let run = 0;
  for (let p = 0; p < n; p++) {
    run += lengths[p];
    mid[p] = total > 0 ? (run - lengths[p] / 2) / total : 0.5;
  }
  const prev = new Int32Array(n);
  const next = new Int32Array(n);
  sentences.forEach((s, p) => {
    prev[p] = where.has(s.index - 1) ? where.get(s.index - 1) : p;
    next[p] = where.has(s.index + 1) ? where.get(s.index + 1) : p;
  });
  const prep = { n, prefix, postings, prev, next, mid };
  cache.set(sentences, prep);
  return prep;
}

/** Length in code points (Python's len). */
function codePoints(text) {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0xdc00 || c > 0xdfff || i === 0 || text.charCodeAt(i - 1) < 0xd800 || text.charCodeAt(i - 1) > 0xdbff) n++;
  }
  return n;
}

// The last cosines per text, by vector: a selection's context vector is ranked twice (instant answer,
// then the model's), and the instant answer uses it as the query vector too. An entry is reused only
// while the sentences hold the same number of rows (their vectors may be attached after a ranking).
const cosCache = new WeakMap(); // sentences -> Map(vec -> {rows, values})

function maxCos(sentences, vec) {
  let rows = 0;
  for (const s of sentences) rows += s.vectors.length;
  let memo = cosCache.get(sentences);
  if (!memo) cosCache.set(sentences, (memo = new Map()));
  const hit = memo.get(vec);
  if (hit && hit.rows === rows) return hit.values;
  const out = computeMaxCos(sentences, vec);
  memo.delete(vec);
  memo.set(vec, { rows, values: out });
  if (memo.size > 2) memo.delete(memo.keys().next().value);
  return out;
}

function computeMaxCos(sentences, vec) {
  const out = new Float64Array(sentences.length);
  const dim = vec.length;
  for (let p = 0; p < sentences.length; p++) {
    let best = -Infinity;
    for (const row of sentences[p].vectors) {
      let dot = 0;
      for (let j = 0; j < dim; j++) dot += vec[j] * row[j];
      if (dot > best) best = dot;
    }
    out[p] = best === -Infinity ? 0 : best;
  }
  return out;
}

/** {values: idf-weighted coverage of the text's tokens per sentence, mass: the text's idf mass}. */
function lexical(prep, text) {
  const out = new Float64Array(prep.n);
  let total = 0;
  for (const tok of new Set(tokenize(text, prep.prefix))) {
    const hits = prep.postings.get(tok);
    const df = hits ? hits.length : 0;
    const idf = Math.log(1 + (prep.n - df + 0.5) / (df + 0.5));
    total += idf;
    if (hits) for (const p of hits) out[p] += idf;
  }
  if (total > 0) for (let p = 0; p < prep.n; p++) out[p] /= total;
  return { values: out, mass: total };
}

const damping = (mass, scale) => (scale > 0 ? Math.min(1, mass / scale) : 1);

/**
 * Rank the sentences of a text against a selection.
 * @param {{queryVec: Float32Array|null, queryText: string, contextVec?: Float32Array|null,
 *          contextText?: string|null, sentences: {index:number,text:string,vectors:Float32Array[]}[],
 *          queryPosition?: number|null, options?: object, k?: number}} args  contextVec/contextText:
 *          the sentence(s) around the selection (mean of their vectors, their text); queryPosition: the
 *          selection's midpoint as a share of its text's length (pass it only when neither text is
 *          sectioned); options: manifest.ranker.
 * @returns {{index:number, score:number}[]} sorted by score desc, ties by index asc, top k.
 */
export function rankSentences({
  queryVec, queryText, contextVec = null, contextText = null, queryPosition = null, sentences, options, k,
}) {
  const opt = { ...DEFAULT_OPTIONS, ...(options || {}) };
  const prep = prepareSentences(sentences, opt);
  const n = prep.n;
  const hasCtxVec = contextVec != null;
  const hasCtxText = !!contextText;
  const span = lexical(prep, queryText || '');
  const terms = [];
  if (queryVec) {
    terms.push([opt.w_dense * damping(span.mass, opt.dense_idf_mass) + (hasCtxVec ? 0 : opt.w_context),
      () => maxCos(sentences, queryVec)]);
    if (hasCtxVec) terms.push([opt.w_context, () => maxCos(sentences, contextVec)]);
  }
  terms.push([opt.w_lexical * damping(span.mass, opt.span_idf_mass) + (hasCtxText ? 0 : opt.w_context_lexical),
    () => span.values]);
  if (hasCtxText) terms.push([opt.w_context_lexical, () => lexical(prep, contextText).values]);
  const weight = terms.reduce((a, [w]) => (w > 0 ? a + w : a), 0);
  let base = new Float64Array(n);
  for (const [w, values] of terms) {
    if (!(w > 0)) continue;
    const v = values();
    for (let p = 0; p < n; p++) base[p] += (w / weight) * v[p];
  }
  const nb = opt.neighbor;
  if (nb > 0) {
    const smoothed = new Float64Array(n);
    for (let p = 0; p < n; p++) smoothed[p] = (1 - nb) * base[p] + nb * ((base[prep.prev[p]] + base[prep.next[p]]) / 2);
    base = smoothed;
  }
  const a = opt.position;
  if (queryPosition != null && a > 0) {
    for (let p = 0; p < n; p++) base[p] *= (1 - a) + a * (1 - Math.abs(queryPosition - prep.mid[p]));
  }
  const before = (a, b) => base[b] - base[a] || sentences[a].index - sentences[b].index;
  let top;
  if (k == null || k >= n) top = Array.from({ length: n }, (_, p) => p).sort(before);
  else {
    top = []; // the k best by insertion: no sort of the whole text for a top 5
    for (let p = 0; p < n; p++) {
      if (top.length === k && before(p, top[k - 1]) >= 0) continue;
      if (top.length === k) top.pop();
      let i = top.length;
      top.push(p);
      for (; i > 0 && before(top[i], top[i - 1]) < 0; i--) [top[i], top[i - 1]] = [top[i - 1], top[i]];
    }
  }
  return top.map((p) => ({ index: sentences[p].index, score: base[p] }));
}
