"""Scratch folders of `train` named with their process id, so the next run removes those a killed run left
(a SIGKILL runs no cleanup): a folder whose process is gone is scratch nobody will finish."""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path


def alive(pid: int) -> bool:
    """Whether a process with this id runs (one of another user's counts as running)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def make(prefix: str, parent: Path | None = None) -> Path:
    """A new scratch folder `PREFIX<pid>-<random>` in `parent` (default: the temp folder), after removing the
    ones dead runs left there."""
    where = Path(parent) if parent is not None else Path(tempfile.gettempdir())
    remove_dead(prefix, where)
    return Path(tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}-", dir=where))


def remove_dead(prefix: str, parent: Path) -> list[Path]:
    """Remove the scratch folders with this prefix whose process is gone; the ones removed."""
    pattern = re.compile(rf"{re.escape(prefix)}(\d+)-[a-z0-9_]{{8}}")
    try:
        entries = list(parent.iterdir())
    except OSError:
        return []
    gone = []
    for path in entries:
        m = pattern.fullmatch(path.name)
        if m and path.is_dir() and not path.is_symlink() and int(m.group(1)) != os.getpid() \
                and not alive(int(m.group(1))):
            shutil.rmtree(path, ignore_errors=True)
            gone.append(path)
    return gone
