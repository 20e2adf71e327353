"""benchmarks/results.py: a benchmark rewrites its own RESULTS.md section and nothing else."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

from results import update_results  # noqa: E402

DOC = "# Benchmark results\n\n## a (x.py)\nold a\n\n## b (y.py)\nold b\n\n## c\nc\n"


def test_a_section_is_replaced_in_place(tmp_path):
    f = tmp_path / "RESULTS.md"
    f.write_text(DOC)
    update_results("## b (y.py)", "## b (y.py)\nnew b\n", f)
    assert f.read_text() == DOC.replace("old b", "new b")
    update_results("## b (y.py)", "## b (y.py)\nnew b\n", f)  # idempotent: no blank line creeps in
    assert f.read_text() == DOC.replace("old b", "new b")


def test_the_last_section_and_a_new_one(tmp_path):
    f = tmp_path / "RESULTS.md"
    f.write_text(DOC)
    update_results("## c", "## c\nnew c\n", f)
    assert f.read_text() == DOC.replace("\nc\n", "\nnew c\n")
    update_results("## d", "## d\nd\n", f)
    assert f.read_text().endswith("\n\n## c\nnew c\n\n## d\nd\n")
