"""report.html (docs/report.md): the figures merge and gold add for it, counted by hand; the page's tables read
back and compared with the JSON report; the page opened from file:// in Chromium (no request, no console
error, a table under every chart); an older report without times or progress still renders."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import quote

import pytest
from test_review import asked, reviewed, rita, team  # noqa: F401  (fixtures: a real three-annotator round)

from mercury_static.merge.agreement import agreement_report
from mercury_static.merge.timeline import work_progress
from mercury_static.report import html as report_html
from mercury_static.report.html import render_html
from mercury_static.report.model import read_report
from mercury_static.review.quality import quality_report
from mercury_static.settings.model import Question

LABELS = ["Benign", "Unwanted", "Unwanted.Intrinsic"]
HOSTILE = '<img src=x onerror="alert(1)">'


class Tables(HTMLParser):
    """Every <table id> of a page as rows of cell texts, the links of its cells, and the figures' ids."""

    def __init__(self, text: str):
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self.links: dict[str, list[str]] = {}
        self.charts: list[str] = []
        self.svgs = self.scripts = 0
        self._table: str | None = None
        self._cell: list[str] | None = None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self._table = a["id"].removeprefix("t-")
            self.tables[self._table], self.links[self._table] = [], []
        elif tag == "tr" and self._table:
            self.tables[self._table].append([])
        elif tag == "td" and self._table:
            self._cell = []
        elif tag == "a" and self._cell is not None:
            self.links[self._table].append(a["href"])
        elif tag == "figure":
            self.charts.append(a["data-chart"])
        self.svgs += tag == "svg"
        self.scripts += tag == "script"

    def handle_endtag(self, tag):
        if tag == "td" and self._cell is not None:
            self.tables[self._table][-1].append("".join(self._cell).strip())
            self._cell = None
        elif tag == "table":
            self.tables[self._table] = [r for r in self.tables[self._table] if r]  # the header row has no <td>
            self._table = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def shown(value) -> str:
    return "–" if value is None else str(value)


def interval(ci: list[float] | None) -> str:
    return "–" if ci is None else f"[{ci[0]}, {ci[1]}]"


def rows(items: list[dict], *keys: str) -> list[list[str]]:
    """The items' figures as the page's cells; a key ending in `_ci` is an interval."""
    return [[interval(x[k]) if k.endswith("_ci") else shown(x[k]) for k in keys] for x in items]


def ann(annotator: str, start: int, end: int, label: list[str]) -> dict:
    return {"annotator": annotator, "summary": {"start": start, "end": end}, "label": label}


def submitted(annotator: str, when: str, status: str = "submitted") -> dict:
    return {"annotator": annotator, "status": status, "updated_at": when}


def test_progress_labels_and_label_agreement_counted_by_hand():
    records = [
        {"id": "r1", "annotations": [ann("alice", 0, 4, ["Unwanted", "Unwanted.Intrinsic"]),
                                     ann("bob", 2, 6, ["Unwanted", "Unwanted.Intrinsic"]), ann("bob", 8, 10, ["Benign"])],
         "responses": [submitted("alice", "2026-12-01T10:00:00Z"), submitted("bob", "2026-12-01T10:30:00Z")]},
        {"id": "r2", "annotations": [],
         "responses": [submitted("alice", "2026-12-01T12:59:00Z"), submitted("bob", "2026-12-01T11:00:00Z", "discarded")]},
        {"id": "r3", "annotations": [], "responses": [submitted("bob", "2026-12-01T11:00:00Z", "in_progress")]},
    ]
    report = agreement_report(records, LABELS)
    for x in report["label_agreement"]:  # one record: every resample is that record
        assert x.pop("char_f1_ci") == [x["char_f1"], x["char_f1"]]
    assert report["label_counts"] == {"alice": {"Benign": 0, "Unwanted": 1, "Unwanted.Intrinsic": 1},
                                      "bob": {"Benign": 1, "Unwanted": 1, "Unwanted.Intrinsic": 1}}
    # Unwanted: alice 0-4, bob 2-6 share 2 of 4 + 4 characters; Benign: bob alone, 0 of 0 + 2
    assert report["label_agreement"] == [{"label": "Benign", "records": 1, "char_f1": 0.0},
                                         {"label": "Unwanted", "records": 1, "char_f1": 0.5},
                                         {"label": "Unwanted.Intrinsic", "records": 1, "char_f1": 0.5}]
    three = [{"id": "t", "annotations": [ann(n, s, e, ["Benign"]) for n, s, e in (("alice", 0, 4), ("bob", 2, 6),
                                                                                 ("carol", 0, 6))],
              "responses": [submitted(n, "2026-12-01T10:00:00Z") for n in ("alice", "bob", "carol")]}]
    # pairs share 2 (of 4 + 4), 4 (of 4 + 6) and 4 (of 4 + 6) characters: 2 · 10 / 28
    assert agreement_report(three, LABELS)["label_agreement"][0] == {"label": "Benign", "records": 1,
                                                                     "char_f1": round(20 / 28, 4),
                                                                     "char_f1_ci": [round(20 / 28, 4)] * 2}
    queues = {"alice": ["r1", "r2", "r3"], "bob": ["r1", "r2", "r3"]}
    p = work_progress(records, queues, 2)
    # done: 2 submissions (r1 only); bob's r2 discarded counts as finished in his queue, r3 in progress does not
    assert (p["overlap"], p["records_done"], p["records_left"]) == (2, 1, 2)
    assert p["annotators"]["bob"] == {"submitted": 1, "in_progress": 1, "discarded": 1, "queue": 3, "queue_left": 1,
                                      "queue_todo": 0}
    assert p["annotators"]["alice"]["queue_left"] == 1
    # 10:00 to 12:59 is 36 five-minute steps (under 60, and 180 one-minute steps are not): bins from 10:00
    t = p["timeline"]
    assert t["bin_s"] == 300 and t["bins"][0] == "2026-12-01T10:00:00Z" and len(t["bins"]) == 36
    assert t["submitted"]["alice"][0] == 1 and t["submitted"]["alice"][35] == 1 and sum(t["submitted"]["alice"]) == 2
    assert t["submitted"]["bob"][6] == 1 and sum(t["submitted"]["bob"]) == 1
    # without queues one submission finishes a record
    assert work_progress(records, None, 2)["records_done"] == 2


def chart_svg(page: str, key: str) -> str:
    """The SVG of one chart of the page."""
    return page.split(f'data-chart="{key}"', 1)[1].split("</figure>", 1)[0]


def stacked_bars(svg: str) -> dict[str, list[tuple[str, int]]]:
    """Each category's bar segments from left to right: (measure, value), read from Vega's SVG."""
    segments: dict[str, list[tuple[float, str, int]]] = {}
    for label, x in re.findall(r'<path aria-label="([^"]*)" role="graphics-symbol" aria-roledescription="bar" '
                               r'd="M([-\d.]+),', svg):
        fields = dict(part.split(": ", 1) for part in label.split("; "))
        segments.setdefault(fields["annotator"], []).append((float(x), fields["measure"], int(fields["value"])))
    return {name: [(m, v) for _, m, v in sorted(parts)] for name, parts in segments.items()}


def test_the_progress_bar_adds_up_to_the_queue_in_the_legends_order():
    """A record in progress is not also to do; the segments are stacked as the legend lists them."""
    records = [{"id": f"r{i}", "annotations": [], "responses": []} for i in range(21)]
    for i in range(4):
        records[i]["responses"].append(submitted("carol", "2026-12-01T10:00:00Z"))
    records[4]["responses"].append(submitted("carol", "2026-12-01T10:05:00Z", "in_progress"))
    p = work_progress(records, {"carol": [r["id"] for r in records]}, 1)
    assert p["annotators"]["carol"]["queue_left"] == 17 and p["annotators"]["carol"]["queue_todo"] == 16
    svg = chart_svg(render_html(read_report({**old_report(), "progress": p})), "progress-annotators")
    bars = stacked_bars(svg)["carol"]
    assert sum(v for _, v in bars) == 21
    legend = re.findall(r'role-legend-label.*?>([^<>]+)</text>', svg)
    assert [m for m, _ in bars] == legend == ["submitted", "in progress", "discarded", "to do"]


def test_agents_span_precision_recall_against_the_gold():
    spans = Question("spans", "span", "Spans")
    review = {"g1": {"judges": ["alice"], "annotations": [ann("alice", 0, 4, ["X"])],
                     "responses": [{"annotator": "alice", "status": "submitted", "values": {}}]}}
    gold = [{"id": "g1", "annotations": [ann("rita", 0, 4, ["X"])], "responses": [{"values": {}}],
             "suggestions": [{"question": "spans", "agent": "det", "value": [
                 {"label": "X", "summary": [2, 10], "source": None}]}]}]
    q = quality_report(gold, review, [spans])
    # det marks 8 characters, 2 of them gold's; gold has 4
    assert q["agent_spans"] == [{"agent": "det", "records": 1, "span_precision": 0.25, "span_recall": 0.5,
                                 "span_f1": round(2 * 0.25 * 0.5 / 0.75, 4)}]


TIMES = {"idle_threshold_s": 60, "annotators": {
    "alice": {"active_s": 100.0, "records": 4, "median_record_s": 25.0},
    "bob": {"active_s": 466.0, "records": 4, "median_record_s": 27.0},
    HOSTILE: {"active_s": 580.0, "records": 4, "median_record_s": 33.0}},
    "records": {"r1": {"alice": 10.0, "bob": 12.0, HOSTILE: 14.0}, "r2": {"alice": 20.0, "bob": 22.0, HOSTILE: 24.0},
                "r3": {"alice": 30.0, "bob": 32.0, HOSTILE: 34.0}, "r4": {"alice": 40.0, "bob": 400.0, HOSTILE: 500.0}},
    "annotations_elapsed_s": {"alice": [5.0, 7.0, 30.0], "bob": [], HOSTILE: [1.0]}}


def old_report() -> dict:
    """A merge report as written before the report page: no progress, labels per annotator, times."""
    return {"records": {"total": 2, "annotated": 1, "judged": 2, "judged_by_2_or_more": 1},
            "verdict": "has an annotation labelled Unwanted",
            "annotators": [{"annotator": a, "annotations": 1, "records_annotated": 1, "judged": 2, "submitted": 2,
                            "discarded": 0, "in_progress": 0} for a in ("alice", "bob")],
            "labels": [{"label": "Unwanted", "annotations": 2}],
            "pairwise": [{"a": "alice", "b": "bob", "records": 1, "char_f1": 0.5, "exact_f1": 0.0,
                          "observed_agreement": 1.0, "kappa": None}],
            "overall": {"pairs": 1, "records": 1, "char_f1": 0.5, "exact_f1": 0.0, "alpha": None},
            "adjudication": [{"record_id": 'r"1<', "annotators": ["alice", "bob"], "score": 0.5, "spans": 0.5,
                              "questions": []}]}


def test_old_report_without_times_renders_and_says_what_it_lacks():
    page = render_html(read_report(old_report()))
    assert "no time recorded (exports older than version 3 or none)" in page
    assert "records left and progress over time: not available in this report" in page
    assert "label distribution per annotator: not available in this report" in page
    t = Tables(page)
    assert t.tables["agreement-pairs"] == [["alice", "bob", "1", "–", "–", "0.5", "0.0", "1.0"]]
    assert "confidence intervals: not available in this report" in page
    assert t.links["adjudication"] == ["review-bundle/index.html#record=r%221%3C"]
    assert "time-annotators" not in t.tables


def test_time_on_task_from_a_hand_written_dict():
    page = render_html(read_report({**old_report(), "time_on_task": TIMES}), review_url="https://team.example/review/")
    t = Tables(page)
    by_name = {r[0]: r for r in t.tables["time-annotators"]}
    # alice's record times 10, 20, 30, 40: median 25, quartiles 17.5 and 32.5; annotations 5, 7, 30: median 7
    assert by_name["alice"] == ["alice", "1 min 40 s", "4", "25.0", "17.5", "32.5", "40.0", "7.0"]
    assert by_name["bob"][-1] == "–" and by_name[HOSTILE][3] == "29.0"
    # record medians 12, 22, 32, 400: quartiles 19.5 and 124, so over 124 + 1.5 × 104.5 = 280.75 is an outlier
    assert "quartiles 19.5–124.0 s; an outlier takes over 280.8 s" in page
    assert t.tables["time-outliers"] == [["r4", "400.0", "460.0", "3"]]
    assert t.links["time-outliers"] == ["https://team.example/review/index.html#record=r4"]
    assert sum(int(r[2]) for r in t.tables["time-records"]) == 4
    assert HOSTILE not in page and t.scripts == 0  # the name is text, in the tables and in the charts' SVG
    assert "19 min 6 s active" in page  # the headline: 100 + 466 + 580 seconds, not "0.3 h"


def test_bad_review_url_is_refused():
    with pytest.raises(Exception, match="expected a relative path or an http"):
        render_html(read_report(old_report()), review_url="javascript:alert(1)")


@pytest.fixture(scope="module")
def merged_round(asked, team, tmp_path_factory) -> Path:  # noqa: F811
    """`merge --report report.html` of the three annotators' real exports."""
    from typer.testing import CliRunner

    from mercury_static.cli import app

    folder = tmp_path_factory.mktemp("round")
    result = CliRunner().invoke(app, ["merge", *map(str, team), "--bundle", str(asked), "-o",
                                      str(folder / "merged.json"), "--report", str(folder / "report.html")])
    assert result.exit_code == 0, result.output
    assert f"report: {folder / 'report.html'} (and {folder / 'report.json'})" in result.output
    assert "records done" in result.output and "to adjudicate first" in result.output
    return folder


def test_the_page_holds_the_json_reports_figures(merged_round):
    report = json.loads((merged_round / "report.json").read_text(encoding="utf-8"))
    t = Tables((merged_round / "report.html").read_text(encoding="utf-8"))
    assert t.tables["agreement-pairs"] == rows(report["pairwise"], "a", "b", "records", "kappa", "kappa_ci",
                                               "char_f1", "exact_f1", "observed_agreement")
    o = report["overall"]
    questions = [["spans (verdict)", "span", "nominal", shown(o["records"]), shown(o["alpha"]),
                  interval(o["alpha_ci"])]]
    questions += [[q["question"], q["type"], m, shown(q["records"]), shown(a), interval(q["alpha_ci"][m])]
                  for q in report["questions"] for m, a in q["alpha"].items()]
    assert t.tables["agreement-questions"] == questions
    assert any(q[-1] != "–" for q in questions)  # intervals there to compare
    assert t.tables["agreement-labels"] == rows([x for x in report["label_agreement"] if x["records"]],
                                                "label", "records", "char_f1", "char_f1_ci")
    assert t.tables["adjudication"] == [[c["record_id"], ", ".join(c["annotators"]), shown(c["score"]),
                                         shown(c["spans"]), ", ".join(c["questions"])] for c in report["adjudication"]]
    assert t.links["adjudication"] == [f"review-bundle/index.html#record={c['record_id']}"
                                       for c in report["adjudication"]]
    p = report["progress"]
    queued = any(a["queue"] is not None for a in p["annotators"].values())
    keys = ("submitted", "in_progress", "discarded", *(("queue_todo", "queue_left", "queue") if queued else ()))
    assert t.tables["progress-annotators"] == [[name, *(shown(a[k]) for k in keys)]
                                               for name, a in p["annotators"].items()]
    shares: dict[str, float] = {}
    for name, _, _, share, _ in t.tables["labels-annotators"]:
        shares[name] = shares.get(name, 0) + float(share)
    assert all(abs(total - 1) < 1e-3 for total in shares.values()) and shares  # a parent is not counted again
    for name, by_label in report["label_counts"].items():
        leaves = {label: n for label, n in by_label.items() if not any(o.startswith(label + ".") for o in by_label)}
        mine = {r[1]: int(r[2]) for r in t.tables["labels-annotators"] if r[0] == name}
        assert all(mine.get(label, 0) == n for label, n in leaves.items())
    agents = [x for x in report["agents"] if x["split"] != "blind"]
    assert t.tables["agents"] == rows(agents, "question", "agent", "split", "answers", "agree", "accepted")
    assert "no time recorded" in (merged_round / "report.html").read_text(encoding="utf-8")


def test_gold_report_page(reviewed, tmp_path, run):  # noqa: F811
    result = run("gold", rita(reviewed, tmp_path), "--bundle", reviewed, "-o", tmp_path / "gold-data.json",
                 "--report", tmp_path / "gold.html", "--review-url", "../review-bundle/")
    assert result.exit_code == 0, result.output
    assert "2 gold records, 1 not adjudicated" in result.output
    report = json.loads((tmp_path / "gold.html").with_suffix(".json").read_text(encoding="utf-8"))
    t = Tables((tmp_path / "gold.html").read_text(encoding="utf-8"))
    q = report["quality"]
    assert t.tables["gold-annotators"] == rows(q["annotators"], "annotator", "records", "span_precision",
                                               "span_recall", "span_f1")
    assert t.tables["gold-agent-answers"] == [[f"{a['agent']} · {a['question']}", shown(a["records"]),
                                               shown(a["accuracy"]), shown(a["auc"])] for a in q["agents"]]
    assert t.links["gold-changed"] == [f"../review-bundle/index.html#record={c['record_id']}" for c in q["changed"]]
    page = (tmp_path / "gold.html").read_text(encoding="utf-8")
    assert "time on task is in merge&#39;s report of the round" in page and "not available" not in page


def test_review_bundle_serves_the_report(reviewed):  # noqa: F811
    manifest = json.loads((reviewed / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["review"]["dashboard"] == "report.html"
    t = Tables((reviewed / "report.html").read_text(encoding="utf-8"))
    assert t.links["adjudication"] and all(h.startswith("index.html#record=") for h in t.links["adjudication"])


def test_cli_faults_are_one_line(asked, team, tmp_path, run, monkeypatch):  # noqa: F811
    out = ["--bundle", asked, "-o", tmp_path / "m.json"]
    bad = run("merge", *team, *out, "--report", tmp_path / "r.html", "--review-url", "javascript:alert(1)")
    assert bad.exit_code == 2 and "--review-url" in bad.output and not (tmp_path / "m.json").exists()
    same = run("merge", *team, "--bundle", asked, "-o", tmp_path / "r.json", "--report", tmp_path / "r.html")
    assert same.exit_code == 2 and "--report and -o are the same file" in same.output
    monkeypatch.setattr(report_html, "available", lambda: False)
    missing = run("merge", *team, *out, "--report", tmp_path / "r.html")
    assert missing.exit_code == 2 and "pip install 'mercury-static[report]'" in missing.output
    assert not (tmp_path / "m.json").exists()
    assert run("merge", *team, *out, "--report", tmp_path / "r.json").exit_code == 0  # JSON needs no extra


def test_a_report_path_neither_json_nor_html_is_refused_before_any_work(asked, team, tmp_path, run):  # noqa: F811
    for args in (["merge", *team, "--bundle", asked, "-o", tmp_path / "m.json"],
                 ["progress", team[0].parent, "--bundle", asked]):
        for name in ("report.pdf", "report"):
            result = run(*args, "--report", tmp_path / name)
            assert result.exit_code == 2, result.output
            assert result.output.strip().splitlines() == [
                f"error: {tmp_path / name}: --report writes a .json file or an .html page (with its JSON beside "
                f"it), not {'.pdf' if name.endswith('.pdf') else 'a name without an extension'}"]
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_progress_writes_the_report_of_a_round_in_flight(asked, team, tmp_path, run):  # noqa: F811
    folder = tmp_path / "uploads"
    folder.mkdir()
    for path in team[:2]:
        (folder / path.name).write_bytes(path.read_bytes())
    result = run("progress", folder, "--bundle", asked, "--report", tmp_path / "now.html")
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "now.json").read_text(encoding="utf-8"))
    assert sorted(report["progress"]["annotators"]) == ["alice", "bob"]
    assert Tables((tmp_path / "now.html").read_text(encoding="utf-8")).tables["progress-annotators"]


def check_opened_from_disk(browser, path: Path) -> None:
    """No request but the file's own, no console message, an SVG and a text alternative per chart, and its
    table right after it."""
    ctx = browser.new_context()
    requests, console = [], []
    ctx.on("request", lambda r: requests.append(r.url))
    page = ctx.new_page()
    page.on("console", lambda m: console.append(f"{m.type}: {m.text}"))
    page.on("pageerror", lambda e: console.append(str(e)))
    page.goto(path.as_uri())
    page.wait_for_load_state("load")
    assert requests == [path.as_uri()] and console == []
    charts = page.eval_on_selector_all("figure[data-chart]", "fs => fs.map(f => [f.dataset.chart, "
                                       "!!f.querySelector('svg'), f.getAttribute('aria-label')])")
    assert charts and all(svg and alt for _, svg, alt in charts)
    for key, _, _ in charts:
        assert page.eval_on_selector(f"figure[data-chart='{key}']", "f => { const n = f.nextElementSibling; "
                                     "return (n.matches('table') ? n : n.querySelector('table')).id }") == f"t-{key}"
    assert page.eval_on_selector_all("script, img, iframe, object", "x => x.length") == 0
    ctx.close()


@pytest.mark.browser
def test_the_page_opens_from_disk_with_no_request_and_no_error(browser, merged_round, tmp_path):
    hostile = tmp_path / "hostile.html"
    hostile.write_text(render_html(read_report({**old_report(), "time_on_task": TIMES})), encoding="utf-8")
    check_opened_from_disk(browser, merged_round / "report.html")
    check_opened_from_disk(browser, hostile)


AXE = Path(__file__).resolve().parent.parent / "js" / "node_modules" / "axe-core" / "axe.min.js"


@pytest.mark.browser
def test_a_record_link_opens_the_review_page_from_disk(browser, merged_round, reviewed, tmp_path):  # noqa: F811
    """report.html beside the review bundle's folder, both opened as files: a link lands on the review page."""
    (tmp_path / "report.html").write_bytes((merged_round / "report.html").read_bytes())
    (tmp_path / "review-bundle").symlink_to(reviewed, target_is_directory=True)
    ctx = browser.new_context()
    page = ctx.new_page()
    page.goto((tmp_path / "report.html").as_uri())
    link = page.locator("#t-adjudication a").first
    record = link.inner_text()
    link.click()
    page.wait_for_load_state("load")
    assert page.url == (tmp_path / "review-bundle" / "index.html").as_uri() + f"#record={quote(record, safe='')}"
    assert page.evaluate("document.querySelector('script[type=module]') !== null")  # the page, not a listing
    ctx.close()


def full_report() -> dict:
    """A report with every section filled: progress with a queue, times, κ from −1 to 1 and an undefined one."""
    records = [{"id": f"r{i}", "annotations": [], "responses": [submitted("alice", f"2026-12-01T1{i}:00:00Z")]}
               for i in range(4)]
    report = {**old_report(), "time_on_task": TIMES, "progress": work_progress(records, {"alice": ["r0", "r9"]}, 1),
              "label_counts": {"alice": {"Unwanted": 3, "Unwanted.Intrinsic": 2, "Benign": 1},
                               "bob": {"Unwanted": 1, "Unwanted.Intrinsic": 0, "Benign": 3}},
              "labels": [{"label": "Unwanted", "annotations": 4}, {"label": "Unwanted.Intrinsic", "annotations": 2},
                         {"label": "Benign", "annotations": 4}]}
    report["pairwise"] = [{**report["pairwise"][0], "kappa": k, "b": b}
                          for k, b in ((-1.0, "bob"), (1.0, "carol"), (None, "dan"), (0.1, "erin"))]
    return report


def luminance(colour: str) -> float:
    named = {"white": (255, 255, 255), "black": (0, 0, 0)}
    rgb = named.get(colour) or (tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5)) if colour.startswith("#")
                                else tuple(int(x) for x in re.findall(r"\d+", colour)))
    lin = [c / 255 / 12.92 if c <= 10 else ((c / 255 + 0.055) / 1.055) ** 2.4 for c in rgb]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(a: str, b: str) -> float:
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_heatmaps_diverge_and_their_labels_read_on_every_cell():
    page = render_html(read_report(full_report()))
    for key in ("agreement-pairs", "labels-annotators"):
        svg = chart_svg(page, key)
        cells = [(float(x), float(y), float(w), float(h), fill, label) for label, x, y, w, h, fill in re.findall(
            r'<path aria-label="([^"]*)" role="graphics-symbol" aria-roledescription="rect mark" '
            r'd="M([-\d.]+),([-\d.]+)h([\d.]+)v([\d.]+)h[-\d.]+Z" fill="([^"]+)"', svg)]
        texts = re.findall(r'<text aria-label="[^"]*" role="graphics-symbol" aria-roledescription="text mark"[^>]*'
                           r'transform="translate\(([-\d.]+),([-\d.]+)\)"[^>]*fill="([^"]+)"', svg)
        assert cells and len(texts) >= len(cells)
        for tx, ty, fill in texts:
            under = [c for c in cells if c[0] <= float(tx) <= c[0] + c[2] and c[1] <= float(ty) <= c[1] + c[3]]
            background = under[0][4] if under else "white"  # an undefined figure: no cell, the page's white
            assert contrast(fill, background) >= 4.5, (key, fill, background)
    kappa = {label.rsplit(": ", 1)[1]: fill for label, fill in re.findall(
        r'<path aria-label="([^"]*)" role="graphics-symbol" aria-roledescription="rect mark" d="[^"]*" '
        r'fill="([^"]+)"', chart_svg(page, "agreement-pairs"))}
    # −1 is as strong as 1 (a diverging scale), not near white like an empty cell
    assert contrast(kappa["−1"], "white") > 4.5 and contrast(kappa["1"], "white") > 4.5
    assert kappa["−1"] != kappa["1"]


def test_the_time_histogram_ticks_whole_records_and_every_axis_has_a_title():
    page = render_html(read_report(full_report()))
    ticks = re.findall(r'role-axis-label.*?</g>', chart_svg(page, "time-records"))
    counts = [t for t in re.findall(r'>([^<>]+)</text>', ticks[-1])]
    assert counts and all(c.isdigit() for c in counts), counts
    for key in re.findall(r'data-chart="([^"]+)"', page):
        axes = re.findall(r'aria-roledescription="axis" aria-label="([^"]*)"', chart_svg(page, key))
        assert axes and all(a.startswith(("X-axis titled", "Y-axis titled")) for a in axes), (key, axes)


@pytest.mark.browser
def test_the_page_passes_axe_and_reads_on_a_phone(browser, merged_round, tmp_path):
    full = tmp_path / "full.html"
    full.write_text(render_html(read_report(full_report())), encoding="utf-8")
    for path in (merged_round / "report.html", full):
        ctx = browser.new_context(bypass_csp=True, viewport={"width": 390, "height": 844}, device_scale_factor=2)
        page = ctx.new_page()
        page.goto(path.as_uri())
        assert page.evaluate("document.documentElement.scrollWidth") <= 390  # the tables scroll, not the page
        page.add_script_tag(path=str(AXE))
        found = page.evaluate("async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
                              ".map(v => [v.id, v.impact, v.nodes.length, v.nodes[0].target.join(' ')])")
        assert [v for v in found if v[1] in ("serious", "critical")] == [], found
        ctx.close()


def test_review_without_the_chart_renderer_says_so(asked, team, tmp_path, monkeypatch):  # noqa: F811
    from mercury_static.review import write_bundle as review_build

    monkeypatch.setattr(review_build, "available", lambda: False)
    result = review_build.review_bundle(team, asked, tmp_path / "plain")
    assert "dashboard" not in result.manifest["review"] and not (tmp_path / "plain" / "report.html").exists()
    assert any("pip install 'mercury-static[report]'" in note for note in result.notes)
