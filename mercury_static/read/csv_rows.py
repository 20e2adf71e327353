"""CSV / TSV input: a header row, one record per row (a record's place is the line where it starts)."""

from __future__ import annotations

import csv
import io
import sys
from collections.abc import Iterator

from mercury_static.read.record import Item, Options, make_item
from mercury_static.core.records import InputError


def read_csv(text: str, name: str, opts: Options, delimiter: str) -> Iterator[Item]:
    _allow_huge_csv_fields()
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        header = [h.strip() for h in next(reader)]
        duplicates = sorted({h for h in header if header.count(h) > 1})
        if duplicates:
            raise InputError(name, "line 1", duplicates[0], "duplicate column")
        for col in (opts.source_field, opts.summary_field, opts.id_field):
            if col is not None and col not in header:
                raise InputError(name, "line 1", col,
                                 f"missing column (available columns: {', '.join(header)})")
        position = 0
        prev_line = reader.line_num
        for row in reader:
            where = f"line {prev_line + 1}"
            prev_line = reader.line_num
            if not any(cell.strip() for cell in row):
                continue
            if len(row) != len(header):
                raise InputError(name, where, None,
                                 f"{len(row)} values but the header has {len(header)} columns")
            yield make_item(dict(zip(header, row)), position, where, name, opts, is_dump=False)
            position += 1
    except csv.Error as e:
        raise InputError(name, f"line {reader.line_num}", None, f"invalid CSV ({e})") from None
    if position == 0:
        raise InputError(name, None, None, "no records (only a header row)")


def _allow_huge_csv_fields() -> None:
    limit = sys.maxsize
    while True:
        try:
            csv.field_size_limit(limit)
            return
        except OverflowError:
            limit //= 2
