"""The review page imports a review export only when `gold` would read it: one tampered export per rule gold
applies to a review export (the file, its header, every field of a record entry), and valid ones, each given to
`gold` (the CLI) and imported into the real review page in Chromium; both must give the same verdict, a refusal
naming the same field, and a refused import must leave the reviewer's work as it was."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest
from pagedriver import query, show_message, wait
from test_page_review import open_review, review_server, team  # noqa: F401 (fixtures)

from mercury_static.review.write_bundle import load_review

pytestmark = pytest.mark.browser

T = "2026-12-02T10:00:00Z"


def base_export(review_dir: Path) -> tuple[dict, dict]:
    """A valid review export of the first review record (every part of an entry used once), and that record."""
    bundle, header, records = load_review(review_dir)
    rec = records[0]
    text = {r.id: r for r in bundle.records}[rec["id"]]
    summary, source = text.summary, text.source
    keys = {a["annotator"]: a["key"] for a in rec["annotations"]}
    entry = {
        "record_id": rec["id"], "adjudicated": True, "updated_at": T,
        "decisions": {keys["alice"]: {"action": "accept", "updated_at": T},
                      keys["bob"]: {"action": "edit", "updated_at": T, "summary": {"start": 0, "end": 3,
                                    "text": summary[:3]}, "source": None, "label": ["Benign"], "note": "wider"},
                      keys["carol"]: {"action": "reject"}},
        "added": [{"id": "own1", "label": ["Unwanted", "Unwanted.Intrinsic"], "note": "mine",
                   "summary": {"start": 4, "end": 9, "text": summary[4:9]},
                   "source": {"start": 0, "end": 5, "text": source[:5]}, "created_at": T, "updated_at": T}],
        "answers": {"verdict": {"from": "alice"}, "quality": {"value": 3}, "errors": {"value": ["names"]},
                    "order": {"value": ["coverage", "accuracy", "fluency"]}, "comment": {"value": "fine"}},
        "comments": [{"id": "c1", "on": "record", "author": "rita", "time": T, "text": "why"},
                     {"id": "c2", "on": "own1", "author": "rita", "time": T, "text": "mine"}],
    }
    doc = {"format": "mercury-static/review", "version": 1, "bundle_id": header["bundle_id"],
           "review_id": header["review_id"], "merge_sha256": header["merge_sha256"], "reviewer": "rita",
           "client_id": "laptop", "exported_at": T, "tool_version": "0.1.0", "records": [entry]}
    return doc, rec


def cases(doc: dict, rec: dict) -> list[tuple[str, bytes, bool]]:
    """(name, file bytes, whether gold reads it): one tampered file per rule of gold, and valid ones."""
    keys = {a["annotator"]: a["key"] for a in rec["annotations"]}
    alice, bob = keys["alice"], keys["bob"]
    out: list[tuple[str, bytes, bool]] = []

    def entry(name: str, change, ok: bool = False):
        d = copy.deepcopy(doc)
        change(d["records"][0])
        out.append((name, json.dumps(d).encode(), ok))

    def header(name: str, change, ok: bool = False):
        d = copy.deepcopy(doc)
        change(d)
        out.append((name, json.dumps(d).encode(), ok))

    def raw(name: str, old: str, new: str):
        text = json.dumps(doc)
        assert old in text, old
        out.append((name, text.replace(old, new, 1).encode(), False))

    def setter(path: str, value):
        """A change setting the entry's field at `path` (dots and [i]; `...` deletes it)."""
        parts = [int(p) if p.isdigit() else p for p in re.findall(r"[^.\[\]]+", path)]

        def change(e):
            for p in parts[:-1]:
                e = e[p]
            if value is ...:
                del e[parts[-1]]
            else:
                e[parts[-1]] = value
        return change

    # the file and its header
    out.append(("not JSON", b'{"format": ', False))
    out.append(("not UTF-8", json.dumps(doc).replace('"why"', '"wh\udcff"').encode("utf-8", "surrogateescape"),
                False))
    header("format", setter("format", "mercury-static/annotations"))
    header("version", setter("version", 3))
    header("bundle_id", setter("bundle_id", "other"))
    header("review_id", setter("review_id", "other"))
    header("merge_sha256", setter("merge_sha256", "0" * 64))
    header("reviewer empty", setter("reviewer", " "))
    header("reviewer invisible", setter("reviewer", "\u200b"))
    header("reviewer not text", setter("reviewer", 7))
    header("client_id", setter("client_id", 5))
    header("records", setter("records", {"a": 1}))
    raw("deep", '"adjudicated": true', '"adjudicated": true, "n": ' + "[" * 3000 + "]" * 3000)
    header("entry not an object", lambda d: d["records"].append("x"))
    # what JSON cannot carry faithfully, inside an entry
    raw("duplicate key", '"adjudicated": true', '"adjudicated": true, "adjudicated": true')
    raw("duplicate key deep", '"action": "reject"', '"action": "reject", "action": "reject"')
    raw("lone surrogate", '"text": "why"', '"text": "wh\\ud800"')
    raw("lone surrogate in a key", '"adjudicated": true', '"adjudicated": true, "\\udc00": 1')
    raw("number too large", '"adjudicated": true', '"adjudicated": true, "n": 1e999')
    raw("integer too large", '"adjudicated": true', '"adjudicated": true, "n": ' + "9" * 400)
    raw("NaN", '"adjudicated": true', '"adjudicated": true, "n": NaN')
    # the entry
    entry("record_id unknown", setter("record_id", "no-such-record"))
    entry("record_id missing", setter("record_id", ...))
    entry("record_id not text", setter("record_id", [1]))
    entry("adjudicated not boolean", setter("adjudicated", "yes"))
    entry("adjudicated missing", setter("adjudicated", ...))
    entry("updated_at missing", setter("updated_at", ...))
    entry("updated_at not text", setter("updated_at", 5))
    entry("updated_at not a time", setter("updated_at", "yesterday"))
    entry("updated_at no such day", setter("updated_at", "2026-02-30T10:00:00Z"))
    # decisions
    entry("decisions not an object", setter("decisions", []))
    entry("decision of an unknown key", lambda e: e["decisions"].update({"dave:d1": {"action": "accept"}}))
    entry("decision not an object", setter(f"decisions.{alice}", "accept"))
    entry("decision action", setter(f"decisions.{alice}.action", "approve"))
    entry("decision action missing", setter(f"decisions.{alice}.action", ...))
    entry("decision updated_at", setter(f"decisions.{alice}.updated_at", "soon"))
    entry("decision updated_at not text", setter(f"decisions.{alice}.updated_at", 1))
    for where in (f"decisions.{bob}", "added[0]"):
        entry(f"{where} summary not an object", setter(f"{where}.summary", "The"))
        entry(f"{where} summary start float", setter(f"{where}.summary.start", 0.0))
        entry(f"{where} summary start boolean", setter(f"{where}.summary.start", False))
        entry(f"{where} summary end past the text", setter(f"{where}.summary.end", 100000))
        entry(f"{where} summary negative", setter(f"{where}.summary.start", -1))
        entry(f"{where} summary empty", lambda e, w=where: setter(f"{w}.summary.end", 0)(e) or setter(f"{w}.summary.text", "")(e))
        entry(f"{where} summary text differs", setter(f"{where}.summary.text", "XYZ"))
        entry(f"{where} summary text missing", setter(f"{where}.summary.text", ...))
        entry(f"{where} source out of range", setter(f"{where}.source", {"start": 0, "end": 10 ** 6, "text": "x"}))
        entry(f"{where} source text differs", setter(f"{where}.source", {"start": 0, "end": 2, "text": "??"}))
        entry(f"{where} label empty", setter(f"{where}.label", []))
        entry(f"{where} label empty text", setter(f"{where}.label", ""))
        entry(f"{where} label unknown", setter(f"{where}.label", ["Fine"]))
        entry(f"{where} label unknown child", setter(f"{where}.label", "Unwanted.Other"))
        entry(f"{where} label not text", setter(f"{where}.label", [1]))
        entry(f"{where} label an object", setter(f"{where}.label", {"Benign": True}))
        entry(f"{where} note not text", setter(f"{where}.note", 5))
        entry(f"{where} label as a path", setter(f"{where}.label", "Unwanted.Intrinsic"), ok=True)
        entry(f"{where} note null", setter(f"{where}.note", None), ok=True)
        entry(f"{where} source null", setter(f"{where}.source", None), ok=True)
    entry("added created_at not text", setter("added[0].created_at", 5))
    entry("added updated_at not a time", setter("added[0].updated_at", "later"))
    # (an edit takes the annotator's times: only summary, source, label and note are edited)
    entry("edit with extra fields", setter(f"decisions.{bob}.created_at", 5), ok=True)
    # added
    entry("added not a list", setter("added", {}))
    entry("added not an object", setter("added[0]", "own1"))
    entry("added id missing", setter("added[0].id", ...))
    entry("added id empty", setter("added[0].id", ""))
    # answers
    entry("answers not an object", setter("answers", ["verdict"]))
    entry("answer to an unknown question", lambda e: e["answers"].update(mood={"value": "x"}))
    entry("answer to the span question", lambda e: e["answers"].update(spans={"value": "x"}))
    entry("answer not an object", setter("answers.verdict", "alice"))
    entry("answer neither from nor value", setter("answers.verdict", {}))
    entry("answer both from and value", setter("answers.verdict", {"from": "alice", "value": "consistent"}))
    entry("answer from an annotator who gave none", setter("answers.verdict", {"from": "dave"}))
    entry("answer from one who did not answer it", setter("answers.quality", {"from": "alice"}))
    entry("answer from not text", setter("answers.verdict", {"from": ["alice"]}))
    entry("label answer not an option", setter("answers.verdict", {"value": "maybe"}))
    entry("multi_label answer empty", setter("answers.errors.value", []))
    entry("multi_label answer twice", setter("answers.errors.value", ["names", "names"]))
    entry("multi_label answer unknown", setter("answers.errors.value", ["typos"]))
    entry("rating answer off the scale", setter("answers.quality.value", 7))
    entry("rating answer a float", setter("answers.quality.value", 3.0))
    entry("rating answer boolean", setter("answers.quality.value", True))
    entry("ranking answer incomplete", setter("answers.order.value", ["coverage", "accuracy"]))
    entry("ranking answer repeated", setter("answers.order.value", ["coverage", "coverage", "fluency"]))
    entry("text answer empty", setter("answers.comment.value", "  "))
    entry("text answer too long", setter("answers.comment.value", "é" * 10_001))
    entry("text answer at the limit", setter("answers.comment.value", "😀" * 10_000), ok=True)
    # comments
    entry("comments not a list", setter("comments", {}))
    entry("comment not an object", setter("comments[0]", "why"))
    for k in ("id", "on", "author", "time", "text"):
        entry(f"comment {k} missing", setter(f"comments[0].{k}", ...))
        entry(f"comment {k} not text", setter(f"comments[0].{k}", 1))
    entry("comment on nothing", setter("comments[0].on", "nowhere"))
    entry("comment time not a time", setter("comments[0].time", "noon"))
    entry("comment on an annotation", setter("comments[0].on", alice), ok=True)
    # valid: the base, parts absent or null, a time in the future (gold notes it), two entries of one record
    out.append(("valid", json.dumps(doc).encode(), True))
    out.append(("valid with a BOM", b"\xef\xbb\xbf" + json.dumps(doc).encode(), True))
    for part in ("decisions", "answers", "comments"):
        entry(f"{part} null", setter(part, None), ok=True)
    entry("added null", lambda e: e.update(added=None, comments=e["comments"][:1]), ok=True)
    entry("comment on an added annotation that is not there",
          lambda e: e.update(added=None))
    entry("in the future", setter("updated_at", "2999-01-01T00:00:00Z"), ok=True)
    header("one record twice", lambda d: d["records"].append({**d["records"][0], "adjudicated": False,
                                                               "updated_at": "2026-12-01T00:00:00Z"}), ok=True)
    header("no record", setter("records", []), ok=True)
    return out


FIELD = re.compile(r"field '([^']*)'")
OWN_FIELD = {"NaN", "lone surrogate in a key"}
"""Refused by both, the field not compared: JSON.parse reads no NaN (the page refuses the file as not JSON,
gold the field), and a key that is a lone surrogate does not survive the trip to Playwright as itself."""


def test_the_page_imports_exactly_what_gold_reads(team, review_server, run, page, tmp_path):  # noqa: F811
    _, review_dir, _ = team
    doc, rec = base_export(review_dir)
    all_cases = cases(doc, rec)
    assert len({name for name, _, _ in all_cases}) == len(all_cases)
    verdicts = {}
    for i, (name, data, ok) in enumerate(all_cases):
        path = tmp_path / f"case{i}.json"
        path.write_bytes(data)
        res = run("gold", path, "--bundle", review_dir, "-o", tmp_path / "gold.json")
        assert res.exit_code == (0 if ok else 2), f"{name}: gold exit {res.exit_code}: {res.output}"
        field = FIELD.search(res.output)
        verdicts[name] = (path, field[1] if field and not ok else None)
    open_review(page, review_server)
    before = query(page, "() => JSON.stringify(pd.entries())")
    # refused ones first (each must leave the work as it was), then the valid ones
    for name, _, ok in sorted(all_cases, key=lambda c: c[2]):
        path, field = verdicts[name]
        show_message(page, None)
        page.set_input_files("#import-file", str(path))
        wait(page, "() => pd.message()")
        message = query(page, "() => pd.message()")
        if ok:
            assert message.startswith("Imported"), f"{name}: gold reads it, the page refused: {message}"
            continue
        assert not message.startswith("Imported"), f"{name}: gold refuses it, the page imported it"
        assert message.startswith(f"{path.name}: ") and message.endswith("nothing was imported."), message
        if field is not None and name not in OWN_FIELD:
            assert f"field '{field}'" in message, f"{name}: gold names field {field!r}; the page: {message}"
        assert query(page, "() => JSON.stringify(pd.entries())") == before, name
    # what was imported is what gold reads: the page's next export is read by gold, and holds the decisions
    exported = tmp_path / "next.json"
    with page.expect_download() as dl:
        page.keyboard.press("E")
    dl.value.save_as(exported)
    res = run("gold", exported, "--bundle", review_dir, "-o", tmp_path / "gold.json")
    assert res.exit_code == 0, res.output
    [gold] = json.loads((tmp_path / "gold.json").read_text(encoding="utf-8"))
    assert {a["provenance"]["action"] for a in gold["annotations"]} == {"accepted", "edited", "added"}
