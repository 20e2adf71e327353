"""One bad annotation is not a bad file. FaithBench dumps have annotations whose label list is
empty: build, eval, merge and tune all drop that one annotation (one line naming the record and the
annotation) and keep the rest, and so agree on which annotations, and which gold pairs, there are."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import TEST_CACHE

SHARED = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "faithbench"
SOURCE = "The lighthouse opened in 1890. It was restored in 2001 for two million euros. Tourists visit it daily."
SUMMARY = "The lighthouse opened in 1899 and cost three million euros."


def flat(annot_id, label, summary: str, source: str | None = None) -> dict:
    s = SUMMARY.index(summary)
    src = SOURCE.index(source) if source else None
    return {"annot_id": annot_id, "annotator_name": "ann", "label": label, "note": "", "summary_span": summary,
            "summary_start": s, "summary_end": s + len(summary), "source_span": source,
            "source_start": src, "source_end": None if source is None else src + len(source)}


def own_dump(path: Path) -> tuple[Path, str, list[int], list[int]]:
    """(dump, sample id, the annotations kept, the ones dropped): labels [], "" and [1] are dropped."""
    anns = [flat(1, ["Unwanted", "Unwanted.Intrinsic"], "1899", "1890"), flat(2, [], "three million", "two million"),
            flat(3, "", "opened"), flat(4, ["Benign"], "lighthouse"), flat(5, [1], "euros", "euros")]
    path.write_text(json.dumps({"samples": [{"sample_id": "s1", "source": SOURCE, "summary": SUMMARY,
                                             "annotations": anns, "metadata": {}}]}), encoding="utf-8")
    return path, "s1", [1, 4], [2, 3, 5]


def faithbench_dump(path: Path) -> tuple[Path, str, list[int], list[int]]:
    """One real FaithBench sample (batch 9, sample 36: nine annotations, annotation 77's label is [])."""
    if not (SHARED / "batch_9.json").is_file():
        pytest.skip("../shared/data is absent")
    doc = json.loads((SHARED / "batch_9.json").read_text(encoding="utf-8"))
    sample = next(s for s in doc["samples"] if s["sample_id"] == 36)
    path.write_text(json.dumps({"samples": [sample]}), encoding="utf-8")
    kept = [a["annot_id"] for a in sample["annotations"] if a["label"]]
    return path, "36", kept, [77]


@pytest.mark.parametrize("make", [own_dump, faithbench_dump])
def test_build_eval_merge_and_tune_drop_the_one_bad_annotation_alike(run, stand_in_model, tmp_path, make):
    from mercury_static.bundle.contents import load_bundle
    from mercury_static.tune.evaluate import load_eval_set
    from mercury_static.tune.tune import load_pairs

    dump, sample, kept, dropped = make(tmp_path / "dump.json")
    bundle = tmp_path / "bundle"
    built = run("build", dump, "-o", bundle, "--model", stand_in_model)
    assert built.exit_code == 0, built.output
    warnings = [x for x in built.output.splitlines() if x.startswith("warning:")]
    assert len(warnings) == len(dropped), built.output  # once each: build reads its inputs once
    for line, ann in zip(warnings, dropped):
        assert f"{dump}: record 0: annotation {ann}: field 'label': expected " in line and "; dropped" in line, line
    [record] = load_bundle(bundle).records
    assert [a["id"] for a in record.prior_annotations] == [str(k) for k in kept]

    merged = run("merge", dump, "--bundle", bundle, "-o", tmp_path / "m.json")
    assert merged.exit_code == 1, merged.output  # something was skipped: the rest is merged
    skipped = [x for x in merged.output.splitlines() if x.startswith("skipped:")]
    assert len(skipped) == len(dropped), merged.output
    for line, ann in zip(skipped, dropped):
        assert line.startswith(f"skipped: {dump}: sample {sample}, annotation {ann}: field 'label': expected "), line
    [out] = json.loads((tmp_path / "m.json").read_text(encoding="utf-8"))
    assert sorted(int(a["id"]) for a in out["annotations"]) == sorted(kept)

    pairs = load_pairs([dump], bundle)
    assert [str(p) for p in pairs.problems] == [x.removeprefix("skipped: ") for x in skipped]
    gold = load_eval_set([dump], cache_dir=TEST_CACHE, embed_cache=tmp_path / "cache")
    assert sorted(q.selection for q, _ in gold.queries) == sorted(q.selection for q, _ in pairs.data.queries)
    assert gold.queries  # the kept annotations with a source span are gold pairs, the dropped ones are not
