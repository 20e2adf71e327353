"""The build's read step: every input record read once, checked, and spooled to a scratch file that the
later steps (split, embed, write) read instead of the input files.

Why a spool and not a second read: a bad record must stop the build before any work (as when every record
was held), not after hours of embedding, and the suggestions file is checked against every record's text
lengths before the first chunk; reading the inputs again for the work would parse every file twice and
print each of its warnings twice. Memory holds one record (and, with a suggestions file, ~120 B per record
for the lengths); the spool is on disk. Consecutive records sharing a source (a SummHay haystack) spool it
once.
"""

from __future__ import annotations

import hashlib
import json
import pickle
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from mercury_static.pipeline.record_extras import check_columns_used, record_extras, settings_columns
from mercury_static.pipeline.scratch import Scratch, text_key
from mercury_static.bundle.contents import text_id
from mercury_static.core.records import InputError, Record
from mercury_static.read.inputs import iter_records
from mercury_static.read.sentences import check_cut
from mercury_static.settings.model import DATASET_VERDICTS, MetadataRanges, Settings

SPOOL = "records.pickle"


@dataclass(frozen=True)
class ReadRecords:
    """The checked records on disk, in input order."""

    spool: Path
    count: int
    lengths: dict[str, tuple[int, int]] | None
    """Record id → (len summary, len source), when asked for (a suggestions file is checked against them)."""
    settings: Settings
    """The settings the build goes on with: those given, with `sentence_verdicts` the data's own
    (`DATASET_VERDICTS`) when they name none and the records hold sentence judgments."""

    def __iter__(self) -> Iterator[Record]:
        """The records, as read (our own file, written by `read_once`: pickle is its encoding)."""
        source = ""
        with open(self.spool, "rb") as f:
            while True:
                try:
                    record, shared = pickle.load(f)
                except EOFError:
                    return
                if shared:
                    record.source = source
                source = record.source
                yield record


def read_once(paths: list[Path], folder: Path, settings: Settings, *, fmt: str, source_field: str,
              summary_field: str, id_field: str | None, keep_lengths: bool) -> ReadRecords:
    """Read every record of `paths` (ids unique across them), check what the settings read from it, and
    spool it into `folder`; after the last one, every column the settings name must be in some record."""
    lengths: dict[str, tuple[int, int]] | None = {} if keep_lengths else None
    ranges = MetadataRanges()
    columns = {c for _, _, c in settings_columns(settings)}
    seen: set[str] = set()
    count, source = 0, None
    given = settings.sentence_verdicts
    scale: tuple[str, str] | None = None  # the data's verdicts (name, first record) when the settings name none
    ids = Scratch(folder)
    try:
        with open(folder / SPOOL, "wb") as spool:
            for r in iter_records(paths, fmt=fmt, source_field=source_field, summary_field=summary_field,
                                  id_field=id_field, seen=ids.id_places(),
                                  verdicts=given.values if given else None):
                if r.verdict_scale is not None and given is None:
                    if scale is None:
                        scale = (r.verdict_scale, r.origin)
                        settings = replace(settings, sentence_verdicts=DATASET_VERDICTS[r.verdict_scale])
                    elif scale[0] != r.verdict_scale:
                        raise InputError(r.origin, f"record {r.id}", "sentence_verdicts",
                                         f"its verdicts are {r.verdict_scale}'s, {scale[1]}'s {scale[0]}'s; name "
                                         "the verdicts in the settings (sentence_verdicts.options)")
                _check_sentences(r, ids, source == r.source)
                record_extras([r], settings, {}, ranges)
                seen |= {c for c in columns - seen if r.metadata.get(c) is not None}
                count += 1
                if lengths is not None:
                    lengths[r.id] = (len(r.summary), len(r.source))
                shared = r.source == source
                pickle.dump((replace(r, source="") if shared else r, shared), spool, pickle.HIGHEST_PROTOCOL)
                source = r.source
    finally:
        ids.close()
    check_columns_used(settings, seen, count)
    return ReadRecords(folder / SPOOL, count, lengths, settings)


def _check_sentences(r: Record, scratch: Scratch, shared_source: bool) -> None:
    """A record's given cut checked against its summary, its sentence judgments against the sentences, and
    each text's cut against the cut of its earlier uses (texts are stored once: a second cut would be
    dropped silently)."""
    where = f"record {r.id}"
    cut = None
    if r.summary_sentences is not None:
        r.summary_sentences = cut = check_cut(r.summary, [list(c) for c in r.summary_sentences], r.origin, where,
                                              "summary_sentences")
    n = len(cut) if cut is not None else None
    for key, items in (("prior_sentences", r.prior_sentences), ("sentence_suggestions", r.sentence_suggestions)):
        for item in items:
            if n is None or not 0 <= item["sentence"] < n:
                raise InputError(r.origin, where, key, f"sentence {item['sentence']} is not one of the summary's "
                                 f"{n or 0} given sentences")
    texts = [("summary", r.summary, _digest(cut))] + ([] if shared_source else [("source", r.source, b"")])
    for kind, text, digest in texts:
        first = scratch.other_cut(text_key(text_id(text)), digest, f"{r.origin} (record {r.id}, {kind})")
        if first is not None:
            raise InputError(r.origin, where, "summary_sentences", f"its {kind} is a text {first} has too, cut "
                             "into other sentences (a text is stored once: give every use the same cut)")


def _digest(cut: list[tuple[int, int]] | None) -> bytes:
    """A cut's identity (empty: the segmenter's)."""
    return b"" if cut is None else hashlib.blake2b(json.dumps(cut).encode(), digest_size=16).digest()
