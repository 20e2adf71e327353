"""The build as a script of plain steps: read once → split → embed → write → model → manifest → page.

Each step is a function of the module that owns it; `build` runs them in order. The records stream from
the read step's spool through split, embed and write a chunk at a time (stream.py), so memory does not grow
with their number; the model (cut to the vocabulary of the texts, vocabulary.py), the manifest and the page
are written once every record is.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from mercury_static.bundle.contents import FORMAT, VERSION, ShardLimits
from mercury_static.core import safeio

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
    """Records per streamed chunk (stream.CHUNK_RECORDS; tests set tiny ones). Only the vectors' last
    bits depend on it, and it is a constant of the tool, never derived from the machine."""


def _no_progress(description: str, total: int | None) -> Callable[[int], None]:
    return lambda n: None


def build(inputs: list[Path], out: Path, options: BuildOptions, step: Step = _no_progress) -> dict:
    """Build a bundle from input files into `out`; returns the manifest."""
    from mercury_static.assist import ranker_options
    from mercury_static.assist.embed import load_embedder
    from mercury_static.assist.model_export import cache_root, ensure_model
    from mercury_static.pipeline.read_once import read_once
    from mercury_static.pipeline.record_extras import stored_record, untagged_columns
    from mercury_static.pipeline.stream import StreamBuild
    from mercury_static.pipeline.suggestions import read_suggestion_file
    from mercury_static.bundle.trained_model import read_training
    from mercury_static.bundle.assign import write_queues
    from mercury_static.bundle.folder import MARKER, check_output, editing, new_folder, switch
    from mercury_static.bundle.manifest import bundle_id, shaping, write_manifest
    from mercury_static.bundle.page import find_page, find_runtime, model_download, write_model, write_page
    from mercury_static.bundle.precompress import write_siblings
    from mercury_static.bundle.vocabulary import rows_of, shrink_model
    from mercury_static.settings import flags
    from mercury_static.settings.reader import read_settings
    from mercury_static.settings.manifest import manifest_settings
    from mercury_static.settings.model import MetadataRanges

    out, inputs = Path(out), [Path(p) for p in inputs]
    settings = read_settings(options.settings)
    source_field, summary_field = flags.text_columns(settings, options.source_field, options.summary_field)
    suggestions = flags.suggestion_file(settings, options.suggestions)
    with tempfile.TemporaryDirectory(prefix="mercury-static-read-") as scratch:
        # read once: every record checked before any work; then what the records need besides themselves
        records = read_once(inputs, Path(scratch), settings, fmt=options.fmt, source_field=source_field,
                            summary_field=summary_field, id_field=options.id_field,
                            keep_lengths=suggestions is not None)
        settings = records.settings  # with the data's own sentence verdicts when the settings name none
        labels, choices = flags.span_labels(settings, options.labels)
        guidelines = flags.guidelines(settings, options.guidelines)
        from_file = read_suggestion_file(suggestions, records.lengths or {}, settings, choices) \
            if suggestions else {}
        trained, trained_ranker = read_training(options.model)
        ranker = ranker_options.validate({**(trained_ranker or {}), **options.ranker}, "--ranker-option")
        title = options.title or (inputs[0].stem if len(inputs) == 1 else "mercury-static")
        safeio.check(title, "--title" if options.title else f"{inputs[0]} (the title is the file name; pass "
                     "--title)", None)
        runtime = find_runtime()
        protected = inputs + [Path(p) for p in (options.labels, options.guidelines, options.model,
                                                options.settings, suggestions) if p]
        with editing(out, "build", create=True):  # one command at a time on this folder; leftovers removed
            check_output(out, protected)
            tmp, work, engine = new_folder(out), new_folder(out, "work"), None
            try:
                page = find_page(options.cache_dir)
                model = ensure_model(options.model, cache_dir=options.cache_dir)
                embedder = load_embedder(model.dir, workers=options.workers)
                if options.engine == "ray":
                    from mercury_static.assist.embed_ray import RayEngine

                    engine = RayEngine(model.dir, workers=options.workers, address=options.ray_address)
                # split → embed → write, a chunk of records at a time
                ranges = MetadataRanges()
                stream = StreamBuild(tmp, work, embedder, engine, options.shards,
                                     [p.name for p in settings.metadata if p.visible], settings.similar_records,
                                     keep_ids=bool(settings.distribution), untagged=untagged_columns(settings),
                                     chunk_records=options.chunk_records)
                data = stream.run(records, lambda r: stored_record(r, settings, (labels, choices), from_file, ranges),
                                  step("Building (records read, split, embedded and written)", None))
                # manifest → page, once every record is written
                shown = manifest_settings(settings, ranges)
                the_id = bundle_id(shaping(fmt=options.fmt, source_field=source_field, summary_field=summary_field,
                                           id_field=options.id_field, labels=labels, settings=shown),
                                   data.spool, data.text_ids)
                queues = write_queues(tmp, data.record_ids, settings.distribution, the_id) \
                    if settings.distribution else None
                # the model cut to the bundle's vocabulary → manifest → page
                model_folder = tmp / "models" / model.name
                write_model(model_folder, model.dir)
                shrink_model(model_folder, rows_of(
                    tmp / "data" / f"texts-{i:04d}.json" for i in range(data.shards["texts"])))
                manifest = write_manifest(
                    tmp, the_id=the_id, title=title, model=model, trained=trained, counts=data.counts,
                    shards=data.shards, labels=labels, label_choices=choices, guidelines=guidelines, ranker=ranker,
                    id_field=options.id_field, settings=shown, queues=queues, cells=data.cells,
                    download=model_download(model_folder, runtime))
                write_page(tmp, manifest, page, runtime)
                write_siblings(tmp, cache_root(options.cache_dir) / "compressed")
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
