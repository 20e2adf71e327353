"""report.html benchmark: the coordinator's report of 10,000 records × 3 annotators (target ≤ 10 s CPU).

A synthetic merged round (every record judged by the three, 0–3 spans each, a label question, an agent's
suggestions, submissions over two weeks) and a synthetic `time_on_task` (log-normal record times): timed are
merge's figures from the merged records (agreement, questions, agents, progress: what `merge` adds to its
JSON report) and the page from that JSON report (`render_html`: sections, vl-convert's SVG, the HTML).

    python benchmarks/bench_report.py [--records 10000] [--repeat 3] [--write]

CPU time is the process's (vl-convert's engine runs in threads of it); wall time is printed beside it.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from rich.console import Console
from rich.table import Table

from mercury_static.merge.agreement import agreement_report
from mercury_static.merge.agreement_questions import agent_agreement, question_agreement
from mercury_static.merge.timeline import work_progress
from mercury_static.report.html import render_html
from mercury_static.settings.model import Option, Question

from results import update_results

ANNOTATORS = ["alice", "bob", "carol"]
LABELS = ["Questionable", "Benign", "Unwanted", "Unwanted.Intrinsic", "Unwanted.Extrinsic"]
LEAVES = [["Questionable"], ["Benign"], ["Unwanted", "Unwanted.Intrinsic"], ["Unwanted", "Unwanted.Extrinsic"]]
VERDICT = Question("verdict", "label", "Verdict", options=(Option("consistent", "c"), Option("hallucinated", "h")))
QUESTIONS = [Question("spans", "span", "Spans"), VERDICT]
SECTION = "## report.html (bench_report.py)"


def synthetic(n: int, seed: int = 7) -> tuple[list[dict], dict]:
    """Merged records and a time_on_task of `n` records × the three annotators."""
    rng = random.Random(seed)
    records, times = [], {}
    start = 1_764_547_200  # 2025-12-01
    for i in range(n):
        rid = f"rec-{i:05d}"
        annotations, responses = [], []
        hallucinated = rng.random() < 0.4
        for a in ANNOTATORS:
            for k in range(rng.randint(0, 3) if hallucinated else rng.randint(0, 1)):
                s = rng.randint(0, 300)
                annotations.append({"id": f"{a}-{i}-{k}", "annotator": a, "label": rng.choice(LEAVES),
                                    "summary": {"start": s, "end": s + rng.randint(3, 40)}})
            when = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(start + i * 120 + rng.randint(0, 3600)))
            verdict = "hallucinated" if (rng.random() < 0.85) == hallucinated else "consistent"
            responses.append({"annotator": a, "status": "submitted" if rng.random() < 0.95 else "in_progress",
                              "updated_at": when, "values": {"verdict": verdict},
                              "suggestions": {"shown": True, "accepted": {"verdict": "hhem"} if rng.random() < 0.6
                                              else {}}})
        records.append({"id": rid, "annotations": annotations, "responses": responses, "suggestions": [
            {"question": "verdict", "agent": "hhem", "value": "hallucinated" if hallucinated else "consistent",
             "score": round(rng.random(), 3)}]})
        times[rid] = {a: round(rng.lognormvariate(4, 0.6), 1) for a in ANNOTATORS}
    per = {a: [t[a] for t in times.values()] for a in ANNOTATORS}
    time_on_task = {"idle_threshold_s": 60, "records": times,
                    "annotators": {a: {"active_s": round(sum(v), 1), "records": len(v),
                                       "median_record_s": statistics.median(v)} for a, v in per.items()},
                    "annotations_elapsed_s": {a: [round(rng.uniform(4, 90), 1) for _ in range(2 * n // 3)]
                                              for a in ANNOTATORS}}
    return records, time_on_task


def timed(work) -> tuple[float, float, object]:
    wall, cpu = time.perf_counter(), time.process_time()
    out = work()
    return time.perf_counter() - wall, time.process_time() - cpu, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--write", action="store_true", help="rewrite this benchmark's RESULTS.md section")
    args = parser.parse_args()
    records, time_on_task = synthetic(args.records)

    def figures() -> dict:
        return {**agreement_report(records, LABELS), "questions": question_agreement(records, QUESTIONS),
                "agents": agent_agreement(records, QUESTIONS), "progress": work_progress(records, None, 1),
                "time_on_task": time_on_task}

    rows: dict[str, list[tuple[float, float]]] = {"merge's figures (JSON report)": [], "report.html": []}
    size = 0
    for _ in range(args.repeat):
        wall, cpu, report = timed(figures)
        rows["merge's figures (JSON report)"].append((wall, cpu))
        wall, cpu, page = timed(lambda: render_html(report))
        rows["report.html"].append((wall, cpu))
        size = len(page.encode("utf-8"))
    table = Table(title=f"{args.records:,} records × {len(ANNOTATORS)} annotators, {args.repeat} runs (median)")
    for column in ("step", "wall s", "CPU s", "CPU s (first run)"):
        table.add_column(column, justify="left" if column == "step" else "right")
    lines = []
    for step, runs in rows.items():
        wall, cpu = statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs)
        table.add_row(step, f"{wall:.2f}", f"{cpu:.2f}", f"{runs[0][1]:.2f}")
        lines.append(f"| {step} | {wall:.2f} | {cpu:.2f} | {runs[0][1]:.2f} |")
    console = Console()
    console.print(table)
    console.print(f"report.html: {size / 1000:.0f} kB")
    if args.write:
        update_results(SECTION, f"{SECTION}\n\n`.venv/bin/python benchmarks/bench_report.py --records "
                       f"{args.records} --repeat {args.repeat} --write` (synthetic round: every record judged by "
                       "the three annotators, a verdict question with an agent's suggestions, time on task; "
                       "2-core machine shared with other work). Target: the page ≤ 10 s CPU. merge's figures "
                       "include the 95% bootstrap intervals of every α, κ and span F1 (1,000 resamples).\n\n"
                       "| step | wall s | CPU s (median) | CPU s (first run: vl-convert's engine starts) |\n"
                       "|---|---|---|---|\n" + "\n".join(lines) + f"\n\nreport.html: {size / 1000:.0f} kB, "
                       "no script, every chart an inline SVG. Plotly, the other library weighed, inlines its "
                       "plotly.min.js (4.8 MB in plotly 7.1.0) in every page and draws the charts only when the "
                       "page runs it.\n")


if __name__ == "__main__":
    main()
