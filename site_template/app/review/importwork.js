/** A review export's checked record entry (importcheck.js) as the work the page keeps, its times read as gold does. */
import { dict } from '../util.js';
import { instant } from '../state/times.js';

/**
 * The times of one import: a time later than `now` (the computer that exported it had a wrong clock) becomes
 * `now` and is counted, as gold writes it, or it would state a decision made in the future and win over every
 * later one here; any other value is kept as it is.
 */
export function importClock(now) {
  const nowMs = instant(now);
  const clock = {
    future: 0,
    read(value) {
      const t = typeof value === 'string' ? instant(value) : null;
      if (t === null || t <= nowMs) return value;
      clock.future += 1;
      return now;
    },
  };
  return clock;
}

/** A checked entry (importcheck.js) as the work entry the page keeps (review/work.js), its times read by `clock`. */
export function workEntry(entry, c, clock) {
  const at = clock.read(entry.updated_at);
  const review = dict();
  for (const [key, d] of Object.entries(c.decisions)) {
    const { action, updated_at: decided, ...fields } = d;
    review[`d:${key}`] = { value: { action, ...fields }, updated_at: clock.read(decided) || at };
  }
  for (const [q, a] of Object.entries(c.answers)) review[`q:${q}`] = { value: a, updated_at: at };
  for (const { id, ...comment } of c.comments) {
    const time = clock.read(comment.time);
    review[`c:${id}`] = { value: { ...comment, time }, updated_at: time };
  }
  for (const [i, { updated_at: settledAt, ...value }] of Object.entries(c.sentences)) review[`s:${i}`] = { value, updated_at: clock.read(settledAt) || at };
  const annotations = dict();
  for (const a of c.added) {
    const updated = clock.read(a.updated_at);
    annotations[a.id] = { ...a, created_at: clock.read(a.created_at) || updated || at, updated_at: updated || at };
  }
  return { status: c.adjudicated ? 'submitted' : 'in_progress', status_at: at, updated_at: at, annotations, review };
}
