"""Small FaithBench- and SummHay-shaped inputs the page tests write themselves (../shared/data may be absent)."""

from __future__ import annotations

import json
import random
from pathlib import Path

WORDS = {
    "who": ["The harbor board", "A local farmer", "The city council", "Our science teacher", "The museum director",
            "A young cyclist", "The railway company", "The weather service", "A small bakery", "The football club"],
    "did": ["announced", "postponed", "celebrated", "criticised", "measured", "repaired", "sold", "painted",
            "inspected", "rebuilt"],
    "what": ["the old bridge", "a new tram line", "the winter market", "its solar panels", "the chess tournament",
             "the flood barrier", "a rare orchid", "the village library", "an electric ferry", "the night school"],
    "when": ["on Monday", "after the storm", "in early spring", "before the elections", "during the festival",
             "last autumn", "at dawn", "for the third time", "without warning", "after a long debate"],
}


def sentence(rng: random.Random, i: int) -> str:
    w = {k: rng.choice(v) for k, v in WORDS.items()}
    return f"{w['who']} {w['did']} {w['what']} {w['when']}, with {rng.randint(2, 9999)} people involved (item {i})."


def faithbench_dump(path: Path, n: int = 12, suggestions: int = 14) -> Path:
    """A FaithBench-style Mercury dump: sample_ids 0..n-1, metadata with the summarising model, and
    `suggestions` prior annotations on sample 0 (enough to push a footer below the fold)."""
    rng = random.Random(3)
    samples = []
    for i in range(n):
        source = " ".join(sentence(rng, 10 * i + j) for j in range(8))
        summary = " ".join(sentence(rng, 10 * i + j) for j in (1, 4)) + f" Record {i} closes here."
        anns = []
        if i == 0:
            words = summary.split()
            for k in range(suggestions):
                span = " ".join(words[k:k + 2])
                start = summary.index(span)
                anns.append({"annot_id": k, "annotator_name": f"judge-{k % 3}", "label": ["Unwanted.Intrinsic"],
                             "note": f"suggestion {k}: the source says otherwise", "summary_span": span,
                             "summary_start": start, "summary_end": start + len(span),
                             "source_span": None, "source_start": None, "source_end": None})
        samples.append({"sample_id": i, "source": source, "summary": summary, "annotations": anns,
                        "metadata": {"summary_model": "model-a" if i % 2 else "model-b", "dataset": "xsum"}})
    path.write_text(json.dumps({"samples": samples}), encoding="utf-8")
    return path


def summhay_topic(path: Path, n_docs: int = 40, doc_sentences=(2, 30, 4, 18, 3, 25), subtopics: int = 2) -> Path:
    """A SummHay-style topic: documents of very different lengths, subtopics with long names whose
    summary methods differ only at the end of the title, bullets citing documents as [N]."""
    rng = random.Random(5)
    docs = []
    for d in range(n_docs):
        k = doc_sentences[d % len(doc_sentences)]
        docs.append({"document_id": f"d{d:03d}", "document_text": " ".join(sentence(rng, 100 * d + j) for j in range(k)),
                     "document_metadata": {"article_source": "news"}, "insights_included": []})
    subs = []
    for s in range(subtopics):
        bullets = [f"- {docs[c - 1]['document_text'].split('. ')[0]}. [{c}][{c + 11}]" for c in (16, 27, 3)]
        subs.append({"subtopic_id": f"st{s}",
                     "subtopic_name": f"Fuel requirements and refuelling logistics of long voyages, part {s}",
                     "insights": [], "summaries": {
                         "summary_subtopic_rag_bm25_gpt4": bullets,
                         "summary_subtopic_full_context_claude3": list(reversed(bullets))}})
    path.write_text(json.dumps({"topic": "Voyages", "topic_id": "t1", "documents": docs, "subtopics": subs}),
                    encoding="utf-8")
    return path
