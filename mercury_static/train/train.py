"""``train``: fine-tune the bundle's model on the team's pairs, and keep it only if held-out records say so.

The pairs are tune's (tune.load_pairs: merge's reading and checks). The gain is measured by k-fold
cross-validation with folds drawn over sources, not records: the several summaries of one source cite the
same sentences, and a model that has seen a source's sentences in training would be scored on them. Fold
f's model is fine-tuned without fold f, exported through the page-model path (int8 as the page runs it),
and ranks fold f's queries as the page does (its rows re-embedded, the selection's tokens in context and
the context), with the bundle's ranker options; the current model ranks the same queries from the bundle's
own vectors. The model is written only when the paired per-fold MRR gain has its 95% interval above 0.

The ranker is then re-fitted on the out-of-fold ranking (each query ranked by the model that never saw its
source), with tune's shrunk fit and its own held-out check: its weights are kept only when they help.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from mercury_static.assist import ranker_options
from mercury_static.bundle.contents import stored_rows, text_id
from mercury_static.bundle.ranker_file import options_file
from mercury_static.core.safeio import dumps, read_checked
from mercury_static.core.records import InputError
from mercury_static.formats import TRAINING
from mercury_static.train import scratch as scratch_folder
from mercury_static.train.examples import make_examples
from mercury_static.train.finetune import TrainSettings, fine_tune, written_files
from mercury_static.bundle.trained_model import RANKER_FILE, TRAINING_FILE
from mercury_static.tune import crossval
from mercury_static.tune.evaluate import EvalSet, IndexedText, context_vector, query_rows, selection_vectors
from mercury_static.tune.tune import Pairs, TuneResult, check_pairs, tune


SCRATCH = ".train-"
"""The held-out check's scratch in the temp folder (`.train-<pid>-…`): the models of the folds."""

Progress = Callable[[str, int, int], None]
"""(stage, done, total)."""


@dataclass
class TrainResult:
    """The held-out figures of the current and the trained model, and what was written."""

    pairs: int
    records: int
    sources: int
    folds: int
    examples: int
    files: list[str]
    settings: TrainSettings
    scores: dict[str, dict[str, crossval.Interval]]  # "mrr" / "r1" -> "current" / "trained" / "gain"
    seconds: float = 0.0
    model: Path | None = None
    sha256: str | None = None
    ranker: dict | None = None
    ranker_tune: TuneResult | None = None
    used: list[str] = field(default_factory=list)

    @property
    def recommended(self) -> bool:
        return self.scores["mrr"]["gain"].low > 0

    def provenance(self) -> dict:
        """training.json: what the model was trained from and its held-out figures."""
        return {"format": TRAINING.name, "version": TRAINING.version, "pairs": self.pairs, "records": self.records,
                "sources": self.sources, "examples": self.examples, "from": [Path(f).name for f in self.files],
                "settings": vars(self.settings), "folds": self.folds,
                "held_out": {m: {k: vars(v) for k, v in by.items()} for m, by in self.scores.items()}}

    def to_dict(self) -> dict:
        return {**self.provenance(), "recommended": self.recommended, "seconds": round(self.seconds, 1),
                "model": str(self.model) if self.model else None, "sha256": self.sha256, "ranker": self.ranker,
                "ranker_tuned": self.ranker_tune.to_dict() if self.ranker_tune else None, "used": self.used}


def reembed(data: EvalSet, keep: np.ndarray, embedder) -> EvalSet:
    """The queries where ``keep`` is true, ranked inputs recomputed with ``embedder``: every row of their
    texts (the bundle's own rows), each query's text, its tokens in context and its context."""
    sub = crossval.subset(data, keep)
    texts = {tid: data.index[tid] for q, r in sub.queries for tid in (text_id(r.source), text_id(r.summary))}
    flat = [t.text[s:e] for t in texts.values() for _, s, e in t.rows]
    vectors = stored_rows(embedder.embed(flat)) if flat else np.zeros((0, embedder.dim), np.float32)
    index: dict[str, IndexedText] = {}
    pos = 0
    for tid, t in texts.items():
        per: list[list[np.ndarray]] = [[] for _ in t.spans]
        for i, _, _ in t.rows:
            per[i].append(vectors[pos])
            pos += 1
        index[tid] = IndexedText(t.text, list(t.spans), [np.array(v, np.float32).reshape(-1, embedder.dim)
                                                         for v in per], list(t.rows))
    queries = sub.queries
    return EvalSet(index, queries, embedder.embed([q.text for q, _ in queries]),
                   [context_vector(index[text_id(r.summary)], q.selection) if q.selection else (None, "")
                    for q, r in queries],
                   token_vectors=selection_vectors(queries, index, embedder, None))


def joined(parts: list[EvalSet]) -> EvalSet:
    """One eval set of several with disjoint texts (the folds' out-of-fold sets)."""
    dim = parts[0].vectors.shape[1]
    return EvalSet({k: v for p in parts for k, v in p.index.items()}, [q for p in parts for q in p.queries],
                   np.concatenate([p.vectors for p in parts]).reshape(-1, dim),
                   [c for p in parts for c in p.contexts],
                   token_vectors=np.concatenate([p.token_vectors for p in parts if p.token_vectors is not None]))


def source_folds(data: EvalSet, k: int, seed: int = 0) -> np.ndarray:
    """The fold of every query: folds over sources (stratified by length), a record's fold its source's."""
    folds = crossval.assign_folds([(text_id(r.source), len(r.source)) for _, r in data.queries], k, seed)
    return np.array([folds[text_id(r.source)] for _, r in data.queries])


def _fold_means(rows_per_fold: list[list[dict]], metric: str) -> list[float]:
    return [float(np.mean([r[metric] for r in rows if r["kind"] == "span"])) for rows in rows_per_fold]


def check_train_pairs(pairs: Pairs) -> None:
    """What train refuses in the pairs, checked before it says it is fine-tuning."""
    where = check_pairs(pairs, "train")
    if len({text_id(r.source) for _, r in pairs.data.queries}) < 2:
        raise InputError(where, None, None, "every pair is on one source; cross-validation over sources needs "
                         "pairs on 2 or more")


def train(pairs: Pairs, base: Path, out: Path, settings: TrainSettings | None = None, folds: int = 5,
          cache_dir: Path | None = None, progress: Progress | None = None) -> TrainResult:
    """Cross-validate the fine-tuned model against the bundle's; if it gains, train it on every pair, write
    it to ``out`` with its training.json and ranker.json, and export it (the cache ``build --model`` reads)."""
    from mercury_static.assist.embed import Embedder
    from mercury_static.assist.model_export import ensure_model

    started = time.monotonic()
    settings = settings or TrainSettings()
    data = pairs.data
    check_train_pairs(pairs)
    sources = len({text_id(r.source) for _, r in data.queries})
    current = ranker_options.validate(pairs.options, "the bundle's ranker options")
    k = min(folds, sources)
    fold = source_folds(data, k, settings.seed)
    every = list(range(len(data.queries)))
    examples = make_examples(data, every, settings.seed)

    def step(stage: str) -> Callable[[int, int], None] | None:
        return None if progress is None else (lambda done, total: progress(stage, done, total))

    base_rows, trained_rows, out_of_fold = [], [], []
    scratch = scratch_folder.make(SCRATCH)
    try:
        for f in range(k):
            held = fold == f
            model_dir = fine_tune(base, make_examples(data, [i for i in every if not held[i]], settings.seed),
                                  Path(scratch) / f"fold-{f}", settings, step(f"fold {f + 1}/{k}: training"))
            exported = ensure_model(model_dir, cache_dir=Path(scratch) / "cache")
            scored = reembed(data, held, Embedder(exported.dir))
            out_of_fold.append(scored)
            trained_rows.append(query_rows(scored, 5, current, controls=False))
            base_rows.append(query_rows(crossval.subset(data, held), 5, current, controls=False))
            shutil.rmtree(model_dir)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    scores = {}
    for name, metric in (("mrr", "rr"), ("r1", "r1")):
        b, t = _fold_means(base_rows, metric), _fold_means(trained_rows, metric)
        scores[name] = {"current": crossval.interval(b), "trained": crossval.interval(t),
                        "gain": crossval.interval(np.subtract(t, b))}
    result = TrainResult(len(data.queries), pairs.records, sources, k, len(examples), pairs.files, settings, scores,
                         used=[f"record {q.record_id}: {q.text!r} -> source sentence "
                               + ", ".join(str(i + 1) for i in sorted(q.relevant)) for q, _ in data.queries])
    if result.recommended:
        try:
            result.ranker_tune = tune(Pairs(joined(out_of_fold), pairs.records, pairs.files, current),
                                      seed=settings.seed)
        except InputError:  # too few pairs with a context to fit weights: the bundle's options stay
            result.ranker_tune = None
        tuned = result.ranker_tune is not None and result.ranker_tune.recommended
        result.ranker = result.ranker_tune.tuned if result.ranker_tune and tuned else current
        extras = {TRAINING_FILE: (dumps(result.provenance(), sort_keys=True, indent=1) + "\n").encode("utf-8"),
                  RANKER_FILE: options_file(result.ranker, result.ranker_tune.provenance()
                                            if result.ranker_tune and tuned else None)}
        fine_tune(base, examples, out, settings, step("training on every pair"), extras)
        exported = ensure_model(out, cache_dir=cache_dir)
        result.model, result.sha256 = Path(out), exported.sha256
    result.seconds = time.monotonic() - started
    return result


def base_model(bundle_dir: Path, base: Path | None) -> Path:
    """The Hugging Face folder to fine-tune: ``base``, else the shipped model's source when the bundle was
    built with it (the bundle carries only the page's int8 form, which cannot be trained)."""
    from mercury_static.assist.model_export import DEFAULT_MODEL_NAME, default_model_path
    from mercury_static.bundle.contents import load_bundle

    if base is not None:
        config = Path(base) / "config.json"
        if not config.is_file():
            raise InputError(base, None, None, "not a Hugging Face model folder (no config.json)")
        doc = read_checked(config)
        if not isinstance(doc, dict) or not isinstance(doc.get("model_type"), str) or not doc["model_type"]:
            raise InputError(config, None, "model_type", "missing: not a Hugging Face model's configuration "
                             "(give the folder a model was saved to, e.g. by save_pretrained)")
        return Path(base)
    model = load_bundle(bundle_dir).manifest["model"]
    if model.get("name") != DEFAULT_MODEL_NAME:
        raise InputError(bundle_dir, None, "model", f"the bundle's model is {model.get('name')!r}: give the folder "
                         "it was built from with --base (a trained one: the folder train -o wrote)")
    return default_model_path()


def clear_leftovers(out: Path) -> list[Path]:
    """Remove the scratch that killed runs left: the folds' models in the temp folder and a model being saved
    beside `out` (each named with a process id that is gone)."""
    return [*scratch_folder.remove_dead(SCRATCH, Path(tempfile.gettempdir())),
            *scratch_folder.remove_dead(f".{Path(out).name}-", Path(out).parent)]


def check_out(out: Path, protected: list[Path]) -> None:
    """``-o`` may be a new folder or one train wrote before (replaced whole: its training.json of this format
    and nothing it did not write); nothing else is overwritten, and the folder it goes in must take it."""
    from mercury_static.bundle.trained_model import read_training
    from mercury_static.core.safeio import resolved

    out = Path(out)
    target = resolved(out)
    if any(target == resolved(p) or resolved(p).is_relative_to(target) or target.is_relative_to(resolved(p))
           for p in protected):
        raise InputError(out, None, None, "-o would overwrite an input or the bundle")
    not_ours = "exists and is not a model folder train wrote: give a new folder"
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        if not out.is_dir() or not (out / TRAINING_FILE).is_file():
            raise InputError(out, None, None, not_ours)
        try:
            read_training(out)
        except InputError as e:
            raise InputError(out, None, None, f"{not_ours} ({e})") from None
        written = written_files(out)
        extra = sorted(p.name for p in out.iterdir() if p.name not in written)
        if extra:
            raise InputError(out, None, None, f"holds {extra[0]!r}, which train did not write: give a new folder "
                             "(or move it out)")
    parent = resolved(out).parent
    while not parent.exists():
        parent = parent.parent
    try:
        tempfile.TemporaryDirectory(prefix=".train-check-", dir=parent).cleanup()
    except OSError as e:
        raise InputError(out, None, None, f"-o cannot be written in {parent}: {e.strerror or e}") from None
