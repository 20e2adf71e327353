"""Time on task in real Chromium: a three-annotator round with real keys and mouse, an idle gap and a hidden tab
on a clock the test moves (Playwright's page.clock), each exported, then `merge --report report.html`: the
report's times per annotator (its JSON beside the page, which shows them) are the pages' own, idle and hidden time
left out; an older export without times still merges."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from typer.testing import CliRunner

from mercury_static.cli import app
from mercury_static.formats import EXPORT
from mercury_static.merge.timeontask import IDLE_S
from pagedriver import annotate, export_file, open_page, query
from test_page import block_model

T0 = 1_800_000_000_000  # the pages' clock at install (ms): 2027-01-15
IDLE_MS = IDLE_S * 1000

IDLE_CALLBACK = """
// the installed clock's requestIdleCallback gives deadlines with no time remaining, so idle work (the text
// laid out in idle time) would never progress: idle callbacks as the page's own fallback runs them
window.requestIdleCallback = (fn) => setTimeout(() => fn({ didTimeout: false, timeRemaining: () => 8 }), 1);
"""
HIDE = """(hidden) => {
    // the tab hidden or shown as the browser says it: visibilityState, then the event
    if (hidden) Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
    else delete document.visibilityState;
    document.dispatchEvent(new Event('visibilitychange'));
    return Date.now();
}"""


@dataclass
class Session:
    """What the test did on one annotator's page: the clock when the record showed and at export, and the
    time it left the page idle or hidden (none of it may count)."""

    opened: int = 0
    before_export: int = 0
    after_export: int = 0
    away: int = 0
    think: int = 0
    moves: int = 0
    annotations: int = 0
    export: dict = field(default_factory=dict)


def wait_record(page, record: str) -> None:
    page.wait_for_function("(id) => document.body.dataset.record === id", arg=record)
    for side in ("source", "summary"):
        page.wait_for_selector(f"#pane-{side} .text[data-complete]", state="attached", timeout=30_000)


def pause(page, s: Session, ms: int) -> None:
    """No event for `ms`, then the mouse moves (the annotator is back)."""
    page.clock.fast_forward(ms)
    s.moves += 1
    page.mouse.move(200 + 10 * (s.moves % 2), 300)


def idle(page, s: Session, ms: int) -> None:
    """The annotator away longer than the threshold: none of it counts."""
    assert ms > IDLE_MS
    pause(page, s, ms)
    s.away += ms


def think(page, s: Session, ms: int) -> None:
    """The annotator reading, within the threshold: all of it counts."""
    assert ms <= IDLE_MS
    pause(page, s, ms)
    s.think += ms


def hidden(page, s: Session, ms: int) -> None:
    """The tab hidden for `ms` (shorter than the threshold: only the hidden rule leaves it out), then shown."""
    start = page.evaluate(HIDE, True)
    page.clock.fast_forward(ms)
    s.away += page.evaluate(HIDE, False) - start


def session(browser, base: str, annotator: str, record: str, work, tmp_path) -> Session:
    ctx = browser.new_context(accept_downloads=True)
    page = ctx.new_page()
    block_model(page)
    page.clock.install(time=T0 / 1000)  # a number is read in seconds
    page.add_init_script(IDLE_CALLBACK)
    s = Session()
    open_page(page, base, record, annotator=annotator)
    s.opened = page.evaluate("Date.now()")
    work(page, s)
    s.before_export = page.evaluate("Date.now()")
    s.export = export_file(page, tmp_path / annotator)
    s.after_export = page.evaluate("Date.now()")
    stored = query(page, """() => Object.fromEntries(Object.entries(pd.entries())
        .map(([id, e]) => [id, Object.values(e.active || {}).reduce((a, b) => a + b, 0)]))""")
    ctx.close()
    assert {r["record_id"]: r["active_ms"] for r in s.export["records"]} == stored  # the export is the page's
    return s


def test_three_annotators_time_on_task_in_the_report(browser, bundle_server, demo_bundle, tmp_path):
    def alice(page, s):
        think(page, s, 20_000)
        annotate(page, "3.2 million euros", "3")
        idle(page, s, 2 * IDLE_MS)  # away two minutes: none of it counts
        annotate(page, "14 June", "1")
        think(page, s, 15_000)
        page.keyboard.press("s")  # submitted; the next record to do opens
        wait_record(page, "bakery-coop")
        annotate(page, "15 percent", "3")
        hidden(page, s, 45_000)  # another tab in front for 45 s
        think(page, s, 10_000)
        page.keyboard.press("s")
        s.annotations = 3

    def bob(page, s):
        annotate(page, "3.2 million euros", "4")
        hidden(page, s, 50_000)
        idle(page, s, IDLE_MS + 5_000)  # shown again, then away: a gap just over the threshold
        think(page, s, 30_000)
        page.keyboard.press("s")
        s.annotations = 1

    def carol(page, s):
        think(page, s, 40_000)
        annotate(page, "𝔘-shaped sleeping bag", "3")
        idle(page, s, 90_000)
        page.keyboard.press("s")
        s.annotations = 1

    sessions = {"alice": session(browser, bundle_server, "alice", "harbor-lighthouse", alice, tmp_path),
                "bob": session(browser, bundle_server, "bob", "harbor-lighthouse", bob, tmp_path),
                "carol": session(browser, bundle_server, "carol", "space-exhibit", carol, tmp_path)}
    files = []
    for name, s in sessions.items():
        assert s.export["version"] == EXPORT.version
        files.append(tmp_path / f"{name}.json")
        files[-1].write_text(json.dumps(s.export, ensure_ascii=False), encoding="utf-8")
    # an export of the previous version (no times) by a fourth annotator: merged, and no time of its own
    old = json.loads(json.dumps(sessions["carol"].export))
    old.update(version=2, annotator="dave", client_id="old-browser")
    for r in old["records"]:
        del r["active_ms"]
        for a in r["annotations"]:
            del a["elapsed_ms"]
            a["id"] = f"old-{a['id']}"
    files.append(tmp_path / "dave.json")
    files[-1].write_text(json.dumps(old, ensure_ascii=False), encoding="utf-8")

    page_path, merged_path = tmp_path / "report.html", tmp_path / "merged.json"
    result = CliRunner().invoke(app, ["merge", *map(str, files), "--bundle", str(demo_bundle), "-o", str(merged_path),
                                      "--report", str(page_path)])
    assert result.exit_code == 0, result.output
    times = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))["time_on_task"]
    assert "Time on task" in page_path.read_text(encoding="utf-8")
    assert times["idle_threshold_s"] == IDLE_MS / 1000
    assert set(times["annotators"]) == {"alice", "bob", "carol"}  # dave's export has no time: none, not zero
    merged = {r["id"]: r for r in json.loads(merged_path.read_text(encoding="utf-8"))}
    assert {r["annotator"]: "active_ms" in r for r in merged["space-exhibit"]["responses"]} == {
        "carol": True, "dave": False}
    for name, s in sessions.items():
        mine = {r["record_id"]: r["active_ms"] / 1000 for r in s.export["records"]}
        got = times["annotators"][name]
        # the report's figures are the page's own records
        assert abs(got["active_s"] - sum(mine.values())) < 1, (name, got, mine)
        assert got["records"] == len(mine)
        for record, seconds in mine.items():
            assert abs(times["records"][record][name] - seconds) < 1
        assert len(times["annotations_elapsed_s"][name]) == s.annotations
        # and the time the test spent on the page, idle and hidden time left out (the page counted from the
        # record's opening, before `opened`; the gap around a jump of the clock is left out whole)
        most = (s.after_export - T0 - s.away) / 1000
        least = (s.before_export - s.opened - s.away) / 1000 - 1
        assert least <= got["active_s"] <= most, (name, least, got["active_s"], most)
        assert got["active_s"] >= s.think / 1000  # the reading within the threshold counted
        assert got["active_s"] < s.away / 1000 / 2  # what was left out outweighs what counted: it was left out
    # an annotation's creation-to-save time: from its first selection to Enter, never the idle gap before it
    assert all(0 < e < 30 for e in times["annotations_elapsed_s"]["alice"])


def test_time_saved_alone_leaves_the_last_change_where_it_was(browser, bundle_server, tmp_path):
    """The record open and read after its last change: its time on task grows and is saved, its `updated_at`
    (when the annotator last changed it) stays; two exports of the unchanged work hold the same records but
    for the time."""
    exports = []

    def reader(page, s):
        annotate(page, "3.2 million euros", "3")
        s.annotations = 1
        changed = query(page, "() => pd.entries()['harbor-lighthouse'].updated_at")
        for _ in range(3):
            think(page, s, 15_000)  # over SAVE_MS each: the time is saved on its own
        exports.append(export_file(page, tmp_path / "first"))
        think(page, s, 15_000)
        exports.append(export_file(page, tmp_path / "second"))
        assert query(page, "() => pd.entries()['harbor-lighthouse'].updated_at") == changed
        stamps.append(changed)

    stamps: list[str] = []
    session(browser, bundle_server, "dora", "harbor-lighthouse", reader, tmp_path)
    first, second = ({r["record_id"]: r for r in e["records"]} for e in exports)
    assert first["harbor-lighthouse"]["updated_at"] == second["harbor-lighthouse"]["updated_at"] == stamps[0]
    assert second["harbor-lighthouse"].pop("active_ms") > first["harbor-lighthouse"].pop("active_ms") >= 45_000
    assert first == second
