"""`progress` on a bundle with queues: "to do" is what is left of each annotator's own queue, as their page
counts it, not of the whole bundle; without queues, or for a name without one, it is the whole bundle."""

from __future__ import annotations

import re

from test_merge_questions import entry, export

from mercury_static.bundle.assign import assign_bundle
from mercury_static.bundle.contents import load_bundle


def test_to_do_counts_the_annotators_queue(run, stand_in_demo, fresh_copy, tmp_path):
    bundle_dir = fresh_copy(stand_in_demo)
    manifest = assign_bundle(bundle_dir, ["ana", "ben"], 1)
    bundle = load_bundle(bundle_dir)
    queues = load_queue_file(bundle_dir, manifest)
    total = len(bundle.records)
    assert len(queues["ana"]) < total  # two queues share the bundle
    folder = tmp_path / "exports"
    folder.mkdir()
    done = queues["ana"][:-1]  # all of her queue but one
    export(folder / "ana.json", bundle, "ana", *(entry(i) for i in done))
    export(folder / "cleo.json", bundle, "cleo", entry(bundle.records[0].id))  # no queue: the whole bundle
    result = run("progress", folder, "--bundle", bundle_dir)
    assert result.exit_code == 0, result.output
    rows = {ln.split()[0]: ln for ln in result.output.splitlines()[1:]}
    assert re.search(rf"\b1 to do\s+0 in progress\s+{len(done)} submitted", rows["ana"]), rows["ana"]
    assert f"{total - 1} to do" in rows["cleo"], rows["cleo"]
    assert "to do in each one's queue" in result.output.splitlines()[0]


def load_queue_file(bundle_dir, manifest) -> dict:
    import json

    return json.loads((bundle_dir / manifest["queues"]["path"]).read_text(encoding="utf-8"))["queues"]
