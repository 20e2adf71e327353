/**
 * The judges of a review record as the reviewer sees them (docs/review.md): each judge's status of the record
 * (the review data's `statuses`, written by review/statuses.py; review data of version 1 has none: the page
 * reads them from the responses, without "not opened") and the annotators' spans grouped, identical ones
 * (same summary and source offsets, same label) as one item decided at once. Pure (unit-tested under node).
 */

export const STATUS_TEXT = {
  flagged: 'flagged', consistent: 'consistent (nothing flagged)', in_progress: 'in progress (not submitted)',
  discarded: 'discarded', not_opened: 'not opened',
};

/** `{annotator: status}` of a review record (review/statuses.py judge_statuses' values). */
export function judgeStatuses(rec) {
  if (rec.statuses) return rec.statuses;
  const marked = new Set(rec.annotations.map((a) => a.annotator));
  const given = new Map(rec.responses.map((r) => [r.annotator, r.status]));
  const out = {};
  for (const name of rec.annotators) {
    const st = given.get(name);
    out[name] = st === 'discarded' || st === 'in_progress' ? st : marked.has(name) ? 'flagged' : 'consistent';
  }
  return out;
}

/** How many judges a group is counted against ("2 of 3"): the record's judges, else everyone with work. */
export const judgeCount = (rec) => (rec.judges.length || rec.annotators.length);

const identity = (a) => JSON.stringify([a.summary.start, a.summary.end,
  a.source ? [a.source.start, a.source.end] : null, a.label]);

/**
 * The annotations (sorted as shown) grouped by identity, first appearance first: [{key, ann, members}], the
 * key and annotation of a group its first member's (a decision or comment on the group names that key).
 */
export function spanGroups(annotations) {
  const byId = new Map();
  const out = [];
  for (const a of annotations) {
    const g = byId.get(identity(a));
    if (g) g.members.push(a);
    else {
      const group = { key: a.key, ann: a, members: [a] };
      byId.set(identity(a), group);
      out.push(group);
    }
  }
  return out;
}
