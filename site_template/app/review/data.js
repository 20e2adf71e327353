/**
 * The review data of a review bundle (docs/review.md): `data/review.json` (the header), the order shards
 * (rows, most contested first) and the records shards (each record's annotators' work, in that order).
 * The first contested record needs the header, order shard 0 and records shard 0 only; the other order
 * shards load in the background for the filters and the list.
 */
import { Lru } from '../data/recordindex.js';
import { REVIEW_DATA } from '../data/formats.js';

export const { name: REVIEW_DATA_FORMAT, reads: REVIEW_DATA_READS } = REVIEW_DATA;
const pad4 = (n) => String(n).padStart(4, '0');

async function fetchJson(url) {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
  return res.json();
}

export class ReviewData {
  constructor(bundle, header) {
    this.bundle = bundle;
    this.header = header;
    this.count = header.counts.records;
    this.annotators = header.annotators;
    this.questions = header.questions || [];
    this.perShard = header.rows_per_shard;
    this.rows = new Array(this.count).fill(null);
    this._order = new Map();
    this._records = new Lru(4);
  }

  /** Open the header of `bundle` (manifest.review names it); refuses another format, version or bundle. */
  static async open(bundle) {
    const m = bundle.manifest;
    const where = m.review.path || 'data/review.json';
    // the first order and records shards hold the most contested record: asked for with the header, not after it
    const first = [`data/review-order-${pad4(0)}.json`, `data/review-records-${pad4(0)}.json`].map((f) => fetchJson(bundle.url(f)));
    for (const p of first) p.catch(() => {});
    const header = await fetchJson(bundle.url(where));
    if (header.format !== REVIEW_DATA_FORMAT || !REVIEW_DATA_READS.includes(header.version)) {
      throw new Error(`${where}: not review data this page reads (${REVIEW_DATA_FORMAT} versions ${REVIEW_DATA_READS.join(', ')})`);
    }
    if (header.bundle_id !== m.bundle_id || header.review_id !== m.review.review_id) {
      throw new Error(`${where}: made for another bundle or review (review ${header.review_id}, the manifest says ${m.review.review_id})`);
    }
    const data = new ReviewData(bundle, header);
    if (data.count) {
      data._order.set(0, first[0].then((d) => data._fill(0, d.rows), () => data.orderShard(0, true)));
      data._records.set(0, first[1].catch(() => fetchJson(bundle.url(`data/review-records-${pad4(0)}.json`))));
    }
    return data;
  }

  _fill(n, rows) {
    rows.forEach((row, i) => { this.rows[n * this.perShard + i] = row; });
    return rows;
  }

  /** Order shard `n` (cached; a failed fetch may be retried): fills `rows`. */
  orderShard(n, again = false) {
    let p = again ? null : this._order.get(n);
    if (!p) {
      p = fetchJson(this.bundle.url(`data/review-order-${pad4(n)}.json`)).then((data) => this._fill(n, data.rows));
      p.catch(() => this._order.delete(n));
      this._order.set(n, p);
    }
    return p;
  }

  /** Every order shard, in order (the list and the filters need all rows). */
  async allRows() {
    const n = this.header.shards.order;
    await Promise.all(Array.from({ length: n }, (_, i) => this.orderShard(i)));
    return this.rows;
  }

  async rowAt(pos) {
    if (!this.rows[pos]) await this.orderShard(Math.floor(pos / this.perShard));
    return this.rows[pos];
  }

  /** The review record of row `row` (its records shard, cached). */
  async record(row) {
    let p = this._records.get(row.shard);
    if (!p) {
      p = fetchJson(this.bundle.url(`data/review-records-${pad4(row.shard)}.json`));
      p.catch(() => {
        if (this._records.get(row.shard) === p) this._records.delete(row.shard);
      });
      this._records.set(row.shard, p);
    }
    const rec = (await p).records.find((r) => r.id === row.id);
    if (!rec) throw new Error(`record ${row.id} missing from data/review-records-${pad4(row.shard)}.json`);
    return rec;
  }
}
