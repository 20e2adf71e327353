"""Vega-Lite specifications of the report's charts, and their rendering to SVG by vl-convert (Vega's own
renderer run offline: the SVG needs no script, no font and no request).

Each chart is drawn from the rows of the table printed under it (`values`), so that what is drawn and what is
read are the same figures; wide rows are folded into long form by Vega-Lite itself.
"""

from __future__ import annotations

from typing import Any

SCHEMA = "https://vega.github.io/schema/vega-lite/v5.json"
"""Only a name Vega-Lite checks the spec version by; nothing is fetched."""
WIDTH = 560
CONFIG = {"font": "sans-serif", "view": {"stroke": None}, "axis": {"labelLimit": 180}, "legend": {"labelLimit": 180}}

Spec = dict[str, Any]


def _spec(description: str, values: list[dict], **rest: Any) -> Spec:
    return {"$schema": SCHEMA, "description": description, "data": {"values": values}, "config": CONFIG, **rest}


def _band(n: int) -> int:
    return max(60, 22 * n)


def bars(description: str, values: list[dict], category: str, measures: list[str], *, group: str | None = None,
         domain: tuple[float, float] | None = None, stack: bool = False, title: str | None = None) -> Spec:
    """Horizontal bars of `measures` per `category` (several measures: side by side, or stacked in the
    legend's order); `group` adds a colour per row (e.g. the agent of a question); `title` names the value
    axis (default: the one measure, or "value")."""
    folded = len(measures) > 1
    colour = "measure" if folded else group
    scale = {"domain": list(domain)} if domain else {}
    encoding: dict[str, Any] = {
        "y": {"field": category, "type": "nominal", "sort": None, "title": category},
        "x": {"field": "value" if folded else measures[0], "type": "quantitative", "scale": scale,
              "title": title or ("value" if folded else measures[0]), "stack": "zero" if stack else None},
        "tooltip": [{"field": category}, {"field": "measure" if folded else measures[0]},
                    *([{"field": "value"}] if folded else [])],
    }
    if colour:
        encoding["color"] = {"field": colour, "type": "nominal", "sort": measures if folded else None,
                             "title": None}
        if not stack:
            encoding["yOffset"] = {"field": colour, "type": "nominal", "sort": measures if folded else None}
        elif folded:
            encoding["order"] = {"field": "place", "type": "quantitative"}
    rows = len({str(v.get(category)) for v in values})
    per_row = 1 if stack or not colour else max(1, len(measures) if folded else len({v.get(group) for v in values}))
    return _spec(description, values, width=WIDTH, height=_band(rows) * per_row // (1 if per_row == 1 else 2),
                 transform=[{"fold": measures, "as": ["measure", "value"]},
                            {"calculate": f"indexof({measures!r}, datum.measure)", "as": "place"}] if folded else [],
                 mark={"type": "bar", "tooltip": True}, encoding=encoding)


def interval_bars(description: str, values: list[dict], category: str, middle: str, low: str, high: str, *,
                  title: str = "seconds", domain: tuple[float, float] | None = None) -> Spec:
    """A bar for `middle` per category with a rule from `low` to `high` (a median and its quartiles, a figure
    and its confidence interval)."""
    y = {"field": category, "type": "nominal", "sort": None, "title": category}
    scale = {"domain": list(domain)} if domain else {}
    return _spec(description, values, width=WIDTH, height=_band(len(values)), layer=[
        {"mark": {"type": "bar", "opacity": 0.6, "tooltip": True}, "encoding": {
            "y": y, "x": {"field": middle, "type": "quantitative", "title": title, "scale": scale}}},
        {"mark": {"type": "rule", "strokeWidth": 2}, "encoding": {
            "y": y, "x": {"field": low, "type": "quantitative"}, "x2": {"field": high}}},
    ])


def histogram(description: str, values: list[dict], start: str, end: str, count: str, title: str) -> Spec:
    """Pre-binned counts (`start` to `end`) as adjacent bars; the count axis ticks whole records only."""
    return _spec(description, values, width=WIDTH, height=200, mark={"type": "bar", "tooltip": True}, encoding={
        "x": {"field": start, "type": "quantitative", "title": title, "bin": {"binned": True}},
        "x2": {"field": end}, "y": {"field": count, "type": "quantitative", "title": "records",
                                     "axis": {"tickMinStep": 1, "format": "d"}}})


def lines(description: str, values: list[dict], time: str, measure: str, series: str, title: str) -> Spec:
    """One line per `series` of `measure` over `time` (ISO strings, drawn in UTC)."""
    return _spec(description, values, width=WIDTH, height=240, mark={"type": "line", "point": True}, encoding={
        "x": {"field": time, "type": "temporal", "scale": {"type": "utc"}, "title": title},
        "y": {"field": measure, "type": "quantitative", "title": measure, "axis": {"tickMinStep": 1, "format": "d"}},
        "color": {"field": series, "type": "nominal", "title": series}})


DIVERGING = "redblue"
"""Red for the low end, blue for the high end, near white at the middle: both ends read as strong, unlike a
one-hue scale where the lowest value looks like an empty cell."""
DARK = 0.55
"""Past this share of the half-range from the middle a cell is dark enough for white text."""


def heatmap(description: str, values: list[dict], row: str, column: str, measure: str, text: str,
            domain: tuple[float, float], *, row_title: str, column_title: str, legend: str) -> Spec:
    """A matrix of cells coloured by `measure` on a diverging scale centred on the middle of `domain`, each
    cell labelled with `text` in black or white, whichever reads on its colour."""
    x = {"field": column, "type": "nominal", "title": column_title, "sort": None}
    y = {"field": row, "type": "nominal", "title": row_title, "sort": None}
    low, high = domain
    middle, half = (low + high) / 2, (high - low) / 2
    size = max(160, 48 * len({v[column] for v in values}))
    return _spec(description, values, width=size, height=max(120, 40 * len({v[row] for v in values})), layer=[
        {"mark": "rect", "encoding": {"x": x, "y": y, "color": {
            "field": measure, "type": "quantitative", "title": legend,
            "scale": {"domain": [low, high], "domainMid": middle, "scheme": DIVERGING}}}},
        {"mark": {"type": "text", "fontSize": 12}, "encoding": {
            "x": x, "y": y, "text": {"field": text},
            "color": {"condition": {"test": f"isValid(datum[{measure!r}]) && "
                                            f"abs(datum[{measure!r}] - {middle}) > {DARK * half}",
                                    "value": "white"}, "value": "black"}}},
    ])


def render(spec: Spec) -> str:
    """The chart as an SVG element (vl-convert: Vega run in an embedded JavaScript engine, no network)."""
    import vl_convert

    return vl_convert.vegalite_to_svg(spec)
