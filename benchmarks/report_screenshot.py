"""docs/screenshot-report.png: the report of a real round, taken again by one command.

Builds the demo bundle with a queue per annotator (every record in two queues), runs three annotators in
headless Chromium with real keys and mouse on a clock the script moves (Playwright's page.clock, as
tests/test_page_time.py does): each reads, annotates some records, leaves once for longer than the idle
threshold and submits, in sessions that start at different times, so the report has times on task and a
submission timeline. Their exports are merged with `merge --report report.html`, and the top of the page is
saved at 1280 px wide.

    python benchmarks/report_screenshot.py [--out docs/screenshot-report.png] [--keep FOLDER]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO / "benchmarks"), str(REPO / "tests")]
from bench_page import ARGS, MODEL_CACHE, serve  # noqa: E402
from pagedriver import pane_text  # noqa: E402
from test_page import block_model, export_file, open_page, select  # noqa: E402
from test_page_time import IDLE_CALLBACK, IDLE_MS, T0, wait_record  # noqa: E402

EXAMPLES = REPO / "examples"
MINUTE = 60_000
SESSIONS = {"alice": (0, 7), "bob": (25 * MINUTE, 6), "carol": (70 * MINUTE, 5)}
"""Each annotator's start after the round opens and the records they submit."""
WIDTH, HEIGHT = 1280, 1500


def bundle(folder: Path) -> Path:
    from typer.testing import CliRunner

    from mercury_static.pipeline.steps import BuildOptions, build
    from mercury_static.cli import app

    out = folder / "bundle"
    build([EXAMPLES / "demo.jsonl"], out, BuildOptions(cache_dir=MODEL_CACHE, labels=EXAMPLES / "labels.yaml",
                                                         guidelines=EXAMPLES / "guidelines.md", title="Demo"))
    done = CliRunner().invoke(app, ["assign", str(out), "--annotators", ",".join(SESSIONS), "--overlap", "2"])
    assert done.exit_code == 0, done.output
    return out


def phrase(page, rng: random.Random, first: bool) -> tuple[str, str]:
    """Two words of the open record's summary, as its text has them, and a label key. A record's first
    annotation is in the summary's first half, most often the record's own words and label (every annotator
    sees the same error); a second one is in the second half."""
    record = page.evaluate("() => document.body.dataset.record")
    words = pane_text(page, "summary").split()
    half = len(words) // 2
    pick = random.Random(record) if first and rng.random() < 0.7 else rng
    start = pick.randrange(max(1, half - 1)) if first else rng.randrange(half + 1, max(half + 2, len(words) - 1))
    return " ".join(words[start:start + 2]), pick.choice("1334")


def session(browser, base: str, name: str, folder: Path, rng: random.Random) -> Path:
    """One annotator's session on the moved clock: read, annotate, now and then leave, submit; then export."""
    start, records = SESSIONS[name]
    ctx = browser.new_context(accept_downloads=True, viewport={"width": 1280, "height": 800})
    page = ctx.new_page()
    block_model(page)
    page.clock.install(time=(T0 + start) / 1000)
    page.add_init_script(IDLE_CALLBACK)
    open_page(page, base, annotator=name)
    for n in range(records):
        record = page.evaluate("() => document.body.dataset.record")
        wait_record(page, record)
        for k in range(rng.choice((0, 1, 1, 2))):
            page.clock.fast_forward(rng.randint(8_000, 40_000))  # reading
            page.mouse.move(200 + rng.randint(0, 50), 300)
            words, label = phrase(page, rng, k == 0)
            select(page, "summary", words)
            page.clock.fast_forward(rng.randint(3_000, 20_000))  # weighing the label
            page.keyboard.press(label)
            page.clock.fast_forward(rng.randint(1_000, 8_000))
            page.keyboard.press("Enter")
        page.clock.fast_forward(rng.randint(5_000, 50_000))
        page.mouse.move(210, 310)
        if n == records // 2:  # away for a while: none of it counts
            page.clock.fast_forward(IDLE_MS + rng.randint(5 * MINUTE, 15 * MINUTE))
            page.mouse.move(220, 320)
        page.keyboard.press("s")
        if n + 1 < records:
            page.wait_for_function("(id) => document.body.dataset.record !== id", arg=record)
    data = export_file(page, folder / name)
    ctx.close()
    path = folder / f"{name}.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "screenshot-report.png")
    parser.add_argument("--keep", type=Path, help="also keep the round (exports, report.html) in this folder")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright
    from typer.testing import CliRunner

    from mercury_static.cli import app

    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        built = bundle(folder)
        server, base = serve(built)
        rng = random.Random(7)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=ARGS)
            files = [session(browser, base, name, folder, rng) for name in SESSIONS]
            merged = CliRunner().invoke(app, ["merge", *map(str, files), "--bundle", str(built), "-o",
                                              str(folder / "merged.json"), "--report", str(folder / "report.html")])
            assert merged.exit_code == 0, merged.output
            print(merged.output.splitlines()[-1])
            page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
            page.goto((folder / "report.html").as_uri())
            page.screenshot(path=str(args.out))
            browser.close()
        server.shutdown()
    print(f"wrote {args.out} ({args.out.stat().st_size / 1000:.0f} kB)")


if __name__ == "__main__":
    main()
