"""report.json against docs/report.schema.json: the schema file is what the report's dataclasses
(report/model.py) give, real reports of merge, gold and progress (with and without check records, sentence
verdicts, questions, a folder output) validate against it with the `jsonschema` library, the schema refuses
a report it does not describe, and a report read as its dataclasses writes back to the same bytes."""

from __future__ import annotations

import copy
import dataclasses
import json
from pathlib import Path

import jsonschema
import pytest
from test_merge_sentences import judged, two_annotators  # noqa: F401  (fixture: a bundle with sentence verdicts)
from test_review import asked, reviewed, rita, team  # noqa: F401  (fixtures: a real three-annotator round)

from mercury_static.core.safeio import dumps
from mercury_static.report.model import GoldReport, RoundReport, read_report, report_schema
from mercury_static.report.typed_json import json_schema, to_json
from mercury_static.tools import report_schema as schema_file

SCHEMA = json.loads(schema_file.PATH.read_text(encoding="utf-8"))


def problems(report: dict) -> list[str]:
    return [f"{e.json_path}: {e.message}"
            for e in jsonschema.Draft202012Validator(SCHEMA).iter_errors(report)]


def test_the_schema_file_is_written_from_the_dataclasses():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert schema_file.PATH.read_text(encoding="utf-8") == schema_file.text(), \
        "docs/report.schema.json is stale: python -m mercury_static.tools.report_schema"


def test_a_field_added_to_the_dataclasses_makes_the_file_stale():
    """The comparison above fails when the model changes and the file does not."""
    wider = dataclasses.make_dataclass("RoundReport", [("reviewed_by", str | None, dataclasses.field(default=None))],
                                       bases=(RoundReport,))
    schema = json_schema(SCHEMA["title"], wider, GoldReport)
    assert schema["$defs"]["RoundReport"]["properties"]["reviewed_by"] == {"anyOf": [{"type": "string"},
                                                                                      {"type": "null"}]}
    assert schema != SCHEMA and json_schema(SCHEMA["title"], RoundReport, GoldReport) == SCHEMA == report_schema()


@pytest.fixture(scope="module")
def reports(asked, team, reviewed, judged, tmp_path_factory) -> dict[str, Path]:  # noqa: F811
    """Every kind of report.json, written by the CLI."""
    from typer.testing import CliRunner

    from mercury_static.cli import app

    folder = tmp_path_factory.mktemp("reports")
    sentences = two_annotators(judged, folder)
    alice_only = folder / "alice-merged.json"
    runs = {
        "merge": ["merge", *map(str, team), "--bundle", str(asked), "-o", str(folder / "m.json")],
        "merge-argilla": ["merge", *map(str, team), "--bundle", str(asked), "-o", str(folder / "argilla"),
                          "--format", "argilla"],
        "merge-sentence-verdicts": ["merge", *map(str, sentences), "--bundle", str(judged.dir), "-o",
                                    str(folder / "s.json")],
        "merge-sentences-table": ["merge", *map(str, sentences), "--bundle", str(judged.dir), "-o",
                                  str(folder / "s.csv"), "--format", "sentences"],
        "merge-checks": ["merge", *map(str, sentences), "--bundle", str(judged.dir), "-o", str(folder / "c.json"),
                         "--checks", str(alice_only)],
        "progress": ["progress", str(team[0].parent), "--bundle", str(asked)],
        "gold": ["gold", str(rita(reviewed, folder)), "--bundle", str(reviewed), "-o", str(folder / "g.json")],
    }
    known = CliRunner().invoke(app, ["merge", str(sentences[0]), "--bundle", str(judged.dir), "-o", str(alice_only)])
    assert known.exit_code == 0, known.output
    out = {}
    for name, args in runs.items():
        out[name] = folder / f"{name}.json"
        result = CliRunner().invoke(app, [*args, "--report", str(out[name])])
        assert result.exit_code in (0, 1), (name, result.output)
    return out


@pytest.mark.parametrize("name", ["merge", "merge-argilla", "merge-sentence-verdicts", "merge-sentences-table",
                                  "merge-checks", "progress", "gold"])
def test_real_reports_validate_and_read_back_to_the_same_bytes(reports, name):
    text = reports[name].read_text(encoding="utf-8")
    report = json.loads(text)
    assert problems(report) == []
    assert dumps(to_json(read_report(report)), indent=1) + "\n" == text


def test_the_reports_hold_what_their_runs_had(reports):
    """The cases above are the ones they are named for (a section the schema leaves optional is there)."""
    load = {name: json.loads(path.read_text(encoding="utf-8")) for name, path in reports.items()}
    assert "checks" in load["merge-checks"] and "sentences" in load["merge-checks"]
    assert "sentences" in load["merge-sentence-verdicts"] and "checks" not in load["merge-sentence-verdicts"]
    assert "sentences" not in load["merge"] and load["merge"]["questions"] and load["merge"]["agents"]
    assert load["merge-argilla"]["output"]["files"] and load["merge-sentences-table"]["output"] == {
        "format": "sentences"}
    assert any("sentences" in c for c in load["merge-sentence-verdicts"]["adjudication"])
    assert load["gold"]["quality"]["changed"] and load["progress"]["progress"]["annotators"]


@pytest.mark.parametrize("change", ["unknown key", "missing key", "null count", "text for a number",
                                    "null section", "gold key in a round"])
def test_the_schema_refuses_what_it_does_not_describe(reports, change):
    report = json.loads(reports["merge-checks"].read_text(encoding="utf-8"))
    bad = copy.deepcopy(report)
    if change == "unknown key":
        bad["overall"]["alpha_low"] = 0.1
    elif change == "missing key":
        del bad["overall"]["alpha"]
    elif change == "null count":
        bad["records"]["total"] = None
    elif change == "text for a number":
        bad["checks"]["annotators"][0]["figures"]["verdict"]["value"] = "1.0"
    elif change == "null section":
        bad["sentences"] = None
    else:
        bad["quality"] = {"annotators": [], "agent_spans": [], "agents": [], "changed": []}
    assert problems(report) == [] and problems(bad) != []
