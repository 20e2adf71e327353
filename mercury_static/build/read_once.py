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

import pickle
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from mercury_static.build.record_extras import check_columns_used, record_extras, settings_columns
from mercury_static.build.scratch import Scratch
from mercury_static.core.records import Record
from mercury_static.read.inputs import iter_records
from mercury_static.settings.schema import MetadataRanges, Settings

SPOOL = "records.pickle"


@dataclass(frozen=True)
class ReadRecords:
    """The checked records on disk, in input order."""

    spool: Path
    count: int
    lengths: dict[str, tuple[int, int]] | None
    """Record id → (len summary, len source), when asked for (a suggestions file is checked against them)."""

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
    ids = Scratch(folder)
    try:
        with open(folder / SPOOL, "wb") as spool:
            for r in iter_records(paths, fmt=fmt, source_field=source_field, summary_field=summary_field,
                                  id_field=id_field, seen=ids.id_places()):
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
    return ReadRecords(folder / SPOOL, count, lengths)
