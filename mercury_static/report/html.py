"""`report.html`: one static file from merge's or gold's JSON report, to look at rather than read.

Self-contained: the charts are inline SVG rendered offline (charts.py), the style is inline, and the page's
Content-Security-Policy allows no script and no request at all, so it opens from disk, from a review bundle
or from a mail attachment alike. Every chart has its text alternative and, under it, the table of its
figures, in a wrapper that scrolls sideways on a narrow screen rather than widening the page.
Dataset text (names, record ids, labels) is untrusted: jinja2 escapes every value, and Vega escapes the text
it writes into the SVG.
"""

from __future__ import annotations

import importlib.util
from urllib.parse import urlsplit

import jinja2

from mercury_static import __version__
from mercury_static.core.records import InputError
from mercury_static.report import charts
from mercury_static.report.model import GoldReport, Report
from mercury_static.report.sections import Link, headline, sections

INSTALL = "pip install 'mercury-static[report]'"
FOLD = 15
"""A table of more rows than this is folded under its caption (a click opens it)."""
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"

TEMPLATE = """{% macro table(t, under_chart) %}
{% if t.rows | length > fold %}<details><summary>{{ t.rows | length }} rows: {{ t.caption }}</summary>{% endif %}
<div class="scroll" role="region" tabindex="0" aria-label="{{ t.caption }}">
<table id="t-{{ t.key }}"{% if under_chart %} data-for-chart="{{ t.key }}"{% endif %}>
<caption>{% if under_chart %}The chart's figures{% else %}{{ t.caption }}{% endif %}</caption>
<thead><tr>{% for c in t.columns %}<th scope="col">{{ c }}</th>{% endfor %}</tr></thead>
<tbody>
{% for row in t.rows %}<tr>{% for v in row %}{{ cell(v) }}{% endfor %}</tr>
{% else %}<tr><td colspan="{{ t.columns | length }}">none</td></tr>
{% endfor %}</tbody>
</table>
</div>
{% if t.rows | length > fold %}</details>{% endif %}
{% endmacro %}
{% macro cell(v) %}{% if v is link %}<td><a href="{{ v.href }}">{{ v.text }}</a></td>
{% elif v is none %}<td class="n">–</td>{% elif v is number %}<td class="n">{{ v }}</td>
{% else %}<td>{{ v }}</td>{% endif %}{% endmacro %}
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{{ csp }}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>{{ title }}</title>
<style>
body { font: 15px/1.45 system-ui, sans-serif; color: #1d2330; margin: 0 auto; max-width: 980px;
  padding: 16px 24px 48px; }
h1 { font-size: 1.5em; margin: 0.4em 0 0.1em; }
h2 { border-bottom: 1px solid #d6dbe4; padding-bottom: 4px; margin-top: 2em; }
nav a { margin-right: 1em; display: inline-block; }
@media (max-width: 600px) { body { padding: 8px 12px 32px; } }
.headline { font-weight: 600; } .muted { color: #5a6272; }
figure { margin: 1.2em 0 0.4em; } figcaption { font-weight: 600; margin-bottom: 6px; }
figure svg { max-width: 100%; height: auto; }
.scroll { overflow-x: auto; max-width: 100%; margin: 0.4em 0 1.4em; }
.scroll:focus-visible { outline: 2px solid #2850a8; }
table { border-collapse: collapse; font-size: 13px; }
caption { text-align: left; color: #5a6272; padding-bottom: 4px; }
th, td { border: 1px solid #d6dbe4; padding: 3px 8px; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
details > summary { cursor: pointer; color: #2850a8; }
</style>
</head>
<body>
<header>
<h1>{{ title }}</h1>
<p class="headline">{{ headline }}</p>
<nav aria-label="sections">{% for s in sections %}<a href="#{{ s.key }}">{{ s.title }}</a>{% endfor %}</nav>
</header>
<main>
{% for s in sections %}
<section id="{{ s.key }}" aria-labelledby="{{ s.key }}-title">
<h2 id="{{ s.key }}-title">{{ s.title }}</h2>
{% for text in s.lines %}<p>{{ text }}</p>
{% endfor %}
{% for c in s.charts %}
<figure role="figure" aria-label="{{ c.alt }}" data-chart="{{ c.table.key }}">
<figcaption>{{ c.alt }}</figcaption>
<div role="img" aria-label="{{ c.alt }}">{{ c.svg | safe }}</div>
</figure>
{{ table(c.table, True) }}
{% endfor %}
{% for t in s.tables %}{{ table(t, False) }}{% endfor %}
</section>
{% endfor %}
</main>
<footer><p class="muted">mercury-static {{ version }} · charts: Vega-Lite {{ vega_lite }} rendered by vl-convert
</p></footer>
</body>
</html>
"""


def available() -> bool:
    """Whether the chart renderer (the `report` extra) is installed."""
    return importlib.util.find_spec("vl_convert") is not None


def check_available(path) -> None:
    """An HTML report needs the `report` extra: said before any work is done."""
    if not available():
        raise InputError(path, None, None, f"an HTML report needs the chart renderer: {INSTALL}")


def check_review_url(url: str) -> str:
    """The review bundle's address as the report links it: relative, or http(s); never a script."""
    scheme = urlsplit(url).scheme
    if scheme not in ("", "http", "https") or any(c in url for c in "\"<>\\\n\r\t"):
        raise InputError("--review-url", None, None, f"{url!r}: expected a relative path or an http(s) address")
    return url


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True)
    env.tests["link"] = lambda v: isinstance(v, Link)
    env.tests["number"] = lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)
    return env


def render_html(report: Report, review_url: str = "review-bundle/", title: str | None = None) -> str:
    """The report page of a merge or gold report (see the module docstring)."""
    import vl_convert

    parts = sections(report, check_review_url(review_url))
    laid = [{"key": s.key, "title": s.title, "lines": s.lines, "tables": s.tables,
             "charts": [{"alt": c.alt, "table": c.table, "svg": charts.render(c.spec)} for c in s.charts]}
            for s in parts]
    title = title or ("Gold and quality report" if isinstance(report, GoldReport) else "Annotation round report")
    return _environment().from_string(TEMPLATE).render(
        title=title, headline=headline(report), sections=laid, csp=CSP, version=__version__, fold=FOLD,
        vega_lite=vl_convert.get_vegalite_versions()[-1])
