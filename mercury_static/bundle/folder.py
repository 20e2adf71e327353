"""An output folder's life as one unit: which folders a command may replace, one lock per folder for every
command that edits it, and every edit as one atomic switch, so that a reader (a served page, a merge, a
second command) sees the old folder or the new one, never a mix and never nothing.

Why a lock beside the folder and not inside it: `build` replaces the folder whole, so a lock inside would be
replaced with it. Why an exchange of folders: two renames (old aside, new in) leave no folder at all if the
process dies between them; Linux's renameat2(RENAME_EXCHANGE) swaps both names in one step. Where the
system has no exchange, the two renames are used, and the next command that takes the lock puts a folder
left aside back in place. What a killed command leaves beside the folder (its temp folders) is removed by
the next command on the same folder, while it holds the lock, so that a running command's folders are
never touched.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import logging
import os
import re
import shutil
import tempfile
import time
from pathlib import Path
from typing import Callable, Iterator

from mercury_static.bundle.contents import FORMAT
from mercury_static.core import safeio
from mercury_static.core.records import InputError

try:
    import fcntl
except ImportError:  # Windows: no advisory locks of this kind; edits are still atomic switches
    fcntl = None  # type: ignore[assignment]  # mypy types the name as the module; None is the Windows case

log = logging.getLogger("mercury_static")

MARKER = ".mercury-static-bundle"
"""A file only `build` writes at a bundle's root: with a manifest of our format, it is what lets a later
build replace the folder. A folder that merely holds a `manifest.json` (a web extension, a PWA) is not ours."""
LOCK_WAIT = 10.0
"""Seconds a command waits for another one editing the same folder before it stops (an assign or a tune
--apply takes well under a second; a build can take hours, and is then refused rather than waited for)."""
_TEMP_NAME = "[a-z0-9_]{8}"
"""The random part of a name made by tempfile.mkdtemp."""


def is_bundle(folder: Path) -> bool:
    """True for a folder this tool wrote: the marker file and a manifest of the bundle format."""
    try:
        manifest = safeio.read_checked(folder / "manifest.json", limit=safeio.INPUT_LIMIT)
        marker = (folder / MARKER).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError, InputError):
        return False
    return (isinstance(manifest, dict) and manifest.get("format") == FORMAT
            and isinstance(manifest.get("version"), int) and marker.startswith(FORMAT))


def check_output(out: Path, protected: list[Path], ours: Callable[[Path], bool] = is_bundle,
                 what: str = f"a mercury-static bundle (no marker file {MARKER})") -> None:
    """Refuse an output folder that would delete or overwrite anything the tool did not write.

    `out` must be new, empty or ours (`ours`), and may not hold any file the command reads (`protected`:
    inputs, labels, guidelines, model), since the old folder is removed after the switch."""
    target = safeio.resolved(out)
    for path in protected:
        p = safeio.resolved(path)
        if p == target or target in p.parents:
            raise InputError(str(out), None, None,
                             f"output folder contains the input {path}; choose another folder for -o")
    if out.is_symlink() or (out.exists() and not out.is_dir()):
        raise InputError(str(out), None, None, "output exists and is not a folder; choose a new folder for -o")
    if out.is_dir() and any(out.iterdir()) and not ours(out):
        raise InputError(str(out), None, None, f"output exists and is not {what}; choose an empty or new folder")
    for parent in target.parents:
        if parent.exists() and not parent.is_dir():
            raise InputError(str(out), None, None, f"{parent} is a file, not a folder; choose another -o")


def new_folder(out: Path, kind: str = "") -> Path:
    """A fresh temp folder beside `out` (`.NAME.` or `.NAME.KIND.` and a random part): on the same file
    system, so the switch is a rename, and found again by `leftovers` if the command is killed."""
    out.parent.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix=f".{out.name}.{kind + '.' if kind else ''}", dir=out.parent))
    umask = os.umask(0o22)
    os.umask(umask)
    folder.chmod(0o777 & ~umask)  # as mkdir would make it: a web server must read the bundle (mkdtemp: 0700)
    return folder


def leftovers(out: Path) -> list[Path]:
    """The temp folders a command on `out` made beside it (`new_folder`'s names, folders only)."""
    pattern = re.compile(rf"\.{re.escape(out.name)}\.(?:(?:work|old)\.)?{_TEMP_NAME}")
    try:
        entries = list(out.parent.iterdir())
    except OSError:
        return []
    return sorted(p for p in entries if pattern.fullmatch(p.name) and p.is_dir() and not p.is_symlink())


def _recover(out: Path, ours: Callable[[Path], bool]) -> None:
    """With the lock held: put back a folder left aside by a switch that was cut short (no exchange on
    this system), then remove what killed commands left beside `out`."""
    found = leftovers(out)
    if not out.exists():
        aside = [p for p in found if p.name.startswith(f".{out.name}.old.") and ours(p)]
        if aside:
            os.rename(aside[-1], out)
            log.warning("%s: put back in place from %s (an earlier command was stopped while it replaced it)",
                        out, aside[-1].name)
            found.remove(aside[-1])
    for path in found:
        shutil.rmtree(path, ignore_errors=True)


def _holder(lock: Path) -> str:
    try:
        text = lock.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return ""
    return f" ({text})" if text else ""


def _lock(lock: Path, out: Path, command: str, wait: float) -> int:
    """The open, locked lock file. A lock file is removed by its holder on release, so one taken on a file
    that was removed meanwhile is taken again on the current one."""
    deadline = time.monotonic() + wait
    while True:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o666)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            os.close(fd)
            if e.errno not in (errno.EAGAIN, errno.EACCES):
                raise
            if time.monotonic() >= deadline:
                raise InputError(str(out), None, None, "another mercury-static command is changing this folder"
                                 f"{_holder(lock)}; run this one when it has finished") from None
            time.sleep(0.05)
            continue
        try:
            current = os.stat(lock)
        except FileNotFoundError:
            current = None
        if current is not None and (current.st_ino, current.st_dev) == (os.fstat(fd).st_ino, os.fstat(fd).st_dev):
            os.ftruncate(fd, 0)
            os.write(fd, f"{command}, process {os.getpid()}\n".encode())
            return fd
        os.close(fd)


@contextlib.contextmanager
def editing(out: Path, command: str, ours: Callable[[Path], bool] = is_bundle, wait: float = LOCK_WAIT,
            create: bool = False) -> Iterator[None]:
    """Hold `out`'s lock (the file `.NAME.lock` beside it, there while a command runs) while `command` edits
    `out`; another command editing the same folder is waited for up to `wait` seconds, then this one stops
    with one line. With the lock held, a folder a cut-short switch left aside is put back, and the temp
    folders of killed commands are removed. `create`: `out` may be new (its parent folders are made)."""
    out = Path(out)
    for parent in out.parents:
        if parent.exists() and not parent.is_dir():
            raise InputError(str(out), None, None, f"{parent} is a file, not a folder")
    if create:
        out.parent.mkdir(parents=True, exist_ok=True)
    elif not out.parent.is_dir():
        raise InputError(str(out), None, None, "no such folder")
    lock = out.parent / f".{out.name}.lock"
    fd = _lock(lock, out, command, wait) if fcntl is not None else None
    try:
        _recover(out, ours)
        yield
    finally:
        if fd is not None:
            lock.unlink(missing_ok=True)  # while still held: a waiting command then retries on a new file
            os.close(fd)


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(a: Path, b: Path) -> bool:
    """Swap the names `a` and `b` in one step (Linux renameat2); False where the system cannot."""
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (AttributeError, OSError):
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    if renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), str(b))


def switch(new: Path, out: Path, ours: Callable[[Path], bool] = is_bundle,
           what: str = f"a mercury-static bundle (no marker file {MARKER})") -> None:
    """Make the finished folder `new` the folder `out`, in one step; the old folder is then removed.
    Called with `out`'s lock held."""
    if not out.exists():
        new.rename(out)
        return
    check_output(out, [], ours, what)  # the folder may have changed during the work
    if _exchange(new, out):
        shutil.rmtree(new, ignore_errors=True)  # `new` now names the old folder
        return
    old = new_folder(out, "old")
    old.rmdir()
    out.rename(old)
    try:
        new.rename(out)
    except OSError:
        old.rename(out)
        raise
    shutil.rmtree(old, ignore_errors=True)


def _marked(marker: str) -> tuple[Callable[[Path], bool], str]:
    return (lambda folder: (folder / marker).is_file()), f"a folder mercury-static wrote (no marker file {marker})"


def check_folder_output(out: Path, marker: str, protected: list[Path]) -> None:
    """`check_output` for a folder `write_folder` writes (called before the work, so a bad -o costs nothing)."""
    check_output(out, protected, *_marked(marker))


def write_folder(out: Path, files: dict[str, bytes], marker: str, command: str, protected: list[Path]) -> None:
    """Write a folder of `files` (relative path -> bytes) as `out`, in one switch under its lock, following
    build's rule for an existing `out`: replaced only when empty or written by this tool (`marker`, a file
    this writes at its root), so that a user's own folder of the same layout is never overwritten."""
    ours, what = _marked(marker)
    with editing(out, command, ours, create=True):
        check_output(out, protected, ours, what)
        new = new_folder(out)
        try:
            for name, data in {**files, marker: f"Written by mercury-static {command}; a later one replaces this "
                               "folder whole.\n".encode()}.items():
                target = new / name
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
            switch(new, out, ours, what)
        finally:
            if new.exists():
                shutil.rmtree(new, ignore_errors=True)
