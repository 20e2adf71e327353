"""docs/report.schema.json written from the report's dataclasses (report/model.py).

Why: the schema documents report.json for whoever reads it outside this tool; written by hand it would drift
from what merge and gold write. `make generate` (or `python -m mercury_static.tools.report_schema`) rewrites
it; tests/test_report_schema.py fails when the file is not what the dataclasses give.
"""

from __future__ import annotations

import json
from pathlib import Path

from mercury_static.report.model import report_schema

PATH = Path(__file__).resolve().parents[2] / "docs" / "report.schema.json"


def text() -> str:
    """The schema file's text."""
    return json.dumps(report_schema(), indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    PATH.write_text(text(), encoding="utf-8")
    print(f"wrote {PATH}")
