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

const MB = 1e6;

/**
 * The model's download as the top bar shows it: `{short, long}` (the share; the megabytes and the time left),
 * from the bytes received, the whole (null: not known) and the milliseconds since it started. No time is
 * guessed before a second has passed or a twentieth has arrived: the first bytes' rate says little.
 */
export function downloadText(loaded, total, elapsedMs) {
  const got = (loaded / MB).toFixed(1);
  if (!total) return { short: `model: ${got} MB…`, long: `downloading the model: ${got} MB so far` };
  const share = Math.min(1, loaded / total);
  const short = `model: ${Math.floor(share * 100)}%`;
  let long = `downloading the model: ${got} of ${(total / MB).toFixed(1)} MB`;
  if (share >= 1) return { short, long: `${long} · starting it` };
  if (elapsedMs >= 1000 && share >= 0.05) {
    const left = Math.max(1, Math.round((elapsedMs * (1 - share)) / share / 1000));
    long += left < 90 ? ` · about ${left} s left` : ` · about ${Math.round(left / 60)} min left`;
  }
  return { short, long };
}
