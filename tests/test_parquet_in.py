"""`build` reads Parquet (a file, a folder of them) and a 🤗 `Dataset.save_to_disk` folder, written here by pyarrow
and `datasets` themselves: the same records, and the same bundle, as the rows given as JSON Lines; bad input one
line; rows read a batch at a time (a million rows in the memory of the JSON Lines read)."""

from __future__ import annotations

import datetime
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import datasets
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import REPO, TEST_CACHE
from mercury_static.core.records import InputError
from mercury_static.read.inputs import read_records
from test_bad_input import one_error


def rows(n: int) -> list[dict]:
    return [{"id": f"r{i}", "source": [{"title": "Report", "text": f"The plant opened in {1990 + i % 30}. It employs "
                                        f"{i % 7 + 2} hundred people."},
                                       {"title": "Weather", "text": "Weather was mild."}],
             "summary": f"The plant opened in {1991 + i % 30}.",
             "metadata": {"topic": ["energy", "health"][i % 2], "score": i / 4}, "rank": i} for i in range(n)]


def as_jsonl(path: Path, items: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in items), encoding="utf-8")
    return path


def same_records(a, b) -> None:
    assert [(r.id, r.source, r.summary, r.metadata, r.source_sections) for r in a] == \
        [(r.id, r.source, r.summary, r.metadata, r.source_sections) for r in b]


def test_parquet_files_folders_and_saved_datasets_read_as_json_lines(tmp_path):
    items = rows(40)
    expected = read_records(as_jsonl(tmp_path / "rows.jsonl", items))
    pq.write_table(pa.Table.from_pylist(items), tmp_path / "rows.parquet", row_group_size=7)
    same_records(read_records(tmp_path / "rows.parquet"), expected)
    hub = tmp_path / "hub" / "data"
    hub.mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist(items[:25]), hub / "train-00000-of-00002.parquet")
    pq.write_table(pa.Table.from_pylist(items[25:]), hub / "train-00001-of-00002.parquet")
    same_records(read_records(tmp_path / "hub"), expected)
    datasets.Dataset.from_list(items).save_to_disk(str(tmp_path / "saved"), num_shards=3)
    same_records(read_records(tmp_path / "saved"), expected)
    same_records(read_records(tmp_path / "saved", fmt="parquet"), expected)


def test_columns_are_named_and_dates_read_as_text(tmp_path):
    table = pa.Table.from_pylist([{"article": "The cat sat.", "highlights": "A cat sat.",
                                   "published": datetime.datetime(2024, 5, 1, 12, 30)}])
    pq.write_table(table, tmp_path / "news.parquet")
    [record] = read_records(tmp_path / "news.parquet", source_field="article", summary_field="highlights")
    assert (record.id, record.source, record.summary) == ("0", "The cat sat.", "A cat sat.")
    assert record.metadata == {"published": "2024-05-01 12:30:00.000000"}


def test_a_parquet_file_and_a_saved_dataset_build_the_bundle_of_their_json_lines(build_bundle, tmp_path):
    items = rows(30)
    built = {}
    for kind in ("jsonl", "parquet", "saved"):
        folder = tmp_path / kind
        folder.mkdir()
        if kind == "jsonl":
            data = as_jsonl(folder / "rows.jsonl", items)
        elif kind == "parquet":
            data = folder / "rows.parquet"
            pq.write_table(pa.Table.from_pylist(items), data, row_group_size=8)
        else:
            data = folder / "rows"
            datasets.Dataset.from_list(items).save_to_disk(str(data))
        out = build_bundle([data], name=kind)
        built[kind] = {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*"))
                       if p.is_file() and "data" in p.relative_to(out).parts or p.name == "manifest.json"}
    assert len(built["jsonl"]) > 5 and built["jsonl"]["manifest.json"].count(b"bundle_id") == 1
    assert built["parquet"] == built["jsonl"]
    assert built["saved"] == built["jsonl"]


def damaged(tmp_path: Path) -> dict[str, Path]:
    good = tmp_path / "good.parquet"
    pq.write_table(pa.Table.from_pylist(rows(50)), good, row_group_size=10)
    out = {}
    out["truncated"] = tmp_path / "truncated.parquet"
    out["truncated"].write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    out["types"] = tmp_path / "types.parquet"
    pq.write_table(pa.Table.from_pylist([{"source": "The cat sat.", "summary": 3}]), out["types"])
    out["binary"] = tmp_path / "binary.parquet"
    pq.write_table(pa.table({"source": ["The cat sat."], "summary": ["A cat."], "blob": pa.array([b"\x00"])}),
                   out["binary"])
    out["missing"] = tmp_path / "missing.parquet"
    pq.write_table(pa.Table.from_pylist([{"text": "The cat sat.", "summary": "A cat."}]), out["missing"])
    datasets.DatasetDict({"train": datasets.Dataset.from_list(rows(2))}).save_to_disk(str(tmp_path / "dict"))
    out["dict"] = tmp_path / "dict"
    saved = tmp_path / "saved"
    datasets.Dataset.from_list(rows(3000)).save_to_disk(str(saved))
    [arrow] = saved.glob("*.arrow")
    arrow.write_bytes(arrow.read_bytes()[: arrow.stat().st_size - 5000])
    out["stream"] = saved
    return out


@pytest.mark.parametrize("case, parts", [
    ("truncated", ["truncated.parquet", "not a readable Parquet file"]),
    ("types", ["types.parquet", "field 'summary'", "expected a string column, got int64"]),
    ("binary", ["binary.parquet", "field 'blob'", "has no JSON form"]),
    ("missing", ["missing.parquet", "field 'source'", "no such column (columns: text, summary)"]),
    ("dict", ["a DatasetDict folder: give one split's folder (splits: train)"]),
    ("stream", ["data-00000-of-00001.arrow", "cannot read the rows"]),
])
def test_bad_parquet_is_one_line(run, tmp_path, case, parts):
    path = damaged(tmp_path)[case]
    one_error(run("build", path, "-o", tmp_path / "out"), *parts)


def test_a_bad_row_is_named_by_its_row(tmp_path):
    items = rows(5)
    items[3]["summary"] = " "
    pq.write_table(pa.Table.from_pylist(items), tmp_path / "rows.parquet", row_group_size=2)
    with pytest.raises(InputError) as e:
        read_records(tmp_path / "rows.parquet")
    assert str(e.value) == f"{tmp_path / 'rows.parquet'}: row 3: field 'summary': empty text"


SAMPLE_S = 0.05


def _rss_kb(pid: int) -> int:
    try:
        return int(re.search(r"VmRSS:\s+(\d+)", Path(f"/proc/{pid}/status").read_text()).group(1))
    except (OSError, AttributeError):
        return 0  # gone meanwhile (or a zombie)


def _descendants(pid: int) -> list[int]:
    """`pid` and every process under it (each thread's `children` list: cheap enough to read at every sample)."""
    out, todo = [], [pid]
    while todo:
        out.append(todo.pop())
        for task in Path(f"/proc/{out[-1]}/task").glob("*/children"):
            try:
                todo.extend(int(c) for c in task.read_text().split())
            except OSError:
                continue  # gone meanwhile
    return out


def _tree_peak(code: str, *args: str) -> tuple[int, str]:
    """Run `code` in a child: the peak of the RSS summed over it and its own children (the Parquet reader
    process), sampled every SAMPLE_S, in kB, and the child's stdout."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1", "MERCURY_STATIC_CACHE": str(TEST_CACHE)}
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen([sys.executable, "-c", code, *args], env=env, stdout=out, stderr=err)
        peak = 0
        while proc.poll() is None:
            peak = max(peak, sum(_rss_kb(pid) for pid in _descendants(proc.pid)))
            time.sleep(SAMPLE_S)
        out.seek(0)
        err.seek(0)
        assert proc.returncode == 0, err.read().decode()[-2000:]
        return peak, out.read().decode()


# The build's read, its ids on disk as the build keeps them: the records it read, on stdout
READ = ("import sys, tempfile\nfrom mercury_static.pipeline.scratch import Scratch\n"
        "from mercury_static.read.inputs import iter_records\n"
        "seen = Scratch(tempfile.mkdtemp()).id_places()\n"
        "print(sum(1 for _ in iter_records(sys.argv[1], seen=seen)))\n")


@pytest.mark.slow
def test_a_million_rows_read_in_the_memory_of_json_lines(tmp_path):
    n = 1_000_000
    writer = None
    with open(tmp_path / "big.jsonl", "w", encoding="utf-8") as f:
        for start in range(0, n, 50_000):
            chunk = [{"id": i, "source": f"Record {i} says the plant opened in {1900 + i % 100}.",
                      "summary": f"It opened in {1901 + i % 100}.", "rank": i} for i in range(start, start + 50_000)]
            f.write("".join(json.dumps(r) + "\n" for r in chunk))
            table = pa.Table.from_pylist(chunk)
            writer = writer or pq.ParquetWriter(tmp_path / "big.parquet", table.schema)
            writer.write_table(table, row_group_size=10_000)
    writer.close()
    datasets.Dataset.from_parquet(str(tmp_path / "big.parquet"), cache_dir=str(tmp_path / "cache")).save_to_disk(
        str(tmp_path / "big"))
    peaks = {}
    for name in ("big.jsonl", "big.parquet", "big"):
        peaks[name], count = _tree_peak(READ, str(tmp_path / name))
        assert int(count) == n
    print(f"peak RSS of the read and its reader process, kB: {peaks}")
    # the JSON Lines read's memory, plus at most the reader process (pyarrow and one batch): not rows' worth
    assert peaks["big.parquet"] - peaks["big.jsonl"] < 128 * 1024, peaks
    assert peaks["big"] - peaks["big.jsonl"] < 128 * 1024, peaks


@pytest.mark.slow
def test_a_hundred_thousand_rows_build_byte_identically_in_the_memory_of_json_lines(stand_in_model, tmp_path):
    n, batch = 100_000, 20_000
    folders = {kind: tmp_path / kind for kind in ("jsonl", "parquet", "saved")}
    for folder in folders.values():
        folder.mkdir()
    inputs = {"jsonl": folders["jsonl"] / "rows.jsonl", "parquet": folders["parquet"] / "rows.parquet",
              "saved": folders["saved"] / "rows"}
    writer = None
    with open(inputs["jsonl"], "w", encoding="utf-8") as f:
        for start in range(0, n, batch):
            chunk = [{**r, "id": f"r{start + i}", "rank": start + i} for i, r in enumerate(rows(batch))]
            f.write("".join(json.dumps(r) + "\n" for r in chunk))
            table = pa.Table.from_pylist(chunk)
            writer = writer or pq.ParquetWriter(inputs["parquet"], table.schema)
            writer.write_table(table, row_group_size=10_000)
    assert writer is not None
    writer.close()
    datasets.Dataset.from_parquet(str(inputs["parquet"]), cache_dir=str(tmp_path / "cache")).save_to_disk(
        str(inputs["saved"]))
    built, peaks = {}, {}
    for kind, data in inputs.items():
        out = folders[kind] / "bundle"
        peaks[kind], _ = _tree_peak("from mercury_static.cli import app\ntry:\n    app()\nexcept SystemExit as e:\n"
                                    "    assert not e.code, e.code", "build", str(data), "--model", str(stand_in_model),
                                    "-o", str(out))
        built[kind] = {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*"))
                       if p.is_file() and "data" in p.relative_to(out).parts or p.name == "manifest.json"}
    assert len(built["jsonl"]) > 5
    assert built["parquet"] == built["jsonl"]
    assert built["saved"] == built["jsonl"]
    # the build and its Parquet reader process together: pyarrow's memory is gone before the model is loaded
    print(f"peak RSS of the build and its reader process, kB: {peaks}")
    assert peaks["parquet"] <= peaks["jsonl"] * 1.1, peaks
    assert peaks["saved"] <= peaks["jsonl"] * 1.1, peaks
