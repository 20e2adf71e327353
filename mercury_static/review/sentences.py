"""The summary sentences in review (docs/review.md, "Sentence verdicts"): each judge's effective verdict of
each sentence with its evidence, in the review data, and the reviewer's settled verdicts in gold.

The effective verdict is merge's (merge/sentence_rows.py): the verdict given, else the settings' flagged verdict
where a span of the judge's lies on the sentence, else "not checked". A sentence is disputed when two judges'
checked verdicts, or their evidence, differ: that is what the reviewer settles first.
"""

from __future__ import annotations

from collections.abc import Iterable

from mercury_static.bundle.contents import BundleRecord
from mercury_static.merge.sentence_rows import NOT_CHECKED, SentenceRow


def review_sentences(text: BundleRecord, rows: Iterable[SentenceRow]) -> list[dict]:
    """`[{sentence, start, end, disputed, verdicts: [{annotator, verdict, given, evidence}]}]`, one per summary
    sentence of the bundle's cut, the verdicts of the record's submitters (`rows`: merge's sentence rows of the
    record; evidence: source sentence indices)."""
    verdicts: list[list[dict]] = [[] for _ in text.summary_text.sentences]
    for row in rows:
        verdicts[row.sentence].append({"annotator": row.annotator, "verdict": row.verdict, "given": row.given,
                                       "evidence": list(row.evidence)})
    return [{"sentence": i, "start": start, "end": end,
             "disputed": len({(v["verdict"], tuple(v["evidence"])) for v in verdicts[i]
                              if v["verdict"] != NOT_CHECKED}) > 1, "verdicts": verdicts[i]}
            for i, (start, end) in enumerate(text.summary_text.sentences)]


def sentence_entry(text: BundleRecord, annotator: str, index: int, verdict: str, evidence: list[int] | None) -> dict:
    """A verdict on summary sentence `index` in the merged record's `sentences` shape, without its times: the
    sentence's and the evidence's offsets and text from the bundle's cut (`evidence`: None for a verdict that
    carries none)."""
    start, end = text.summary_text.sentences[index]
    out = {"annotator": annotator, "sentence": index, "summary": {"start": start, "end": end,
                                                                   "text": text.summary[start:end]},
           "verdict": verdict}
    if evidence is not None:
        cut = text.source_text.sentences
        out["evidence"] = [{"sentence": k, "start": cut[k][0], "end": cut[k][1],
                            "text": text.source[cut[k][0]:cut[k][1]]} for k in evidence]
    return out


def gold_sentence(text: BundleRecord, reviewer: str, index: int, verdict: str, evidence: list[int] | None,
                  judges: list[str], action: str, decided_at: str) -> dict:
    """One settled sentence in gold: the merged record's `sentences` shape (the reviewer as its annotator) plus
    its provenance (the judges who gave this verdict and evidence; `action`: accepted or own)."""
    out = sentence_entry(text, reviewer, index, verdict, evidence)
    out["updated_at"] = decided_at
    out["provenance"] = {"judges": judges, "action": action, "decided_by": reviewer, "decided_at": decided_at}
    return out
