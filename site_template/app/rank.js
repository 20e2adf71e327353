// Related-sentence ranker (JavaScript twin of mercury_static/rank.py).
// Plain cosine version: score = max over the sentence's embedding rows of dot(queryVec, row).

function dot(a, b) {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

/**
 * Rank the sentences of a text against a query.
 * @param {{queryVec: Float32Array|null, queryText: string, sentences: {index:number,text:string,vectors:Float32Array[]}[],
 *          options?: object, k?: number}} args
 * @returns {{index:number, score:number}[]} sorted by score desc, ties by index asc, top k.
 */
export function rankSentences({ queryVec, queryText, sentences, options, k }) {
  const out = [];
  for (const s of sentences) {
    let best = 0;
    if (queryVec && s.vectors && s.vectors.length) {
      best = -Infinity;
      for (const v of s.vectors) best = Math.max(best, dot(queryVec, v));
    }
    out.push({ index: s.index, score: best });
  }
  out.sort((a, b) => b.score - a.score || a.index - b.index);
  return k == null ? out : out.slice(0, k);
}
