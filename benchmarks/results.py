"""What every benchmark shares: RESULTS.md's sections, replaced in place, and CPU time of a whole process
tree (a build that starts Ray runs most of its work in grandchildren)."""

from __future__ import annotations

import ctypes
import os
import resource
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"


def update_results(section: str, markdown: str, results: Path = RESULTS) -> None:
    """Replace the section that starts with the heading line `section` (up to the next `## `) by `markdown`,
    or append it; the other sections stay byte for byte."""
    text = results.read_text(encoding="utf-8") if results.exists() else "# Benchmark results\n"
    start = text.find(section)
    if start >= 0:
        end = text.find("\n## ", start + len(section))
        text = text[:start] + markdown.rstrip("\n") + ("\n\n" + text[end + 1:] if end >= 0 else "")
    else:
        text = text.rstrip("\n") + "\n\n" + markdown
    results.write_text(text.rstrip("\n") + "\n", encoding="utf-8")


def adopt_orphans() -> None:
    """Make this process the reaper of its descendants (Linux PR_SET_CHILD_SUBREAPER), so that the CPU time
    of processes whose parent exits first (Ray's workers) still reaches this process's RUSAGE_CHILDREN."""
    ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)


def reap_all() -> None:
    """Wait for every descendant left (after `adopt_orphans`)."""
    while True:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return


def cpu_seconds() -> float:
    """User + system CPU of this process and of every descendant reaped so far."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime
