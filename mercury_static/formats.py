"""Every file format this tool writes for another program (or a later run) to read, in one registry
(`FORMATS`, docs/formats.md): each with a name, the version writers write and the versions readers accept.
The page's constants, site_template/app/data/formats.js, are generated from these (`make generate`; the
tests run `cog --check`). Three of them as typed dataclasses: the bundle manifest (`Manifest`), the page's export file
(`ExportHeader`; its records are validated one by one by merge, so one bad record skips only itself), and
the merged dataset (`MergedRecord`).

JSON Schemas of those three: docs/manifest.schema.json, docs/export.schema.json, docs/merged.schema.json
(tests check real outputs against them). Every reader calls `check_format` first, so a file of another
format or a newer version is refused with one line instead of being misread.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mercury_static.core.records import InputError


@dataclass(frozen=True)
class Format:
    """One on-disk format: `name` (the file's `format` key), the `version` writers write, the `reads`
    versions readers accept, and `unnamed`: the version a file without a `format` key is, for a format
    that had no name in bundles built before it got one (None: such a file is refused)."""

    name: str
    version: int | str
    reads: tuple
    unnamed: int | None = None

    def check(self, doc, file: str) -> int:
        """The file's version, after refusing another format or a version readers do not accept."""
        if self.unnamed is not None and isinstance(doc, dict) and not isinstance(doc.get("format"), str):
            # before the name: `version` if the file had one (the index), else none (queues: its keys are names)
            found = doc.get("version")
            doc = {"format": self.name, "version": found if type(found) is int else self.unnamed}
            check_format(doc, file, self.name, (self.unnamed,))
            return self.unnamed
        check_format(doc, file, self.name, self.reads)
        return doc["version"]


BUNDLE = Format("mercury-static/bundle", 1, (1,))
"""manifest.json of a bundle."""
EXPORT = Format("mercury-static/annotations", 4, (1, 2, 3, 4))
"""The page's export. Versions merge reads: 1 (spans and a status only), 2 (adds each question's response
and the suggestions shown/accepted) and 3 (adds the time on task: a record's `active_ms`, an annotation's
`elapsed_ms`, each only when the page counted it) and 4 (adds `sentences`: the summary sentences' verdicts and
their evidence, docs/sentence-verdicts.md), docs/export.schema.json."""
EXPORT_SENTENCES = 4
"""The first export version whose records carry sentence verdicts."""
EXPORT_TIMED = 3
"""The first export version whose records carry their time on task: merge reads times from it on, and the
report says which versions have none."""
MERGED = Format("mercury-static/merged", 1, (1,))
"""`merge -o FILE`: a JSON list (pandas, 🤗 datasets and Mercury tooling read it as is), so its format name and
version are in the merge report (`--report`), not in the file."""
RECORD_INDEX = Format("mercury-static/record-index", 2, (1, 2), unnamed=1)
"""data/index.json, the sharded record index's top file; bundles built before it had a name carry only
`version: 1`. Version 2 adds the split prefixes ("split", their unions in the term shards'
"prefixes") and bitmap posting lists; version 1 is version 2 without them, so the page reads both."""
QUEUES = Format("mercury-static/queues", 2, (1, 2), unnamed=1)
"""data/queues-SHA12.json. Version 2: `{format, version, queues: {annotator: [record ids]}}`; version 1
(bundles built before the queues had a name) is the bare `{annotator: [record ids]}`, so an annotator called
"format" is never taken for a header."""
WEIGHTS = Format("mercury-static/weights", 1, (1,))
"""The JSON header of the page model's weights file (assist/page_model.py)."""
RANKER_OPTIONS = Format("mercury-static/ranker-options", 1, (1,))
"""`tune -o FILE`, read by `eval --options` (bundle/ranker_file.py)."""
REVIEW_DATA = Format("mercury-static/review-data", 2, (1, 2))
"""A review bundle's `data/review.json` and its order and record shards (docs/review.md), written by `review`.
Version 2 adds each record's `statuses` (every judge's status of the record, "not opened" included) and
`sentences` (the judges' sentence verdicts and their evidence); version 1 is read as having neither."""
REVIEW = Format("mercury-static/review", 2, (1, 2))
"""The page's export in review mode: a reviewer's decisions (docs/review.md), read by `gold`. Version 2 adds a
record's `sentences` (the summary sentences' settled verdicts); version 1 is version 2 without them."""
GOLD = Format("mercury-static/gold", 1, (1,))
"""The gold dataset: merged records whose annotations and responses are the adjudicated ones, each with its
provenance; a JSON list like the merged dataset, so its name and version are in the gold report."""
TRAINING = Format("mercury-static/training", 1, (1,))
"""A trained model folder's training.json (train/train.py): what the model was trained from and its held-out
figures; `build --model` copies it into the manifest's `model.trained`."""
MODEL = Format("mercury-static/model", "wo-int8-v3", ("wo-int8-v3",))
"""The `recipe` of an exported model's mercury_static_model.json (assist/model_export.py): a cached model of
another recipe is not refused but exported again, so its version is the recipe string the cache key hashes."""

FORMATS: dict[str, Format] = {f.name: f for f in (BUNDLE, EXPORT, MERGED, RECORD_INDEX, QUEUES, WEIGHTS,
                                                  RANKER_OPTIONS, REVIEW_DATA, REVIEW, GOLD, TRAINING, MODEL)}
"""Every format by name (docs/formats.md lists them; the page's are in data/formats.js)."""

# int(): the versions of these formats are numbers (only MODEL's is a recipe string)
BUNDLE_FORMAT, BUNDLE_VERSION = BUNDLE.name, int(BUNDLE.version)
EXPORT_FORMAT, EXPORT_VERSION, EXPORT_VERSIONS = EXPORT.name, int(EXPORT.version), EXPORT.reads
MERGED_FORMAT, MERGED_VERSION = MERGED.name, int(MERGED.version)

REVIEW_DATA_FORMAT, REVIEW_DATA_VERSION = REVIEW_DATA.name, int(REVIEW_DATA.version)
REVIEW_FORMAT, REVIEW_VERSION = REVIEW.name, int(REVIEW.version)
GOLD_FORMAT, GOLD_VERSION = GOLD.name, int(GOLD.version)


def check_format(doc, file: str, name: str, version: int | tuple[int, ...]) -> None:
    """InputError unless `doc` is an object with this `format` and `version` (or one of these versions)."""
    if not isinstance(doc, dict):
        raise InputError(file, None, None, f"not a {name} file (expected a JSON object)")
    if doc.get("format") != name:
        found = doc.get("format")
        raise InputError(file, None, "format", f"{_short(found)} is not {name!r}" if found is not None
                         else f"missing (expected {name!r})")
    versions = version if isinstance(version, tuple) else (version,)
    found = doc.get("version")
    if type(found) is not int or found not in versions:
        raise InputError(file, None, "version", f"unsupported version {_short(found)} of {name} "
                         f"(this tool reads version{'s' if len(versions) > 1 else ''} "
                         f"{' and '.join(map(str, versions))})")


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 42 else text[:41] + "…"


def _get(doc: dict, key: str, kind: type | tuple, file: str, optional: bool = False):
    value = doc.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise InputError(file, None, key, "missing" if value is None else f"unexpected value {_short(value)}")
    return value


def default_manifest_settings() -> dict:
    """The manifest's `settings` without a settings file (also what a manifest lacking the key means)."""
    from mercury_static.settings.manifest import manifest_settings
    from mercury_static.settings.model import MetadataRanges, Settings

    return manifest_settings(Settings(), MetadataRanges())


@dataclass(frozen=True)
class ModelInfo:
    """The embedding model in the bundle (`path` is relative to the bundle root)."""

    name: str
    path: str
    dim: int
    max_seq_length: int
    pooling: str
    sha256: str
    weights: str | None = None
    """The int8 weights file of the page graph (page_model.py), relative to `path`; None in older bundles,
    whose page loads the model file as onnxruntime optimizes it."""
    trained: dict | None = None
    """A model `train` wrote: its training.json (what it was trained from, its held-out figures); None for
    any other model."""
    download: int | None = None
    """Bytes the page's model worker fetches (the runtime's wasm and this folder's files, uncompressed): the
    whole of the download progress it shows; None in older bundles."""


@dataclass
class Manifest:
    """manifest.json of a bundle (docs/DESIGN.md gives each field's meaning)."""

    bundle_id: str
    tool_version: str
    title: str
    model: ModelInfo
    vectors: dict
    counts: dict
    shards: dict
    labels: list[str]
    label_choices: list[str]
    guidelines: dict | None
    ranker: dict
    ranker_spec: list[dict] = field(default_factory=list)
    id_field: str | None = None
    ranker_id: str | None = None  # the options part of the bundle's identity (absent in older bundles)
    ranker_tuned: dict | None = None  # where tuned options came from: {pairs, records, date, from}
    settings: dict = field(default_factory=lambda: default_manifest_settings())
    queues: dict | None = None
    record_vectors: dict | None = None
    format: str = BUNDLE_FORMAT
    version: int = BUNDLE_VERSION

    def to_json(self) -> dict:
        out = {k: v for k, v in vars(self).items() if k != "model"}
        out["model"] = {k: v for k, v in vars(self.model).items() if k not in ("trained", "download") or v is not None}
        return out

    @classmethod
    def from_json(cls, doc, file: str) -> Manifest:
        """The manifest, after checking format, version and the fields readers rely on."""
        BUNDLE.check(doc, file)
        model = _get(doc, "model", dict, file)
        shards = _get(doc, "shards", dict, file)
        for key in ("records", "texts"):
            if not isinstance(shards.get(key), int) or isinstance(shards[key], bool) or shards[key] < 0:
                raise InputError(file, None, f"shards.{key}", "expected a count")
        labels = _get(doc, "labels", list, file)
        if not labels or not all(isinstance(x, str) for x in labels):
            raise InputError(file, None, "labels", "expected a non-empty list of label paths")
        try:
            info = ModelInfo(**{k: model[k] for k in ModelInfo.__dataclass_fields__
                                if k not in ("weights", "trained", "download")},
                             weights=_get(model, "weights", str, file, optional=True),
                             trained=_get(model, "trained", dict, file, optional=True),
                             download=_get(model, "download", int, file, optional=True))
        except KeyError as e:
            raise InputError(file, None, f"model.{e.args[0]}", "missing") from None
        return cls(bundle_id=_get(doc, "bundle_id", str, file), tool_version=_get(doc, "tool_version", str, file),
                   title=_get(doc, "title", str, file), model=info, vectors=_get(doc, "vectors", dict, file),
                   counts=_get(doc, "counts", dict, file), shards=shards, labels=labels,
                   label_choices=_get(doc, "label_choices", list, file),
                   guidelines=_get(doc, "guidelines", dict, file, optional=True),
                   ranker=_get(doc, "ranker", dict, file), ranker_spec=doc.get("ranker_spec") or [],
                   id_field=_get(doc, "id_field", str, file, optional=True),
                   ranker_id=_get(doc, "ranker_id", str, file, optional=True),
                   ranker_tuned=_get(doc, "ranker_tuned", dict, file, optional=True),
                   settings=_get(doc, "settings", dict, file, optional=True) or default_manifest_settings(),
                   queues=_get(doc, "queues", dict, file, optional=True),
                   record_vectors=_get(doc, "record_vectors", dict, file, optional=True))


@dataclass(frozen=True)
class ExportHeader:
    """The top of a page export file; `records` holds one entry per record the annotator touched
    (`{record_id, status, updated_at, annotations}`, version 2 adds `responses` and `suggestions`, version 3
    `active_ms` and the annotations' `elapsed_ms`; checked entry by entry by merge)."""

    bundle_id: str
    annotator: str
    client_id: str | None
    exported_at: str
    records: list
    title: str | None = None
    tool_version: str | None = None
    version: int = EXPORT_VERSION

    @classmethod
    def from_json(cls, doc, file: str) -> ExportHeader:
        EXPORT.check(doc, file)
        annotator, client, records, exported_at = _sender(doc, file, "annotator")
        return cls(bundle_id=doc.get("bundle_id"), annotator=annotator, client_id=client,
                   exported_at=exported_at, records=records,
                   title=doc.get("title"), tool_version=doc.get("tool_version"), version=doc["version"])


def _sender(doc: dict, file: str, who: str) -> tuple[str, str | None, list, str]:
    """The parts an export and a review export share: who made it (`who`: its key), their browser, the records,
    the export time ("" when absent or not a string)."""
    name = doc.get(who)
    if not isinstance(name, str) or not name.strip():
        raise InputError(file, None, who, "missing or empty")
    client = doc.get("client_id")
    if client is not None and not isinstance(client, str):
        raise InputError(file, None, "client_id", "expected a string")
    records = doc.get("records")
    if not isinstance(records, list):
        raise InputError(file, None, "records", "expected a list of records")
    exported_at = doc.get("exported_at")
    return name, client, records, exported_at if isinstance(exported_at, str) else ""


@dataclass
class MergedRecord:
    """One record of the merged dataset (`mercury-static` layout; annotations as in docs/merged.schema.json).
    `suggestions` (the bundle's machine suggestions) and `sentences` (the annotators' sentence verdicts, export
    version 4, docs/sentence-verdicts.md) are written only when there are some, so a bundle without settings
    merges to the same bytes as before."""

    id: str
    source: str
    summary: str
    metadata: dict
    annotations: list[dict]
    responses: list[dict]
    suggestions: list[dict] = field(default_factory=list)
    sentences: list[dict] = field(default_factory=list)

    def to_json(self) -> dict:
        out = dict(vars(self))
        for key in ("suggestions", "sentences"):
            if not out[key]:
                del out[key]
        return out


@dataclass(frozen=True)
class ReviewHeader:
    """The top of a review export; `records` holds one entry per record the reviewer touched (checked entry by
    entry by review/exports.py). `bundle_id`, `review_id` and `merge_sha256` bind it to one review bundle."""

    bundle_id: str
    review_id: str
    merge_sha256: str
    reviewer: str
    client_id: str | None
    exported_at: str
    records: list
    tool_version: str | None = None

    @classmethod
    def from_json(cls, doc, file: str) -> ReviewHeader:
        REVIEW.check(doc, file)
        for key in ("bundle_id", "review_id", "merge_sha256"):
            _get(doc, key, str, file)
        reviewer, client, records, exported_at = _sender(doc, file, "reviewer")
        return cls(bundle_id=doc["bundle_id"], review_id=doc["review_id"], merge_sha256=doc["merge_sha256"],
                   reviewer=reviewer, client_id=client, exported_at=exported_at, records=records,
                   tool_version=doc.get("tool_version"))
