"""SummHay topic input: one record per (subtopic, summary method), the haystack as the source."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

from mercury_static.core import mercury, safeio
from mercury_static.read.record import Item, Options, join_documents, text_field
from mercury_static.read.sentences import read_verdict
from mercury_static.core.records import InputError, Record

log = logging.getLogger("mercury_static")

_COVERAGE_SCORE = {"FULL_COVERAGE": 100.0, "PARTIAL_COVERAGE": 50.0, "NO_COVERAGE": 0.0}
SCALE = "summhay"
AGENT = "summhay-eval"
"""The agent SummHay's coverage evaluator is in the bundle (its sentence suggestions)."""
_VERDICT = {"FULL_COVERAGE": "full", "PARTIAL_COVERAGE": "partial"}
_RANK = ("full", "partial", "none")


def read_summhay(data, name: str, opts: Options) -> Iterator[Item]:
    """One record per (subtopic, summary method) of a SummHay topic file; the source is the haystack.

    Documents become sections titled ``Document N (article source)`` (N = 1-based position, which is
    what the summaries' ``[N]`` citations refer to). ``gold`` holds the subtopic's insights with the ids
    of the documents that include them, and every summary line as a bullet with its offsets and the
    insights it covers; ``index`` is SummHay's ``bullet_id`` (the 1-based line number).

    Each non-blank line is one summary sentence (the given cut, `Record.summary_sentences`), whatever the
    segmenter would make of it. ``eval_summaries[method]`` becomes the sentence suggestions of agent
    ``summhay-eval``: a bullet's verdict is the best coverage among the insights naming it (full, partial),
    else none.
    """
    if not isinstance(data, dict) or not isinstance(data.get("documents"), list) \
            or not isinstance(data.get("subtopics"), list):
        raise InputError(name, None, None, "not a SummHay topic (needs 'documents' and 'subtopics' lists)")
    docs: list[tuple[str, str, str]] = []
    insight_docs: dict[str, list[str]] = {}
    for i, doc in enumerate(data["documents"]):
        where = f"documents[{i}]"
        if not isinstance(doc, dict):
            raise InputError(name, where, None, f"expected an object, got {safeio.json_kind(doc)}")
        doc_id = mercury.id_text(doc.get("document_id", str(i)), name, where, "document_id")
        text = text_field(doc.get("document_text"), name, where, "document_text")
        meta = doc.get("document_metadata")  # SummHay writes [] for "none"
        origin = meta.get("article_source") if isinstance(meta, dict) else None
        if origin is not None and not isinstance(origin, str):
            raise InputError(name, where, "document_metadata.article_source",
                             f"expected a string, got {safeio.json_kind(origin)}")
        docs.append((f"Document {i + 1}" + (f" ({origin})" if origin else ""), doc_id, text))
        for k, insight_id in enumerate(_typed(doc, "insights_included", list, name, where) or []):
            key = mercury.id_text(insight_id, name, where, f"insights_included[{k}]")
            insight_docs.setdefault(key, []).append(doc_id)
    if not docs:
        raise InputError(name, None, "documents", "no documents")
    source, sections = join_documents(docs)
    stem = Path(name).name
    topic = {"topic": data.get("topic"), "topic_id": data.get("topic_id")}
    count = 0
    for j, st in enumerate(data["subtopics"]):
        where = f"subtopics[{j}]"
        if not isinstance(st, dict) or not isinstance(st.get("summaries"), dict):
            raise InputError(name, where, "summaries", "expected an object of method -> bullet list")
        subtopic_id = mercury.id_text(st.get("subtopic_id", str(j)), name, where, "subtopic_id")
        for key in ("subtopic_name", "subtopic", "query"):
            _typed(st, key, str, name, where)
        insights = []
        for k, ins in enumerate(_typed(st, "insights", list, name, where) or []):
            iwhere = f"{where}.insights[{k}]"
            if not isinstance(ins, dict):
                raise InputError(name, iwhere, None, f"expected an object, got {safeio.json_kind(ins)}")
            insight_id = mercury.id_text(ins.get("insight_id"), name, iwhere, "insight_id")
            insights.append({"id": insight_id, "name": _typed(ins, "insight_name", str, name, iwhere),
                             "text": _typed(ins, "insight", str, name, iwhere),
                             "documents": insight_docs.get(insight_id, [])})
        evals = _typed(st, "eval_summaries", dict, name, where) or {}
        for method, lines in st["summaries"].items():
            mwhere = f"{where}.summaries[{method!r}]"
            if isinstance(lines, str):
                lines = lines.split("\n")
            if not isinstance(lines, list) or not all(isinstance(x, str) for x in lines):
                raise InputError(name, mwhere, None, "expected a list of strings")
            if not any(x.strip() for x in lines):
                log.warning("%s: %s: empty summary, skipped", name, mwhere)
                continue
            short = method.removeprefix("summary_subtopic_")
            retriever, _, summarizer = short.rpartition("_")
            judgments = _judgments(evals.get(method), name, f"{where}.eval_summaries[{method!r}]")
            summary, bullets = _bullets(lines, judgments)
            cut = [(b["start"], b["end"]) for b in bullets if b["text"]]
            stray = sorted({n for e in judgments if (n := _line(e.get("bullet_id"))) is not None
                            and not any(b["index"] == n and b["text"] for b in bullets)})
            if stray:
                log.warning("%s: %s.eval_summaries[%r]: bullet_id %s names no bullet of the summary (%d lines); "
                            "its judgment suggests nothing", name, where, method, ", ".join(map(str, stray)),
                            len(lines))
            suggestions = _suggestions(bullets, opts.verdicts, name, f"{where}.eval_summaries[{method!r}]") \
                if evals.get(method) is not None else []
            scores = [_COVERAGE_SCORE[e["coverage"]] for e in judgments
                      if e.get("coverage") in _COVERAGE_SCORE]
            metadata = {
                **topic,
                "title": f"{st.get('subtopic_name') or subtopic_id} · {short}",
                "subtopic_id": subtopic_id,
                "subtopic_name": st.get("subtopic_name"),
                "subtopic": st.get("subtopic"),
                "query": st.get("query"),
                "method": short,
                "retriever": retriever or "full-context",
                "summarizer": summarizer,
                "coverage": judgments,
                "coverage_score": round(sum(scores) / len(scores), 1) if scores else None,
            }
            rec_id = f"{subtopic_id}:{short}"
            record = Record(id=rec_id, source=source, summary=summary, metadata=metadata,
                            source_sections=list(sections), origin=f"{stem}:{rec_id}",
                            gold={"insights": insights, "bullets": bullets}, summary_sentences=cut,
                            sentence_suggestions=suggestions, verdict_scale=SCALE if suggestions else None)
            count += 1
            yield Item(record, mwhere, "subtopic_id")
    if count == 0:
        raise InputError(name, None, "subtopics", "no summaries")


def _typed(obj: dict, key: str, kind: type, name: str, where: str):
    """obj[key] when it is absent, null or of `kind`; else InputError naming the field."""
    value = obj.get(key)
    if value is not None and (not isinstance(value, kind) or isinstance(value, bool)):
        expected: dict[type, str] = {str: "a string", list: "a list", dict: "an object"}
        raise InputError(name, where, key, f"expected {expected[kind]}, got {safeio.json_kind(value)}")
    return value


def _judgments(value, name: str, where: str) -> list[dict]:
    """The coverage judgments of one summary: objects with a text `coverage` and a line `bullet_id`."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise InputError(name, where, None, f"expected a list of judgments, got {safeio.json_kind(value)}")
    for k, e in enumerate(value):
        if not isinstance(e, dict):
            raise InputError(name, f"{where}[{k}]", None, f"expected an object, got {safeio.json_kind(e)}")
        _typed(e, "coverage", str, name, f"{where}[{k}]")
        if "insight_id" in e:
            mercury.id_text(e["insight_id"], name, f"{where}[{k}]", "insight_id")
        bullet = e.get("bullet_id")
        if bullet is not None and (isinstance(bullet, bool) or not isinstance(bullet, (int, str))):
            raise InputError(name, f"{where}[{k}]", "bullet_id",
                             f"expected a line number, got {safeio.json_kind(bullet)}")
    return value


def _suggestions(bullets: list[dict], verdicts: tuple[str, ...] | None, name: str, where: str) -> list[dict]:
    """One suggestion per bullet (sentence): the best coverage of the insights naming it, else none; each
    verdict read against the settings' verdicts when they name some (one InputError when it is not one)."""
    out = []
    for sentence, b in enumerate(x for x in bullets if x["text"]):
        named = [_VERDICT[c["coverage"]] for c in b["covered_insights"] if c["coverage"] in _VERDICT]
        verdict = min(named, key=_RANK.index) if named else "none"
        if verdicts is not None:
            verdict = read_verdict(verdict, verdicts, name, f"{where}, bullet {b['index']}", "coverage")
        out.append({"agent": AGENT, "sentence": sentence, "verdict": verdict})
    return out


def _line(bullet) -> int | None:
    """The 1-based line a judgment's `bullet_id` names (an integer or its digits), else None ("NA", null)."""
    if isinstance(bullet, str) and bullet.isdigit():
        return int(bullet)
    return bullet if isinstance(bullet, int) and not isinstance(bullet, bool) else None


def _bullets(lines: list[str], judgments: list[dict]) -> tuple[str, list[dict]]:
    """The summary text (one line per bullet, as given) and the gold bullets with their offsets."""
    covered: dict[int, list[dict]] = {}
    for e in judgments:
        bullet = _line(e.get("bullet_id"))
        if bullet is not None:
            covered.setdefault(bullet, []).append(
                {"insight_id": str(e.get("insight_id")), "coverage": e.get("coverage")})
    bullets, pos = [], 0
    for n, line in enumerate(lines, 1):
        body = line.strip()
        start = pos + (len(line) - len(line.lstrip()))
        bullets.append({"index": n, "text": body, "start": start, "end": start + len(body),
                        "covered_insights": covered.get(n, [])})
        pos += len(line) + 1
    return "\n".join(lines), bullets
