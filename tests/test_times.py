"""Merge's reading of times (merge/checks.py parse_time), on the cases the page's twin (times.js) is tested with."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mercury_static.merge.checks import Reject, parse_time

CASES = json.loads((Path(__file__).parent / "time_cases.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize(("text", "us"), CASES["times"])
def test_parse_time_reads_the_shared_cases(text, us):
    if us is None:
        with pytest.raises(Reject, match="not an ISO-8601 time"):
            parse_time(text, "updated_at")
    else:  # a float of seconds: exact to the microsecond in this century, to 64 microseconds at year 9999
        assert abs(parse_time(text, "updated_at") * 1e6 - us) <= 64


@pytest.mark.parametrize(("a", "b", "sign"), CASES["order"])
def test_times_order_as_instants_not_as_text(a, b, sign):
    x, y = parse_time(a, "a"), parse_time(b, "b")
    assert (x > y) - (x < y) == sign
