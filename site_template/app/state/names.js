/**
 * Annotator names as the page compares them (the name dialog, ?annotator=, the queue lookup, blind mode,
 * an imported export's annotator), by the rule the tool applies where names enter it (mercury_static/core/names.py;
 * tests/names_cases.json holds the cases both are tested against): every whitespace character is a space,
 * control and format characters (zero-width spaces and joiners, bidi marks, the BOM, soft hyphens) are
 * removed, the rest is NFC, runs of spaces are one, ends are trimmed.
 */

/** Whitespace as both Python's str.isspace and JavaScript's \s know it (Zs and the control spaces). */
// eslint-disable-next-line no-control-regex -- the four control characters Python counts as spaces are the point
const SPACES = /[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/gu;
const INVISIBLE = /[\p{Cc}\p{Cf}]/gu;

/** `name` as compared: composed and decomposed "José" are one name, as are "alice" and "alice\u200b". */
export function normalizeName(name) {
  return String(name ?? '').replace(SPACES, ' ').replace(INVISIBLE, '').normalize('NFC').replace(/ {2,}/g, ' ')
    .replace(/^ | $/g, '');
}
