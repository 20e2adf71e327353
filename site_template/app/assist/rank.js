// The related-sentence ranker: JavaScript twin of mercury_static/assist/rank.py (same options, same numbers;
// the formula is documented there). Scores are absolute: compare them with options.min_score.

import { MARKER } from './citations.js';

// The options' defaults, generated from ranker_options.py (their types and ranges are there).
// [[[cog
// from mercury_static.assist.ranker_options import DEFAULT_OPTIONS
// from mercury_static.tools.twins import const
// cog.outl(const("DEFAULT_OPTIONS", DEFAULT_OPTIONS, freeze=True))
// ]]]
export const DEFAULT_OPTIONS = Object.freeze({
  algorithm: 'fused-v5',
  norm: 'minmax',
  w_dense: 0.25,
  w_context: 0.1,
  w_lexical: 0,
  w_context_lexical: 0,
  w_bm25: 0.25,
  w_context_bm25: 0.25,
  w_entity: 1,
  c_dense: 0.25,
  c_context: 0.1,
  c_lexical: 0.25,
  c_context_lexical: 0.4,
  c_bm25: 0,
  c_context_bm25: 0,
  c_entity: 0,
  bm25_k1: 1.2,
  bm25_b: 0.75,
  span_idf_mass: 20,
  dense_idf_mass: 4,
  neighbor: 0.4,
  position: 0.2,
  prefix: 5,
  selection: 'blend',
  min_score: 0.2,
  grades: Object.freeze([0.25, 0.5]),
  calibration: Object.freeze([
    Object.freeze([10, 4.8303, 3.8049, -4.7302]),
    Object.freeze([300, 4.6588, 5.2063, -6.6721]),
    Object.freeze([1_000_000, 8.9016, 0.399, -1.0597]),
  ]),
});
// [[[end]]]

const DIGIT_SEP = /(?<=\d)[,.](?=\d)/g;
const TOKEN = /[\p{L}\p{N}]+/gu;

/** Lower-cased letter/digit runs, digit groups joined, cut to `prefix` code points (0: whole). */
export function tokenize(text, prefix = 0) {
  const tokens = text.toLowerCase().replace(DIGIT_SEP, '').match(TOKEN) || [];
  return prefix > 0 ? cut(tokens, prefix) : tokens;
}

const TOKEN_CASED = /[\p{L}\p{N}]+/gu;
const DIGIT = /\p{Nd}/u;

/** Numbers and the two words after each (units, scales, a date's month), whole lower-cased; citation
 * markers left out (rank.py). */
export function keyTokens(text) {
  const out = [];
  let afterNumber = 0;
  for (const raw of text.replace(MARKER, ' ').replace(DIGIT_SEP, '').match(TOKEN_CASED) || []) {
    const hasDigit = DIGIT.test(raw);
    if (hasDigit || afterNumber > 0) out.push(...tokenize(raw));
    afterNumber = hasDigit ? 2 : afterNumber - 1;
  }
  return [...new Set(out)];
}

/** token -> {pos: sentence positions, tf: counts}, and tokens per sentence. */
function buildPostings(tokenLists) {
  const map = new Map();
  const lengths = new Float64Array(tokenLists.length);
  let sum = 0;
  tokenLists.forEach((toks, p) => {
    lengths[p] = toks.length;
    sum += toks.length;
    for (const t of toks) {
      let e = map.get(t);
      if (!e) map.set(t, (e = { pos: [], tf: [] }));
      const last = e.pos.length - 1;
      if (last >= 0 && e.pos[last] === p) e.tf[last]++;
      else { e.pos.push(p); e.tf.push(1); }
    }
  });
  return { map, lengths, avg: lengths.length ? sum / lengths.length : 0 };
}

/** `tokenize(text, prefix)` from the whole tokens. */
const cut = (toks, prefix) => toks.map((t) => (t.length <= prefix ? t : Array.from(t).slice(0, prefix).join('')));

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
  const where = new Map();
  sentences.forEach((s, p) => where.set(s.index, p));
  const wholeTokens = sentences.map((s) => tokenize(s.text));
  const whole = buildPostings(wholeTokens);
  const tokens = prefix > 0 ? buildPostings(wholeTokens.map((t) => cut(t, prefix))) : whole;
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
  const prep = { n, prefix, tokens, whole, prev, next, mid };
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

/** Per sentence, the best dot product of its rows with `vec` (four partial sums: V8 runs them faster). */
function computeMaxCos(sentences, vec) {
  const out = new Float64Array(sentences.length);
  const dim = vec.length;
  for (let p = 0; p < sentences.length; p++) {
    let best = -Infinity;
    for (const row of sentences[p].vectors) {
      let d0 = 0;
      let d1 = 0;
      let d2 = 0;
      let d3 = 0;
      let j = 0;
      for (; j + 3 < dim; j += 4) {
        d0 += vec[j] * row[j];
        d1 += vec[j + 1] * row[j + 1];
        d2 += vec[j + 2] * row[j + 2];
        d3 += vec[j + 3] * row[j + 3];
      }
      let dot = d0 + d1 + (d2 + d3);
      for (; j < dim; j++) dot += vec[j] * row[j];
      if (dot > best) best = dot;
    }
    out[p] = best === -Infinity ? 0 : best;
  }
  return out;
}

const idf = (n, df) => Math.log(1 + (n - df + 0.5) / (df + 0.5));

/** {values: idf-weighted share of the distinct tokens found per sentence, mass: their idf sum}. */
function coverage(post, toks, n) {
  const out = new Float64Array(n);
  let total = 0;
  for (const tok of new Set(toks)) {
    const e = post.map.get(tok);
    const w = idf(n, e ? e.pos.length : 0);
    total += w;
    if (e) for (const p of e.pos) out[p] += w;
  }
  if (total > 0) for (let p = 0; p < n; p++) out[p] /= total;
  return { values: out, mass: total };
}

/** BM25 of the distinct tokens per sentence over its bound sum(idf * (k1 + 1)): in [0, 1). */
function bm25(post, toks, n, k1, b) {
  const out = new Float64Array(n);
  let total = 0;
  for (const tok of new Set(toks)) {
    const e = post.map.get(tok);
    const w = idf(n, e ? e.pos.length : 0);
    total += w * (k1 + 1);
    if (!e) continue;
    for (let j = 0; j < e.pos.length; j++) {
      const p = e.pos[j];
      const tf = e.tf[j];
      const norm = post.avg > 0 ? k1 * (1 - b + (b * post.lengths[p]) / post.avg) : k1;
      out[p] += (w * tf * (k1 + 1)) / (tf + norm);
    }
  }
  if (total > 0) for (let p = 0; p < n; p++) out[p] /= total;
  return out;
}

// The text-only terms of the last query per prepared text: the instant answer and the model's answer
// rank the same selection (same text, same context) with another vector, so these are computed once.
const lexCache = new WeakMap(); // prep -> {key, span, keys, get(term)}

/** The lexical terms of a query over a prepared text, each computed when first asked (and kept). */
function lexicalTerms(prep, queryText, contextText, k1, b) {
  const key = `${k1}\u0000${b}\u0000${queryText}\u0000${contextText}`;
  const hit = lexCache.get(prep);
  if (hit && hit.key === key) return hit;
  const n = prep.n;
  const qtoks = tokenize(queryText, prep.prefix);
  const ctoks = contextText ? tokenize(contextText, prep.prefix) : [];
  const keys = keyTokens(queryText);
  const make = {
    context_lexical: () => coverage(prep.tokens, ctoks, n).values, bm25: () => bm25(prep.tokens, qtoks, n, k1, b),
    context_bm25: () => bm25(prep.tokens, ctoks, n, k1, b), entity: () => coverage(prep.whole, keys, n).values,
  };
  const values = new Map();
  const lex = {
    key, span: coverage(prep.tokens, qtoks, n), keys,
    get: (term) => {
      if (!values.has(term)) values.set(term, make[term]());
      return values.get(term);
    },
  };
  lexCache.set(prep, lex);
  return lex;
}

const damping = (mass, scale) => (scale > 0 ? Math.min(1, mass / scale) : 1);

/** Per-query normalisation of one term over the text as [offset, scale]: z = (v - offset) / scale, or
 * null for a constant term (z = 0), as rank.py's _normalise. */
function normaliser(values, norm) {
  const n = values.length;
  if (norm === 'minmax') {
    let lo = Infinity, hi = -Infinity;
    for (let p = 0; p < n; p++) { if (values[p] < lo) lo = values[p]; if (values[p] > hi) hi = values[p]; }
    return hi > lo ? [lo, hi - lo] : null;
  }
  if (norm !== 'zscore') throw new Error(`ranker option 'norm': ${norm} is not one of none, minmax, zscore`);
  let mean = 0;
  for (let p = 0; p < n; p++) mean += values[p];
  mean /= n;
  let sq = 0;
  for (let p = 0; p < n; p++) sq += (values[p] - mean) ** 2;
  const sd = Math.sqrt(sq / n);
  return sd > 0 ? [mean, sd] : null;
}

/** Neighbour smoothing, then the position factor (rank.py's finish). */
function finish(base, prep, opt, queryPosition) {
  const n = prep.n;
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
  return base;
}

// The terms of the score, in rank.py's order.
// [[[cog
// from mercury_static.assist.rank import TERMS
// from mercury_static.tools.twins import const
// cog.outl(const("TERMS", TERMS, export=False))
// ]]]
const TERMS = ['dense', 'context', 'lexical', 'context_lexical', 'bm25', 'context_bm25', 'entity'];
// [[[end]]]

/** The weight of each available term from the options `${p}<term>` (fallbacks and damping, as rank.py). */
function termWeights(opt, p, mass, hasVec, hasCtxVec, hasCtxText, hasKeys) {
  const dSpan = damping(mass, opt.span_idf_mass);
  const w = {};
  if (hasVec) {
    w.dense = opt[`${p}dense`] * damping(mass, opt.dense_idf_mass) + (hasCtxVec ? 0 : opt[`${p}context`]);
    if (hasCtxVec) w.context = opt[`${p}context`];
  }
  w.lexical = opt[`${p}lexical`] * dSpan + (hasCtxText ? 0 : opt[`${p}context_lexical`]);
  w.bm25 = opt[`${p}bm25`] * dSpan + (hasCtxText ? 0 : opt[`${p}context_bm25`]);
  if (hasCtxText) {
    w.context_lexical = opt[`${p}context_lexical`];
    w.context_bm25 = opt[`${p}context_bm25`];
  }
  // the weight damping took from a short span's lexical terms: exact numbers speak for it instead
  if (hasKeys) w.entity = opt[`${p}entity`] * (opt.span_idf_mass > 0 ? 1 - dSpan : 1);
  return w;
}

/** [term, its weight per set] of the terms a ranking uses, in rank.py's TERMS order. */
function usedTerms(opt, normalised, mass, hasVec, hasCtxVec, hasCtxText, hasKeys) {
  const sets = (normalised ? ['w_', 'c_'] : ['w_']).map((p) => termWeights(opt, p, mass, hasVec, hasCtxVec,
    hasCtxText, hasKeys));
  return TERMS.map((name) => [name, sets.map((w) => w[name] || 0)]).filter(([, ws]) => ws.some((x) => x > 0));
}

/**
 * Compute ahead what rankSentences of this selection will need that does not depend on its vector: the
 * lexical terms and the context vector's cosines (both kept for the next ranking of the same query text,
 * context and sentences). The page calls it while the model embeds the span, so that the model's answer
 * is ranked with one cosine pass and the fusion; the numbers are the same.
 */
export function prepareQuery({ queryText, contextVec = null, contextText = null, sentences, options }) {
  const opt = { ...DEFAULT_OPTIONS, ...(options || {}) };
  const prep = prepareSentences(sentences, opt);
  const hasCtxText = !!contextText;
  const lex = lexicalTerms(prep, queryText || '', hasCtxText ? contextText : '', Number(opt.bm25_k1), Number(opt.bm25_b));
  const used = usedTerms(opt, opt.norm !== 'none' && prep.n > 0, lex.span.mass, true, contextVec != null, hasCtxText,
    lex.keys.length > 0);
  for (const [name] of used) {
    if (name === 'context') maxCos(sentences, contextVec);
    else if (name !== 'dense' && name !== 'lexical') lex.get(name);
  }
}

/** Weighted mean of the terms under weight set `which` (each normalised per query if `norm`). */
function weighted(terms, which, n, norm) {
  let weight = 0;
  for (const [ws] of terms) if (ws[which] > 0) weight += ws[which];
  const out = new Float64Array(n);
  for (const [ws, values] of terms) {
    if (!(ws[which] > 0)) continue;
    const w = ws[which] / weight;
    if (!norm) for (let p = 0; p < n; p++) out[p] += w * values[p];
    else {
      const z = normaliser(values, norm);
      if (z) for (let p = 0; p < n; p++) out[p] += w * ((values[p] - z[0]) / z[1]);
    }
  }
  return out;
}

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
  const k1 = Number(opt.bm25_k1), b = Number(opt.bm25_b);
  const lex = lexicalTerms(prep, queryText || '', hasCtxText ? contextText : '', k1, b);
  const { span, keys } = lex;
  const compute = {
    dense: () => maxCos(sentences, queryVec), context: () => maxCos(sentences, contextVec),
    lexical: () => span.values, context_lexical: () => lex.get('context_lexical'), bm25: () => lex.get('bm25'),
    context_bm25: () => lex.get('context_bm25'), entity: () => lex.get('entity'),
  };
  const normalised = opt.norm !== 'none' && n > 0;
  const terms = usedTerms(opt, normalised, span.mass, !!queryVec, hasCtxVec, hasCtxText, keys.length > 0)
    .map(([name, ws]) => [ws, compute[name]()]); // [weights per set, values] in rank.py's TERMS order
  let base;
  if (!normalised) base = finish(weighted(terms, 0, n, null), prep, opt, queryPosition);
  else {
    const confidence = finish(weighted(terms, 1, n, null), prep, opt, queryPosition);
    const fused = finish(weighted(terms, 0, n, opt.norm), prep, opt, queryPosition);
    let lo = Infinity, hi = -Infinity, top = -Infinity;
    for (let p = 0; p < n; p++) {
      if (fused[p] < lo) lo = fused[p];
      if (fused[p] > hi) hi = fused[p];
      if (confidence[p] > top) top = confidence[p];
    }
    base = new Float64Array(n);
    for (let p = 0; p < n; p++) base[p] = top * (hi > lo ? (fused[p] - lo) / (hi - lo) : 1);
  }
  const before = (a, b) => base[b] - base[a] || sentences[a].index - sentences[b].index;
  return topK(n, k, before).map((p) => ({ index: sentences[p].index, score: base[p] }));
}

/** Positions 0..n-1 in `before` order, the first k of them (all when k is null). */
function topK(n, k, before) {
  if (k == null || k >= n) return Array.from({ length: n }, (_, p) => p).sort(before);
  const top = []; // the k best by insertion: no sort of the whole text for a top 5
  for (let p = 0; p < n; p++) {
    if (top.length === k && before(p, top[k - 1]) >= 0) continue;
    if (top.length === k) top.pop();
    let i = top.length;
    top.push(p);
    for (; i > 0 && before(top[i], top[i - 1]) < 0; i--) [top[i], top[i - 1]] = [top[i - 1], top[i]];
  }
  return top;
}

/**
 * The grade probability of a sentence scoring `score` in a ranking of `nSentences` sentences whose best
 * score is `best`: rank.py grade_probability (the calibration table's formula is documented there).
 */
export function gradeProbability(score, best, nSentences, options) {
  const table = (options && options.calibration) || DEFAULT_OPTIONS.calibration;
  if (!table.length) return score;
  const row = table.find((r) => nSentences <= r[0]) || table[table.length - 1];
  const share = best > 0 ? score / best : 0;
  return 1 / (1 + Math.exp(-(row[1] * score + row[2] * share + row[3])));
}
