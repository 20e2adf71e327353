// The file formats the page reads and writes, generated from mercury_static/formats.py's registry (the
// cog block below; docs/formats.md says what each version adds): `version` is what a writer writes, `reads`
// what a reader accepts, `unnamed` the version of a file without a `format` key (written before the format
// had a name). REVIEW_DATA and REVIEW are review mode's (docs/review.md). Ranker options reach the page
// inside the manifest (BUNDLE), checked against its `ranker_spec` (data.js rankerOptionProblems); the page
// never reads the ranker-options file of `tune -o`.

// [[[cog
// from mercury_static import formats
// from mercury_static.tools.twins import const
// for key in ("BUNDLE", "EXPORT", "RECORD_INDEX", "QUEUES", "WEIGHTS", "REVIEW_DATA", "REVIEW"):
//     f = getattr(formats, key)
//     unnamed = {} if f.unnamed is None else {"unnamed": f.unnamed}
//     cog.outl(const(key, {"name": f.name, "version": f.version, "reads": f.reads, **unnamed}))
// ]]]
export const BUNDLE = { name: 'mercury-static/bundle', version: 1, reads: [1] };
export const EXPORT = { name: 'mercury-static/annotations', version: 4, reads: [1, 2, 3, 4] };
export const RECORD_INDEX = { name: 'mercury-static/record-index', version: 2, reads: [1, 2], unnamed: 1 };
export const QUEUES = { name: 'mercury-static/queues', version: 2, reads: [1, 2], unnamed: 1 };
export const WEIGHTS = { name: 'mercury-static/weights', version: 1, reads: [1] };
export const REVIEW_DATA = { name: 'mercury-static/review-data', version: 2, reads: [1, 2] };
export const REVIEW = { name: 'mercury-static/review', version: 2, reads: [1, 2] };
// [[[end]]]

/**
 * The version of `doc` read as `format` (formats.py Format.check): throws one line naming `file` and the
 * field unless it is of that format and a version this page reads. A file without a string `format` is
 * of version `format.unnamed` (its `version` if it has an integer one), when the format has one.
 */
export function checkFormat(doc, file, format) {
  const isObject = doc !== null && typeof doc === 'object' && !Array.isArray(doc);
  if (!isObject) throw new Error(`${file}: not a ${format.name} file (expected a JSON object)`);
  let { format: name, version } = doc;
  let reads = format.reads;
  if (format.unnamed !== undefined && typeof name !== 'string') {
    name = format.name;
    version = Number.isInteger(version) ? version : format.unnamed;
    reads = [format.unnamed];
  }
  if (name !== format.name) {
    const found = name === undefined ? `missing (expected '${format.name}')`
      : `${JSON.stringify(name)} is not '${format.name}'`;
    throw new Error(`${file}: field 'format': ${found}`);
  }
  if (!Number.isInteger(version) || !reads.includes(version)) {
    const readable = `version${reads.length > 1 ? 's' : ''} ${reads.join(' and ')}`;
    const found = `unsupported version ${JSON.stringify(version)} of ${format.name}`;
    throw new Error(`${file}: field 'version': ${found} (this page reads ${readable})`);
  }
  return version;
}
