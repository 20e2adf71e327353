"""Reading untrusted files and JSON safely; writing strict JSON only.

A FIFO or a device (``/dev/zero``) given as a file would hang the tool or read until memory runs out, so
files are opened without blocking, checked to be regular files on the open descriptor (no race with a
swap), and refused above a size cap. JSON is parsed as usual, then checked for what Python accepts but
JSON (or the page's ``JSON.parse``, or UTF-8) does not: ``NaN``/``Infinity``/``1e999`` and integers as
large (beyond 1.8e308), integers longer than `sys.get_int_max_str_digits()` (4,300 digits: int() refuses
them), lone surrogates (``"\\ud800"``) and duplicate
keys (the second silently winning). The check names the value's path so the caller can name the record
and field.
"""

from __future__ import annotations

import contextlib
import errno
import json
import math
import os
import re
import stat
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from mercury_static.core.records import InputError

MB = 1 << 20
INPUT_LIMIT = 1024 * MB
"""Largest dataset file `build`/`eval` read (a JSON, dump or CSV file is parsed whole; JSON Lines is read a
line at a time, yet capped alike)."""
EXPORT_LIMIT = 512 * MB
"""Largest export file or Mercury dump `merge` reads."""
SMALL_LIMIT = 16 * MB
"""Largest labels or guidelines file."""

_SURROGATE = re.compile("[\ud800-\udfff]")


def open_file(path: str | Path, name: str | None = None, limit: int = INPUT_LIMIT) -> int:
    """A descriptor of a regular file of at most `limit` bytes (opened without blocking, checked on the
    descriptor), else InputError naming the file."""
    name = str(path) if name is None else name
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise InputError(name, None, None, "file not found") from None
    except IsADirectoryError:
        raise InputError(name, None, None, "is a directory, not a file") from None
    except OSError as e:
        raise InputError(name, None, None, f"cannot read the file ({e.strerror or e})") from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise InputError(name, None, None, "is a directory, not a file")
        if not stat.S_ISREG(info.st_mode):
            raise InputError(name, None, None, f"not a regular file (a {_kind_of(info.st_mode)}); "
                             "give a file")
        if info.st_size > limit:
            raise InputError(name, None, None, f"too large ({info.st_size / MB:.0f} MB; at most "
                             f"{limit // MB} MB)")
    except OSError as e:
        os.close(fd)
        raise InputError(name, None, None, f"cannot read the file ({e.strerror or e})") from None
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_bytes(path: str | Path, name: str | None = None, limit: int = INPUT_LIMIT) -> bytes:
    """The bytes of a regular file of at most `limit` bytes, else InputError naming the file."""
    name = str(path) if name is None else name
    fd = open_file(path, name, limit)
    try:
        chunks, size = [], 0
        while chunk := os.read(fd, 1 << 24):
            size += len(chunk)
            if size > limit:  # the file grew while being read
                raise InputError(name, None, None, f"too large (more than {limit // MB} MB)")
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError as e:
        raise InputError(name, None, None, f"cannot read the file ({e.strerror or e})") from None
    finally:
        os.close(fd)


def _kind_of(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    if stat.S_ISSOCK(mode):
        return "socket"
    return "special file"


def read_text(path: str | Path, name: str | None = None, limit: int = INPUT_LIMIT) -> str:
    """A regular UTF-8 file's text (BOM dropped), else InputError naming the file and line."""
    name = str(path) if name is None else name
    data = read_bytes(path, name, limit)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        offset = e.start + (3 if data.startswith(b"\xef\xbb\xbf") else 0)  # utf-8-sig counts after the BOM
        line = data.count(b"\n", 0, offset) + 1
        raise InputError(name, f"line {line}", None,
                         f"not UTF-8 (byte 0x{data[offset]:02x} at byte offset {offset})") from None


class _Object(dict):
    """A JSON object that remembers the keys it had twice (checked by `find_invalid`)."""

    __slots__ = ("duplicates",)
    duplicates: list[str]


def _pairs(pairs: list[tuple[str, object]]) -> dict:
    obj = _Object(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        obj.duplicates = []
        for k, _ in pairs:
            if k in seen:
                obj.duplicates.append(k)
            seen.add(k)
    return obj


class LongInt(float):
    """An integer too long for int(), kept as the infinity it overflows to (as ``1e999`` is): a reader that
    does not check sees an overflowing number, `find_invalid` names it."""

    digits: int

    def __new__(cls, digits: int, negative: bool):
        self = super().__new__(cls, "-inf" if negative else "inf")
        self.digits = digits
        return self


def parse_int(text: str) -> int | LongInt:
    """A JSON integer's value; a `LongInt` when int() refuses it (too many digits)."""
    try:
        return int(text)
    except ValueError:
        return LongInt(len(text.lstrip("+-")), text.startswith("-"))


def long_int(digits: int) -> str:
    """The problem of an integer of `digits` digits (for JSON and YAML alike)."""
    return f"an integer of {digits} digits is too long to read (at most {sys.get_int_max_str_digits()})"


def loads(text: str):
    """``json.loads`` that keeps what `find_invalid` reports (raises JSONDecodeError / RecursionError)."""
    try:
        return json.loads(text, object_pairs_hook=_pairs)
    except json.JSONDecodeError:
        raise
    except ValueError:  # an integer int() refuses: read again with the hook (it halves the speed of ints)
        return json.loads(text, object_pairs_hook=_pairs, parse_int=parse_int)


def read_json(path: str | Path, limit: int = INPUT_LIMIT):
    """A JSON file read strictly (`read_text`, `loads`); any fault one InputError naming the file (and the line
    and column of invalid JSON)."""
    try:
        return loads(read_text(path, str(path), limit))
    except json.JSONDecodeError as e:
        raise InputError(str(path), f"line {e.lineno} column {e.colno}", None, f"invalid JSON: {e.msg}") from None
    except RecursionError:
        raise InputError(str(path), None, None, "invalid JSON: nested too deeply") from None


def read_checked(path: str | Path, name: str | None = None, limit: int = SMALL_LIMIT):
    """A JSON file that no record-by-record check follows (settings, options, training.json, a manifest, a
    model's configuration) read whole and checked: invalid JSON, NaN, Infinity, an overflowing number, a lone
    surrogate or a key given twice is one InputError naming the file and the field."""
    name = name or str(path)
    return parse_checked(read_text(path, name, limit), name)


def parse_checked(text: str, name: str, where: str | None = None):
    """`loads` then `check`: JSON text from a file or an option, every fault one InputError naming `name`."""
    try:
        doc = loads(text)
    except json.JSONDecodeError as e:
        raise InputError(name, where or f"line {e.lineno} column {e.colno}", None, f"invalid JSON: {e.msg}") \
            from None
    except RecursionError:
        raise InputError(name, where, None, "invalid JSON: nested too deeply") from None
    check(doc, name, where)
    return doc


def json_line(line: str, name: str, where: str):
    """One line of a JSON Lines file, strictly (`loads`); InputError naming the file and the line otherwise."""
    try:
        return loads(line)
    except json.JSONDecodeError as e:
        raise InputError(name, where, None, f"invalid JSON ({e.msg} at column {e.colno})") from None
    except RecursionError:
        raise InputError(name, where, None, "invalid JSON (nested too deeply)") from None


def find_invalid(value, path: str = "", skip: tuple[str, ...] = ()) -> tuple[str, str] | None:
    """(path, problem) of the first value JSON cannot carry faithfully, else None.

    `path` is jq-like (``metadata.scores[2]``); `skip`: keys of the top object checked elsewhere (their
    values, not their duplication). Iterative, so any depth is fine; a value's path is spelled out only for a
    container or a problem (every record is checked, and most of its values are plain text)."""
    stack: list[tuple[str, object, bool, object]] = [(path, None, False, value)]
    top = True
    while stack:
        parent, key, index, v = stack.pop()
        if isinstance(v, str):
            m = None if v.isascii() else _SURROGATE.search(v)
            if m:
                return _place(parent, key, index), \
                    f"lone surrogate U+{ord(m.group()):04X} in the text (not valid Unicode)"
        elif isinstance(v, int) and not isinstance(v, bool):
            if not -sys.float_info.max <= v <= sys.float_info.max:
                return _place(parent, key, index), f"an integer of {len(str(abs(v)))} digits is beyond any JSON " \
                                                   "number (the page reads it as Infinity, as 1e999)"
        elif isinstance(v, float):
            if isinstance(v, LongInt):
                return _place(parent, key, index), long_int(v.digits)
            if not math.isfinite(v):
                return _place(parent, key, index), f"{v} is not a JSON number (NaN, Infinity and overflowing " \
                                                   "numbers like 1e999 are not allowed)"
        elif isinstance(v, dict):
            where = _place(parent, key, index)
            dup = getattr(v, "duplicates", None)
            if dup:
                return _join(where, dup[0]), "duplicate key in one object (which one is meant?)"
            for k, child in reversed(list(v.items())):
                m = None if k.isascii() else _SURROGATE.search(k)
                if m:
                    return _join(where, k), f"lone surrogate U+{ord(m.group()):04X} in a key"
                if not (top and k in skip):
                    stack.append((where, k, False, child))
        elif isinstance(v, list):
            where = _place(parent, key, index)
            stack.extend((where, i, True, child) for i, child in reversed(list(enumerate(v))))
        top = False
    return None


def _place(parent: str, key, index: bool) -> str:
    """The path of `parent`'s value at `key` (a list's index when `index`; None: `parent` itself)."""
    if key is None:
        return parent
    return f"{parent}[{key}]" if index else _join(parent, key)


def _join(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def check(value, file: str, where: str | None, path: str = "", skip: tuple[str, ...] = ()) -> None:
    """Raise InputError naming file, place and field when `value` holds something `find_invalid` reports."""
    bad = find_invalid(value, path, skip)
    if bad is not None:
        raise InputError(file, where, bad[0] or None, bad[1])


def dumps(obj, **kwargs) -> str:
    """Strict JSON text: NaN/Infinity refused (every bundle and merged file is written through this)."""
    return json.dumps(obj, allow_nan=False, ensure_ascii=False, **kwargs)


def json_kind(value) -> str:
    """A JSON type name for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def resolved(path: str | Path) -> Path:
    """`path` absolute with its symlinks followed; a symlink loop is an InputError naming it (pathlib
    raises RuntimeError for one, which would end the command in a traceback)."""
    try:
        return Path(path).resolve()
    except RuntimeError:
        raise InputError(path, None, None, "is a symlink loop (a link that leads back to itself); give the "
                         "file or folder itself") from None
    except OSError as e:
        raise InputError(path, None, None, f"cannot follow this path ({e.strerror or e})") from None


def special(path: Path) -> bool:
    """True for an existing path that is neither a regular file nor a folder (a device such as /dev/null,
    a FIFO): written in place, never replaced by a regular file."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def check_writable(path: str | Path, protected: Sequence[str | Path] = ()) -> None:
    """InputError unless `path` can be written as a file without replacing one of `protected` (the
    command's inputs, or a file inside an input folder). Called before the work, so a bad output path
    costs nothing."""
    path = Path(path)
    target = resolved(path)
    for p in protected:
        p = resolved(p)
        if p == target or p in target.parents:
            raise InputError(path, None, None, f"is an input of this command ({p}); choose another output")
    if path.is_dir():
        raise InputError(path, None, None, "is a folder; give a file name")
    parent = next((p for p in target.parents if p.exists()), None)
    if parent is not None and not parent.is_dir():
        raise InputError(path, None, None, f"{parent} is a file, not a folder")
    if target.exists() and not os.access(target, os.W_OK):
        raise InputError(path, None, None, "is read-only; make it writable or choose another output")
    if not target.exists() and parent is not None and not os.access(parent, os.W_OK | os.X_OK):
        raise InputError(path, None, None, f"cannot be created: {parent} is read-only")


def write_file(path: str | Path, data: bytes, protected: Sequence[str | Path] = ()) -> None:
    """Write `data` to `path` whole or not at all (`write_files`)."""
    with write_files([(path, data)], protected):
        pass


def write_json(path: str | Path, value, protected: Sequence[str | Path] = ()) -> None:
    """`value` as indented strict JSON, one file written whole (the reports of eval, tune and train)."""
    write_file(path, (dumps(value, indent=1) + "\n").encode("utf-8"), protected)


@contextlib.contextmanager
def write_files(files: Sequence[tuple[str | Path, bytes]], protected: Sequence[str | Path] = ()):
    """Write several outputs all or none: each to a temp file beside it (synced) before the body runs, and
    renamed into place only once the body and every temp file succeeded; an InputError naming the path
    otherwise. A path that is a device or FIFO (`-o /dev/null`) is written in place at the end instead:
    replacing it with a regular file would break it for everyone."""
    for path, _data in files:
        check_writable(path, protected)
    temps: list[tuple[Path, str]] = []
    try:
        for path, data in files:
            path = Path(path)
            if not special(path):
                temps.append((path, _temp_file(path, data)))
        yield
        for path, data in files:
            if special(Path(path)):
                _write_in_place(Path(path), data)
        for path, tmp in temps:
            try:
                os.replace(tmp, path)
            except OSError as e:
                raise InputError(path, None, None, f"cannot write ({e.strerror or e})") from None
        temps = []
    finally:
        for _path, tmp in temps:
            Path(tmp).unlink(missing_ok=True)


def _temp_file(path: Path, data: bytes) -> str:
    """A temp file beside `path` holding `data`, synced, with the mode a plain open() would give."""
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())  # on disk before the rename makes it the file
        umask = os.umask(0o22)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes it private
        return tmp
    except OSError as e:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
        raise InputError(path, None, None, f"cannot write ({e.strerror or e})") from None


def _write_in_place(path: Path, data: bytes) -> None:
    """Write to a device or FIFO as it is (opened without blocking: a FIFO nobody reads is an error, not a
    hang)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        why = "no process reads this FIFO" if e.errno == errno.ENXIO else e.strerror or e
        raise InputError(path, None, None, f"cannot write ({why})") from None
    try:
        os.set_blocking(fd, True)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    except OSError as e:
        raise InputError(path, None, None, f"cannot write ({e.strerror or e})") from None
    finally:
        os.close(fd)
