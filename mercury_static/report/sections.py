"""The report's sections from merge's or gold's JSON report: tables of figures, a chart of each where a chart
helps, and a plain sentence for what the report does not hold (an older report, a round without times).

Pure functions of the report's model (model.py): the HTML page (html.py) only lays these out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import numpy as np

from mercury_static.formats import EXPORT_TIMED
from mercury_static.report import charts
from mercury_static.report.model import GoldReport, Report, RoundReport, Sentences

INTERVAL = "95% interval"
"""The table column of a figure's bootstrap interval (merge/bootstrap.py)."""
OUTLIERS = 20
HISTOGRAM_BINS = 20


@dataclass(frozen=True)
class Link:
    """A table cell that links into the review bundle."""

    text: str
    href: str


Cell = Any  # str | int | float | None | Link


@dataclass
class Table:
    key: str
    """The table's id in the page (tests read the figures back by it)."""
    caption: str
    columns: list[str]
    rows: list[list[Cell]]


@dataclass
class Chart:
    alt: str
    """The text alternative: what the chart shows, in words."""
    spec: charts.Spec
    table: Table


@dataclass
class Section:
    key: str
    title: str
    lines: list[str] = field(default_factory=list)
    charts: list[Chart] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)


def record_link(record_id: str, review_url: str) -> Link:
    """A record opened in the review page (its `#record=ID` address). A folder's address is linked as its
    `index.html`: opened from disk (file://) a folder is listed, not served its page."""
    page = review_url + "index.html" if review_url.endswith("/") else review_url
    return Link(record_id, f"{page}#record={quote(record_id, safe='')}")


def _records(rows: list[dict], columns: list[str]) -> list[list[Cell]]:
    return [[r[c] for c in columns] for r in rows]


def _chart(alt: str, spec: charts.Spec, key: str, columns: list[str], rows: list[dict]) -> Chart:
    return Chart(alt, spec, Table(key, alt, columns, _records(rows, columns)))


def progress_section(report: RoundReport, review_url: str) -> Section:
    section = Section("progress", "Progress")
    p = report.progress
    if p is None:  # a report from before the progress figures: its per-annotator counts only
        rows = [{"annotator": a.annotator, "submitted": a.submitted, "in progress": a.in_progress,
                 "discarded": a.discarded} for a in report.annotators]
        section.lines.append("records left and progress over time: not available in this report")
        measures, queued = ["submitted", "in progress", "discarded"], False
    else:
        rows = [{"annotator": name, "submitted": a.submitted, "in progress": a.in_progress,
                 "discarded": a.discarded, "to do": a.queue_todo, "queue left": a.queue_left,
                 "queue": a.queue} for name, a in p.annotators.items()]
        total = p.records_done + p.records_left
        section.lines.append(f"{p.records_done} of {total} records done ({p.overlap} submission"
                             f"{'s' if p.overlap != 1 else ''} each), {p.records_left} left")
        queued = any(r["queue"] is not None for r in rows)
        todo = queued and all(r["to do"] is not None for r in rows if r["queue"] is not None)
        measures = ["submitted", "in progress", "discarded", *(["to do"] if todo else [])]
    if rows:
        alt = "Records per annotator by status" + (", and what is still to do in each queue" if "to do" in measures
                                                   else "")
        columns = ["annotator", *measures, *(["queue left", "queue"] if queued else [])]
        section.charts.append(_chart(alt, charts.bars(alt, rows, "annotator", measures, stack=True,
                                                      title="records"),
                                     "progress-annotators", columns, rows))
    else:
        section.lines.append("no annotator's work yet")
    t = p.timeline if p is not None else None
    if t is not None and t.bins and t.bin_s is not None:
        points: list[dict] = []
        for name, counts in t.submitted.items():
            total = 0
            for start, n in zip(t.bins, counts):
                total += n
                points.append({"from": start, "annotator": name, "submitted": n, "submitted so far": total})
        alt = f"Records submitted so far per annotator over time ({_duration(t.bin_s)} steps)"
        section.charts.append(_chart(alt, charts.lines(alt, points, "from", "submitted so far", "annotator",
                                                              "time (UTC)"),
                                     "progress-timeline", ["from", "annotator", "submitted", "submitted so far"],
                                     points))
    elif p is not None:
        section.lines.append("progress over time: not available (no submitted record has a time)")
    return section


def _duration(seconds: float) -> str:
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size and seconds % size == 0:
            n = int(seconds // size)
            return f"{n} {unit}{'s' if n != 1 else ''}" if n != 1 else unit
    return f"{seconds:g} s"


def clock(seconds: float) -> str:
    """A duration in the units that read at its size: "45 s", "12 min 5 s", "3 h 20 min"."""
    whole = round(seconds)
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min" + (f" {whole % 60} s" if whole % 60 else "")
    minutes = round(seconds / 60)
    return f"{minutes // 60} h" + (f" {minutes % 60} min" if minutes % 60 else "")


def _stats(values: list[float]) -> dict:
    a = np.asarray(values, dtype=np.float64)
    p25, median, p75 = np.percentile(a, [25, 50, 75])
    return {"median s": round(float(median), 1), "p25 s": round(float(p25), 1), "p75 s": round(float(p75), 1),
            "max s": round(float(a.max()), 1)}


def time_section(report: Report, review_url: str) -> Section:
    section = Section("time", "Time on task")
    if isinstance(report, GoldReport):
        section.lines.append("time on task is in merge's report of the round (merge --report report.html): "
                             "reviewers' files record no time")
        return section
    t = report.time_on_task
    if t is None or not t.annotators:
        section.lines.append(f"no time recorded (exports older than version {EXPORT_TIMED} or none)")
        return section
    section.lines.append(f"active time only: gaps over {t.idle_threshold_s:g} s and hidden tabs left out")
    per_annotator: dict[str, list[float]] = {}
    per_record: list[tuple[str, list[float]]] = []
    for record_id, times in t.records.items():
        per_record.append((record_id, list(times.values())))
        for name, seconds in times.items():
            per_annotator.setdefault(name, []).append(seconds)
    rows = []
    for name, a in t.annotators.items():
        elapsed = t.annotations_elapsed_s.get(name) or []
        rows.append({"annotator": name, "active": clock(a.active_s), "records": a.records,
                     **(_stats(per_annotator[name]) if per_annotator.get(name) else
                        {"median s": a.median_record_s, "p25 s": None, "p75 s": None, "max s": None}),
                     "median annotation s": round(float(np.median(elapsed)), 1) if elapsed else None})
    alt = "Active seconds per record, each annotator's median (bar) and quartiles (line)"
    section.charts.append(_chart(alt, charts.interval_bars(alt, [r for r in rows if r["p25 s"] is not None],
                                                           "annotator", "median s", "p25 s", "p75 s"),
                                 "time-annotators", list(rows[0]), rows))
    if per_record:
        medians = np.array([float(np.median(v)) for _, v in per_record])
        edges = np.histogram_bin_edges(medians, bins=min(HISTOGRAM_BINS, max(1, len(medians))))
        counts, _ = np.histogram(medians, bins=edges)
        bins = [{"from s": round(float(lo), 1), "to s": round(float(hi), 1), "records": int(n)}
                for lo, hi, n in zip(edges[:-1], edges[1:], counts)]
        q1, q3 = np.percentile(medians, [25, 75])
        limit = q3 + 1.5 * (q3 - q1)
        section.lines.append(f"per record (median over its annotators): median {np.median(medians):.1f} s, "
                             f"quartiles {q1:.1f}–{q3:.1f} s; an outlier takes over {limit:.1f} s")
        alt = "Records by active seconds (median over the record's annotators)"
        section.charts.append(_chart(alt, charts.histogram(alt, bins, "from s", "to s", "records", "seconds"),
                                     "time-records", ["from s", "to s", "records"], bins))
        order = np.argsort(-medians, kind="stable")
        outliers = [i for i in order[:OUTLIERS] if medians[i] > limit]
        section.tables.append(Table("time-outliers", f"Slowest records over {limit:.1f} s (at most {OUTLIERS})",
                                    ["record", "median s", "spread s", "annotators"],
                                    [[record_link(per_record[i][0], review_url), round(float(medians[i]), 1),
                                      round(max(per_record[i][1]) - min(per_record[i][1]), 1),
                                      len(per_record[i][1])] for i in outliers]))
    return section


def agreement_section(report: RoundReport, review_url: str) -> Section:
    section = Section("agreement", "Agreement")
    o = report.overall
    if o is None:
        section.lines.append("agreement: not available in this report")
        return section
    section.lines.append(f"summary spans, {o.records} records judged by 2+ annotators: char F1 "
                         f"{_figure(o.char_f1, o.char_f1_ci)}, exact F1 "
                         f"{_figure(o.exact_f1, o.exact_f1_ci)}; Krippendorff's α of the verdicts "
                         f"({report.verdict or 'verdict'}) {_figure(o.alpha, o.alpha_ci)}")
    b = report.bootstrap
    section.lines.append(f"in brackets and as error bars: {b.level:.0%} intervals, {b.interval} bootstrap over "
                         f"the {b.over} ({b.resamples:,} resamples, seed {b.seed})" if b else
                         "confidence intervals: not available in this report (written before they were)")
    rows = [{"question": "spans (verdict)", "type": "span", "metric": "nominal", "records": o.records,
             "alpha": o.alpha, **_interval(o.alpha_ci)}]
    rows += [{"question": q.question, "type": q.type, "metric": m, "records": q.records, "alpha": a,
              **_interval((q.alpha_ci or {}).get(m))}
             for q in report.questions for m, a in q.alpha.items()]
    shown = [{**r, "question · metric": f"{r['question']} · {r['metric']}"} for r in rows if r["alpha"] is not None]
    alt = ("Krippendorff's alpha per question and metric (1 is full agreement, 0 chance), with its 95% interval"
           if b else "Krippendorff's alpha per question and metric (1 is full agreement, 0 chance)")
    columns = ["question", "type", "metric", "records", "alpha", INTERVAL]
    if shown:
        section.charts.append(_chart(alt, charts.interval_bars(alt, shown, "question · metric", "alpha", "low",
                                                               "high", title="alpha", domain=(-1, 1)),
                                     "agreement-questions", columns, rows))
    else:
        section.tables.append(Table("agreement-questions", f"{alt}: undefined everywhere (too few records judged "
                                    "twice, or one answer only)", columns, _records(rows, columns)))
    pairs = report.pairwise
    if pairs:
        rows = [{"a": p.a, "b": p.b, "records": p.records, "kappa": p.kappa,
                 **_interval(p.kappa_ci), "char F1": p.char_f1, "exact F1": p.exact_f1,
                 "observed": p.observed_agreement, "κ": "–" if p.kappa is None else f"{p.kappa:.2f}"}
                for p in pairs]
        alt = "Cohen's kappa of the verdicts for each pair of annotators (its 95% interval in the table)"
        section.charts.append(_chart(alt, charts.heatmap(alt, rows, "a", "b", "kappa", "κ", (-1, 1),
                                                        row_title="annotator", column_title="paired with",
                                                        legend="κ"),
                                     "agreement-pairs", ["a", "b", "records", "kappa", INTERVAL, "char F1",
                                                         "exact F1", "observed"], rows))
    labels = [{"label": x.label, "records": x.records, "char_f1": x.char_f1, "char F1": x.char_f1,
               **_interval(x.char_f1_ci)} for x in report.label_agreement or [] if x.records]
    if labels:
        alt = "Summary-span agreement (character F1 over annotator pairs) per label, with its 95% interval"
        section.charts.append(_chart(alt, charts.interval_bars(alt, [x for x in labels if x["char_f1"] is not None],
                                                               "label", "char F1", "low", "high", title="char F1",
                                                               domain=(0, 1)),
                                     "agreement-labels", ["label", "records", "char F1", INTERVAL], labels))
    elif report.label_agreement is None:
        section.lines.append("span agreement per label: not available in this report")
    todo = report.adjudication
    sentences = any(c.sentences is not None for c in todo)
    section.tables.append(Table("adjudication", "Records to adjudicate first (each opens in the review bundle; the "
                                "review bundle's order)",
                                ["record", "annotators", "disagreement", "span disagreement", "answered apart",
                                 *(["sentences apart"] if sentences else [])],
                                [[record_link(c.record_id, review_url), ", ".join(c.annotators), c.score,
                                  c.spans, ", ".join(c.questions),
                                  *([c.sentences] if sentences else [])] for c in todo]))
    return section


def sentences_section(s: Sentences, review_url: str) -> Section:
    """Sentence verdicts: what each annotator judged, flagged or left unchecked, the verdicts given, and the
    agreement on them (alpha, kappa per pair, evidence F1) with their intervals."""
    section = Section("sentences", "Sentence verdicts")
    shown = s.verdicts
    rows = [{"annotator": a.annotator, "judged": a.judged, "flagged": a.flagged,
             "not checked": a.not_checked, "sentences": a.sentences} for a in s.annotators]
    alt = "Summary sentences per annotator: judged (a verdict given), flagged (a span on it), not checked"
    section.charts.append(_chart(alt, charts.bars(alt, rows, "annotator", ["judged", "flagged", "not checked"],
                                                  stack=True, title="summary sentences"),
                                 "sentences-annotators", ["annotator", "sentences", "judged", "flagged", "not checked"],
                                 rows))
    verdicts = [{"verdict": v, "sentences": s.distribution[v]} for v in shown]
    alt = "Effective verdicts of every summary sentence, all annotators"
    section.charts.append(_chart(alt, charts.bars(alt, verdicts, "verdict", ["sentences"]), "sentences-verdicts",
                                 ["verdict", "sentences"], verdicts))
    figures = [{"figure": "alpha (nominal)", "value": s.alpha, "over": f"{s.pairable} sentences",
                **_interval(s.alpha_ci)},
               *({"figure": f"kappa {p.a} / {p.b}", "value": p.kappa, "over": f"{p.sentences} sentences",
                  **_interval(p.kappa_ci)} for p in s.pairwise),
               {"figure": "evidence F1", "value": s.evidence.f1,
                "over": f"{s.evidence.pairs} pairs on {s.evidence.sentences} sentences",
                **_interval(s.evidence.f1_ci)}]
    shown_figures = [f for f in figures if f["value"] is not None]
    alt = "Agreement on the sentence verdicts (alpha, Cohen's kappa per pair) and on their evidence (F1)"
    section.charts.append(_chart(alt, charts.interval_bars(alt, shown_figures, "figure", "value", "low", "high",
                                                           title="agreement", domain=(-1, 1)),
                                 "sentences-agreement", ["figure", "value", INTERVAL, "over"], figures))
    section.lines.append(f"a sentence with a span and no verdict counts as {s.flagged_as!r}; 'not checked' is "
                         "no value; units: the sentences of records submitted by 2+ annotators")
    return section


def labels_section(report: RoundReport, review_url: str) -> Section:
    section = Section("labels", "Labels and suggestions")
    counts = report.label_counts
    if counts is None:
        section.lines.append("label distribution per annotator: not available in this report")
    elif counts:
        team = _own({x.label: x.annotations for x in report.labels})
        team_total = sum(team.values()) or 1
        rows: list[dict] = []
        for name, by_label in counts.items():
            own = _own(by_label)
            total = sum(own.values())
            for label, n in own.items():
                share = round(n / total, 4) if total else None
                team_share = round(team.get(label, 0) / team_total, 4)
                rows.append({"annotator": name, "label": label, "annotations": n, "share": share,
                             "team share": team_share,
                             "against the team": None if share is None else round(share - team_share, 4),
                             "%": "–" if share is None else f"{100 * share:.0f}%"})
        alt = ("Share of each annotator's annotations by label (each annotation counted once, under its most "
               "specific label), coloured by how far it is from the team's share: an annotator over- (blue) or "
               "under-using (red) a label")
        spread = max([abs(r["against the team"]) for r in rows if r["against the team"] is not None] + [0.05])
        section.charts.append(_chart(alt, charts.heatmap(alt, rows, "annotator", "label", "against the team", "%",
                                                         (-spread, spread), row_title="annotator",
                                                         column_title="label", legend="share − team share"),
                                     "labels-annotators", ["annotator", "label", "annotations", "share",
                                                           "team share"], rows))
    agents = [x for x in report.agents if x.split != "blind"]
    if agents:
        rows = [{"question": x.question, "agent": x.agent, "split": x.split, "answers": x.answers,
                 "agree": x.agree, "accepted": x.accepted} for x in agents]
        shown = [{**r, "agent · question": f"{r['agent']} · {r['question']}"} for r in rows
                 if r["split"] == "shown" and r["accepted"] is not None]
        alt = "Share of the answers given with the suggestions shown that accepted each agent's suggestion"
        if shown:
            section.charts.append(_chart(alt, charts.bars(alt, shown, "agent · question", ["accepted"],
                                                          domain=(0, 1)),
                                         "agents", ["question", "agent", "split", "answers", "agree", "accepted"],
                                         rows))
        else:
            section.tables.append(Table("agents", "Suggestion agents against the annotators (no suggestion was "
                                        "shown: acceptance not available)",
                                        ["question", "agent", "split", "answers", "agree", "accepted"],
                                        _records(rows, ["question", "agent", "split", "answers", "agree",
                                                        "accepted"])))
    else:
        section.lines.append("suggestion acceptance: no suggestion agent in this round")
    return section


def _own(counts: dict[str, int]) -> dict[str, int]:
    """Annotations per label counted under their most specific label only: a parent's count holds its
    children's (an annotation carries its label's whole path), so the children's are taken off it. A parent
    no annotation stops at is left out."""
    own = {}
    for label, n in counts.items():
        children = [c for c in counts if c.startswith(label + ".") and "." not in c[len(label) + 1:]]
        rest = n - sum(counts[c] for c in children)
        if rest or not children:
            own[label] = rest
    return own


def gold_sections(report: GoldReport, review_url: str) -> list[Section]:
    c = report.counts
    section = Section("gold", "Against the gold")
    section.lines.append(f"{c.gold} records adjudicated (gold), {c.not_adjudicated} not adjudicated, "
                         f"{c.undecided_annotations} annotations left undecided")
    q = report.quality
    measures = ["precision", "recall", "F1"]
    for key, who, rows in (("gold-annotators", "annotator", [(a.annotator, a) for a in q.annotators]),
                           ("gold-agents", "agent", [(a.agent, a) for a in q.agent_spans])):
        if not rows:
            continue
        flat = [{who: name, "records": r.records, "precision": r.span_precision,
                 "recall": r.span_recall, "F1": r.span_f1} for name, r in rows]
        alt = f"Summary-span precision, recall and F1 of each {who} against the gold"
        section.charts.append(_chart(alt, charts.bars(alt, flat, who, measures, domain=(0, 1)), key,
                                     [who, "records", *measures], flat))
    accuracy = [{"annotator": a.annotator, "question": name, "accuracy": value}
                for a in q.annotators for name, value in a.accuracy.items()]
    if accuracy:
        section.tables.append(Table("gold-accuracy", "Answers equal to the gold's, per annotator and question",
                                    ["annotator", "question", "accuracy"],
                                    _records(accuracy, ["annotator", "question", "accuracy"])))
    verdicts = [{"annotator": a.annotator, "judged": a.sentences.judged,
                 "verdict_accuracy": a.sentences.verdict_accuracy, "evidence_f1": a.sentences.evidence_f1}
                for a in q.annotators if a.sentences is not None]
    if verdicts:
        columns = ["annotator", "judged", "verdict_accuracy", "evidence_f1"]
        section.tables.append(Table("gold-sentences", "Sentence verdicts against the gold's settled sentences, per "
                                    "annotator", columns, _records(verdicts, columns)))
    if q.agents:
        rows = [{"agent · question": f"{a.agent} · {a.question}", "records": a.records,
                 "accuracy": a.accuracy, "AUC": a.auc} for a in q.agents]
        alt = "Accuracy and ROC AUC of each suggestion agent against the gold answers"
        section.charts.append(_chart(alt, charts.bars(alt, rows, "agent · question", ["accuracy", "AUC"],
                                                      domain=(0, 1)),
                                     "gold-agent-answers", ["agent · question", "records", "accuracy", "AUC"],
                                     rows))
    pairs = report.reviewers.pairs
    if pairs:
        section.tables.append(Table("gold-reviewers", "Reviewers who adjudicated the same records",
                                    ["a", "b", "records", "span F1", "answers agree"],
                                    [[p.a, p.b, p.records, p.span_f1, p.answers_agree] for p in pairs]))
    section.tables.append(Table("gold-changed", "Records the review changed most",
                                ["record", "change", "spans", "answers changed"],
                                [[record_link(x.record_id, review_url), x.change, x.spans,
                                  x.answers_changed] for x in q.changed]))
    return [section]


def checks_section(report: RoundReport, review_url: str) -> Section:
    """Each annotator's figures on the check records (merge --checks), who is flagged, and why."""
    section = Section("checks", "Check records")
    c = report.checks
    if c is None:
        section.lines.append("check records: none in this round (merge --checks FILE scores the annotators on "
                             "records whose answer is known)")
        return section
    section.lines.append(f"{c.records} check records with known answers, left out of the agreement figures; "
                         f"an annotator below {c.threshold} on a verdict accuracy or span F1 is flagged")
    titles = c.measures
    flagged = [f"{a.annotator} ({', '.join(titles[m] for m in a.below)})"
               for a in c.annotators if a.below]
    section.lines.append("flagged: " + "; ".join(flagged) if flagged else "flagged: nobody")
    rows = [{"annotator": a.annotator, "measure": title, "annotator · measure": f"{a.annotator} · {title}",
             "records": a.records, "items": f.items, "value": f.value, **_interval(f.ci),
             "flagged": "FLAGGED" if m in a.below else ""}
            for m, title in titles.items() for a in c.annotators if (f := a.figures.get(m))]
    alt = "Each annotator's accuracy and span F1 on the check records, with its 95% interval"
    columns = ["annotator", "measure", "records", "items", "value", INTERVAL, "flagged"]
    section.charts.append(_chart(alt, charts.interval_bars(alt, [r for r in rows if r["value"] is not None],
                                                           "annotator · measure", "value", "low", "high",
                                                           title="against the known answers", domain=(0, 1)),
                                 "checks", columns, rows))
    return section


def _figure(x: float | None, interval: list[float] | None = None) -> str:
    return "–" if x is None else f"{x:.3f}" + (f" [{interval[0]:.3f}, {interval[1]:.3f}]" if interval else "")


def _interval(ci: list[float] | None) -> dict:
    """A figure's interval as the chart's error bar (`low`, `high`) and its table cell."""
    return {"low": ci[0] if ci else None, "high": ci[1] if ci else None,
            INTERVAL: f"[{ci[0]}, {ci[1]}]" if ci else None}


def sections(report: Report, review_url: str) -> list[Section]:
    """Every section of a merge report (progress, time, agreement, labels) or of a gold report (against the
    gold, and where its time on task is)."""
    if isinstance(report, GoldReport):
        return [*gold_sections(report, review_url), time_section(report, review_url)]
    return [make(report, review_url) for make in (progress_section, time_section, agreement_section,
                                                  labels_section)] + (
        [sentences_section(report.sentences, review_url)] if report.sentences else []) + (
        [checks_section(report, review_url)] if report.checks is not None else [])


def headline(report: Report) -> str:
    """One line of the figures a coordinator looks at first."""
    if isinstance(report, GoldReport):
        c, people = report.counts, report.quality.annotators
        best = max(((a.span_f1, a.annotator) for a in people if a.span_f1 is not None), key=lambda x: x[0],
                   default=None)
        return (f"{c.gold} gold records, {c.not_adjudicated} not adjudicated"
                + (f"; best span F1 {best[0]:.3f} ({best[1]})" if best else ""))
    parts = []
    p = report.progress
    if p:
        parts.append(f"{p.records_done} records done, {p.records_left} left")
    t = report.time_on_task
    if t and t.annotators:
        parts.append(f"{clock(sum(a.active_s for a in t.annotators.values()))} active")
    o = report.overall
    parts.append(f"verdict α {_figure(o.alpha if o else None)}, span char F1 {_figure(o.char_f1 if o else None)}")
    parts.append(f"{len(report.adjudication)} records to adjudicate first")
    return "; ".join(parts)
