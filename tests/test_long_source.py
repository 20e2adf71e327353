"""A long source field builds in bounded memory (a long field once took many times its size). Measured in a
child process: its peak RSS for a long source repeating 300 distinct sentences (the figures before and after
the fix: benchmarks/RESULTS.md)."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys

import pytest

from conftest import REPO, TEST_CACHE

# VmHWM, not getrusage's ru_maxrss: Linux carries ru_maxrss over fork and exec, so a child of a large pytest
# process (torch loaded by an earlier test) would report the parent's size
PEAK_RUN = ("import re, sys\nfrom mercury_static.cli import app\ntry:\n    app()\nfinally:\n"
            "    hwm = re.search(r'VmHWM:\\s+(\\d+)', open('/proc/self/status').read()).group(1)\n"
            "    print('peak_kb', hwm, file=sys.stderr)\n")


def long_source(chars: int) -> str:
    rng = random.Random(1)
    words = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 9)))
             for _ in range(2000)]
    sentences = [" ".join(rng.choice(words) for _ in range(rng.randint(6, 20))).capitalize() + "."
                 for _ in range(300)]
    parts, size = [], 0
    while size < chars:
        parts.append(" ".join(rng.choice(sentences) for _ in range(rng.randint(3, 8))))
        size += len(parts[-1]) + 2
    return "\n\n".join(parts)


@pytest.mark.slow
def test_a_long_source_builds_in_bounded_memory(exported_model, tmp_path):
    data = tmp_path / "long.jsonl"
    data.write_text(json.dumps({"id": "long", "source": long_source(4_000_000), "summary": "A short one."}))
    env = {**os.environ, "PYTHONPATH": str(REPO), "MERCURY_STATIC_CACHE": str(TEST_CACHE), "HF_HUB_OFFLINE": "1"}
    done = subprocess.run([sys.executable, "-c", PEAK_RUN, "build", str(data), "-o", str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=1200, env=env)
    assert done.returncode == 0, done.stderr
    peak_mb = int(done.stderr.split("peak_kb")[-1].split()[0]) / 1024
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    rows = manifest["counts"]["rows"]
    assert rows > 40_000
    stored = sum(p.stat().st_size for p in (tmp_path / "out" / "data").glob("vectors-*.bin"))
    assert stored == rows * manifest["vectors"]["dim"] * 2  # every row written, float16
    assert peak_mb < 600, f"peak {peak_mb:.0f} MB for {rows} rows"
