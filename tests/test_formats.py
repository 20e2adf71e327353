"""One Mercury parser for build and merge; the manifest, the export file and the merged output
match their JSON Schemas in docs/ (checked on real outputs), and readers refuse unknown formats/versions."""

from __future__ import annotations

import json
import shutil
import subprocess
import unicodedata
from pathlib import Path

import pytest

from conftest import REPO
from schema_lite import errors

from mercury_static.formats import EXPORT

NEXT_EXPORT = int(EXPORT.version) + 1  # a version no reader accepts

SCHEMAS = {name: json.loads((REPO / "docs" / f"{name}.schema.json").read_text(encoding="utf-8"))
           for name in ("manifest", "export", "merged")}
SOURCE = "The Eiffel Tower is in Paris. It was completed in 1889."
SUMMARY = "The Eiffel Tower, completed in 1899, stands in Rome."


def flat(summary_span: str, **fields) -> dict:
    start = SUMMARY.index(summary_span)
    return {"summary_span": summary_span, "summary_start": start, "summary_end": start + len(summary_span),
            **fields}


DUMP_ANNOTATIONS = [
    # the example: id and annot_id, annotator and annotator_id, a dotted string label
    flat("1899", id="x1", annot_id=7, annotator="alice", annotator_id="u9", label="Unwanted.Intrinsic",
         source_span="1889", source_start=SOURCE.index("1889"), source_end=SOURCE.index("1889") + 4),
    flat("Rome", annot_id=8, annotator_id="u9", label=["Unwanted", "Unwanted.Extrinsic"]),
    flat("stands", annotator_name=unicodedata.normalize("NFD", "José") + "\u200b", label="Benign"),  # no id
]


@pytest.fixture(scope="module")
def dump_and_bundle(build_bundle, tmp_path_factory):
    folder = tmp_path_factory.mktemp("formats")
    dump = folder / "batch_1.json"
    dump.write_text(json.dumps({"samples": [
        {"sample_id": " s1 ", "source": SOURCE, "summary": SUMMARY, "annotations": DUMP_ANNOTATIONS},
        {"sample_id": 2, "source": "Nothing happened today.", "summary": "Nothing happened.", "annotations": []},
    ]}, ensure_ascii=False), encoding="utf-8")
    return dump, build_bundle([dump], name="formats")


def test_build_and_merge_read_one_dump_alike(dump_and_bundle):
    from mercury_static.bundle.contents import load_bundle
    from mercury_static.merge.pipeline import merge_files
    from mercury_static.read.inputs import read_records

    dump, bundle_dir = dump_and_bundle
    read = read_records([dump])
    merged = merge_files([dump], load_bundle(bundle_dir))
    assert not merged.problems, merged.problems
    assert [r.id for r in read] == [r["id"] for r in merged.records] == ["s1", "2"]

    def triples(annotations):
        return sorted((a["id"], a["annotator"], tuple(a["label"])) for a in annotations)

    from_build = triples(read[0].prior_annotations)
    from_merge = triples(merged.records[0]["annotations"])
    assert from_build == from_merge
    assert ("x1", "alice", ("Unwanted", "Unwanted.Intrinsic")) in from_build
    assert ("8", "u9", ("Unwanted", "Unwanted.Extrinsic")) in from_build
    derived = next(t for t in from_build if t[2] == ("Benign",))
    assert derived[0].startswith("m") and derived[1] == "José"


def test_the_manifest_matches_its_schema_and_dataclass(stand_in_demo):
    from mercury_static.formats import Manifest

    manifest = json.loads((stand_in_demo / "manifest.json").read_text(encoding="utf-8"))
    assert errors(manifest, SCHEMAS["manifest"]) == []
    assert Manifest.from_json(manifest, "manifest.json").to_json() == manifest
    # the schema is not vacuous
    assert sorted(errors({**manifest, "version": 2, "ranker": []}, SCHEMAS["manifest"])) == [
        "$.ranker: expected object, got list", "$.version: expected 1"]


def page_export(manifest: dict, ids: list[str], work: dict, tmp_path: Path) -> dict:
    """The page's own export code (site_template/app/state/exportfile.js) run under Node on `work`."""
    if shutil.which("node") is None:
        pytest.skip("node not installed")
    script = tmp_path / "export.mjs"
    script.write_text(
        f"import {{ buildExport }} from {json.dumps((REPO / 'site_template/app/state/exportfile.js').as_uri())};\n"
        f"const args = {json.dumps({'manifest': manifest, 'ids': ids, 'work': work})};\n"
        "const positions = new Map(args.ids.map((id, i) => [id, i]));\n"
        "console.log(JSON.stringify(buildExport({...args, positions, annotator: 'alice', clientId: 'c1', "
        "exportedAt: '2026-11-29T12:00:00.123Z'})));\n", encoding="utf-8")
    done = subprocess.run(["node", str(script)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_a_page_export_and_its_merge_match_their_schemas(dump_and_bundle, tmp_path):
    from mercury_static.bundle.contents import load_bundle
    from mercury_static.merge.pipeline import merge_files

    dump, bundle_dir = dump_and_bundle
    bundle = load_bundle(bundle_dir)
    start = SUMMARY.index("Rome")
    note = {"id": "n1", "label": ["Unwanted", "Unwanted.Extrinsic"], "note": "city",
            "summary": {"start": start, "end": start + 4, "text": "Rome"}, "source": None,
            "created_at": "2026-11-29T09:00:00Z", "updated_at": "2026-11-29T10:00:00Z"}
    work = {"records": {"s1": {"status": "submitted", "updated_at": "2026-11-29T10:00:00Z",
                               "annotations": {"n1": note, "gone": {"id": "gone", "deleted": True}}},
                        "2": {"status": "in_progress", "updated_at": "2026-11-29T10:01:00Z", "annotations": {}}}}
    doc = page_export(bundle.manifest, [r.id for r in bundle.records], work, tmp_path)
    assert errors(doc, SCHEMAS["export"]) == []
    assert errors({**doc, "format": "x"}, SCHEMAS["export"]) == ["$.format: expected 'mercury-static/annotations'"]
    path = tmp_path / "alice.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    result = merge_files([path, dump], bundle)
    # alice's dated export supersedes her undated dump annotation of s1
    assert not result.problems and (result.counts.merged, result.counts.superseded) == (3, 1)
    merged = json.loads(result.output)
    assert errors(merged, SCHEMAS["merged"]) == []
    assert errors([{**merged[0], "extra": 1}], SCHEMAS["merged"]) == ["$[0]: unexpected key 'extra'"]
    lines = merge_files([path, dump], bundle, fmt="jsonl").output.decode().splitlines()
    assert errors([json.loads(x) for x in lines], SCHEMAS["merged"]) == []
    assert result.report()["output"] == {"format": "mercury-static/merged", "version": 1}


@pytest.mark.parametrize("change, words", [
    ({"version": 99}, "field 'version': unsupported version 99 of mercury-static/bundle (this tool reads version 1)"),
    ({"format": "mercury-static/bundle-v2"}, "field 'format': 'mercury-static/bundle-v2' is not"),
    ({"format": None}, "field 'format': missing (expected 'mercury-static/bundle')"),
])
def test_the_bundle_reader_refuses_another_format_or_version(stand_in_demo, tmp_path, change, words):
    from mercury_static.bundle.contents import load_bundle
    from mercury_static.core.records import InputError

    copy = tmp_path / "b"
    shutil.copytree(stand_in_demo, copy)
    manifest = json.loads((copy / "manifest.json").read_text(encoding="utf-8"))
    (copy / "manifest.json").write_text(json.dumps({**manifest, **change}), encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_bundle(copy)
    assert str(caught.value) == f"{copy}: cannot read the bundle: manifest.json: {words}" or words in str(caught.value)
    assert str(caught.value).startswith(f"{copy}: cannot read the bundle: manifest.json: ")


PAGE_FORMATS = ("BUNDLE", "EXPORT", "RECORD_INDEX", "QUEUES", "WEIGHTS", "REVIEW_DATA", "REVIEW")
"""The registry entries the page reads or writes (site_template/app/data/formats.js)."""


def node_module(tmp_path: Path, body: str) -> str:
    """stdout of an ES module importing data/formats.js as `f` under node."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    script = tmp_path / "formats.mjs"
    script.write_text(f"import * as f from {json.dumps((REPO / 'site_template/app/data/formats.js').as_uri())};\n"
                      + body, encoding="utf-8")
    done = subprocess.run([node, str(script)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


FORMAT_CASES = [
    {"format": "{name}", "version": "{version}"}, {"format": "{name}", "version": 99}, {"format": "{name}"},
    {"format": "{name}", "version": "1"}, {"format": "{name}", "version": True}, {"format": "other", "version": 1},
    {"version": 1}, {"version": 99}, {}, {"alice": ["r1"]}, {"format": ["r1"], "version": ["r2"]}, [], "x", None,
]


def test_the_page_and_python_accept_and_refuse_the_same_files(tmp_path):
    """formats.js checkFormat and formats.py Format.check give the same verdict on the same documents: the
    same version, or an error on the same field (a file without a name is `unnamed` where a format has one)."""
    import re

    from mercury_static import formats
    from mercury_static.core.records import InputError

    cases = []
    for key in PAGE_FORMATS:
        entry = getattr(formats, key)
        for case in FORMAT_CASES:
            text = json.dumps(case).replace('"{name}"', json.dumps(entry.name)).replace('"{version}"',
                                                                                        str(entry.version))
            try:
                want = entry.check(json.loads(text), "f.json")
            except InputError as e:
                want = e.field or "-"
            cases.append((key, text, want))
    body = (f"const cases = {json.dumps([c[:2] for c in cases])};\n"
            "console.log(JSON.stringify(cases.map(([k, text]) => { try { return f.checkFormat(JSON.parse(text), "
            "'f.json', f[k]); } catch (e) { return e.message; } })));\n")
    got = json.loads(node_module(tmp_path, body))
    for (key, text, want), page in zip(cases, got, strict=True):
        field = page if isinstance(page, int) else (re.match(r"f\.json: field '(\w+)'", page) or [0, "-"])[1]
        assert field == want, (key, text, page)
    assert "f.json: field 'version': unsupported version 99 of mercury-static/queues (this page reads versions 1 " \
        "and 2)" in got


def test_the_page_checks_ranker_options_as_python_does(tmp_path):
    """The page refuses the same ranker option values as build/eval (ranker_options.py), from the
    manifest's `ranker_spec`: one table, two readers."""
    from mercury_static.assist import ranker_options
    from mercury_static.core.records import InputError

    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    cases = []
    for o in ranker_options.SPEC:
        values = [o.default, "abc", None, True, [1, 2], float("nan"), -1, 7, 0.5, 3, [0.1, 0.2], [0.3, 0.1]]
        values += list(o.choices) + ["bogus"]
        values += [[], [[10, 1, 1, 1]], [[10, 1, 1, 1], [300, -2, 0.5, 3]], [[300, 1, 1, 1], [10, 1, 1, 1]],
                   [[0, 1, 1, 1]], [[10.5, 1, 1, 1]], [[10, 1, 1]], [[10, 1, 1, 1000]], [[10, True, 1, 1]],
                   [[10, 1, 1, 1]] * 9]  # the calibration's bands
        for v in values:
            try:
                ranker_options.check_value(o, v)
                ok = True
            except ValueError:
                ok = False
            if isinstance(v, float) and v != v:
                v = "NaN"  # JSON cannot carry it; the page sees the string
                ok = False
            cases.append({"name": o.name, "value": v, "ok": ok})
    cases.append({"name": "not_an_option", "value": 1, "ok": False})
    zero_c = {o.name: 0.0 for o in ranker_options.SPEC if o.name.startswith("c_")}
    for combo, ok in ((zero_c, False), ({**zero_c, "norm": "none"}, True), ({**zero_c, "c_bm25": 0.5}, True)):
        try:
            ranker_options.validate(combo)
            assert ok, combo
        except InputError:
            assert not ok, combo
        cases.append({"options": combo, "ok": ok})
    script = tmp_path / "check.mjs"
    data_js = (REPO / "site_template" / "app" / "data" / "data.js").as_uri()
    script.write_text(
        f"import {{ rankerOptionProblems }} from '{data_js}';\n"
        "const [spec, cases] = JSON.parse(process.argv[2]);\n"
        "console.log(JSON.stringify(cases.map((c) => rankerOptionProblems(c.options || {[c.name]: c.value}, spec).length === 0)));\n",
        encoding="utf-8")
    arg = json.dumps([ranker_options.spec_json(), cases])
    out = subprocess.run([node, str(script), arg], capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == [c["ok"] for c in cases]


def of_version(path: Path, version) -> Path:
    """`path` (a JSON object file) rewritten with another `version`."""
    path.write_text(json.dumps({**json.loads(path.read_text(encoding="utf-8")), "version": version}),
                    encoding="utf-8")
    return path


@pytest.mark.parametrize("command", ["assign", "merge --bundle", "merge export", "progress export", "tune --apply",
                                     "eval --options"])
def test_every_command_refuses_a_file_of_another_version(run, stand_in_demo, tmp_path, command):
    """Each command's reader of one of our formats refuses another version with one line naming the file
    and the field, exit 2 (never a misread)."""
    from mercury_static.bundle.contents import load_bundle

    bundle = tmp_path / "bundle"
    shutil.copytree(stand_in_demo, bundle)
    manifest = load_bundle(bundle).manifest
    export = tmp_path / "alice.json"
    export.write_text(json.dumps({"format": "mercury-static/annotations", "version": 2, "annotator": "alice",
                                  "bundle_id": manifest["bundle_id"], "exported_at": "2026-12-01T10:00:00Z",
                                  "records": []}), encoding="utf-8")
    options = tmp_path / "tuned.json"
    options.write_text(json.dumps({"format": "mercury-static/ranker-options", "version": 1, "ranker": {}}))
    old = of_version(bundle / "manifest.json", 2) if command in ("assign", "merge --bundle", "tune --apply") else None
    args = {"assign": ["assign", bundle, "--annotators", "a,b"],
            "merge --bundle": ["merge", export, "--bundle", bundle, "-o", tmp_path / "m.json"],
            "merge export": ["merge", of_version(export, NEXT_EXPORT), "--bundle", bundle, "-o", tmp_path / "m.json",
                             "--strict"],
            "progress export": ["progress", of_version(export, NEXT_EXPORT), "--bundle", bundle],
            "tune --apply": ["tune", export, "--bundle", bundle, "--apply"],
            "eval --options": ["eval", export, "--options", of_version(options, 2)]}[command]
    result = run(*args)
    name, found, file = (("mercury-static/bundle", 2, "manifest.json") if old else
                         ("mercury-static/annotations", NEXT_EXPORT, export.name) if "export" in command else
                         ("mercury-static/ranker-options", 2, options.name))
    assert result.exit_code == 2, result.output
    assert f"{file}: field 'version': unsupported version {found} of {name} (this tool reads" in \
        " ".join(result.output.split()), result.output


def test_the_weights_reader_refuses_another_version():
    from mercury_static.assist.page_model import read_weights
    from mercury_static.core.records import InputError

    header = json.dumps({"format": "mercury-static/weights", "version": 2, "tensors": []}).encode()
    with pytest.raises(InputError, match=r"^w: field 'version': unsupported version 2 of mercury-static/weights"):
        read_weights(len(header).to_bytes(4, "little") + header, "w")


def test_docs_formats_lists_every_format_with_its_versions():
    """docs/formats.md has one row per registry entry: its name, the version written and the versions read."""
    from mercury_static import formats

    rows = {line.split("|")[1].strip(" `"): [c.strip() for c in line.split("|")[1:-1]]
            for line in (REPO / "docs" / "formats.md").read_text(encoding="utf-8").splitlines()
            if line.startswith("| `mercury-static/")}
    assert sorted(rows) == sorted(formats.FORMATS)
    for name, entry in formats.FORMATS.items():
        assert rows[name][2].strip("`") == str(entry.version), name
        assert rows[name][3].split(" (")[0].replace("`", "") == ", ".join(map(str, entry.reads)), name
