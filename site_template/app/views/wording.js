/** The words of labels and counts as the page shows them (the annotation page and the review mode). */

/**
 * A label path as annotators read it, in the guidelines' form: "Unwanted.Intrinsic" -> "Unwanted › Intrinsic";
 * each part is the settings' text for its path when they give one (an Argilla label's text: "fabricated" ->
 * "Fabricated fact"). Exports keep the path.
 */
export const labelText = (label, texts = {}) => label.split('.')
  .map((part, i, parts) => texts[parts.slice(0, i + 1).join('.')] ?? part).join(' › ');

/** "1 change", "3 changes". */
export const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;
