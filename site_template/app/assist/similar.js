/**
 * "Similar records" (as Argilla's vectors): the 10 records whose record vector (the normalised
 * mean of the summary's sentence vectors, float16) has the highest cosine with the open record's.
 *
 * The vectors are read by k-means cells (written by mercury_static/bundle/record_cells.py, layout in
 * docs/DESIGN.md "Similar records at scale"): the open record's cell (`of-NNNN.bin` names it), the
 * centroids, then the `nprobe` cells nearest to the record's vector, scanned in the main thread. Up to
 * `cell_records` records (1,000) a bundle is one cell: every vector, the exact answer. Nothing is fetched
 * until the card is opened; cells are kept LRU. Everything is by position (the list shows the rows
 * through the record index).
 */
import { halfTable } from '../data/data.js';
import { Lru } from '../data/recordindex.js';
import { watch } from '../state/store.js';
import { h } from '../util.js';

const pad4 = (n) => String(n).padStart(4, '0');
const CELL_CACHE = 24; // a few queries' cells

/** A cell file: uint32 count m, m ascending uint32 positions, their m float16 vectors (little-endian). */
export function decodeCell(buf, dim, name = 'cell') {
  const m = buf.byteLength >= 4 ? new DataView(buf).getUint32(0, true) : -1;
  if (m < 0 || buf.byteLength !== 4 + 4 * m + 2 * dim * m) {
    throw new Error(`${name}: ${buf.byteLength} bytes, not a cell of ${dim}-dimension vectors`);
  }
  return { positions: new Uint32Array(buf, 4, m), halves: new Uint16Array(buf, 4 + 4 * m, m * dim) };
}

/** The float64 vector of position `pos` in `cell` (its positions are ascending), or null. */
export function vectorIn(cell, dim, pos) {
  let lo = 0;
  let hi = cell.positions.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cell.positions[mid] < pos) lo = mid + 1;
    else hi = mid;
  }
  if (cell.positions[lo] !== pos) return null;
  const table = halfTable();
  const q = new Float64Array(dim);
  for (let d = 0; d < dim; d++) q[d] = table[cell.halves[lo * dim + d]];
  return q;
}

/** The `nprobe` cells whose centroid (float16 rows) has the highest dot product with `q`, best first. */
export function nearestCells(centroids, dim, q, nprobe) {
  const table = halfTable();
  const n = Math.floor(centroids.length / dim);
  const scores = [];
  for (let c = 0; c < n; c++) {
    let dot = 0;
    for (let d = 0; d < dim; d++) dot += q[d] * table[centroids[c * dim + d]];
    scores.push([dot, c]);
  }
  scores.sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  return scores.slice(0, nprobe).map(([, c]) => c);
}

/**
 * Positions and cosines of the `k` rows of `cells` most similar to `q`, position `self` left out, best
 * first; equal scores in bundle order (whatever the order of the cells).
 */
export function topSimilar(cells, dim, q, self, k = 10) {
  const table = halfTable();
  const best = []; // [score, position], best first, at most k
  const before = (s, p, t) => s > t[0] || (s === t[0] && p < t[1]);
  for (const { positions, halves } of cells) {
    for (let r = 0; r < positions.length; r++) {
      const p = positions[r];
      if (p === self) continue;
      let dot = 0;
      const o = r * dim;
      for (let d = 0; d < dim; d++) dot += q[d] * table[halves[o + d]];
      if (best.length === k && !before(dot, p, best[k - 1])) continue;
      let at = best.length;
      while (at > 0 && before(dot, p, best[at - 1])) at -= 1;
      best.splice(at, 0, [dot, p]);
      if (best.length > k) best.pop();
    }
  }
  return best.map(([score, index]) => ({ index, score }));
}

/** The cells of a bundle (`record_vectors` of its manifest), read through `fetchBytes(path)`. */
export class SimilarIndex {
  constructor(recordVectors, fetchBytes) {
    const cells = recordVectors.cells;
    this.dim = recordVectors.dim;
    this.count = cells.count;
    this.ofSize = cells.of_size;
    this.nprobe = cells.nprobe;
    this.path = cells.path;
    this._fetch = fetchBytes;
    this._cache = new Lru(CELL_CACHE);
    this._centroids = null;
  }

  _once(key, make) {
    let p = this._cache.get(key);
    if (!p) {
      p = make();
      p.catch(() => {
        if (this._cache.get(key) === p) this._cache.delete(key); // a failed fetch is tried again
      });
      this._cache.set(key, p);
    }
    return p;
  }

  cell(c) {
    const name = `${this.path}/cell-${pad4(c)}.bin`;
    return this._once(`cell ${c}`, async () => decodeCell(await this._fetch(name), this.dim, name));
  }

  async cellOf(pos) {
    if (this.count === 1) return 0;
    const n = Math.floor(pos / this.ofSize);
    const of = await this._once(`of ${n}`, async () => new Uint32Array(await this._fetch(`${this.path}/of-${pad4(n)}.bin`)));
    return of[pos - n * this.ofSize];
  }

  centroids() {
    if (!this._centroids) {
      this._centroids = this._fetch(`${this.path}/centroids.bin`).then((buf) => new Uint16Array(buf));
      this._centroids.catch(() => { this._centroids = null; });
    }
    return this._centroids;
  }

  /** The `k` records most similar to position `pos`: [{index (a position), score}], best first. */
  async query(pos, k = 10) {
    const own = await this.cellOf(pos);
    const home = await this.cell(own);
    const q = vectorIn(home, this.dim, pos);
    if (!q) throw new Error(`${this.path}: record ${pos} is not in its cell ${own}`);
    let probe = [own];
    if (this.count > 1) {
      const near = nearestCells(await this.centroids(), this.dim, q, this.nprobe);
      probe = [own, ...near.filter((c) => c !== own)].slice(0, Math.max(1, this.nprobe));
    }
    const cells = await Promise.all(probe.map((c) => this.cell(c)));
    return topSimilar(cells, this.dim, q, pos, k);
  }
}

/** The bytes of a bundle file, or an error naming it. */
function bytesOf(bundle) {
  return async (path) => {
    const res = await fetch(bundle.url(path));
    if (!res.ok) throw new Error(`${path}: HTTP ${res.status}`);
    return res.arrayBuffer();
  };
}

/**
 * The "Similar records" card in the side panel (closed: nothing fetched until it is opened); each row
 * opens its record through `onPick(id)` (views/mount.js: the draft rules of any navigation apply).
 */
export function mountSimilar(store, bundle, box, onPick) {
  const similar = new SimilarIndex(bundle.manifest.record_vectors, bytesOf(bundle));
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
    let top;
    let rows;
    const t0 = performance.now();
    try {
      top = await similar.query(index, 10);
      rows = await Promise.all(top.map(({ index: j }) => bundle.recordIndex.rowAt(j)));
    } catch (err) {
      shownFor = null;
      note.textContent = `Similar records are unavailable: ${err.message}`;
      return;
    }
    if (store.state.current.id !== id) return; // another record opened meanwhile: it draws itself
    details.dataset.ms = (performance.now() - t0).toFixed(1);
    note.textContent = top.length ? '' : 'No other record.';
    list.replaceChildren(...top.map(({ score }, k) => {
      const row = rows[k];
      const b = h('button', { type: 'button', class: 'link', 'data-record': row.id }, row.title || row.id);
      b.addEventListener('click', () => onPick(row.id));
      return h('li', { 'data-record': row.id }, b, h('span', { class: 'muted similar-score' }, ` ${score.toFixed(2)}`));
    }));
    list.dataset.for = id;
  };
  details.addEventListener('toggle', draw);
  watch(store, (s) => [s.current.id], draw);
}
