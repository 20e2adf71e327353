// The in-memory stand-ins of the store's tests for what IndexedDB and the bundle's files hold in a browser
// (the store only asks them for rows, records and writes); the texts are data.js's TextView.
import { TextView } from '../../site_template/app/data/data.js';
import { reviewSlice } from '../../site_template/app/state/review.js';
import { createAppStore } from '../../site_template/app/state/store.js';

const IDS = ['r0', 'r1', 'r2'];
const text = (id, t) => new TextView({ id, text: t, sentences: [[0, t.indexOf('.') + 1]] });

/**
 * A bundle of three records over `questions` (and the other `settings`); r0 has two span suggestions (prior
 * annotations).
 */
export function bundleOf(questions, settings = {}) {
  const prior = [
    { label: ['Benign'], summary: { start: 0, end: 4, text: 'Cats' }, source: null },
    { label: ['Benign'], summary: { start: 5, end: 9, text: 'purr' }, source: null },
  ];
  return {
    manifest: { bundle_id: 'b', labels: ['Benign', 'Unwanted'], settings: { questions, ...settings } },
    recordIndex: {
      count: IDS.length,
      row: (i) => ({ id: IDS[i] }),
      rowAt: async (i) => ({ id: IDS[i] }),
      positionsOf: async (ids) => new Map(ids.filter((id) => IDS.includes(id)).map((id) => [id, IDS.indexOf(id)])),
      positionOf: async (id) => IDS.indexOf(id),
    },
    record: async (id) => ({
      id, summary: text(`${id}-s`, 'Cats purr. Dogs bark.'), source: text(`${id}-src`, 'A cat purrs.'),
      prior_annotations: id === 'r0' ? prior : [],
    }),
    prefetch: () => {},
  };
}

/** A storage that keeps every write (each resolves with the entries written, as WorkStorage.write does). */
export function memoryStorage() {
  const writes = [];
  return { writes, write: async (changes) => { writes.push(...changes); return changes; }, saveJournal: () => {} };
}

/** A review-mode store over two review records, r1 judged by alice and bob (alice's one annotation). */
export function reviewStore() {
  const rows = [{ id: 'r0', annotators: ['alice'], questions: [] }, { id: 'r1', annotators: ['alice', 'bob'], questions: [] }];
  const ann = { key: 'alice:a1', annotator: 'alice', label: ['Benign'], summary: { start: 0, end: 4, text: 'Cats' } };
  const data = {
    annotators: ['alice', 'bob'], questions: [], count: rows.length, rows,
    rowAt: async (p) => rows[p], allRows: async () => rows, record: async () => ({ annotations: [ann], responses: [] }),
  };
  const bundle = bundleOf([]);
  bundle.manifest.review = { review_id: 'rv' };
  return createAppStore({
    bundle, annotator: 'rev', clientId: 'c1', storage: memoryStorage(), view: {},
    review: reviewSlice({ data, reviewer: 'rev' }),
  });
}
