"""The streaming build. Chunks do not show in the bundle (tiny chunks give the bytes of one big
chunk, with any workers), and peak memory does not grow with the number of records."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from mercury_static.bundle.contents import ShardLimits
from mercury_static.bundle.record_index import read_columns

from conftest import TEST_CACHE

REPO = Path(__file__).resolve().parent.parent
WORDS = ("harbour lighthouse council euros million reopen June project cost restoration keeper storm ferry "
         "island tourists engineers granite lamp beam nautical miles coast guard volunteers museum").split()
SETTINGS = """\
questions:
  - {name: spans, type: span, title: Spans}
  - name: verdict
    type: label
    title: Consistent?
    options: [{value: consistent, text: Consistent}, {value: hallucinated, text: Hallucinated}]
metadata:
  - {name: summarizer, title: Summarizer, type: terms, visible: true}
  - {name: hhem, title: HHEM, type: float, visible: true}
vectors: {similar_records: true}
distribution: {annotators: [alice, bob, carol], overlap: 2}
"""


def dataset(folder: Path, records: int = 48) -> list[Path]:
    """Sentences of varied length (many batches per chunk), repeated across records (a row embedded in an
    earlier chunk), shared sources and a summary used twice far apart (texts deduplicated across chunks),
    a source of titled documents (sections), metadata for the index and a suggestions file."""
    rng = random.Random(11)

    def sentence() -> str:
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 50))).capitalize() + "."

    pool = [sentence() for _ in range(30)]
    shared = [" ".join(rng.choice(pool) for _ in range(6)) for _ in range(4)]
    rows = []
    for i in range(records):
        source = shared[i % 4] if i % 3 else " ".join([sentence() for _ in range(rng.randint(2, 6))] + pool[:2])
        if i == 7:
            source = [{"title": "First", "text": pool[3] + " " + pool[4]}, {"title": "Second", "text": pool[5]}]
        summary = rows[2]["summary"] if i == 40 else " ".join(rng.choice(pool + [sentence()]) for _ in range(2))
        rows.append({"id": f"r{i}", "source": source, "summary": summary, "summarizer": f"m{i % 3}",
                     "hhem": round(rng.random(), 3)})
    data = folder / "data.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    (folder / "settings.yaml").write_text(SETTINGS, encoding="utf-8")
    suggestions = folder / "suggestions.jsonl"
    suggestions.write_text("".join(json.dumps({"record_id": f"r{i}", "question": "verdict", "value": "consistent",
                                               "score": 0.5, "agent": "judge"}) + "\n" for i in range(0, records, 5)))
    return [data, folder / "settings.yaml", suggestions]


def files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.slow
def test_chunk_size_and_workers_do_not_show_in_the_bundle(tmp_path):
    from mercury_static.pipeline.steps import BuildOptions, build

    data, settings, suggestions = dataset(tmp_path)
    limits = ShardLimits(record_bytes=2500, records=4, text_chars=1500, cell_records=10)  # 5 k-means cells

    def run(name: str, **options) -> dict[str, bytes]:
        build([data], tmp_path / name, BuildOptions(cache_dir=TEST_CACHE, shards=limits, settings=settings,
                                                    suggestions=suggestions, **options))
        return files(tmp_path / name)

    one_chunk = run("one-chunk", workers=2)
    manifest = json.loads(one_chunk["manifest.json"])
    assert manifest["shards"]["texts"] >= 8 and manifest["shards"]["records"] >= 12
    assert manifest["record_vectors"]["cells"]["count"] == 5 and manifest["queues"]
    assert manifest["counts"]["records"] == 48
    index = read_columns(tmp_path / "one-chunk" / "data")
    assert index["meta"][0] == {"summarizer": "m0", "hhem": json.loads(data.read_text().splitlines()[0])["hhem"]}
    texts = [t for name, raw in one_chunk.items() if name.startswith("data/texts-") and name.endswith(".json")
             for t in json.loads(raw)["texts"]]
    assert len(texts) == len({t["id"] for t in texts}) == manifest["counts"]["texts"] < 2 * 48 - 20
    assert any(t["sections"] for t in texts)

    assert run("chunks-of-1", chunk_records=1, workers=1) == one_chunk
    assert run("chunks-of-5", chunk_records=5, workers=2) == one_chunk
    assert run("again", workers=1) == one_chunk


PEAK = """
import json, sys
from pathlib import Path
from mercury_static.assist.embed import load_embedder
from mercury_static.assist.model_export import ensure_model
from mercury_static.pipeline.steps import BuildOptions, build

def high_water_kb():
    status = Path("/proc/self/status").read_text()
    return int(next(x for x in status.splitlines() if x.startswith("VmHWM:")).split()[1])

load_embedder(ensure_model(None, cache_dir=Path(sys.argv[3])).dir)  # the build's own, cached per process
loaded = high_water_kb()
build([Path(sys.argv[1])], Path(sys.argv[2]), BuildOptions(cache_dir=Path(sys.argv[3]), chunk_records=500))
print(json.dumps({"peak_kb": high_water_kb(), "loaded_kb": loaded}))
"""


def peak_mb(tmp_path: Path, records: int) -> float:
    """How far the build of `records` records of a long `note` each (from 40 sentences, so embedding is cheap:
    the texts are distinct, the rows are not) raises a child process's VmHWM above the model it loaded first.
    The model's load alone varies by tens of MB from one process to the next (its threads' arenas), which
    would hide or fake a build's growth."""
    rng = random.Random(5)
    pool = [" ".join(rng.choice(WORDS) for _ in range(8)).capitalize() + "." for _ in range(40)]
    data = tmp_path / f"n{records}.jsonl"
    with data.open("w", encoding="utf-8") as f:
        for i in range(records):
            f.write(json.dumps({"id": f"r{i}", "source": pool[i % 7] + " " + pool[i % 11],
                                "summary": f"{pool[i % 40]} {pool[i // 40 % 40]} {pool[i // 1600 % 40]}",
                                "note": f"{i:08d}" * 1024}) + "\n")
    env = {**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1"}
    run = subprocess.run([sys.executable, "-c", PEAK, str(data), str(tmp_path / f"b{records}"), str(TEST_CACHE)],
                         capture_output=True, text=True, timeout=900, env=env)
    assert run.returncode == 0, run.stderr[-2000:]
    measured = json.loads(run.stdout.strip().splitlines()[-1])
    return (measured["peak_kb"] - measured["loaded_kb"]) / 1024


@pytest.mark.slow
def test_peak_memory_does_not_grow_with_records(tmp_path):
    """4× the records (3 × 4,000 long notes more input, read, stored and written) leave the build's peak
    where it was: only a chunk, an open shard and the scratch database's page cache are in memory."""
    small, large = peak_mb(tmp_path, 4000), peak_mb(tmp_path, 16000)
    assert large - small < 16, (small, large)


def test_a_bad_record_late_in_the_input_stops_the_build_before_any_work(tmp_path):
    """Every record is read and checked before the first chunk is built (one line, as when every record was
    held): not after hours of embedding. Nothing is left beside -o."""
    import pytest

    from mercury_static.pipeline.steps import BuildOptions, build
    from mercury_static.core.records import InputError

    data, settings, _ = dataset(tmp_path)
    lines = data.read_text().splitlines()
    lines[45] = json.dumps({**json.loads(lines[45]), "hhem": "high"})
    data.write_text("\n".join(lines) + "\n")
    steps = []
    with pytest.raises(InputError) as e:
        build([data], tmp_path / "out" / "b", BuildOptions(cache_dir=TEST_CACHE, settings=settings, chunk_records=2),
              step=lambda description, total: steps.append(description) or (lambda n: None))
    assert str(e.value) == ("data.jsonl:46: record r45: field 'hhem': metadata 'hhem' (float): expected a number, "
                            "got string 'high'")
    assert steps == [] and not (tmp_path / "out").exists()
