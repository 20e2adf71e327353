/**
 * "Similar records" (issue 13, Argilla's vectors): the 10 records whose record vector (the normalised
 * mean of the summary's sentence vectors, `data/record_vectors.bin`, float16 in bundle order) has the
 * highest cosine with the open record's. The file is fetched on first use only (the card opened), kept
 * as its float16 bytes (2 bytes a value, 7.7 MB at 10,000 records) and scanned in the main thread: the
 * scan decodes through the float16 table as it goes (measured: benchmarks/RESULTS.md, "similar records").
 */
import { halfTable } from './data.js';
import { watch } from './store.js';
import { h } from './util.js';

/**
 * Indices and cosines of the `k` rows most similar to row `i` (itself left out), best first; equal
 * scores in bundle order. `halves` = the float16 bit patterns, `dim` values a row.
 */
export function topSimilar(halves, dim, i, k = 10) {
  const table = halfTable();
  const n = Math.floor(halves.length / dim);
  const q = new Float64Array(dim);
  for (let d = 0; d < dim; d++) q[d] = table[halves[i * dim + d]];
  const best = []; // [score, index], sorted best first, at most k
  for (let r = 0; r < n; r++) {
    if (r === i) continue;
    let dot = 0;
    const o = r * dim;
    for (let d = 0; d < dim; d++) dot += q[d] * table[halves[o + d]];
    if (best.length === k && dot <= best[k - 1][0]) continue;
    let at = best.length;
    while (at > 0 && best[at - 1][0] < dot) at -= 1;
    best.splice(at, 0, [dot, r]);
    if (best.length > k) best.pop();
  }
  return best.map(([score, index]) => ({ index, score }));
}

/** The record vectors of a bundle, fetched once on first call: {halves, dim}. */
function loader(bundle) {
  let p = null;
  return () => {
    if (!p) {
      const rv = bundle.manifest.record_vectors;
      p = fetch(bundle.url(rv.path || 'data/record_vectors.bin')).then(async (res) => {
        if (!res.ok) throw new Error(`${rv.path}: HTTP ${res.status}`);
        const buf = await res.arrayBuffer();
        if (buf.byteLength !== 2 * rv.dim * bundle.ids.length) throw new Error(`${rv.path}: ${buf.byteLength} bytes, not ${bundle.ids.length} rows of ${rv.dim}`);
        return { halves: new Uint16Array(buf), dim: rv.dim };
      });
      p.catch(() => { p = null; }); // a failed fetch is tried again on the next use
    }
    return p;
  };
}

/**
 * The "Similar records" card in the side panel (closed: nothing fetched until it is opened); each row
 * opens its record through `onPick(id)` (main.js: the draft rules of any navigation apply).
 */
export function mountSimilar(store, bundle, box, onPick) {
  const load = loader(bundle);
  const list = h('ol', { class: 'similar-list', id: 'similar-list' });
  const note = h('p', { class: 'muted similar-note' });
  const details = h('details', { id: 'similar' }, h('summary', {}, 'Similar records'), note, list);
  box.replaceChildren(details);
  let shownFor = null;
  const draw = async () => {
    const { index, id } = store.state.current;
    if (!details.open || index < 0 || shownFor === id) return;
    shownFor = id;
    note.textContent = 'loading…';
    let vectors;
    try {
      vectors = await load();
    } catch (err) {
      shownFor = null;
      note.textContent = `Similar records are unavailable: ${err.message}`;
      return;
    }
    if (store.state.current.id !== id) return; // another record opened meanwhile: it draws itself
    const t0 = performance.now();
    const top = topSimilar(vectors.halves, vectors.dim, index, 10);
    details.dataset.ms = (performance.now() - t0).toFixed(1);
    note.textContent = top.length ? '' : 'No other record.';
    list.replaceChildren(...top.map(({ index: j, score }) => {
      const b = h('button', { type: 'button', class: 'link', 'data-record': bundle.ids[j] }, bundle.titles[j] || bundle.ids[j]);
      b.addEventListener('click', () => onPick(bundle.ids[j]));
      return h('li', { 'data-record': bundle.ids[j] }, b, h('span', { class: 'muted similar-score' }, ` ${score.toFixed(2)}`));
    }));
    list.dataset.for = id;
  };
  details.addEventListener('toggle', draw);
  watch(store, (s) => [s.current.id], draw);
}
