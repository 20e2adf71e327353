/**
 * Times as instants. The page stamps every change with `Date.toISOString()` ("2026-11-29T12:00:00.123Z"),
 * whose text order is its time order; a time from a file need not be of that form ("+09:00", no
 * milliseconds, a date alone), and its text order is not its time order. So times are compared as the
 * instants they name, by the grammar `mercury-static merge` reads them with (merge/checks.py parse_time, the
 * same cases in tests/time_cases.json): YYYY-MM-DD, optionally T (or a space) HH:MM[:SS[.fraction]] and
 * Z or ±HH:MM / ±HHMM; a time without offset is UTC. No DOM, no imports.
 */

const GRAMMAR = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(?:([Zz])|([+-])(\d{2}):?(\d{2}))?)?$/;
/** The shape of `Date.toISOString()` (years 0000–9999), checked cheaply: the work compares thousands of them. */
const canonical = (t) => typeof t === 'string' && t.length === 24 && t[23] === 'Z' && t[10] === 'T' && t[19] === '.';

/** Milliseconds since the epoch (microseconds as the fraction) of an ISO-8601 time, or null if it is none. */
export function instant(text) {
  if (typeof text !== 'string') return null;
  const m = GRAMMAR.exec(text);
  if (!m) return null;
  const [y, mo, d, h = 0, mi = 0, s = 0] = m.slice(1, 7).map((x) => (x === undefined ? undefined : Number(x)));
  const us = m[7] ? Number(m[7].slice(0, 6).padEnd(6, '0')) : 0;
  const offH = m[10] ? Number(m[10]) : 0;
  const offM = m[11] ? Number(m[11]) : 0;
  if (y < 1 || mo < 1 || mo > 12 || h > 23 || mi > 59 || s > 59 || offH > 23 || offM > 59) return null;
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d); // not Date.UTC: it reads the years 0–99 as 1900–1999
  if (date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d) return null; // 2026-02-30
  date.setUTCHours(h, mi, s, 0);
  const offset = (m[9] === '-' ? -1 : 1) * (offH * 60 + offM) * 60_000;
  return date.getTime() - offset + us / 1000;
}

/**
 * -1, 0 or 1 as time `a` is before, at or after time `b`. A value that is no time (absent, empty, not
 * ISO-8601) is older than any time, as in merge; two such values compare as text (stored by older pages).
 */
export function compareTimes(a, b) {
  if (canonical(a) && canonical(b)) {
    return a < b ? -1 : a > b ? 1 : 0; // the page's own stamps: text order is time order
  }
  const x = instant(a);
  const y = instant(b);
  if (x === null && y === null) {
    const s = a || '';
    const t = b || '';
    return s < t ? -1 : s > t ? 1 : 0;
  }
  if (x === null || y === null) return x === null ? -1 : 1;
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Whether time `a` is after time `b` (compareTimes). */
export const isAfter = (a, b) => compareTimes(a, b) > 0;

/** The later of two times (`a` when they are the same instant). */
export const later = (a, b) => (compareTimes(a, b) >= 0 ? a : b);
