"""docs/screenshot-sentences.png: sentence verdicts in the page, taken again by one command.

Builds a FaithBench-like record (examples/faithbench-settings.yaml with `sentence_verdicts: shown`, a summary
of four sentences) and, in headless Chromium with real keys: a span on the wrong date (that sentence is
flagged), the supported sentence confirmed with its lit evidence (judged), the third sentence current with its
evidence lit, the fourth not checked. Saved at 1440 px wide.

    python benchmarks/sentences_screenshot.py [--out docs/screenshot-sentences.png]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO / "benchmarks"), str(REPO / "tests")]
from bench_page import ARGS, MODEL_CACHE, serve  # noqa: E402
from pagedriver import wait_sentence_lit  # noqa: E402

SOURCE = ("The harbour board has approved a new ferry terminal. The decision came in 2017, after two years of "
          "debate in the council. Councillor Warburton, who chairs the transport committee, put the plan "
          "forward. The terminal is expected to cost 4 million pounds and to open in 2020.")
SUMMARY = ("The harbour board approved the new ferry terminal in 2015 after a long debate. "
           "Councillor Warburton put the plan forward. "
           "The terminal is expected to open in 2020. "
           "It will cost 4 million pounds.")


def bundle(folder: Path) -> Path:
    import yaml

    from mercury_static.pipeline.steps import BuildOptions, build

    (folder / "fb.jsonl").write_text(json.dumps({"id": "fb-0", "source": SOURCE, "summary": SUMMARY,
                                                 "summarizer": "model-a", "hhem-2.1": 0.3, "gpt_4o": 1}),
                                     encoding="utf-8")
    doc = yaml.safe_load((REPO / "examples" / "faithbench-settings.yaml").read_text(encoding="utf-8"))
    doc["sentence_verdicts"] = "shown"
    (folder / "settings.yaml").write_text(yaml.safe_dump(doc), encoding="utf-8")
    out = folder / "bundle"
    build([folder / "fb.jsonl"], out, BuildOptions(cache_dir=MODEL_CACHE, settings=folder / "settings.yaml",
                                                   title="FaithBench, sentence verdicts"))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path, default=REPO / "docs" / "screenshot-sentences.png")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        server, url = serve(bundle(Path(tmp)))
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=ARGS)
            page = browser.new_page(viewport={"width": 1440, "height": 760})
            page.route("**/models/**", lambda route: route.abort())  # the stored vectors answer
            page.goto(url + "?annotator=kim#record=fb-0")
            page.wait_for_selector("body[data-ready]")
            page.wait_for_selector("#pane-summary .text[data-complete]", state="attached")
            page.keyboard.press("Escape")  # the guidelines
            for key in ["f", *"2015", "Enter", "3", "Enter"]:  # a span: Unwanted.Intrinsic on "2015"
                page.keyboard.press(key)
                page.wait_for_timeout(60)
            page.keyboard.press("v")
            page.keyboard.press("v")
            wait_sentence_lit(page, 1)
            page.keyboard.press("y")  # sentence 2 confirmed with its lit evidence
            page.keyboard.press("v")
            wait_sentence_lit(page, 2)  # sentence 3 current, its evidence lit; sentence 4 not checked
            page.wait_for_timeout(300)
            page.screenshot(path=str(args.out))
            browser.close()
        server.shutdown()
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
