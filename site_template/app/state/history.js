/**
 * The session's history of the annotator's changes (issue 28 §2): each change the annotator makes to a
 * record's work entry (an annotation added, edited, deleted or accepted, an answer, a status) is a step
 * {text, id, index, key, before, after} of entries; undo writes the parts the step changed back as they
 * were before it, redo as they were after it, each as a new change stamped now (newest wins everywhere, so
 * an undo reaches storage, other tabs and exports). The store owns the stack (`state.history`).
 */
import { restoreAnswer } from './responses.js';

export const MAX_STEPS = 200;

export const emptyHistory = () => ({ past: [], future: [] });

const same = (a, b) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
const keysOf = (...maps) => [...new Set(maps.flatMap((m) => Object.keys(m || {})))];
const live = (a) => (a && !a.deleted ? a : null);

/** Whether two entries differ in what a step can change (annotations, status, answers, acceptances). */
export function changed(before, after) {
  const anns = keysOf(before?.annotations, after?.annotations)
    .some((id) => !same(live(before?.annotations?.[id]), live(after?.annotations?.[id])));
  const answers = keysOf(before?.responses, after?.responses)
    .some((q) => !same(before?.responses?.[q]?.value, after?.responses?.[q]?.value));
  return anns || answers || (before?.status || 'in_progress') !== (after?.status || 'in_progress');
}

/**
 * `entry` (a copy, changed in place and returned) with every part that differs between `from` and `to`
 * set as it is in `to`, stamped `at`: the step undone (from = after, to = before) or redone.
 */
// eslint-disable-next-line complexity -- each ?. counts; one applier per part of an entry would split it
export function applyStep(entry, from, to, at) {
  for (const id of keysOf(from?.annotations, to?.annotations)) {
    const want = live(to?.annotations?.[id]);
    if (same(live(from?.annotations?.[id]), want)) continue;
    entry.annotations[id] = want ? { ...want, updated_at: at } : { id, deleted: true, updated_at: at };
  }
  const answered = new Set();
  for (const q of keysOf(from?.responses, to?.responses)) {
    if (same(from?.responses?.[q]?.value, to?.responses?.[q]?.value)
      && same(from?.accepted?.[q], to?.accepted?.[q])) continue;
    restoreAnswer(entry, to, q, at);
    answered.add(q);
  }
  for (const q of keysOf(from?.accepted, to?.accepted)) { // a span suggestion's acceptance (no answer)
    if (answered.has(q) || same(from?.accepted?.[q], to?.accepted?.[q])) continue;
    entry.accepted = {
      ...entry.accepted,
      [q]: to?.accepted?.[q] ? { ...to.accepted[q], updated_at: at } : { agent: null, updated_at: at },
    };
  }
  const status = to?.status || 'in_progress';
  if ((from?.status || 'in_progress') !== status) {
    entry.status = status;
    entry.status_at = at;
  }
  return entry;
}

/**
 * The history with a new step; a step of the same `key` right after another of the same record (a text
 * answer typed a keystroke at a time) grows that one. Redo is gone after a new step.
 */
export function pushStep(history, step) {
  const last = history.past[history.past.length - 1];
  if (step.key && last && last.key === step.key && last.id === step.id) {
    return { past: [...history.past.slice(0, -1), { ...last, after: step.after, at: step.at }], future: [] };
  }
  return { past: [...history.past, step].slice(-MAX_STEPS), future: [] };
}
