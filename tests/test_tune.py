"""`tune` fits the ranker's weights to a bundle's own pairs, and `--apply` changes the ranking
without touching the data stored work depends on (the bundle id in two parts). Real model, real bundles,
real files; the page side is in test_page_tune.py."""

from __future__ import annotations

import datetime
import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from tune_fixture import OPTIONS, write_dump

BM25_ONLY = {"w_dense": 0.0, "w_context": 0.0}
COSINE_ONLY = {"w_bm25": 0.0, "w_context_bm25": 0.0}


@pytest.fixture(scope="module")
def dump(tmp_path_factory) -> Path:
    return write_dump(tmp_path_factory.mktemp("tune") / "pairs.json")


@pytest.fixture(scope="module")
def fixture_bundle(build_bundle, dump) -> Path:
    """With the default model: the fixture's premise is that its cosine ranks the gold sentences low."""
    return build_bundle([dump], name="tune", ranker=OPTIONS, model=None)


def files_of(bundle: Path) -> dict[str, str]:
    """sha256 of every file of a bundle but manifest.json."""
    return {str(p.relative_to(bundle)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(bundle.rglob("*")) if p.is_file() and p.name != "manifest.json"}


def manifest(bundle: Path) -> dict:
    return json.loads((bundle / "manifest.json").read_text(encoding="utf-8"))


def r1(data, options) -> float:
    from mercury_static.tune.evaluate import query_rows

    return float(np.mean([row["r1"] for row in query_rows(data, 5, options, controls=False)]))


def export(path: Path, bundle: Path, record: dict, bundle_id: str | None = None) -> Path:
    """A page export with one annotation on `record` (a bundle record)."""
    text = record.summary[:10]
    doc = {"format": "mercury-static/annotations", "version": 1,
           "bundle_id": bundle_id or manifest(bundle)["bundle_id"], "title": "t", "annotator": "alice",
           "client_id": "c1", "exported_at": "2026-12-01T10:00:00Z", "tool_version": "0.1.0",
           "records": [{"record_id": record.id, "status": "submitted", "updated_at": "2026-12-01T10:00:00Z",
                        "annotations": [{"id": "x1", "label": ["Benign"], "note": "",
                                         "summary": {"start": 0, "end": 10, "text": text}, "source": None,
                                         "created_at": "2026-12-01T10:00:00Z",
                                         "updated_at": "2026-12-01T10:00:00Z"}]}]}
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


# ------------------------------------------------------------------------------- the fit

def test_tune_recovers_the_weights_the_fixture_needs(dump, fixture_bundle):
    """Only BM25 finds the fixture's gold: tune must move the weight there and rank every pair first."""
    from mercury_static.tune.tune import load_pairs, tune

    pairs = load_pairs([dump], fixture_bundle)
    assert (len(pairs.data.queries), pairs.records, pairs.problems) == (36, 36, [])
    current = {**manifest(fixture_bundle)["ranker"]}
    # the fixture's premise, measured with the real ranker: the right weights are known
    assert r1(pairs.data, {**current, **BM25_ONLY}) == 1.0
    assert r1(pairs.data, {**current, **COSINE_ONLY}) == 0.0
    assert r1(pairs.data, current) == 0.0

    result = tune(pairs)
    assert result.recommended
    assert result.scores["r1"]["tuned"].mean == 1.0 and result.scores["r1"]["current"].mean == 0.0
    assert result.scores["mrr"]["gain"].low > 0.5
    assert r1(pairs.data, result.tuned) == 1.0
    t = result.tuned
    assert t["w_dense"] + t["w_context"] < 0.05 * (t["w_bm25"] + t["w_context_bm25"])
    # only the weights fused-v4 uses were fitted; everything else is the bundle's
    changed = {k for k in t if t[k] != current[k]}
    assert changed <= {"w_dense", "w_context", "w_bm25", "w_context_bm25", "w_entity"}
    assert t["w_lexical"] == t["w_context_lexical"] == 0.0


def test_shrinkage_keeps_the_weights_near_the_current_ones():
    """With nothing to learn (every term ranks alike) the fit stays at the prior; a strong shrinkage moves
    less than a weak one on the same informative data; fits run side by side."""
    from mercury_static.tune.tune import fit_toward

    rng = np.random.default_rng(0)
    prior = np.array([0.5, 0.5])
    groups = []
    for _ in range(40):
        rel = np.zeros(6, dtype=bool)
        rel[rng.integers(6)] = True
        informative = np.where(rel, 1.0, rng.uniform(0, 0.5, 6))
        groups.append((np.stack([informative, rng.uniform(0, 1, 6)], axis=1), rel))
    weak, strong, masked = fit_toward(groups, prior, [(None, 0.01), (None, 100.0), (np.arange(40) < 25, 1.0)])
    assert weak[0] > strong[0] > 0.5
    assert abs(strong[0] - 0.5) < 0.05
    assert (weak >= 0).all()
    # a term no pair exercises (a column of zeros) keeps its prior weight
    blind = [(np.stack([x[:, 0], np.zeros(len(rel))], axis=1), rel) for x, rel in groups]
    assert fit_toward(blind, prior, [(None, 1.0)])[0][1] == pytest.approx(0.5, abs=1e-3)
    # fits side by side are the fits alone: a mask is the same fit on its groups only
    assert masked == pytest.approx(fit_toward(groups[:25], prior, [(None, 1.0)])[0], abs=1e-6)


# ------------------------------------------------------------------------------- the CLI and --apply

def test_tune_apply_rewrites_only_the_ranker_options(run, dump, fixture_bundle, fresh_copy, tmp_path):
    bundle = fresh_copy(fixture_bundle)
    before, data_before = manifest(bundle), files_of(bundle)
    raw_before = (bundle / "manifest.json").read_bytes()
    result = run("tune", dump, "--bundle", bundle, "-o", tmp_path / "tuned.json", "--report",
                 tmp_path / "report.json", "--apply")
    assert result.exit_code == 0, result.output
    assert "recommended: held-out MRR gain" in result.output and "applied to" in result.output

    after = manifest(bundle)
    assert files_of(bundle) == data_before  # data, page, model and marker byte-identical
    assert (bundle / ".mercury-static-bundle").is_file()
    assert sorted(p.name for p in bundle.iterdir()) == sorted(p.name for p in fixture_bundle.iterdir())
    assert {k for k in after if after.get(k) != before.get(k)} == {"ranker", "ranker_id", "ranker_tuned"}
    assert after["bundle_id"] == before["bundle_id"]
    assert after["ranker_id"] != before["ranker_id"]
    today = datetime.datetime.now(datetime.timezone.utc).date().isoformat()
    assert after["ranker_tuned"] == {"pairs": 36, "records": 36, "date": today, "from": ["pairs.json"]}
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert report["recommended"] and after["ranker"] == report["tuned"]
    options = json.loads((tmp_path / "tuned.json").read_text(encoding="utf-8"))
    assert options["format"] == "mercury-static/ranker-options" and options["ranker"] == after["ranker"]
    assert options["tuned"] == after["ranker_tuned"]
    # written as build writes it: the same serialisation, read back by every reader
    from mercury_static.bundle.contents import load_bundle
    from mercury_static.bundle.manifest import manifest_bytes
    assert (bundle / "manifest.json").read_bytes() == manifest_bytes(after)
    assert manifest_bytes(before) == raw_before
    load_bundle(bundle)
    # the annotations made before still merge against the bundle
    work = export(tmp_path / "alice.json", bundle, load_bundle(bundle).records[0])
    merged = run("merge", work, "--bundle", bundle, "-o", tmp_path / "merged.json")
    assert merged.exit_code == 0, merged.output


def test_no_gain_is_not_recommended_and_nothing_is_written(run, dump, build_bundle, tmp_path):
    """Options that already rank every pair first: the gain's interval is [0, 0], so tune says so, exits 0
    and leaves the bundle and -o alone."""
    bundle = build_bundle([dump], name="tuned-already", ranker={**OPTIONS, **BM25_ONLY})
    raw = (bundle / "manifest.json").read_bytes()
    result = run("tune", dump, "--bundle", bundle, "-o", tmp_path / "tuned.json", "--apply")
    assert result.exit_code == 0, result.output
    assert "not recommended: the held-out MRR gain 0.000 [0.000, 0.000] includes 0" in result.output
    assert not (tmp_path / "tuned.json").exists()
    assert (bundle / "manifest.json").read_bytes() == raw


def test_too_few_pairs_is_one_line_and_exit_2(run, fixture_bundle, dump, tmp_path):
    doc = json.loads(dump.read_text(encoding="utf-8"))
    few = tmp_path / "few.json"
    few.write_text(json.dumps({"samples": doc["samples"][:5]}), encoding="utf-8")
    raw = (fixture_bundle / "manifest.json").read_bytes()
    result = run("tune", few, "--bundle", fixture_bundle, "-o", tmp_path / "o.json", "--apply")
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        f"error: {few}: 5 pairs (a summary span paired with a source span) in 1 file(s); tune needs at least 20"]
    assert not (tmp_path / "o.json").exists() and (fixture_bundle / "manifest.json").read_bytes() == raw


def test_too_few_pairs_over_several_files_names_them_all(run, fixture_bundle, dump, tmp_path):
    doc = json.loads(dump.read_text(encoding="utf-8"))
    parts = []
    for i, samples in enumerate((doc["samples"][:2], doc["samples"][2:4], doc["samples"][4:5])):
        parts.append(tmp_path / f"part{i}.json")
        parts[-1].write_text(json.dumps({"samples": samples}), encoding="utf-8")
    result = run("tune", *parts, "--bundle", fixture_bundle)
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        f"error: {', '.join(map(str, parts))}: 5 pairs (a summary span paired with a source span) in 3 file(s); "
        "tune needs at least 20"]


def test_bad_inputs_are_the_merge_readers_lines(run, fixture_bundle, dump, tmp_path):
    from mercury_static.bundle.contents import load_bundle

    other = export(tmp_path / "bob.json", fixture_bundle, load_bundle(fixture_bundle).records[0], bundle_id="b" * 20)
    result = run("tune", dump, other, "--bundle", fixture_bundle, "--report", tmp_path / "r.json")
    assert result.exit_code == 1  # something skipped; the rest is tuned
    assert (f"skipped: {other}: field 'bundle_id': 'bbbbbbbbbbbbbbbbbbbb' is another bundle (this bundle is "
            f"'{manifest(fixture_bundle)['bundle_id']}')") in result.output
    assert json.loads((tmp_path / "r.json").read_text())["pairs"] == 36
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "manifest.json").write_text("{", encoding="utf-8")
    bad = run("tune", dump, "--bundle", broken)
    assert bad.exit_code == 2 and bad.output.startswith(f"error: {broken}: cannot read the bundle: manifest.json")
    assert len(bad.output.strip().splitlines()) == 1
    same = run("tune", dump, "--bundle", fixture_bundle, "-o", dump)
    assert same.exit_code == 2 and "is an input of this command" in same.output


# ------------------------------------------------------------------------------- the bundle id in two parts

def test_ranker_options_are_not_part_of_the_bundle_id(build_bundle, dump):
    a = manifest(build_bundle([dump], name="a", ranker=OPTIONS))
    b = manifest(build_bundle([dump], name="b", ranker={**OPTIONS, "w_dense": 0.5}))
    assert a["bundle_id"] == b["bundle_id"]
    assert a["ranker_id"] != b["ranker_id"] and len(a["ranker_id"]) == 12
    assert a["ranker_tuned"] is None


def test_a_bundle_with_an_old_form_id_keeps_it(run, fixture_bundle, fresh_copy, tmp_path):
    """A bundle built before the split (its id hashed the ranker options too, no ranker_id): its exports
    still merge against it, before and after new options are applied."""
    from mercury_static.bundle.contents import load_bundle
    from mercury_static.bundle.ranker_file import apply_options
    from mercury_static.bundle.manifest import manifest_bytes

    bundle = fresh_copy(fixture_bundle)
    old = manifest(bundle)
    old["bundle_id"] = "0123456789abcdef0123"
    del old["ranker_id"], old["ranker_tuned"]
    (bundle / "manifest.json").write_bytes(manifest_bytes(old))
    work = export(tmp_path / "alice.json", bundle, load_bundle(bundle).records[0])
    assert run("merge", work, "--bundle", bundle, "-o", tmp_path / "m1.json").exit_code == 0
    apply_options(bundle, {**old["ranker"], "w_dense": 0.1}, None)
    assert manifest(bundle)["bundle_id"] == "0123456789abcdef0123"
    assert run("merge", work, "--bundle", bundle, "-o", tmp_path / "m2.json").exit_code == 0


def test_apply_refuses_what_the_page_would_not_read(fixture_bundle, fresh_copy, tmp_path):
    from mercury_static.bundle.ranker_file import apply_options
    from mercury_static.bundle.manifest import manifest_bytes
    from mercury_static.core.records import InputError

    bundle = fresh_copy(fixture_bundle)
    with pytest.raises(InputError, match="field 'neighbor': 'abc' is not a number"):
        apply_options(bundle, {"neighbor": "abc"})
    doc = manifest(bundle)
    doc["ranker_spec"] = doc["ranker_spec"][:-1]  # a bundle whose page knows another option table
    (bundle / "manifest.json").write_bytes(manifest_bytes(doc))
    with pytest.raises(InputError, match="field 'ranker_spec': the bundle's page has another ranker option table"):
        apply_options(bundle, {})
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "manifest.json").write_text("{}", encoding="utf-8")
    with pytest.raises(InputError, match="not a bundle written by mercury-static build"):
        apply_options(plain, {})


# ------------------------------------------------------------------------------- eval --options

def test_eval_reads_an_options_file(run, dump, tmp_path):
    opts = tmp_path / "opts.json"
    opts.write_text(json.dumps({**OPTIONS, **BM25_ONLY}), encoding="utf-8")
    result = run("eval", dump, "--options", opts, "--report", tmp_path / "r.json")
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["options"]["w_dense"] == 0.0 and report["options"]["neighbor"] == 0.0
    assert report["groups"][0]["recall"]["1"] == 1.0
    # the file of tune -o, and --ranker-option over it
    (tmp_path / "tuned.json").write_text(json.dumps({"format": "mercury-static/ranker-options", "version": 1,
                                                     "ranker": {"neighbor": 0.0}, "tuned": None}))
    both = run("eval", dump, "--options", tmp_path / "tuned.json", "--ranker-option", "position=0",
               "--report", tmp_path / "r2.json")
    assert both.exit_code == 0, both.output
    got = json.loads((tmp_path / "r2.json").read_text())["options"]
    assert (got["neighbor"], got["position"]) == (0.0, 0.0)
    for content, message in (('{"bogus": 1}', "opts.json: field 'bogus': unknown ranker option"),
                             ('{"neighbor": 7}', "opts.json: field 'neighbor': '7' is not a number in [0, 1]"),
                             ('{"neighbor": 0.1, "neighbor": 0.2}', "opts.json: field 'neighbor': duplicate key"),
                             ('{"format": "other", "version": 1}', "opts.json: field 'format': 'other' is not"),
                             ("[1", "opts.json: line 1 column 3: invalid JSON")):
        opts.write_text(content, encoding="utf-8")
        bad = run("eval", dump, "--options", opts)
        assert bad.exit_code == 2, content
        assert len(bad.output.strip().splitlines()) == 1 and message in bad.output, bad.output


def test_a_damaged_bundle_model_is_one_line(run, dump, fixture_bundle, fresh_copy):
    bundle = fresh_copy(fixture_bundle)
    onnx = next(bundle.glob("models/*/onnx/model_quantized.onnx"))
    onnx.write_bytes(b"not a model")
    result = run("tune", dump, "--bundle", bundle)
    assert result.exit_code == 2
    assert result.output.startswith(f"error: {onnx.parent.parent}: cannot load the bundle's model")
    assert len(result.output.strip().splitlines()) == 1


def test_damaged_vectors_are_one_line(run, dump, fixture_bundle, fresh_copy):
    bundle = fresh_copy(fixture_bundle)
    (bundle / "data" / "vectors-0000.bin").write_bytes(b"\0" * 10)
    result = run("tune", dump, "--bundle", bundle)
    assert result.exit_code == 2
    assert result.output.startswith(f"error: {bundle}: cannot read the bundle: data/vectors-0000.bin:")
    assert len(result.output.strip().splitlines()) == 1


def test_apply_races_a_reader_without_it_ever_seeing_a_partial_manifest(fixture_bundle, fresh_copy):
    """A page (re)loading while options are applied reads the old manifest or the new one, never a part."""
    import threading

    from mercury_static.bundle.ranker_file import apply_options

    bundle = fresh_copy(fixture_bundle)
    ranker = manifest(bundle)["ranker"]
    stop, seen, bad = threading.Event(), set(), []

    def read():
        while not stop.is_set():
            try:
                seen.add(json.loads((bundle / "manifest.json").read_text(encoding="utf-8"))["ranker"]["w_dense"])
            except (ValueError, KeyError) as e:
                bad.append(repr(e))

    reader = threading.Thread(target=read)
    reader.start()
    try:
        for i in range(150):
            apply_options(bundle, {**ranker, "w_dense": (0.1, 0.3)[i % 2]}, None)
    finally:
        stop.set()
        reader.join()
    assert bad == [] and seen <= {0.1, 0.25, 0.3}
    assert [p.name for p in bundle.iterdir() if p.name.startswith(".manifest")] == []  # no temporary file left
