"""The build pipeline as plain functions: read → segment → embed → render a static bundle."""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

import jinja2

from mercury_static import __version__
from mercury_static.assist import ranker_options
from mercury_static.bundle import options as bundle_options
from mercury_static.core import safeio, yaml_strict
from mercury_static.bundle.contents import FORMAT, VECTOR_ENCODING, VERSION, ShardLimits, text_id
from mercury_static.formats import Manifest, ModelInfo, default_manifest_settings
from mercury_static.bundle.folder import MARKER, check_output, editing, new_folder, switch
from mercury_static.bundle.pack_page import Page, find_page
from mercury_static.core.records import InputError, Record
from mercury_static.settings.schema import Settings, manifest_settings

log = logging.getLogger("mercury_static")
PACKAGE = Path(__file__).resolve().parents[1]
ROOT = PACKAGE.parent
TEMPLATE_DIR = next(p for p in (PACKAGE / "site_template", ROOT / "site_template")
                    if (p / "index.html").is_file())
"""The page template: inside an installed wheel, else the checkout's site_template/ (editable install)."""
DEFAULT_LABELS: dict = {"Questionable": None, "Benign": None, "Unwanted": ["Intrinsic", "Extrinsic"]}
RUNTIME_FILES = {
    "vendor/transformers.min.js": "@huggingface/transformers/dist/transformers.min.js",
    "vendor/ort-wasm-simd-threaded.mjs": "onnxruntime-web/dist/ort-wasm-simd-threaded.mjs",
    "vendor/ort-wasm-simd-threaded.wasm": "onnxruntime-web/dist/ort-wasm-simd-threaded.wasm",
}
PACKAGED_RUNTIME = PACKAGE / "runtime"
"""The browser runtime inside a wheel built by `make wheel` (the three files, flat)."""
MODEL_FILES = {"config.json": "config.json", "tokenizer.json": "tokenizer.json",
               "tokenizer_config.json": "tokenizer_config.json",
               "onnx/model_quantized.onnx": "page/model_quantized.onnx",
               "onnx/model_quantized.weights": "page/model_quantized.weights"}
"""A bundle's model folder: its file -> the exported model's. The page loads the model's page form
(page_model.py), where transformers.js looks for a q8 model."""
MODEL_WEIGHTS = "onnx/model_quantized.weights"

Step = Callable[[str, int | None], Callable[[int], None]]
"""Progress hook: `step(description, total)` returns `advance(n)` (total None: not known in advance)."""


@dataclass
class BuildOptions:
    """Everything besides the input files that determines a bundle."""

    fmt: str = "auto"
    source_field: str = "source"
    summary_field: str = "summary"
    id_field: str | None = None
    model: Path | None = None
    title: str | None = None
    labels: Path | None = None
    guidelines: Path | None = None
    settings: Path | None = None
    suggestions: Path | None = None
    cache_dir: Path | None = None
    ranker: dict = field(default_factory=dict)
    shards: ShardLimits = field(default_factory=ShardLimits)
    engine: str = "local"
    """Where the embedding runs: "local" (this process's threads) or "ray" (see embed_ray); the bundle is
    the same either way, so the engine is not part of the bundle id."""
    workers: int | None = None
    ray_address: str | None = None
    chunk_records: int = 4096
    """Records per streamed chunk (build_stream.CHUNK_RECORDS; tests set tiny ones). Only the vectors' last
    bits depend on it, and it is a constant of the tool, never derived from the machine."""


def _no_progress(description: str, total: int | None) -> Callable[[int], None]:
    return lambda n: None


def read_label_tree(path: Path):
    """The label tree of a YAML or JSON file (JSON is YAML); InputError keeps pyyaml's line and column."""
    text = safeio.read_text(path, str(path), safeio.SMALL_LIMIT)
    return yaml_strict.load(text, str(path), lambda key, where: InputError(path, where, None,
                                                                          f"duplicate label {str(key)!r}"),
                            "invalid labels: nested too deeply")


def load_labels(path: Path | None) -> tuple[list[str], list[str]]:
    """Label tree (YAML/JSON) → (all dotted paths in display order, the leaves an annotator picks)."""
    return label_paths(DEFAULT_LABELS if path is None else read_label_tree(path), path or "labels")


def label_paths(tree, file) -> tuple[list[str], list[str]]:
    """A label tree (parsed) → (all dotted paths in display order, the leaves an annotator picks)."""
    paths: list[str] = []
    leaves: list[str] = []

    def walk(node, prefix: str, where: str):
        if isinstance(node, dict):
            items = list(node.items())
        elif isinstance(node, list):
            items = []
            for item in node:
                items.extend(item.items() if isinstance(item, dict) else [(item, None)])
        else:
            raise InputError(file, where or "top level", None, "expected a mapping or a list of labels")
        for name, children in items:
            if not isinstance(name, str) or not name.strip() or "." in name:
                raise InputError(file, where or "top level", None,
                                 f"invalid label name {name!r} (non-empty text without dots)")
            full = f"{prefix}.{name.strip()}" if prefix else name.strip()
            if full in paths:
                raise InputError(file, where or "top level", None, f"duplicate label {full!r}")
            paths.append(full)
            if children in (None, [], {}):
                leaves.append(full)
            else:
                walk(children, full, f"under {full!r}")

    try:
        walk(tree, "", "")
    except RecursionError:
        raise InputError(file, None, None, "invalid labels: nested too deeply") from None
    bad = safeio.find_invalid(paths)
    if bad is not None:
        raise InputError(file, None, None, f"invalid label name: {bad[1]}")
    if not leaves:
        raise InputError(file, None, None, "no labels defined")
    return paths, leaves


def load_guidelines(path: Path | None) -> dict | None:
    """Annotator guidelines: Markdown (.md) or plain text."""
    if path is None:
        return None
    text = safeio.read_text(path, str(path), safeio.SMALL_LIMIT)
    fmt = "markdown" if Path(path).suffix.lower() in (".md", ".markdown") else "text"
    return {"format": fmt, "text": text.replace("\r\n", "\n")}


PRESENTATION = ("title", "description", "text", "label_texts", "visible_options", "options_order", "argilla")
"""Keys of the manifest settings that only word or order what the page shows (titles, descriptions, an
option's or a span label's text, how many options show first, their order; the Argilla file read, whose
meaning is in the other keys): left out of the bundle id, as the guidelines are, so a coordinator who
rewords them keeps every export mergeable and every annotator's stored work in place."""


def identity_part(shown: dict) -> dict:
    """The manifest settings without their wording (`PRESENTATION`), for the bundle id."""
    def strip(value):
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k not in PRESENTATION}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value
    return strip(shown)


def untagged_columns(settings: Settings) -> frozenset[str]:
    """Input columns the record list's filter must not match: hidden metadata, and the columns suggestions
    are read from (a blind annotator could otherwise find records by a detector's score)."""
    hidden = {p.column for p in settings.metadata if not p.visible}
    return frozenset(hidden | {c for s in settings.suggestions for c in (s.value_from, s.score_from) if c})


def record_json(r: Record, extras: dict | None = None) -> dict:
    """A record as stored in a record shard (texts by id), with the settings' `fields`/`meta`/`suggestions`
    (record_extras.py) when it has any."""
    meta = r.metadata or {}
    title = meta.get("title") if isinstance(meta.get("title"), str) else None
    return {"id": r.id, "title": title, "source": text_id(r.source), "summary": text_id(r.summary),
            "metadata": meta, "prior_annotations": r.prior_annotations, "gold": r.gold, **(extras or {})}


def text_columns(options: BuildOptions, settings: Settings) -> tuple[str, str]:
    """The input columns of the two texts: the settings' `fields.*.column`, else --source-field /
    --summary-field; both given and different is one line."""
    out = []
    for f, flag, given, default in ((settings.fields.source, "--source-field", options.source_field, "source"),
                                    (settings.fields.summary, "--summary-field", options.summary_field, "summary")):
        if f.column is not None and given not in (default, f.column):
            raise InputError(settings.file, f"fields.{default}", "column",
                             f"{f.column!r} and {flag} {given!r} disagree; give one of them")
        out.append(f.column or given)
    return out[0], out[1]


def span_labels(options: BuildOptions, settings: Settings) -> tuple[list[str], list[str]]:
    """The span question's labels: its `labels` in the settings file, else --labels, else the default."""
    span = settings.span
    if span.labels is None:
        paths, leaves = load_labels(options.labels)
    elif options.labels is not None:
        raise InputError(settings.file, f"questions: {span.name}", "labels",
                         f"labels given twice (here and --labels {options.labels}); give one of them")
    else:
        paths, leaves = label_paths(span.labels, settings.file)
    stray = next((o.value for o in span.label_texts if o.value not in paths), None)
    if stray is not None:
        raise InputError(settings.file, f"questions: {span.name}", "label_texts",
                         f"{stray!r} is not a label (labels: {', '.join(paths)})")
    if span.visible_options is not None and span.visible_options > len(leaves):
        raise InputError(settings.file, f"questions: {span.name}", "visible_options",
                         f"{span.visible_options} is more than the {len(leaves)} labels")
    return paths, leaves


def settings_guidelines(options: BuildOptions, settings: Settings) -> dict | None:
    """The settings file's `guidelines` (Markdown), else --guidelines; both given is one line."""
    if settings.guidelines is None:
        return load_guidelines(options.guidelines)
    if options.guidelines is not None:
        raise InputError(settings.file, None, "guidelines",
                         f"guidelines given twice (here and --guidelines {options.guidelines}); give one of them")
    return {"format": "markdown", "text": settings.guidelines.replace("\r\n", "\n")}


def suggestion_file(options: BuildOptions, settings: Settings) -> Path | None:
    """--suggestions FILE, else the settings' `suggestions.file` (relative to the settings file)."""
    if settings.suggestions_file is None:
        return options.suggestions
    if options.suggestions is not None:
        raise InputError(settings.file, "suggestions", "file",
                         f"a suggestions file given twice (here and --suggestions {options.suggestions})")
    return Path(settings.file).parent / settings.suggestions_file


def find_runtime() -> dict[str, Path]:
    """Where each browser runtime file comes from: $MERCURY_STATIC_RUNTIME (a node_modules folder), the
    wheel's runtime/ folder, else the checkout's build/node_modules (`npm ci --ignore-scripts` in build/)."""
    env = os.environ.get("MERCURY_STATIC_RUNTIME")
    layouts = [{dst: Path(env) / src for dst, src in RUNTIME_FILES.items()}] if env else []
    layouts.append({dst: PACKAGED_RUNTIME / Path(dst).name for dst in RUNTIME_FILES})
    layouts.append({dst: ROOT / "build" / "node_modules" / src for dst, src in RUNTIME_FILES.items()})
    for files in layouts:
        if all(path.is_file() for path in files.values()):
            return files
    raise InputError(str(env or ROOT / "build" / "node_modules"), None, None,
                     "browser runtime not found: run `npm ci --ignore-scripts --prefix build` in the "
                     "mercury-static checkout (or set MERCURY_STATIC_RUNTIME to a node_modules folder)")


def copy_tree(src: Path, dst: Path) -> None:
    """Copy files in sorted order (plain bytes; no metadata, so rebuilds are identical)."""
    for path in sorted(src.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            target = dst / path.relative_to(src)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(path.read_bytes())


def write_page(out: Path, manifest: dict, page: Page) -> None:
    """index.html from the jinja2 template, and the packed page's app/."""
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATE_DIR), autoescape=True,
                             keep_trailing_newline=True)
    html = env.get_template("index.html").render(manifest=manifest, title=manifest["title"],
                                                 tool_version=__version__, preload=page.preload)
    (out / "index.html").write_text(html, encoding="utf-8")
    copy_tree(page.app, out / "app")


def render_site(out: Path, manifest: dict, runtime: dict[str, Path], model_dir: Path, page: Page) -> None:
    """The page, the runtime and the model."""
    write_page(out, manifest, page)
    for dst, src in runtime.items():
        (out / dst).parent.mkdir(parents=True, exist_ok=True)
        (out / dst).write_bytes(src.read_bytes())
    for name, exported in MODEL_FILES.items():
        target = out / manifest["model"]["path"] / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes((model_dir / exported).read_bytes())


def known_label_priors(record: Record, labels: list[str]) -> list[dict]:
    """The record's prior annotations whose labels are all in the bundle's label set; each other one is
    a warning and is kept out of the page's suggestions (accepting it would export a label merge rejects)."""
    known = set(labels)
    kept = []
    for a in record.prior_annotations:
        bad = [x for x in a["label"] if x not in known]
        if bad:
            log.warning("%s: record %s, annotation %s: label %r is not in the bundle's labels (%s); not offered "
                        "as a suggestion", record.origin, record.id, a["id"], bad[-1], ", ".join(labels))
        else:
            kept.append(a)
    return kept


def check_records(records: Iterable[Record], settings: Settings, keep_lengths: bool) -> dict | None:
    """Read and check every record once before any work, so that a bad record stops the build at once (as
    when every record was held) rather than after hours of embedding; returns the text lengths a
    suggestions file is checked against (`keep_lengths`: ~120 B per record), else None."""
    from mercury_static.build.record_extras import check_columns_used, record_extras, settings_columns
    from mercury_static.settings.schema import MetadataRanges

    lengths: dict[str, tuple[int, int]] | None = {} if keep_lengths else None
    ranges = MetadataRanges()
    seen: set[str]
    columns, seen, n = {c for _, _, c in settings_columns(settings)}, set(), 0
    for r in records:
        record_extras([r], settings, {}, ranges)
        seen |= {c for c in columns - seen if r.metadata.get(c) is not None}
        n += 1
        if lengths is not None:
            lengths[r.id] = (len(r.summary), len(r.source))
    check_columns_used(settings, seen, n)
    return lengths


def build(inputs: list[Path], out: Path, options: BuildOptions, step: Step = _no_progress) -> dict:
    """Build a bundle from input files into `out`; returns the manifest. The records stream through
    (build_stream.py): memory does not grow with their number."""
    from mercury_static.bundle.assign import write_queues
    from mercury_static.build.stream import StreamBuild, bundle_id
    from mercury_static.assist.embed import Embedder
    from mercury_static.assist.model_export import ensure_model
    from mercury_static.read.inputs import iter_records
    from mercury_static.settings.reader import read_settings
    from mercury_static.build.record_extras import record_extras
    from mercury_static.bundle.record_vectors import manifest_entry
    from mercury_static.build.scratch import Scratch
    from mercury_static.settings.schema import MetadataRanges
    from mercury_static.build.suggestions import read_suggestion_file
    from mercury_static.build.trained_model import read_training

    out = Path(out)
    settings = read_settings(options.settings)
    source_field, summary_field = text_columns(options, settings)

    def records(seen=None):
        return iter_records([Path(p) for p in inputs], fmt=options.fmt, source_field=source_field,
                            summary_field=summary_field, id_field=options.id_field, seen=seen)

    sugg_path = suggestion_file(options, settings)
    with tempfile.TemporaryDirectory(prefix="mercury-static-check-") as folder:
        ids = Scratch(Path(folder))
        try:
            lengths = check_records(records(ids.id_places()), settings, keep_lengths=sugg_path is not None)
        finally:
            ids.close()
    labels, choices = span_labels(options, settings)
    guidelines = settings_guidelines(options, settings)
    from_file = read_suggestion_file(sugg_path, lengths, settings, choices) if sugg_path and lengths is not None else {}
    trained, trained_ranker = read_training(options.model)
    ranker = ranker_options.validate({**(trained_ranker or {}), **options.ranker}, "--ranker-option")
    title = options.title or (Path(inputs[0]).stem if len(inputs) == 1 else "mercury-static")
    safeio.check(title, "--title" if options.title else f"{inputs[0]} (the title is the file name; pass --title)",
                 None)
    runtime = find_runtime()
    protected = [Path(p) for p in inputs] + [Path(p) for p in (options.labels, options.guidelines, options.model,
                                                                options.settings, sugg_path) if p]
    with editing(out, "build", create=True):  # one command at a time on this folder; leftovers of killed ones removed
        check_output(out, protected)
        tmp, work, engine = new_folder(out), new_folder(out, "work"), None
        try:
            page = find_page(work / "page")
            model = ensure_model(options.model, cache_dir=options.cache_dir)
            embedder = Embedder(model.dir, workers=options.workers)
            if options.engine == "ray":
                from mercury_static.assist.embed_ray import RayEngine

                engine = RayEngine(model.dir, workers=options.workers, address=options.ray_address)
            ranges = MetadataRanges()

            def stored(r) -> dict:
                r.prior_annotations = known_label_priors(r, labels)
                return record_json(r, record_extras([r], settings, from_file, ranges)[0][0])

            stream = StreamBuild(tmp, work, embedder, engine, options.shards,
                                 [p.name for p in settings.metadata if p.visible], settings.similar_records,
                                 keep_ids=bool(settings.distribution), untagged=untagged_columns(settings),
                                 chunk_records=options.chunk_records)
            result = stream.run(records(stream.scratch.id_places()), stored,
                                step("Building (records read, split, embedded and written)", None))
            shown = manifest_settings(settings, ranges)
            model_path = f"models/{model.name}"
            shaping: dict = {"fmt": options.fmt, "source_field": source_field, "summary_field": summary_field,
                       "id_field": options.id_field, "labels": labels}
            if shown != default_manifest_settings():
                shaping["settings"] = identity_part(shown)
            the_id = bundle_id(result, shaping)
            vectors = manifest_entry(model.dim, result.cells) if result.cells is not None else None  # similar_records
            queues = write_queues(tmp, result.record_ids, settings.distribution, the_id) \
                if settings.distribution else None
            manifest = Manifest(
                bundle_id=the_id,
                tool_version=__version__, title=title,
                model=ModelInfo(name=model.name, path=model_path, dim=model.dim, max_seq_length=model.max_seq_length,
                                pooling=model.pooling, sha256=model.sha256, weights=MODEL_WEIGHTS,
                                trained=trained),
                vectors={"encoding": VECTOR_ENCODING, "dim": model.dim},
                counts=result.counts, shards=result.shards, labels=labels, label_choices=choices,
                guidelines=guidelines, ranker=ranker,
                ranker_spec=ranker_options.spec_json(), id_field=options.id_field, settings=shown, queues=queues,
                record_vectors=vectors, ranker_id=bundle_options.ranker_id(ranker)).to_json()
            (tmp / "manifest.json").write_bytes(bundle_options.manifest_bytes(manifest))
            render_site(tmp, manifest, runtime, model.dir, page)
            (tmp / MARKER).write_text(f"{FORMAT} {VERSION}\nWritten by mercury-static build; a later build "
                                      "replaces this folder whole.\n", encoding="utf-8")
            switch(tmp, out)
        finally:
            if engine is not None:
                engine.close()
            shutil.rmtree(work, ignore_errors=True)
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)
    return manifest
