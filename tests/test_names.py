"""One name, one annotator. The rule (names.py) against the cases the page's names.js is tested
against (tests/names_cases.json); every place a list of names enters refuses two spellings of one name,
naming both; the names stored are the normalised ones."""

from __future__ import annotations

import json
import shutil
import unicodedata
from pathlib import Path

import pytest
import yaml

from conftest import EXAMPLES
from mercury_static.core.names import normalize_name

CASES = json.loads((Path(__file__).parent / "names_cases.json").read_text(encoding="utf-8"))
NFD = unicodedata.normalize("NFD", "Jos\u00e9")


@pytest.mark.parametrize("raw, want", CASES["normalize"])
def test_normalize_name(raw, want):
    assert normalize_name(raw) == want


def test_spellings_of_one_name_are_one_and_other_names_stay_apart():
    for group in CASES["same"]:
        assert len({normalize_name(x) for x in group}) == 1, group
    for group in CASES["different"]:
        assert len({normalize_name(x) for x in group}) == len(group), group


def one_error(result, *parts: str) -> str:
    assert result.exit_code == 2, result.output
    [line] = [x for x in result.output.splitlines() if x.startswith("error:")]
    for part in parts:
        assert part in line, line
    return line


@pytest.fixture
def bundle(stand_in_demo, tmp_path) -> Path:
    copy = tmp_path / "bundle"
    shutil.copytree(stand_in_demo, copy)
    return copy


@pytest.mark.parametrize("names, both", [
    (f"Jos\u00e9,{NFD}", "'Jos\\xe9' and 'Jose\\u0301' are one name"),
    ("alice,alice\u200b", "'alice' and 'alice\\u200b' are one name"),
    ("bob,\u202ebob\u202c", "'bob' and '\\u202ebob\\u202c' are one name"),
])
def test_assign_refuses_two_spellings_of_one_name(run, bundle, names, both):
    before = (bundle / "manifest.json").read_bytes()
    one_error(run("assign", bundle, "--annotators", names), "field '--annotators': duplicate annotator", both)
    assert (bundle / "manifest.json").read_bytes() == before and not list((bundle / "data").glob("queues*.json"))


def test_assign_stores_the_normalised_names(run, bundle):
    assert run("assign", bundle, "--annotators", f"{NFD}, alice\u200b ,bob").exit_code == 0
    manifest = json.loads((bundle / "manifest.json").read_text(encoding="utf-8"))
    queues = json.loads((bundle / manifest["queues"]["path"]).read_text(encoding="utf-8"))["queues"]
    assert manifest["queues"]["annotators"] == sorted(queues, key=manifest["queues"]["annotators"].index) == [
        "Jos\u00e9", "alice", "bob"]


@pytest.mark.parametrize("settings, field", [
    ({"distribution": {"annotators": ["Jos\u00e9", NFD]}}, "field 'annotators'"),
    ({"suggestions": {"blind": ["alice", "alice\u2060"]}}, "field 'blind'"),
])
def test_the_settings_name_lists_refuse_two_spellings_of_one_name(run, tmp_path, settings, field):
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(settings, allow_unicode=True), encoding="utf-8")
    one_error(run("build", EXAMPLES / "demo.jsonl", "-o", tmp_path / "out", "--settings", path), str(path), field,
              "duplicate annotator", "are one name")
    assert not (tmp_path / "out").exists()


def test_the_settings_names_are_stored_normalised(build_bundle, tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump({"distribution": {"annotators": [NFD, "bob\u200b"]},
                                    "suggestions": {"blind": [" bob"]}}, allow_unicode=True), encoding="utf-8")
    built = build_bundle([EXAMPLES / "demo.jsonl"], name="names-settings", settings=path)
    manifest = json.loads((built / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["queues"]["annotators"] == ["Jos\u00e9", "bob"]
    assert manifest["settings"]["suggestions"]["blind"] == ["bob"]


def test_merge_compares_an_older_bundles_blind_names_normalised():
    """A bundle built before names were normalised may list "bob\u200b" as blind: bob's export is his."""
    from mercury_static.merge.notes import blind_notes

    records = [{"responses": [{"annotator": "bob", "suggestions": {"shown": True}}]}]
    assert blind_notes(records, ("Bob\u200b",)) == ["annotator 'bob' is blind in the settings (suggestions.blind) "
                                                    "but their export says suggestions were shown on 1 record(s): "
                                                    "those answers count as shown"]
