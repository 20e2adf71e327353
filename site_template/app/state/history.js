/**
 * The session's history of the annotator's changes: each change the annotator makes to a
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

/** Whether two entries differ in what a step can change (annotations, status, answers, acceptances, verdicts). */
export function changed(before, after) {
  const anns = keysOf(before?.annotations, after?.annotations)
    .some((id) => !same(live(before?.annotations?.[id]), live(after?.annotations?.[id])));
  const answers = keysOf(before?.responses, after?.responses)
    .some((q) => !same(before?.responses?.[q]?.value, after?.responses?.[q]?.value));
  const verdicts = keysOf(before?.sentences, after?.sentences)
    .some((i) => !same(before?.sentences?.[i]?.value, after?.sentences?.[i]?.value));
  return anns || answers || verdicts || (before?.status || 'in_progress') !== (after?.status || 'in_progress');
}

const part = (e, name, key) => e?.[name]?.[key];

/** The annotations the step changed, as they are in `to` (a tombstone where `to` has none live). */
function applyAnnotations(entry, from, to, at) {
  for (const id of keysOf(from?.annotations, to?.annotations)) {
    const want = live(part(to, 'annotations', id));
    if (same(live(part(from, 'annotations', id)), want)) continue;
    entry.annotations[id] = want ? { ...want, updated_at: at } : { id, deleted: true, updated_at: at };
  }
}

/** The answers the step changed (their value or their acceptance), as in `to`; returns their questions. */
function applyAnswers(entry, from, to, at) {
  const answered = new Set();
  for (const q of keysOf(from?.responses, to?.responses)) {
    if (same(part(from, 'responses', q)?.value, part(to, 'responses', q)?.value)
      && same(part(from, 'accepted', q), part(to, 'accepted', q))) continue;
    restoreAnswer(entry, to, q, at);
    answered.add(q);
  }
  return answered;
}

/** The acceptances of span suggestions (no answer) the step changed, but of the questions `answered`. */
function applyAcceptances(entry, from, to, at, answered) {
  for (const q of keysOf(from?.accepted, to?.accepted)) {
    const want = part(to, 'accepted', q);
    if (answered.has(q) || same(part(from, 'accepted', q), want)) continue;
    entry.accepted = { ...entry.accepted, [q]: want ? { ...want, updated_at: at } : { agent: null, updated_at: at } };
  }
}

/** The sentence verdicts the step changed, as in `to` (cleared where `to` has none). */
function applyVerdicts(entry, from, to, at) {
  for (const i of keysOf(from?.sentences, to?.sentences)) {
    const want = part(to, 'sentences', i)?.value ?? null;
    if (same(part(from, 'sentences', i)?.value, want)) continue;
    entry.sentences = { ...entry.sentences, [i]: { value: want, updated_at: at } };
  }
}

function applyStatus(entry, from, to, at) {
  const status = to?.status || 'in_progress';
  if ((from?.status || 'in_progress') === status) return;
  entry.status = status;
  entry.status_at = at;
}

/**
 * `entry` (a copy, changed in place and returned) with every part that differs between `from` and `to`
 * set as it is in `to`, stamped `at`: the step undone (from = after, to = before) or redone.
 */
export function applyStep(entry, from, to, at) {
  applyAnnotations(entry, from, to, at);
  applyAcceptances(entry, from, to, at, applyAnswers(entry, from, to, at));
  applyVerdicts(entry, from, to, at);
  applyStatus(entry, from, to, at);
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
