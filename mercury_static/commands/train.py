"""`train`: the similarity model fine-tuned on the team's pairs, kept only if held-out sources gain.

Two calls, the inputs then the training: the CLI says what it read in between, and an interrupt means
"nothing written" only during the training."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from mercury_static.core.safeio import check_writable, write_json
from mercury_static.merge.collect import read_local
from mercury_static.train.finetune import TrainSettings
from mercury_static.train.train import (Progress, TrainResult, base_model, check_out, check_train_pairs,
                                        clear_leftovers, train as fine_tune)
from mercury_static.tune.tune import Pairs, load_pairs


@dataclass
class TrainInputs:
    """The pairs read, the model to fine-tune, and what no output may overwrite."""

    pairs: Pairs
    base: Path
    protected: list[Path]


def train_inputs(inputs: list, bundle: Path, out: Path, base: Path | None, report: Path | None,
                 read: Callable[[Pairs], None]) -> TrainInputs:
    """Check `out` and `report`, clear what killed runs left, and read the pairs of `inputs` (paths, or storage
    addresses fetched for the call) on `bundle`: handed to `read`, then refused when too few to train on."""
    protected = [*(i for i in inputs if isinstance(i, Path)), bundle]
    check_out(out, protected)
    clear_leftovers(out)
    if report is not None:
        check_writable(report, protected + [out])
    source = base_model(bundle, base)
    pairs, local = read_local(inputs, lambda paths: load_pairs(paths, bundle))
    pairs.files = [local.names.get(str(p), str(p)) for p in local.paths]
    read(pairs)
    check_train_pairs(pairs)
    return TrainInputs(pairs, source, protected)


def train(inputs: TrainInputs, out: Path, report: Path | None, settings: TrainSettings, folds: int,
          progress: Progress) -> TrainResult:
    """Cross-validate and, if held-out sources gain, write the trained model to `out`; the figures to `report`."""
    result = fine_tune(inputs.pairs, inputs.base, out, settings, folds, progress=progress)
    if report:
        write_json(report, result.to_dict(), inputs.protected)
    return result
