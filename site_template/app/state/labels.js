/**
 * The label tree's one rule: a stored label is the list of a leaf's path prefixes (["Unwanted",
 * "Unwanted.Intrinsic"]), and the labels an annotator picked are its most specific ones. Written once, here:
 * the draft, the review's editor and every line that names labels read them through it.
 */

/** The most specific labels of a list (["Unwanted", "Unwanted.Intrinsic"] -> ["Unwanted.Intrinsic"]). */
export const leafLabels = (labels) => labels.filter((l) => !labels.some((o) => o.startsWith(`${l}.`)));

/** ["Unwanted", "Unwanted.Intrinsic"] from "Unwanted.Intrinsic" (the path form of a label string). */
export function labelPath(label) {
  const parts = label.split('.');
  return parts.map((_, i) => parts.slice(0, i + 1).join('.'));
}

/** Every label path prefix of the chosen labels, in manifest order: ["Unwanted", "Unwanted.Intrinsic"]. */
export function labelPrefixes(chosen, order) {
  const set = new Set(chosen.flatMap(labelPath));
  const rank = (l) => {
    const i = order.indexOf(l);
    return i < 0 ? order.length : i;
  };
  return [...set].sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : 1));
}

/** The picked choices behind a stored label list (inverse of labelPrefixes). */
export const chosenLabels = (label, choices) => leafLabels(label.filter((l) => choices.includes(l)));

/** The labels an annotator picks: the manifest's `label_choices`, else the leaves of its `labels`. */
export const labelChoicesOf = (manifest) => manifest.label_choices || leafLabels(manifest.labels || []);
