/**
 * main.js's first import, so the first module body to run once the page's modules have loaded (index.html
 * preloads the bundle's first files meanwhile): opens the bundle and requests the first record's data — the
 * deep-linked record, else the first one — while main.js sets the page up, then takes the opened bundle over.
 */
import { openBundle } from './data/data.js';

/** The record id of a `#record=ID` deep link, or null. */
export function recordIdFromHash() {
  const m = /(?:^#|&)record=([^&]*)/.exec(window.location.hash);
  if (!m) return null;
  try {
    return decodeURIComponent(m[1]);
  } catch {
    return null;
  }
}

/**
 * The record to open first, {id, position} (null: no records): the deep-linked one when the bundle has
 * it, else the first; found through
 * the sharded index (an ids shard, index shard 0), never the whole index.
 */
export async function firstRecord(bundle) {
  const wanted = recordIdFromHash();
  const index = bundle.recordIndex;
  const at = wanted ? await index.positionOf(wanted) : -1;
  if (at >= 0) return { id: wanted, position: at };
  return index.count ? { id: (await index.rowAt(0)).id, position: 0 } : null;
}

/** The opened bundle (a data.js Bundle); main.js reports it when it cannot be opened. */
export const opening = openBundle('./');
opening.then(async (bundle) => {
  if (bundle.manifest.review) return; // a review bundle opens its most contested record first (review/app.js)
  const first = await firstRecord(bundle);
  if (first) bundle.prefetch(first.id, first.position);
}, () => {});
