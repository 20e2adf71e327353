"""The build reads each of its inputs once: the data files, the settings, the labels, the guidelines and the
suggestions file (a real build of real files, every open of them counted at the OS boundary)."""

from __future__ import annotations

import builtins
import io
import json
import os
from collections import Counter
from pathlib import Path

from conftest import TEST_CACHE


def inputs(folder: Path) -> dict[str, Path]:
    """Two data files of two formats, settings naming a metadata column and a suggestions file, labels and
    guidelines: every kind of file a build reads."""
    rows = [{"id": f"r{i}", "source": f"The harbour reopened in June {2000 + i}. It cost {i} million euros.",
             "summary": f"The harbour reopened in {2000 + i}.", "topic": f"t{i % 2}"} for i in range(6)]
    files = {"data": folder / "data.jsonl", "more": folder / "more.csv", "settings": folder / "settings.yaml",
             "suggestions": folder / "suggestions.jsonl", "labels": folder / "labels.yaml",
             "guidelines": folder / "guidelines.md"}
    files["data"].write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    files["more"].write_text("id,source,summary,topic\nc1,A lighthouse was built. It is tall.,It is tall.,t1\n",
                             encoding="utf-8")
    files["settings"].write_text(
        "questions:\n  - {name: spans, type: span, title: Spans}\n"
        "  - {name: verdict, type: label, title: Verdict, options: [consistent, hallucinated]}\n"
        "metadata:\n  - {name: topic, title: Topic, type: terms}\n"
        "suggestions: {file: suggestions.jsonl}\n", encoding="utf-8")
    files["suggestions"].write_text(json.dumps({"record_id": "data:r1", "question": "verdict",
                                                "value": "consistent", "score": 0.9, "agent": "judge"}) + "\n",
                                    encoding="utf-8")
    files["labels"].write_text("Wrong: [Number, Date]\nUnsupported: null\n", encoding="utf-8")
    files["guidelines"].write_text("# Guidelines\n\nMark what the source does not say.\n", encoding="utf-8")
    return files


def test_every_input_file_is_read_once(tmp_path, exported_model, monkeypatch):
    from mercury_static.pipeline.steps import BuildOptions, build
    from mercury_static.bundle.contents import load_bundle

    files = inputs(tmp_path)
    watched = {os.path.realpath(p): name for name, p in files.items()}
    opened: Counter[str] = Counter()

    def spy(real):
        def opener(file, *args, **kwargs):
            if isinstance(file, (str, bytes, os.PathLike)):
                name = watched.get(os.path.realpath(os.fsdecode(file)))
                if name is not None:
                    opened[name] += 1
            return real(file, *args, **kwargs)
        return opener

    monkeypatch.setattr(os, "open", spy(os.open))
    monkeypatch.setattr(builtins, "open", spy(builtins.open))
    monkeypatch.setattr(io, "open", spy(io.open))
    build([files["data"], files["more"]], tmp_path / "bundle",
          BuildOptions(cache_dir=TEST_CACHE, settings=files["settings"], labels=files["labels"],
                       guidelines=files["guidelines"]))
    monkeypatch.undo()
    assert opened == {name: 1 for name in files}, opened

    bundle = load_bundle(tmp_path / "bundle")  # and the one read was enough for every step
    assert [r.id for r in bundle.records] == [f"data:r{i}" for i in range(6)] + ["more:c1"]
    assert bundle.manifest["labels"] == ["Wrong", "Wrong.Number", "Wrong.Date", "Unsupported"]
    assert bundle.manifest["guidelines"]["format"] == "markdown"
    assert [s["agent"] for s in bundle.record("data:r1").suggestions] == ["judge"]
    assert {r.meta["topic"] for r in bundle.records} == {"t0", "t1"}
