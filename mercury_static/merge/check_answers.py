"""The coordinator's known answers of check records (docs/checks.md): a gold file (`gold -o`), a merged file
(`merge -o`) or a Mercury dump, read with merge's own reader and checks against the bundle, so its records
are matched as merge matches them (by id, else by their texts) and every span and answer is checked.

A known answer is one reading: a record holding the work of several annotators is refused, unless it is a
gold record (its spans were proposed by several annotators and decided by a reviewer). `assign` uses the
record ids; `merge --checks` the answers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from mercury_static.bundle.contents import Bundle
from mercury_static.core import mercury, safeio
from mercury_static.core.records import InputError
from mercury_static.merge.inputs import InputReader
from mercury_static.merge.versions import Counts, resolve

NOT_IN_BUNDLE = ("a check record must be a record of the bundle: adding records is a rebuild (build with them "
                 "among the inputs, then assign again)")


@dataclass(frozen=True)
class KnownSentence:
    """The known verdict of one summary sentence and the source sentences that are its evidence."""

    verdict: str
    evidence: frozenset[int] = frozenset()


@dataclass
class Known:
    """One check record's known answer: its spans (merged annotations), its question answers, its sentence
    verdicts by summary sentence index."""

    record_id: str
    annotations: list[dict] = field(default_factory=list)
    values: dict = field(default_factory=dict)
    sentences: dict[int, KnownSentence] = field(default_factory=dict)


def read_known(path: Path, bundle: Bundle) -> dict[str, Known]:
    """The known answers by record id, in the file's order; any fault one `InputError` (the file, the record
    and the field)."""
    path = Path(path)
    doc = safeio.read_json(path, safeio.EXPORT_LIMIT)
    if isinstance(doc, dict) and "format" in doc:
        raise InputError(path, None, "format", "an annotator's export is not a known answer: merge it first "
                         "(merge -o) or review it (gold), then give that file")
    samples = mercury.samples(doc)
    reader = InputReader(bundle, strict=True)
    try:
        reader.read(path)
    except InputError as e:
        if "not in the bundle" in e.message:
            raise InputError(e.file, e.where, e.field, f"{e.message}: {NOT_IN_BUNDLE}") from None
        raise
    ids = reader.dump_samples[path]
    if not ids:
        raise InputError(path, None, "samples", "no records: a known-answer file needs at least one")
    resolved = resolve(reader.versions, Counts())
    known: dict[str, Known] = {}
    for sample, rid in zip(samples or [], ids):
        if rid in known:
            raise InputError(path, f"record {rid}", None, "given twice (a check record has one known answer)")
        annotations = resolved.annotations.get(rid, [])
        responses = resolved.responses.get(rid, [])
        who = sorted({a["annotator"] for a in annotations} | {r["annotator"] for r in responses})
        if len(who) > 1 and "review" not in sample:
            raise InputError(path, f"record {rid}", "annotator", f"holds the work of {len(who)} annotators "
                             f"({', '.join(who)}): a known answer is one reading (give the gold of a review, "
                             "or one annotator's work)")
        values: dict = {}
        for r in responses:
            values.update(r.get("values") or {})
        record = bundle.record(rid)
        n_summary = len(record.summary_text.sentences) if record else 0
        n_source = len(record.source_text.sentences) if record else 0
        known[rid] = Known(rid, annotations, values,
                           known_sentences(sample.get("sentences"), path, rid, n_summary, n_source))
    return known


def known_sentences(entries, path: Path, rid: str, n_summary: int, n_source: int) -> dict[int, KnownSentence]:
    """A merged or gold record's `sentences` (docs/sentence-verdicts.md, "Merged record") as the known verdict
    of each summary sentence; two different verdicts for one sentence are refused."""
    if entries is None:
        return {}
    where = f"record {rid}"
    if not isinstance(entries, list):
        raise InputError(path, where, "sentences", "expected a list of {sentence, verdict, evidence}")
    out: dict[int, KnownSentence] = {}
    for j, e in enumerate(entries):
        field_name = f"sentences[{j}]"
        index = e.get("sentence") if isinstance(e, dict) else None
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < n_summary:
            raise InputError(path, where, field_name, f"'sentence' must be a summary sentence 0..{n_summary - 1}")
        if not isinstance(e.get("verdict"), str):
            raise InputError(path, where, field_name, "'verdict' must be a string")
        evidence = e.get("evidence") or []
        numbers = [x.get("sentence") if isinstance(x, dict) else x for x in evidence] \
            if isinstance(evidence, list) else None
        if numbers is None or not all(isinstance(x, int) and not isinstance(x, bool) and 0 <= x < n_source
                                      for x in numbers):
            raise InputError(path, where, field_name, f"'evidence' must list source sentences 0..{n_source - 1}")
        found = KnownSentence(e["verdict"], frozenset(int(x) for x in numbers if x is not None))
        if out.get(index, found) != found:
            raise InputError(path, where, field_name, f"sentence {index} has two different known verdicts")
        out[index] = found
    return out
