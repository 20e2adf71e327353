"""Build time and peak memory for one record whose source is N MB (issue 11: 50 MB took 278 s and 13.6 GB).

The text is paragraphs of sentences drawn from 4,000 distinct generated ones, so segmentation, token
counting, rows and shards grow with the length while embedding stays the cost of 4,000 sentences (a
50 MB source of distinct sentences would be 500,000 model calls, hours on 2 cores). Each build runs under
``/usr/bin/time -v``.

    python benchmarks/bench_long_source.py 5 20 50
"""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path


def write_source(path: Path, megabytes: float) -> None:
    rng = random.Random(0)
    words = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 9)))
             for _ in range(5000)]
    sentences = [" ".join(rng.choice(words) for _ in range(rng.randint(6, 24))).capitalize() + "."
                 for _ in range(4000)]
    parts, size = [], 0
    while size < megabytes * 1e6:
        parts.append(" ".join(rng.choice(sentences) for _ in range(rng.randint(3, 8))))
        size += len(parts[-1]) + 2
    path.write_text(json.dumps({"id": "long", "source": "\n\n".join(parts), "summary": rng.choice(sentences)}))


def main(sizes: list[float]) -> None:
    print("| source | wall | user CPU | peak RSS | sentences |\n|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for mb in sizes:
            data, out = Path(tmp) / f"long{mb:g}.jsonl", Path(tmp) / f"out{mb:g}"
            write_source(data, mb)
            done = subprocess.run(["/usr/bin/time", "-v", sys.executable, "-c",
                                   "from mercury_static.cli import app; app()", "build", str(data), "-o", str(out)],
                                  capture_output=True, text=True)
            if done.returncode != 0:
                sys.exit(done.stderr)

            def field(name: str) -> str:
                return re.search(rf"{re.escape(name)}: (\S+)", done.stderr).group(1)

            sentences = json.loads((out / "manifest.json").read_text())["counts"]["sentences"]
            print(f"| {mb:g} MB | {field('Elapsed (wall clock) time (h:mm:ss or m:ss)')} | {field('User time (seconds)')} s "
                  f"| {int(field('Maximum resident set size (kbytes)')) / 1024:.0f} MB | {sentences:,} |", flush=True)


if __name__ == "__main__":
    main([float(x) for x in sys.argv[1:]] or [5, 20, 50])
