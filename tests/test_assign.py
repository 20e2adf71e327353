"""Annotator queues (`assign` and the settings' distribution): coverage, balance, determinism, the
manifest rewritten atomically (killed mid-way it is the old or the new one), bad names one line."""

from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
import yaml

from conftest import EXAMPLES, REPO, TEST_CACHE
from schema_lite import errors


def digest(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("n_records, names, overlap", [
    (21, ["alice", "bob", "carol"], 2), (10, ["a", "b", "c", "d"], 3), (7, ["a", "b"], 2), (5, ["solo"], 1),
    (3, ["a", "b", "c", "d", "e"], 2), (100, ["a", "b", "c", "d", "e", "f", "g"], 3), (0, ["a", "b"], 1),
])
def test_every_record_exactly_overlap_times_and_balanced(n_records, names, overlap):
    from mercury_static.bundle.assign import make_queues
    from mercury_static.settings.model import Distribution

    ids = [f"r{i}" for i in range(n_records)]
    queues = make_queues(ids, Distribution(tuple(names), overlap), "seed")
    assert list(queues) == names
    counts = Counter(rid for q in queues.values() for rid in q)
    assert counts == Counter({rid: overlap for rid in ids})
    assert all(len(set(q)) == len(q) for q in queues.values())  # never twice in one queue
    sizes = [len(q) for q in queues.values()]
    assert max(sizes) - min(sizes) <= 1


def test_queues_are_deterministic_and_seeded_by_the_bundle():
    from mercury_static.bundle.assign import make_queues
    from mercury_static.settings.model import Distribution

    ids = [f"r{i}" for i in range(50)]
    dist = Distribution(("alice", "bob", "carol"), 2)
    assert make_queues(ids, dist, "abc") == make_queues(list(reversed(ids)), dist, "abc")
    assert make_queues(ids, dist, "abc") != make_queues(ids, dist, "abd")  # not the bundle order


@pytest.fixture
def bundle(stand_in_demo, tmp_path) -> Path:
    """A private copy of the demo bundle (assign rewrites it)."""
    import shutil

    copy = tmp_path / "bundle"
    shutil.copytree(stand_in_demo, copy)
    return copy


def queues_file(bundle: Path) -> Path:
    """The queues file the bundle's manifest names."""
    return bundle / json.loads((bundle / "manifest.json").read_text(encoding="utf-8"))["queues"]["path"]


def test_assign_writes_queues_and_keeps_the_bundle(run, bundle):
    before = digest(bundle)
    manifest_before = json.loads((bundle / "manifest.json").read_text(encoding="utf-8"))
    result = run("assign", bundle, "--annotators", "alice, bob,carol", "--overlap", "2")
    assert result.exit_code == 0, result.output
    manifest = json.loads((bundle / "manifest.json").read_text(encoding="utf-8"))
    path = manifest["queues"].pop("path")
    assert re.fullmatch(r"data/queues-[0-9a-f]{12}\.json", path), path  # named by its content
    assert manifest["queues"] == {"overlap": 2, "annotators": ["alice", "bob", "carol"]}
    manifest["queues"]["path"] = path
    assert manifest["bundle_id"] == manifest_before["bundle_id"]
    assert {k: v for k, v in manifest.items() if k != "queues"} == {
        k: v for k, v in manifest_before.items() if k != "queues"}
    schema = json.loads((REPO / "docs" / "manifest.schema.json").read_text(encoding="utf-8"))
    assert errors(manifest, schema) == []
    after = digest(bundle)
    assert set(after) - set(before) == {path}  # no stray temporary file
    assert {k for k in before if before[k] != after[k]} == {"manifest.json"}  # the marker and data stay
    doc = json.loads(queues_file(bundle).read_text(encoding="utf-8"))
    assert (doc["format"], doc["version"]) == ("mercury-static/queues", 2)  # formats.QUEUES
    queues = doc["queues"]
    ids = [r["id"] for line in (EXAMPLES / "demo.jsonl").read_text().splitlines() if line.strip()
           for r in [json.loads(line)]]
    assert Counter(x for q in queues.values() for x in q) == Counter({i: 2 for i in ids})
    from mercury_static.bundle.contents import load_bundle

    assert len(load_bundle(bundle).records) == len(ids)
    # again with the same names: byte-identical; a build can still replace the bundle (the marker stays)
    first = queues_file(bundle).read_bytes()
    assert run("assign", bundle, "--annotators", "alice,bob,carol", "--overlap", "2").exit_code == 0
    assert queues_file(bundle).read_bytes() == first
    from mercury_static.bundle.folder import is_bundle

    assert is_bundle(bundle)


@pytest.mark.parametrize("names, overlap, words", [
    ("alice,bob", 3, ["'--overlap'", "from 1 to the number of annotators (2)"]),
    ("alice,,bob", 1, ["'--annotators'", "empty annotator name"]),
    ("alice,bob,alice", 2, ["'--annotators'", "duplicate annotator 'alice'"]),
    ("alice", 0, ["'--overlap'"]),
    (" ", 1, ["empty annotator name"]),
])
def test_bad_names_or_overlap_are_one_line_and_change_nothing(run, bundle, names, overlap, words):
    before = digest(bundle)
    result = run("assign", bundle, "--annotators", names, "--overlap", overlap)
    assert result.exit_code == 2, result.output
    lines = [x for x in result.output.splitlines() if x.startswith("error:")]
    assert len(lines) == 1, result.output
    for w in words:
        assert w in lines[0], lines[0]
    assert digest(bundle) == before


def test_assign_refuses_a_folder_that_is_not_a_bundle(run, tmp_path):
    (tmp_path / "manifest.json").write_text('{"name": "a web extension"}', encoding="utf-8")
    result = run("assign", tmp_path, "--annotators", "a,b")
    assert result.exit_code == 2 and "cannot read the bundle" in result.output
    assert not (tmp_path / "data").exists()


@pytest.mark.slow
def test_build_distribution_gives_the_queues_assign_gives(run, build_bundle, tmp_path):
    """The settings' distribution at build time = `assign` with the same names afterwards; a rebuild gives
    byte-identical queues."""
    settings = tmp_path / "s.yaml"
    settings.write_text(yaml.safe_dump({"distribution": {"annotators": ["alice", "bob", "carol"], "overlap": 2}}),
                        encoding="utf-8")
    built = build_bundle([EXAMPLES / "demo.jsonl"], name="dist", settings=settings)
    again = build_bundle([EXAMPLES / "demo.jsonl"], name="dist2", settings=settings)
    queues = queues_file(built).read_bytes()
    assert queues_file(again).read_bytes() == queues
    no_dist = tmp_path / "n.yaml"
    no_dist.write_text(yaml.safe_dump({"vectors": {"similar_records": True}}), encoding="utf-8")
    plain = build_bundle([EXAMPLES / "demo.jsonl"], name="plain", settings=no_dist)
    assert json.loads((plain / "manifest.json").read_text())["bundle_id"] == json.loads(
        (built / "manifest.json").read_text())["bundle_id"]  # the distribution is not part of the bundle id
    assert run("assign", plain, "--annotators", "alice,bob,carol", "--overlap", "2").exit_code == 0
    assert queues_file(plain).read_bytes() == queues
    manifest = json.loads((built / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["queues"]["annotators"] == ["alice", "bob", "carol"]


@pytest.mark.slow  # eight assigns killed at 0 … 1.75 s: 7 s of sleeping
def test_a_killed_assign_leaves_whole_files(run, bundle, exported_model):
    """SIGKILL at different moments of `assign`: the manifest is always whole (the old one or a new one) and
    so is the queues file it names; running it again completes it."""
    old = (bundle / "manifest.json").read_text(encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(REPO), "MERCURY_STATIC_CACHE": str(TEST_CACHE)}
    code = "import sys; from mercury_static.cli import app; sys.argv[0] = 'mercury-static'; app()"
    seen = Counter()
    for k, names in enumerate(["a,b", "a,b,c", "x,y", "p,q,r,s", "a,b", "u,v,w", "c,d", "e,f,g"]):
        proc = subprocess.Popen([sys.executable, "-c", code, "assign", str(bundle), "--annotators", names],
                                env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.25 * k)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        text = (bundle / "manifest.json").read_text(encoding="utf-8")
        manifest = json.loads(text)  # never a half-written file
        seen["old" if text == old else "new"] += 1
        if manifest.get("queues"):
            stored = json.loads(queues_file(bundle).read_text(encoding="utf-8"))["queues"]
            assert all(isinstance(q, list) for q in stored.values())
    assert seen["old"], seen  # killed before it wrote (the later kills land during or after it, load permitting)
    assert run("assign", bundle, "--annotators", "a,b,c", "--overlap", "2").exit_code == 0
    manifest = json.loads((bundle / "manifest.json").read_text(encoding="utf-8"))
    stored = json.loads(queues_file(bundle).read_text(encoding="utf-8"))["queues"]
    assert sorted(stored) == manifest["queues"]["annotators"] == ["a", "b", "c"]


def test_assign_warns_when_the_blind_names_are_not_among_the_annotators(run, build_bundle, tmp_path):
    """Settings blind for bob, queues later for dan and eve: nobody works blind any more; said, not silent."""
    settings = tmp_path / "s.yaml"
    settings.write_text(yaml.safe_dump({"suggestions": {"blind": ["bob"]}}), encoding="utf-8")
    built = build_bundle([EXAMPLES / "demo.jsonl"], name="blind-assign", settings=settings)
    result = run("assign", built, "--annotators", "dan,eve", "--overlap", "1")
    assert result.exit_code == 0, result.output
    [warning] = [x for x in result.output.splitlines() if x.startswith("warning:")]
    assert "blind annotator(s) bob" in warning and "not among --annotators" in warning
    result = run("assign", built, "--annotators", "bob,eve", "--overlap", "1")
    assert result.exit_code == 0 and "warning:" not in result.output
