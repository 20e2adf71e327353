"""Fine-tune a sentence-embedding model on training triples, on CPU, reproducibly.

sentence-transformers' model and its MultipleNegativesRankingLoss (the anchor against its positive, every
other positive of the batch and every negative): the loss the measured gain was made with. The loop is
ours rather than its Trainer's so that the same triples and seed give the same weights bit for bit (one
seeded order, deterministic kernels, a fixed thread count) and a batch never holds two triples sharing a
positive (several summaries of one source cite the same sentence: as in-batch negatives they would teach
the model to push the evidence away). The model is written to a folder beside ``out`` and renamed into
place, so an interrupted run leaves nothing half-written.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mercury_static.bundle.trained_model import RANKER_FILE, TRAINING_FILE
from mercury_static.train import scratch
from mercury_static.train.examples import Example

TRAIN_EXTRA = "pip install 'mercury-static[train]'"


@dataclass(frozen=True)
class TrainSettings:
    """The fine-tuning recipe (defaults: the recipe the gain was measured with)."""

    epochs: int = 2
    lr: float = 2e-5
    batch: int = 16
    seed: int = 0
    threads: int = 2
    """Torch's intra-op threads: fixed, because the sums' order (and so the weights' last bits) follows it."""
    max_tokens: int = 128
    """Tokens of a text while training (spans and sentences are short; attention's memory grows with the
    square). The saved model keeps its own length, which the page embeds with."""


def batches(examples: Sequence[Example], size: int, rng: np.random.Generator) -> list[list[int]]:
    """One epoch's batches: a seeded order, a triple whose positive or anchor is already in the open batch
    waits for the next one."""
    waiting = [int(i) for i in rng.permutation(len(examples))]
    out: list[list[int]] = []
    while waiting:
        batch: list[int] = []
        seen: set[str] = set()
        later: list[int] = []
        for i in waiting:
            ex = examples[i]
            if len(batch) < size and ex.positive not in seen and ex.anchor not in seen:
                batch.append(i)
                seen.update((ex.positive, ex.anchor))
            else:
                later.append(i)
        out.append(batch)
        waiting = later
    return out


WRITTEN = ".mercury-static-written"
"""The names of the entries a trained folder was written with: the next `train -o` into it replaces only a
folder holding nothing else."""
SAVED_BEFORE_THE_LIST = frozenset({
    "config.json", "config_sentence_transformers.json", "model.safetensors", "pytorch_model.bin", "modules.json",
    "sentence_bert_config.json", "special_tokens_map.json", "tokenizer.json", "tokenizer_config.json", "vocab.txt",
    "vocab.json", "merges.txt", "added_tokens.json", "sentencepiece.bpe.model", "spiece.model", "1_Pooling",
    "2_Normalize", TRAINING_FILE, RANKER_FILE})
"""What sentence-transformers and train save, for a folder trained before the list was written."""


def written_files(folder: Path) -> frozenset[str]:
    """The entries train wrote in `folder`: its list, else what a folder trained before the list holds."""
    listed = Path(folder) / WRITTEN
    if listed.is_file():
        return frozenset(listed.read_text(encoding="utf-8").split("\n")) - {""}
    return SAVED_BEFORE_THE_LIST


def fine_tune(base: Path, examples: Sequence[Example], out: Path, settings: TrainSettings | None = None,
              progress: Callable[[int, int], None] | None = None, extras: dict[str, bytes] | None = None) -> Path:
    """Train ``base`` (a sentence-transformers folder) on ``examples`` and save it as ``out``, with the
    ``extras`` files (name -> bytes) beside it. ``progress(done, total)`` is called after each step."""
    try:
        import torch
        from sentence_transformers import SentenceTransformer
        from sentence_transformers.sentence_transformer.losses import MultipleNegativesRankingLoss
    except ImportError as e:
        raise ImportError(f"training needs PyTorch and sentence-transformers ({e.name} is missing): "
                          f"{TRAIN_EXTRA}") from None
    settings = settings or TrainSettings()
    torch.manual_seed(settings.seed)
    torch.use_deterministic_algorithms(True)
    threads = torch.get_num_threads()
    torch.set_num_threads(settings.threads)
    try:
        model = SentenceTransformer(str(base), device="cpu")
        length = model.max_seq_length
        model.max_seq_length = min(length, settings.max_tokens)
        loss = MultipleNegativesRankingLoss(model)
        optimizer = torch.optim.AdamW(model.parameters(), lr=settings.lr)
        rng = np.random.default_rng(settings.seed)
        plan = [batches(examples, settings.batch, rng) for _ in range(settings.epochs)]
        total, done = sum(len(p) for p in plan), 0
        model.train()
        for epoch in plan:
            for batch in epoch:
                features = [model.preprocess([getattr(examples[i], part) for i in batch])
                            for part in ("anchor", "positive", "negative")]
                loss(features, None).backward()
                optimizer.step()
                optimizer.zero_grad()
                done += 1
                if progress is not None:
                    progress(done, total)
        model.eval()
        model.max_seq_length = length
        out = Path(out)
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = scratch.make(f".{out.name}-", out.parent)
        try:
            model.save(str(tmp), create_model_card=False)
            for name, data in (extras or {}).items():
                (tmp / name).write_bytes(data)
            names = sorted(p.name for p in tmp.iterdir())
            (tmp / WRITTEN).write_text("\n".join([*names, WRITTEN]) + "\n", encoding="utf-8")
            if out.exists():
                shutil.rmtree(out)
            os.replace(tmp, out)
        finally:
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)
        return out
    finally:
        torch.set_num_threads(threads)
        torch.use_deterministic_algorithms(False)
