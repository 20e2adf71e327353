"""QAGS layout (mturk_cnndm.jsonl, mturk_xsum.jsonl): one object per summary, judged a sentence at a time.

``{"article": "...", "summary_sentences": [{"sentence": "...", "responses": [{"worker_id": 0, "response":
"yes"}, ...]}, ...]}``. The source is the article; the summary is the sentences, stripped, joined with one
space, each sentence's offsets its given cut (`Record.summary_sentences`), so a judgment's sentence index is
the bundle's. Each response is a prior sentence verdict of annotator ``worker-<worker_id>``; a worker who
answers the same sentence again is kept as ``worker-<id>#2`` (and so on: no judgment is lost), counted in a
warning. A response is read against the settings' verdicts, else QAGS's yes/no, with surrounding whitespace
and case ignored ("Yes " is "yes"). Other top-level keys are metadata; a sentence's other keys go to the
metadata's ``sentence_metadata`` (one object per sentence), a response's to its verdict's ``metadata``.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from pathlib import Path

from mercury_static.core import mercury, safeio
from mercury_static.core.records import InputError, Record
from mercury_static.read.record import Item, Options, identity, text_field
from mercury_static.read.sentences import join_sentences, read_verdict
from mercury_static.settings.model import DATASET_VERDICTS

log = logging.getLogger("mercury_static")

SCALE = "qags"
KEYS = ("article", "summary_sentences")
"""The keys `--format auto` knows a QAGS object by."""


def is_qags(obj) -> bool:
    """Whether a first record looks like QAGS's (`--format auto`)."""
    return isinstance(obj, dict) and "article" in obj and isinstance(obj.get("summary_sentences"), list)


def worker_name(worker_id: str) -> str:
    """The annotator a QAGS worker is (merge names them so too)."""
    return f"worker-{worker_id}"


def read_qags(objects: Iterable[tuple[str, object]], name: str, opts: Options) -> Iterator[Item]:
    """One record per (place, object) pair: ``line N`` of JSON Lines or ``record N`` of a JSON list."""
    repeated = 0
    position = 0
    for where, obj in objects:
        item, again = qags_item(obj, position, where, name, opts)
        repeated += again
        position += 1
        yield item
    if position == 0:
        raise InputError(name, None, None, "no records")
    if repeated:
        log.warning("%s: %d responses by a worker who had already answered that sentence, kept as a second "
                    "annotator (worker-ID#2)", name, repeated)


def qags_item(obj, position: int, where: str, name: str, opts: Options) -> tuple[Item, int]:
    """The record of one QAGS object, and how many of its responses repeat a worker on a sentence."""
    if not isinstance(obj, dict):
        raise InputError(name, where, None, f"expected a JSON object, got {safeio.json_kind(obj)}")
    safeio.check(obj, name, where)
    rec_id, id_key, fields, nested = identity(obj, position, where, name, opts)
    for key in KEYS:
        if key not in fields:
            raise InputError(name, where, key, f"missing (fields: {', '.join(obj) or 'none'})")
    source = text_field(fields.pop("article"), name, where, "article")
    entries = fields.pop("summary_sentences")
    if not isinstance(entries, list) or not entries:
        raise InputError(name, where, "summary_sentences", "expected a non-empty list of {sentence, responses}, "
                         f"got {safeio.json_kind(entries) if entries != [] else 'an empty list'}")
    allowed = opts.verdicts or DATASET_VERDICTS[SCALE].values
    sentences: list[str] = []
    extras: list[dict] = []
    priors: list[dict] = []
    repeated = 0
    for i, entry in enumerate(entries):
        key = f"summary_sentences[{i}]"
        if not isinstance(entry, dict):
            raise InputError(name, where, key, f"expected an object {{sentence, responses}}, got "
                             f"{safeio.json_kind(entry)}")
        sentence = entry.get("sentence")
        if not isinstance(sentence, str) or not sentence.strip():
            raise InputError(name, where, f"{key}.sentence", "missing" if sentence is None else
                             "empty sentence" if isinstance(sentence, str) else
                             f"expected a string, got {safeio.json_kind(sentence)}")
        sentences.append(sentence)
        extras.append({k: v for k, v in entry.items() if k not in ("sentence", "responses")})
        responses = entry.get("responses")
        if not isinstance(responses, list):
            raise InputError(name, where, f"{key}.responses", "missing" if responses is None else
                             f"expected a list of {{worker_id, response}}, got {safeio.json_kind(responses)}")
        named: set[str] = set()
        for j, r in enumerate(responses):
            rkey = f"{key}.responses[{j}]"
            if not isinstance(r, dict):
                raise InputError(name, where, rkey, f"expected an object {{worker_id, response}}, got "
                                 f"{safeio.json_kind(r)}")
            if "worker_id" not in r:
                raise InputError(name, where, f"{rkey}.worker_id", "missing")
            worker = worker_name(mercury.id_text(r["worker_id"], name, where, f"{rkey}.worker_id"))
            verdict = read_verdict(r.get("response"), allowed, name, where, f"{rkey}.response")
            annotator, n = worker, 1
            while annotator in named:
                n += 1
                annotator = f"{worker}#{n}"
            repeated += n > 1
            named.add(annotator)
            prior = {"annotator": annotator, "sentence": i, "verdict": verdict}
            other = {k: v for k, v in r.items() if k not in ("worker_id", "response")}
            priors.append({**prior, "metadata": other} if other else prior)
    summary, cut = join_sentences(sentences)
    metadata = {**nested, **fields}
    if any(extras):
        metadata["sentence_metadata"] = extras
    origin = f"{Path(name).name}:{where.split()[-1]}" if where.startswith("line") \
        else f"{Path(name).name}[{where.split()[-1]}]"
    record = Record(id=rec_id, source=source, summary=summary, metadata=metadata, origin=origin,
                    summary_sentences=cut, prior_sentences=priors, verdict_scale=SCALE)
    return Item(record, where, id_key), repeated
