/**
 * Time on task: how long the annotator was at work on each record, counted from the page's own events.
 *
 * The rule (docs/formats.md "Time on task"): the page sees activity events (input, a selection change, a
 * pointer moving or pressed, a key, a wheel or a scroll) and the record opening. The time between two
 * consecutive activity events counts for the open record only when that gap is at most `IDLE_MS`: a longer
 * gap is an annotator away, and none of it counts (not even its first minute: a coordinator paying by the
 * hour would otherwise pay a minute for every pause). While the tab is hidden nothing counts; the gap
 * before it was hidden counts as any other, and showing it again starts a new gap. Opening another record
 * ends the gap for the one left.
 *
 * The counted time of a record lives in its work entry as `active: {SESSION: ms}`, one counter per page
 * load (or imported file), each only ever growing: two tabs, a reload or a merge of stored entries each keep
 * the larger value of a counter and never count a time twice (`mergeActive`). The record's time is their
 * sum. No DOM: the clock is handed in, so node tests move it.
 */
import { instant } from './times.js';

/** The longest gap between two activity events that still counts as working: merge's report says it. */
// [[[cog
// from mercury_static.merge.timeontask import IDLE_S, MAX_MS
// from mercury_static.tools.twins import const
// cog.outl(const("IDLE_MS", IDLE_S * 1000))
// cog.outl(const("MAX_MS", MAX_MS))
// ]]]
export const IDLE_MS = 60_000;
export const MAX_MS = 86_400_000;
// [[[end]]]
/** Counted time is saved with the record's next change, or on its own once this much of it waits. */
export const SAVE_MS = 10_000;

/** Counts the active time per record from activity events; `take(id)` hands it over, in whole ms. */
export class ActiveTime {
  constructor(idleMs = IDLE_MS) {
    this.idleMs = idleMs;
    this.id = null;
    this.last = null;
    this.visible = true;
    this.pending = new Map();
  }

  /** An activity event at time `t` (ms): the gap since the previous one counts when short enough. */
  activity(t) {
    if (!this.visible) return;
    if (this.id !== null && this.last !== null) {
      const gap = t - this.last;
      if (gap > 0 && gap <= this.idleMs) this.pending.set(this.id, (this.pending.get(this.id) || 0) + gap);
    }
    this.last = t;
  }

  /** Record `id` (null: none) opens at `t`: the gap up to now is the previous record's. */
  open(id, t) {
    this.activity(t);
    this.id = id;
  }

  /** The tab is hidden at `t`: the gap up to now counts, then nothing until `show`. */
  hide(t) {
    this.activity(t);
    this.visible = false;
    this.last = null;
  }

  /** The tab is shown again at `t`: a new gap starts. */
  show(t) {
    this.visible = true;
    this.last = t;
  }

  /** Counted time of record `id` not yet handed over (whole ms), and forget it. */
  take(id) {
    const ms = Math.floor(this.pending.get(id) || 0);
    this.pending.delete(id);
    return ms;
  }

  /** Records with counted time not yet handed over. */
  ids() {
    return [...this.pending.keys()];
  }

  /** Whether record `id` holds at least `ms` not handed over. */
  holds(id, ms) {
    return (this.pending.get(id) || 0) >= ms;
  }
}

const isCount = (v) => Number.isSafeInteger(v) && v >= 0;

/** Whether `active` is a map of counters (stored work is never trusted). */
export const isActive = (active) => active !== null && typeof active === 'object' && !Array.isArray(active)
  && Object.values(active).every(isCount);

/** The counters of two entries merged: each the larger (a counter only grows). Null when neither has any. */
export function mergeActive(a, b) {
  if (!b) return a || null;
  if (!a) return b;
  const out = Object.create(null);
  for (const k of Object.keys(a)) out[k] = a[k];
  for (const k of Object.keys(b)) if (!(k in out) || b[k] > out[k]) out[k] = b[k];
  return out;
}

/** Whether counters `b` add anything to `a`. */
export const activeAdds = (a, b) => Object.keys(b || {}).some((k) => !a || !(k in a) || b[k] > a[k]);

/** The record's active time (ms), or null when the page never counted one for it (work of earlier pages). */
export function activeMs(entry) {
  if (!entry?.active) return null;
  return Object.values(entry.active).reduce((s, v) => s + v, 0);
}

/** `active` with `ms` more on counter `session`. */
export function addActive(active, session, ms) {
  const out = Object.create(null);
  for (const k of Object.keys(active || {})) out[k] = active[k];
  out[session] = (out[session] || 0) + ms;
  return out;
}

/**
 * Creation-to-save time of an annotation saved at `at` from a draft started at `started` (ISO times): the
 * edited annotation's own (`old.elapsed_ms`) plus this draft's. Null when either is unknown (an annotation of
 * an earlier page, a draft of one).
 */
export function elapsedMs(old, started, at) {
  const from = instant(started);
  const to = instant(at);
  if (from === null || to === null) return null;
  const before = old ? old.elapsed_ms : 0;
  if (!isCount(before)) return null;
  return before + Math.max(0, Math.round(to - from));
}
