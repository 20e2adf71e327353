"""A Mercury dump written for the `tune` tests, where the right weights are known: only the BM25 terms
find the gold.

Each record's summary is one claim, "<two invented names> <event>". Its source holds the gold evidence,
the same two names doing something else; a decoy, the very same event done by two other invented names;
and two sentences reusing the event's words (so those words are common in the text and the names are
rare). Cosine prefers the decoy (the same sentence but for the names); BM25 prefers the gold (the rare
names). The bundle is built with neighbour smoothing and the position prior off, so nothing else
decides: the test checks that BM25 alone ranks every gold first, the cosines alone none, and fused-v4's
equal weights none, so tune must move the weight to the BM25 terms.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

OPTIONS = {"neighbor": 0.0, "position": 0.0}
"""The bundle's options besides the weights: the terms alone decide."""
SYLLABLES = ["ka", "vel", "tro", "min", "zu", "dar", "ope", "lis", "qua", "nor", "bex", "ith", "ul", "sar", "gon",
             "fey"]
# (event, two sentences reusing its words, what the gold's names do instead)
EVENTS = [
    ("approved the budget for the reservoir", "The reservoir budget for the town was approved too.",
     "Approved budget plans for a reservoir are common here.", "was seen at a jazz concert"),
    ("won the regional chess championship", "The regional chess championship is won every year by a club.",
     "Chess fans say the championship was won fairly.", "opened a bakery on the corner"),
    ("repaired the bridge over the river", "A bridge over the river was repaired last decade.",
     "The river bridge is repaired every spring.", "wrote a novel about sailors"),
    ("discovered a new species of frog", "A new frog species is discovered somewhere each month.",
     "The species of frog discovered earlier was green.", "coached a youth football team"),
    ("launched a satellite into orbit", "A satellite launched into orbit costs millions.",
     "Orbit satellites are launched from the coast.", "painted a mural of sunflowers"),
    ("closed the old coal mine", "The old coal mine closed once before, in 1950.",
     "Coal mines like the old one are closed now.", "taught a cooking class"),
]


def write_dump(path: Path, draws: int = 3) -> Path:
    """len(EVENTS) x ``draws`` x 2 layouts (gold last or first) records, one pair each (36 by default)."""
    rng = random.Random(5)

    def name() -> str:
        return "".join(rng.choice(SYLLABLES) for _ in range(3)).capitalize()

    samples = []
    for draw in range(draws):
        for i, (event, reuse1, reuse2, other) in enumerate(EVENTS):
            a, b, c, d = name(), name(), name(), name()
            claim, decoy, gold = f"{a} {b} {event}.", f"{c} {d} {event}.", f"{a} {b} {other}."
            for layout, parts in enumerate(([reuse1, decoy, reuse2, gold], [gold, reuse1, decoy, reuse2])):
                source = " ".join(parts)
                start = source.index(gold)
                samples.append({
                    "sample_id": f"e{i}-d{draw}-l{layout}", "source": source, "summary": claim, "metadata": {},
                    "annotations": [{"annot_id": f"a{i}-{draw}-{layout}", "annotator_name": "fixture",
                                     "label": ["Benign"], "note": "", "summary_span": claim, "summary_start": 0,
                                     "summary_end": len(claim), "source_span": gold, "source_start": start,
                                     "source_end": start + len(gold)}]})
    path.write_text(json.dumps({"samples": samples}, indent=1), encoding="utf-8")
    return path
