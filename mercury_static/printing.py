"""Rich printing of the library's results, for cli.py only: the library returns data, the CLI prints it."""

from __future__ import annotations

from collections.abc import Iterable

from rich.console import Console
from rich.table import Table
from rich.text import Text

from mercury_static.commands.progress import RoundProgress
from mercury_static.tune.evaluate import RECALL_AT, EvalReport
from mercury_static.merge.pipeline import MergeResult
from mercury_static.tune.tune import TuneResult
from mercury_static.core.terminal import line


def _cell(value) -> Text:
    if value is None:
        return Text("–")
    return line(f"{value:.3f}" if isinstance(value, float) else str(value))


def _show(console: Console, table: Table) -> None:
    """Print `table` at least as wide as its narrowest layout (headers wrapped between words): in a narrow
    terminal its lines wrap rather than its headers and cells being cut with "…"."""
    needed = console.measure(table, options=console.options.update(max_width=10_000)).minimum
    console.print(table, width=max(console.width, needed), crop=False)


def _table(title: str, columns: list[str], rows: Iterable[Iterable]) -> Table:
    table = Table(title=title, title_justify="left")
    for i, column in enumerate(columns):
        table.add_column(column, justify="left" if i == 0 else "right", overflow="fold",
                         min_width=max(len(word) for word in column.split() or [""]))
    for row in rows:
        table.add_row(*(_cell(v) for v in row))
    return table


def print_merge(result: MergeResult, out: Console, err: Console) -> None:
    """Problems and notes (one line each) on `err`; counts and agreement tables on `out`."""
    for problem in result.problems:
        err.print(line(f"skipped: {problem}"), soft_wrap=True)
    for note in result.notes:
        err.print(line(f"note: {note}"), soft_wrap=True)
    c, a = result.counts, result.agreement
    out.print(Text(f"{result.files} file(s): {c.read} annotations read, {c.merged} merged, {c.duplicate} "
                   f"duplicate, {c.superseded} superseded by newer versions, {c.rejected} rejected"
                   + (f"; {result.answers_dropped} answer(s) dropped (their records merged)"
                      if result.answers_dropped else "")))
    r = a["records"]
    # with record-level questions (often one named "verdict"), say that these verdicts are the spans'
    verdict = "span verdict" if a.get("questions") else "verdict"
    out.print(Text(f"{r['total']} records: {r['annotated']} with annotations, {r['judged']} judged, "
                   f"{r['judged_by_2_or_more']} judged by 2+ annotators ({verdict}: {a['verdict']})"))
    _show(out, _table("Annotators", ["annotator", "annotations", "records annotated", "submitted", "discarded",
                                    "in progress", "judged"],
                     ([x["annotator"], x["annotations"], x["records_annotated"], x["submitted"], x["discarded"],
                       x["in_progress"], x["judged"]] for x in a["annotators"])))
    _show(out, _table("Labels", ["label", "annotations"], ([x["label"], x["annotations"]] for x in a["labels"])))
    o = a["overall"]
    rows = [[f"{p['a']} × {p['b']}", p["records"], p["char_f1"], p["exact_f1"], p["observed_agreement"],
             p["kappa"], _interval(p.get("kappa_ci"))] for p in a["pairwise"]]
    rows.append(["overall", o["records"], o["char_f1"], o["exact_f1"], None, None, None])
    _show(out, _table(f"Agreement (summary spans; {'span' if a.get('questions') else 'record'} verdicts; "
                      "95% bootstrap intervals)",
                     ["pair", "records", "char F1", "exact F1", f"{verdict} agree", "Cohen κ", "κ interval"], rows))
    ci = o.get("alpha_ci")
    out.print(Text(f"Krippendorff's alpha ({verdict}s, nominal, {o['records']} records): "
                   f"{_cell(o['alpha'])}" + (f", 95% interval {_interval(ci)}" if ci else "")))
    if a.get("questions"):
        _show(out, _table("Agreement per question (Krippendorff's alpha, submitted answers; 95% bootstrap "
                          "intervals)", ["question", "type", "answers", "records 2+", "alpha", "interval", "metric"],
                         ([q["question"], q["type"], q["answers"], q["records"],
                           *(_alphas(q["alpha"], q.get("alpha_ci", {})) if q["alpha"] else ["–", "", "count only"])]
                          for q in a["questions"])))
    if a.get("agents"):
        _show(out, _table("Suggestion agents against the annotators (blind: suggestions hidden)",
                         ["question", "agent", "split", "records", "answers", "agree", "maj. acc", "alpha", "AUC",
                          "accepted"],
                         ([x["question"], x["agent"], x["split"], x["records"], x["answers"], x["agree"],
                           x["accuracy"], x["alpha"], x["auc"], x["accepted"]] for x in a["agents"])))
    if a.get("sentences"):
        _sentences(out, a["sentences"])
    if a["adjudication"]:
        _show(out, _table("Most disagreement (adjudicate first)", ["record", "annotators", "score",
                                                                  "span disagreement", "answered apart",
                                                                  *(["sentences apart"] if a.get("sentences") else [])],
                         ([x["record_id"], ", ".join(x["annotators"]), x["score"], x["spans"],
                           ", ".join(x["questions"]) or "–", *([x["sentences"]] if "sentences" in x else [])]
                          for x in a["adjudication"][:10])))


def _sentences(out, s: dict) -> None:
    """The sentence verdicts: each annotator's counts, then alpha, kappa per pair and the evidence F1."""
    _show(out, _table("Sentence verdicts per annotator", ["annotator", "sentences", "judged", "flagged",
                                                          "not checked", *s["verdicts"][:-1]],
                      ([x["annotator"], x["sentences"], x["judged"], x["flagged"], x["not_checked"],
                        *(x["verdicts"][v] for v in s["verdicts"][:-1])] for x in s["annotators"])))
    ev = s["evidence"]
    _show(out, _table("Sentence verdict agreement", ["figure", "value", "95% interval", "over"],
                      [["alpha (nominal)", s["alpha"], _interval(s["alpha_ci"]) or "–", f"{s['pairable']} sentences"],
                       *(["kappa " + p["a"] + " / " + p["b"], p["kappa"], _interval(p["kappa_ci"]) or "–",
                          f"{p['sentences']} sentences"] for p in s["pairwise"]),
                       ["evidence F1", ev["f1"], _interval(ev["f1_ci"]) or "–",
                        f"{ev['pairs']} pairs on {ev['sentences']} sentences"]]))


def _alphas(alphas: dict, intervals: dict) -> list[str]:
    """The alpha, interval and metric cells of one question: `0.812 / 0.790`, `[0.78, 0.84] / [0.75, 0.82]`,
    `ordinal / interval`."""
    return [" / ".join(_cell(v).plain for v in alphas.values()),
            " / ".join(_interval(intervals.get(m)) or "–" for m in alphas), " / ".join(alphas)]


def _interval(ci: list[float] | None) -> str:
    """A 95% interval as `[0.071, 0.112]`; nothing when there is none (undefined, or an older report)."""
    return f"[{ci[0]:.3f}, {ci[1]:.3f}]" if ci else ""


def print_eval(report: EvalReport, console: Console) -> None:
    """`eval`'s report as a rich table."""
    model = report.model.get("name") or "?"
    if report.model.get("trained"):
        model += f", trained on {report.model['trained']['pairs']} pairs"
    table = Table(title=f"related-sentence ranking (k={report.k}, {report.options.get('algorithm')}, model {model})")
    for col in ("dataset", "queries", "MRR", "ext. MRR", *(f"R@{n}" for n in RECALL_AT),
                f"P@{report.k}", f"nDCG@{report.k}", "nothing", "unrel.", "ms p50", "ms p95"):
        table.add_column(col, justify="left" if col == "dataset" else "right")
    for g in report.groups:
        table.add_row(g.group, str(g.queries), f"{g.mrr:.3f}", f"{g.ext_mrr:.3f}",
                      *(f"{g.recall[n]:.3f}" for n in RECALL_AT), f"{g.precision:.3f}", f"{g.ndcg:.3f}",
                      f"{g.nothing_related:.1%}",
                      "-" if g.unrelated_shown is None else f"{g.unrelated_shown:.1%}",
                      f"{g.latency_ms_p50:.2f}", f"{g.latency_ms_p95:.2f}")
    console.print(table)
    console.print("R@n: share of queries with a relevant sentence in the top n. nothing: gold queries whose best "
                  f"score is below min_score ({report.options.get('min_score')}); unrel.: the same queries against "
                  "an unrelated source whose best score reaches it. ms: Python ranking time per query.",
                  highlight=False)
    cited = [(g.group, g.cited) for g in report.groups if g.cited]
    if cited:
        def share(x):
            return "-" if x is None else f"{x:.1%}"
        _show(console, _table("queries whose text cites documents (issue 26)",
                             ["dataset", "queries", f"P@{report.k}", f"P@{report.k} cited first", "MRR",
                              "MRR cited first", "evidence in cited", "best elsewhere", "citation right",
                              "check → wrong", "wrong → check"],
                             ([group, c["queries"], f"{c['p']:.3f}", f"{c['cited_p']:.3f}", f"{c['rr']:.3f}",
                               f"{c['cited_rr']:.3f}", share(c["cited_found"]), share(c["best_outside"]),
                               share(c["cited_right"]), share(c["signal_precision"]), share(c["signal_recall"])]
                              for group, c in cited)))
        console.print("cited first: the sentences of the cited documents ranked before the others (the page "
                      "shows them first). evidence in cited: the best match inside the cited documents is gold "
                      "evidence. best elsewhere: the best match of the whole source lies outside them. citation "
                      "right: a cited document holds gold evidence. check → wrong: of the queries the page asks "
                      "to check (the best match elsewhere more than 0.1 above every cited one), the share whose "
                      "citation "
                      "is wrong; wrong → check: the reverse.",
                      highlight=False)


def print_tune(result: TuneResult, console: Console) -> None:
    """`tune`'s held-out figures and the fitted weights."""
    _show(console, _table(f"held out ({result.folds}-fold cross-validation over {result.records} records, "
                         f"{result.pairs} pairs; mean [95% interval])", ["", "current", "tuned", "gain"],
                         [[name, *(str(by[k]) for k in ("current", "tuned", "gain"))]
                          for name, by in (("MRR", result.scores["mrr"]), ("R@1", result.scores["r1"]))]))
    _show(console, _table(f"weights fitted on every pair (shrinkage {result.strength:g})",
                         ["option", "current", "tuned"], result.weights()))


def print_train(result, console: Console) -> None:
    """`train`'s held-out figures (current model against the trained one) and the ranker re-fitted on it."""
    _show(console, _table(f"held out ({result.folds}-fold cross-validation over {result.sources} sources, "
                         f"{result.pairs} pairs, {result.examples} examples; mean [95% interval])",
                         ["", "current model", "trained", "gain"],
                         [[name, *(str(by[k]) for k in ("current", "trained", "gain"))]
                          for name, by in (("MRR", result.scores["mrr"]), ("R@1", result.scores["r1"]))]))
    if result.ranker_tune is not None:
        print_tune(result.ranker_tune, console)


def print_gold(result, out: Console, err: Console) -> None:
    """The gold's notes on `err`; what is gold and what is not, reviewer agreement, quality tables on `out`."""
    for note in result.notes:
        err.print(line(f"note: {note}"), soft_wrap=True)
    missing = [x["record_id"] for x in result.not_adjudicated]
    out.print(line(f"{len(result.records)} record(s) adjudicated (gold); {len(missing)} not adjudicated"
                   + (f": {', '.join(missing[:10])}{' …' if len(missing) > 10 else ''}" if missing else "")
                   + (f"; {len(result.undecided)} annotation(s) of adjudicated records left undecided (not gold)"
                      if result.undecided else "")), soft_wrap=True)
    pairs = result.reviewers["pairs"]
    if pairs:
        _show(out, _table("Reviewer agreement (records both adjudicated)", ["pair", "records", "span F1",
                                                                           "answers agree", "differ"],
                         ([f"{p['a']} × {p['b']}", p["records"], p["span_f1"], p["answers_agree"], len(p["differ"])]
                          for p in pairs)))
    q = result.quality
    questions = sorted({name for a in q["annotators"] for name in a["accuracy"]})
    _show(out, _table("Annotators against the gold", ["annotator", "records", "span P", "span R", "span F1",
                                                     *(f"{n} acc." for n in questions)],
                     ([a["annotator"], a["records"], a["span_precision"], a["span_recall"], a["span_f1"],
                       *(a["accuracy"].get(n) for n in questions)] for a in q["annotators"])))
    if any("sentences" in a for a in q["annotators"]):
        _show(out, _table("Sentence verdicts against the gold (its settled sentences)",
                          ["annotator", "judged", "verdict acc.", "evidence F1"],
                          ([a["annotator"], a["sentences"]["judged"], a["sentences"]["verdict_accuracy"],
                            a["sentences"]["evidence_f1"]] for a in q["annotators"] if "sentences" in a)))
    if q["agents"]:
        _show(out, _table("Suggestion agents against the gold", ["question", "agent", "records", "accuracy", "AUC"],
                         ([a["question"], a["agent"], a["records"], a["accuracy"], a["auc"]] for a in q["agents"])))
    if q["changed"]:
        _show(out, _table("Records the review changed most", ["record", "change", "spans", "answers changed"],
                         ([c["record_id"], c["change"], c["spans"], c["answers_changed"]] for c in q["changed"][:10])))


def print_checks(checks: dict | None, out: Console) -> None:
    """Each annotator's figures on the check records, with intervals, and who is below the threshold."""
    if checks is None:
        return
    measures = checks["measures"]
    rows = [[a["annotator"], a["records"],
             *(f"{_cell(f['value']).plain} {_interval(f['ci'])}".strip() if (f := a["figures"].get(m)) else "–"
               for m in measures),
             ("FLAGGED: " + ", ".join(measures[m] for m in a["below"])) if a["below"] else "ok"]
            for a in checks["annotators"]]
    _show(out, _table(f"Check records ({checks['records']} with known answers, out of the agreement; 95% bootstrap "
                      f"intervals; flagged below {checks['threshold']})",
                      ["annotator", "records", *measures.values(), "flag"], rows))
    flagged = [a["annotator"] for a in checks["annotators"] if a["below"]]
    out.print(Text(f"flagged on the check records: {', '.join(flagged)}" if flagged
                   else "no annotator below the threshold on the check records"))


def print_progress(progress: RoundProgress, out: Console) -> None:
    """`progress`'s header line and one line per annotator."""
    out.print(line(f"annotator  browsers  to do  in progress  submitted  discarded  last upload  ({progress.records} "
                   "records" + (", to do in each one's queue)" if progress.queued else ")")), soft_wrap=True)
    for p in progress.annotators:
        last = p.last_upload.strftime("%Y-%m-%d %H:%M UTC") if p.last_upload else "-"
        out.print(line(f"{p.annotator}  {p.browsers} browser{'s' if p.browsers != 1 else ''}  {p.to_do} to do  "
                       f"{p.in_progress} in progress  {p.submitted} submitted  {p.discarded} discarded  "
                       f"last upload {last}"), soft_wrap=True)
