/**
 * A selection's vector from its tokens in context: the twin of mercury_static/assist/tokens.py.
 *
 * Every embedding row of a text (a sentence, or a window of a long one) is run once by the worker and the
 * contextual vectors of its tokens kept with the span of each token's word; a selection's vector is then the
 * unit-length sum of the vectors of the tokens whose word it overlaps, in the rows of the sentences it
 * touches: no model call per selection. The tokenizer of the page has no offsets, so a row is tokenized word
 * by word (BERT's pre-tokenizer words: runs of letters and digits, each punctuation mark and CJK ideograph
 * alone), and a row whose words do not give the tokens of the whole row is left without token vectors.
 */

const WHITE = /[\t\n\v\f\r \u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]/u;
const PUNCT = /[\p{P}\u0021-\u002F\u003A-\u0040\u005B-\u0060\u007B-\u007E]/u;

/** BERT's "Chinese character" ranges: each such code point is a word of its own. */
function isCjk(cp) {
  return (cp >= 0x4e00 && cp <= 0x9fff) || (cp >= 0x3400 && cp <= 0x4dbf) || (cp >= 0x20000 && cp <= 0x2a6df)
    || (cp >= 0x2a700 && cp <= 0x2b73f) || (cp >= 0x2b740 && cp <= 0x2b81f) || (cp >= 0x2b820 && cp <= 0x2ceaf)
    || (cp >= 0xf900 && cp <= 0xfaff) || (cp >= 0x2f800 && cp <= 0x2fa1f);
}

/** The pre-tokenizer words of `text`: [{start, end, text}], offsets in code points of `text`. */
export function words(text) {
  const out = [];
  let cp = 0;
  let run = null;
  const close = () => {
    if (run) out.push(run);
    run = null;
  };
  for (const ch of text) {
    if (WHITE.test(ch)) close();
    else if (PUNCT.test(ch) || isCjk(ch.codePointAt(0))) {
      close();
      out.push({ start: cp, end: cp + 1, text: ch });
    } else if (run) {
      run.end = cp + 1;
      run.text += ch;
    } else run = { start: cp, end: cp + 1, text: ch };
    cp += 1;
  }
  close();
  return out;
}

/**
 * The word span of each token of `text` (Int32Array [start0, end0, start1, ...], code points, shifted by
 * `shift`), from `tokenize(word) -> pieces`; null when the words' pieces are not `pieces`, the tokens of the
 * whole text (an unusual character the word split reads otherwise than the tokenizer).
 */
export function tokenSpans(text, pieces, tokenize, shift = 0) {
  const spans = new Int32Array(pieces.length * 2);
  let t = 0;
  for (const w of words(text)) {
    for (const piece of tokenize(w.text)) {
      if (t >= pieces.length || pieces[t] !== piece) return null;
      spans[2 * t] = w.start + shift;
      spans[2 * t + 1] = w.end + shift;
      t += 1;
    }
  }
  return t === pieces.length ? spans : null;
}

/**
 * Unit-length sum (Float32Array) of the vectors of the tokens whose word overlaps [start, end) in `rows`
 * ([{start, end, spans, vectors}], the token rows of the sentences the selection touches); a zero-width
 * selection touches the word around it. Null when a row is missing or no token overlaps. Summed in float64.
 */
export function selectionVector(rows, start, end) {
  end = Math.max(end, start + 1);
  let total = null;
  for (const row of rows) {
    if (!row) return null;
    if (row.start >= end || start >= row.end) continue;
    const { spans, vectors } = row;
    const n = spans.length / 2;
    const dim = n ? vectors.length / n : 0;
    for (let t = 0; t < n; t++) {
      if (spans[2 * t] < end && start < spans[2 * t + 1]) {
        if (!total) total = new Float64Array(dim);
        const base = t * dim;
        for (let j = 0; j < dim; j++) total[j] += vectors[base + j];
      }
    }
  }
  return total ? unit(total) : null;
}

/** The normalised mean of two unit vectors (either alone when the other is missing). */
export function blend(a, b) {
  if (!a || !b) return a || b || null;
  const total = new Float64Array(a.length);
  for (let j = 0; j < a.length; j++) total[j] = a[j] + b[j];
  return unit(total);
}

function unit(total) {
  let norm = 0;
  for (let j = 0; j < total.length; j++) norm += total[j] * total[j];
  norm = Math.sqrt(norm);
  if (!(norm > 0)) return null;
  const out = new Float32Array(total.length);
  for (let j = 0; j < total.length; j++) out[j] = total[j] / norm;
  return out;
}
