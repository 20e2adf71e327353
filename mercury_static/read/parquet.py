"""Parquet and 🤗 datasets input: a `.parquet` file, a folder of them (the Hub's `data/*.parquet` layout), or a
folder `Dataset.save_to_disk` wrote (its `state.json` names Arrow stream files).

Rows are read in batches (pyarrow's record batches), so memory holds one batch whatever the row count, as a
JSON Lines file is read a line at a time. Each row becomes the object a JSON reader would see (struct columns
as objects, list columns as lists) and goes through the same rules (record.py). Dates, times and decimals are
read as their text; a column type JSON has no room for (binary, a map) is one line naming the column. pyarrow
is the `parquet` extra.

pyarrow runs in a reader process of its own (`python -m mercury_static.read.parquet`), which sends the rows as
JSON lines: its libraries' memory is gone once the rows are read, before the build loads its model, so a
Parquet build needs no more memory than the same rows as JSON Lines.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

from mercury_static.core import safeio
from mercury_static.core.records import InputError
from mercury_static.read.record import Item, Options, make_item

BATCH_ROWS = 1024
"""Rows converted to Python objects at a time."""
EXTRA = "pip install 'mercury-static[parquet]'"


def pyarrow_modules() -> tuple[Any, Any]:
    """(pyarrow, pyarrow.parquet), or one line naming the extra to install."""
    try:
        import pyarrow
        import pyarrow.parquet
    except ImportError:
        raise InputError("--format parquet", None, None,
                         f"reading Parquet or a datasets folder needs the parquet extra (pyarrow): {EXTRA}") from None
    return pyarrow, pyarrow.parquet


def is_datasets_folder(path: Path) -> bool:
    """A folder `Dataset.save_to_disk` (or `DatasetDict.save_to_disk`) wrote."""
    return (path / "state.json").is_file() and (path / "dataset_info.json").is_file() \
        or (path / "dataset_dict.json").is_file()


def read_folder(path: Path, name: str, opts: Options) -> Iterator[Item]:
    """A save_to_disk folder, else every `.parquet` file under the folder (sorted by path), as one dataset:
    positions (the default ids) run on across its files."""
    return _from_reader("folder", path, name, opts)


def read_parquet(path: Path, name: str, opts: Options) -> Iterator[Item]:
    """The rows of one Parquet file."""
    return _from_reader("file", path, name, opts)


def _from_reader(kind: str, path: Path, name: str, opts: Options) -> Iterator[Item]:
    """The records of the rows the reader process sends; its one-line error raised here as it was raised there."""
    if importlib.util.find_spec("pyarrow") is None:
        raise InputError("--format parquet", None, None,
                         f"reading Parquet or a datasets folder needs the parquet extra (pyarrow): {EXTRA}")
    with tempfile.TemporaryFile("w+", encoding="utf-8") as errors:
        proc = subprocess.Popen([sys.executable, "-m", __name__, kind, str(path), name, opts.source_field,
                                 opts.summary_field], stdout=subprocess.PIPE, stderr=errors, encoding="utf-8")
        assert proc.stdout is not None
        try:
            for line in proc.stdout:
                sent = json.loads(line)
                if "error" in sent:
                    raise InputError(*sent["error"])
                yield make_item(sent["row"], sent["at"], f"row {sent['at']}", sent["file"], opts, is_dump=False)
            if proc.wait():
                errors.seek(0)
                last = (errors.read().strip().splitlines() or ["no message"])[-1]
                raise InputError(name, None, None, f"the Parquet reader stopped (exit {proc.returncode}): {last}")
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            proc.stdout.close()


def _send(kind: str, path: Path, name: str, opts: Options, out: TextIO) -> None:
    """The reader process: each row as a JSON line `{file, at, row}`, or a bad input as `{error}`."""
    try:
        rows = _folder_rows(path, name, opts) if kind == "folder" else _file_rows(path, name, opts, 0)
        for file, at, row in rows:
            out.write(json.dumps({"file": file, "at": at, "row": row}) + "\n")
    except InputError as e:
        out.write(json.dumps({"error": [e.file, e.where, e.field, e.message]}) + "\n")
    out.flush()


def _folder_rows(path: Path, name: str, opts: Options) -> Iterator[tuple[str, int, dict]]:
    if is_datasets_folder(path):
        yield from _read_saved(path, name, opts)
        return
    files = sorted(p for p in path.rglob("*.parquet") if p.is_file())
    if not files:
        raise InputError(name, None, None, "a folder with no .parquet file and no save_to_disk dataset "
                         "(state.json and dataset_info.json)")
    position = 0
    for file in files:
        for row in _file_rows(file, str(file), opts, position):
            position += 1
            yield row


def _file_rows(path: Path, name: str, opts: Options, first: int) -> Iterator[tuple[str, int, dict]]:
    """The rows of one Parquet file; `first`: the position of its first row in its dataset."""
    pa, pq = pyarrow_modules()
    with os.fdopen(safeio.open_file(path, name), "rb") as f:
        try:
            parquet = pq.ParquetFile(f, pre_buffer=False)  # pre-buffering and threads: arenas of tens of MB
        except (pa.ArrowException, OSError) as e:
            raise InputError(name, None, None, f"not a readable Parquet file (truncated or damaged?): {e}") from None
        casts = _checked_schema(parquet.schema_arrow, name, opts)
        batches = parquet.iter_batches(batch_size=BATCH_ROWS, use_threads=False)
        yield from _rows(_guarded(batches, name, pa), casts, name, first)


def _read_saved(path: Path, name: str, opts: Options) -> Iterator[tuple[str, int, dict]]:
    pa, _ = pyarrow_modules()
    if (path / "dataset_dict.json").is_file():
        splits = _json_file(path / "dataset_dict.json", name).get("splits")
        raise InputError(name, None, None, "a DatasetDict folder: give one split's folder "
                         f"(splits: {', '.join(map(str, splits or [])) or 'none listed'})")
    state = _json_file(path / "state.json", name)
    files = state.get("_data_files") if isinstance(state, dict) else None
    if not isinstance(files, list) or not files or not all(isinstance(f, dict) and isinstance(f.get("filename"), str)
                                                        for f in files):
        raise InputError(f"{name}/state.json", None, "_data_files", "expected a list of {filename} objects")
    position = 0
    for entry in files:
        file = path / entry["filename"]
        file_name = str(file)
        if Path(entry["filename"]).is_absolute() or ".." in Path(entry["filename"]).parts:
            raise InputError(f"{name}/state.json", None, "_data_files", f"{entry['filename']!r} is outside the folder")
        with os.fdopen(safeio.open_file(file, file_name), "rb") as f:
            try:
                reader = pa.ipc.open_stream(f, options=pa.ipc.IpcReadOptions(use_threads=False))
            except (pa.ArrowException, OSError) as e:
                raise InputError(file_name, None, None,
                                 f"not a readable Arrow stream (truncated or damaged?): {e}") from None
            casts = _checked_schema(reader.schema, file_name, opts)
            for row in _rows(_guarded(reader, file_name, pa), casts, file_name, position):
                position += 1
                yield row


def _json_file(path: Path, name: str):
    text = safeio.read_text(path, f"{name}/{path.name}", safeio.SMALL_LIMIT)
    try:
        return safeio.loads(text)
    except ValueError as e:
        raise InputError(f"{name}/{path.name}", None, None, f"invalid JSON ({e})") from None


def _guarded(batches, name: str, pa) -> Iterator:
    """The batches, a read fault (a truncated file found mid-way) one line naming the file."""
    it = iter(batches)
    while True:
        try:
            batch = next(it)
        except StopIteration:
            return
        except (pa.ArrowException, OSError) as e:
            raise InputError(name, None, None, f"cannot read the rows (truncated or damaged?): {e}") from None
        yield batch


def _rows(batches, casts: dict[str, Any], name: str, first: int) -> Iterator[tuple[str, int, dict]]:
    position = first
    for batch in batches:
        for column, to in casts.items():
            i = batch.schema.get_field_index(column)
            batch = batch.set_column(i, column, batch.column(i).cast(to))
        for row in batch.to_pylist():
            yield name, position, row
            position += 1


def _checked_schema(schema, name: str, opts: Options) -> dict[str, Any]:
    """The columns read as text (dates, times, decimals), after refusing a text column of the wrong type or a
    column JSON has no room for, before any row is read."""
    import pyarrow as pa
    import pyarrow.types as t

    names = ", ".join(schema.names) or "none"
    for key in (opts.source_field, opts.summary_field):
        if key not in schema.names:
            raise InputError(name, None, key, f"no such column (columns: {names})")
    summary = schema.field(opts.summary_field).type
    if not _is_text(summary):
        raise InputError(name, None, opts.summary_field, f"expected a string column, got {summary}")
    source = schema.field(opts.source_field).type
    if not (_is_text(source) or _is_list(source) and (_is_text(source.value_type) or t.is_struct(source.value_type))):
        raise InputError(name, None, opts.source_field,
                         f"expected a string column or a list of documents, got {source}")
    casts = {}
    for field in schema:
        if _is_scalar_text(field.type):
            casts[field.name] = pa.string()
        elif not _plain(field.type):
            raise InputError(name, None, field.name, f"a {field.type} column has no JSON form (binary and map "
                             "columns, and dates inside nested columns, cannot be read)")
    return casts


def _is_text(ty) -> bool:
    import pyarrow.types as t

    return t.is_string(ty) or t.is_large_string(ty) or t.is_dictionary(ty) and _is_text(ty.value_type)


def _is_list(ty) -> bool:
    import pyarrow.types as t

    return t.is_list(ty) or t.is_large_list(ty) or t.is_fixed_size_list(ty)


def _is_scalar_text(ty) -> bool:
    """Read as their text: dates, times, timestamps, durations and decimals."""
    import pyarrow.types as t

    return t.is_temporal(ty) or t.is_decimal(ty)


def _plain(ty) -> bool:
    """A type whose values are JSON values as they are."""
    import pyarrow.types as t

    if _is_list(ty):
        return _plain(ty.value_type)
    if t.is_struct(ty):
        return all(_plain(ty.field(i).type) for i in range(ty.num_fields))
    if t.is_dictionary(ty):
        return _plain(ty.value_type)
    return t.is_null(ty) or t.is_boolean(ty) or t.is_integer(ty) or t.is_floating(ty) or _is_text(ty)


if __name__ == "__main__":  # the reader process: KIND PATH NAME SOURCE_FIELD SUMMARY_FIELD
    _kind, _path, _name, _source, _summary = sys.argv[1:]
    _send(_kind, Path(_path), _name, Options(_source, _summary, None, False), sys.stdout)
