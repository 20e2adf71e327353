// The related-sentence ranker: JavaScript twin of mercury_static/rank.py (same options, same numbers;
// the formula is documented there). Scores are absolute: compare them with options.min_score.

export const DEFAULT_OPTIONS = Object.freeze({
  algorithm: "fused-v1",
  w_dense: 0.7,
  w_context: 0.0,
  w_lexical: 0.3,
  neighbor: 0.0,
  min_score: 0.3,
});

const DIGIT_SEP = /(?<=\d)[,.](?=\d)/g;
const TOKEN = /[\p{L}\p{N}]+/gu;

/** Lower-cased letter/digit runs, digit groups joined ("1,025" -> "1025"). */
export function tokenize(text) {
  return text.toLowerCase().replace(DIGIT_SEP, "").match(TOKEN) || [];
}

const prepared = new WeakMap();

/**
 * Precompute what ranking needs from the sentences of one text (cached per sentences array).
 * @param {{index:number,text:string,vectors:Float32Array[]}[]} sentences
 */
export function prepareSentences(sentences) {
  let prep = prepared.get(sentences);
  if (prep) return prep;
  const n = sentences.length;
  const postings = new Map();
  const where = new Map();
  sentences.forEach((s, p) => {
    where.set(s.index, p);
    for (const tok of new Set(tokenize(s.text))) {
      let list = postings.get(tok);
      if (!list) postings.set(tok, (list = []));
      list.push(p);
    }
  });
  const prev = new Int32Array(n);
  const next = new Int32Array(n);
  sentences.forEach((s, p) => {
    prev[p] = where.has(s.index - 1) ? where.get(s.index - 1) : -1;
    next[p] = where.has(s.index + 1) ? where.get(s.index + 1) : -1;
  });
  prep = { n, postings, prev, next };
  prepared.set(sentences, prep);
  return prep;
}

function maxCos(sentences, vec) {
  const out = new Float64Array(sentences.length);
  const dim = vec.length;
  sentences.forEach((s, p) => {
    let best = -Infinity;
    for (const row of s.vectors) {
      let dot = 0;
      for (let j = 0; j < dim; j++) dot += vec[j] * row[j];
      if (dot > best) best = dot;
    }
    out[p] = best === -Infinity ? 0 : best;
  });
  return out;
}

function lexical(prep, text) {
  const out = new Float64Array(prep.n);
  let total = 0;
  for (const tok of new Set(tokenize(text))) {
    const hits = prep.postings.get(tok);
    const df = hits ? hits.length : 0;
    const idf = Math.log(1 + (prep.n - df + 0.5) / (df + 0.5));
    total += idf;
    if (hits) for (const p of hits) out[p] += idf;
  }
  if (total > 0) for (let p = 0; p < prep.n; p++) out[p] /= total;
  return out;
}

/**
 * Rank the sentences of a text against a query.
 * @param {{queryVec: Float32Array|null, queryText: string, contextVec?: Float32Array|null,
 *          sentences: {index:number,text:string,vectors:Float32Array[]}[], options?: object, k?: number}} args
 * @returns {{index:number, score:number}[]} sorted by score desc, ties by index asc, top k.
 */
export function rankSentences({ queryVec, queryText, contextVec = null, sentences, options, k }) {
  const opt = { ...DEFAULT_OPTIONS, ...(options || {}) };
  const prep = prepareSentences(sentences);
  const n = prep.n;
  const terms = [];
  if (queryVec) {
    const wDense = opt.w_dense + (contextVec ? 0 : opt.w_context);
    terms.push([wDense, maxCos(sentences, queryVec)]);
    if (contextVec && opt.w_context > 0) terms.push([opt.w_context, maxCos(sentences, contextVec)]);
  }
  if (opt.w_lexical > 0 || !queryVec) terms.push([queryVec ? opt.w_lexical : 1, lexical(prep, queryText || "")]);
  const weight = terms.reduce((a, [w]) => a + w, 0);
  let base = new Float64Array(n);
  for (const [w, values] of terms) {
    if (w > 0) for (let p = 0; p < n; p++) base[p] += (w / weight) * values[p];
  }
  if (opt.neighbor > 0) {
    const smoothed = new Float64Array(n);
    for (let p = 0; p < n; p++) {
      const a = prep.prev[p] >= 0 ? base[prep.prev[p]] : -Infinity;
      const b = prep.next[p] >= 0 ? base[prep.next[p]] : -Infinity;
      smoothed[p] = base[p] + opt.neighbor * Math.max(0, Math.max(a, b) - base[p]);
    }
    base = smoothed;
  }
  const out = sentences.map((s, p) => ({ index: s.index, score: base[p] }));
  out.sort((a, b) => b.score - a.score || a.index - b.index);
  return k == null ? out : out.slice(0, k);
}
