"""The ranker's options, typed and ranged in one place: `build`, `eval`, rank.py and (through the manifest's
``ranker_spec``) the page all check options against this table, so a value the page would ignore or
choke on (``neighbor=abc``, ``min_score=NaN``) never reaches a bundle, and ``eval`` ranks as the page does.

A new option is one more `Option` line (its meaning is documented in rank.py).
"""

from __future__ import annotations

import json
import math
import sys
from dataclasses import asdict, dataclass

from mercury_static.core import safeio
from mercury_static.core.records import InputError


@dataclass(frozen=True)
class Option:
    """One option: `kind` is "number", "integer", "choice", "thresholds" (ascending numbers) or "bands"
    (at most `length` rows ``[max sentences, a, b, c]``, max sentences ascending integers >= 1, the others
    numbers in [minimum, maximum]: rank.py's grade calibration)."""

    name: str
    kind: str
    default: object
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] = ()
    length: int = 0

    def describe(self) -> str:
        if self.kind == "choice":
            return f"one of {', '.join(self.choices)}"
        span = f"in [{_num(self.minimum)}, {_num(self.maximum)}]"
        if self.kind == "thresholds":
            return f"a list of {self.length} ascending numbers {span}"
        if self.kind == "bands":
            return (f"a list of at most {self.length} rows [max sentences, a, b, c] (max sentences ascending "
                    f"integers >= 1, a, b, c {span})")
        return f"{'an integer' if self.kind == 'integer' else 'a number'} {span}"


def _num(x: float | None) -> str:
    return "∞" if x is None else f"{x:g}"


SPEC: tuple[Option, ...] = (
    # the name of the option set (rank.py's docstring): the options below decide the ranking
    Option("algorithm", "choice", "fused-v5", choices=("fused-v3", "fused-v4", "fused-v5")),
    Option("norm", "choice", "minmax", choices=("none", "minmax", "zscore")),
    Option("w_dense", "number", 0.25, 0.0, 10.0),
    Option("w_context", "number", 0.1, 0.0, 10.0),
    Option("w_lexical", "number", 0.0, 0.0, 10.0),
    Option("w_context_lexical", "number", 0.0, 0.0, 10.0),
    Option("w_bm25", "number", 0.25, 0.0, 10.0),
    Option("w_context_bm25", "number", 0.25, 0.0, 10.0),
    Option("w_entity", "number", 1.0, 0.0, 10.0),
    # the absolute confidence of a normalised fusion (its best score): fused-v3's weights, calibrated
    Option("c_dense", "number", 0.25, 0.0, 10.0),
    Option("c_context", "number", 0.1, 0.0, 10.0),
    Option("c_lexical", "number", 0.25, 0.0, 10.0),
    Option("c_context_lexical", "number", 0.4, 0.0, 10.0),
    Option("c_bm25", "number", 0.0, 0.0, 10.0),
    Option("c_context_bm25", "number", 0.0, 0.0, 10.0),
    Option("c_entity", "number", 0.0, 0.0, 10.0),
    Option("bm25_k1", "number", 1.2, 0.01, 10.0),  # k1 = 0 would divide 0 by 0 for an absent word
    Option("bm25_b", "number", 0.75, 0.0, 1.0),
    Option("span_idf_mass", "number", 20.0, 0.0, 1000.0),
    Option("dense_idf_mass", "number", 4.0, 0.0, 1000.0),
    Option("neighbor", "number", 0.4, 0.0, 1.0),
    Option("position", "number", 0.2, 0.0, 1.0),
    Option("prefix", "integer", 5, 0, 64),
    # the selection's vector (tokens.py): its text embedded alone, its tokens in context, or their mean
    Option("selection", "choice", "blend", choices=("span", "tokens", "blend")),
    Option("min_score", "number", 0.2, 0.0, 1.0),
    Option("grades", "thresholds", [0.25, 0.5], 0.0, 1.0, length=2),
    # P(evidence) of a lit sentence per source length band (rank.py grade_probability; fitted by
    # `bench_eval.py citations`, benchmarks/RESULTS.md); [] grades the score itself
    Option("calibration", "bands", [[10, 4.8303, 3.8049, -4.7302], [300, 4.6588, 5.2063, -6.6721],
                                    [1000000, 8.9016, 0.399, -1.0597]], -100.0, 100.0, length=8),
)
BY_NAME = {o.name: o for o in SPEC}
DEFAULT_OPTIONS: dict = {o.name: o.default for o in SPEC}


def spec_json() -> list[dict]:
    """The table as JSON (the manifest's ``ranker_spec``), for the page to check options the same way."""
    return [{**asdict(o), "choices": list(o.choices)} for o in SPEC]


def check_value(option: Option, value):
    """`value` if valid for `option` (ints accepted for numbers), else ValueError saying what is expected."""
    def number(x) -> bool:  # an int beyond a float's range would overflow math.isfinite
        return isinstance(x, float) and math.isfinite(x) or isinstance(x, int) and not isinstance(x, bool) and \
            -sys.float_info.max <= x <= sys.float_info.max

    def in_range(x) -> bool:
        return (option.minimum is None or x >= option.minimum) and (option.maximum is None or x <= option.maximum)

    if option.kind == "choice":
        ok = isinstance(value, str) and value in option.choices
    elif option.kind == "integer":
        ok = isinstance(value, int) and not isinstance(value, bool) and in_range(value)
    elif option.kind == "number":
        ok = number(value) and in_range(value)
    elif option.kind == "bands":
        ok = (isinstance(value, list) and len(value) <= option.length
              and all(isinstance(r, list) and len(r) == 4 and isinstance(r[0], int) and not isinstance(r[0], bool)
                      and r[0] >= 1 and all(number(x) and in_range(x) for x in r[1:]) for r in value)
              and all(a[0] < b[0] for a, b in zip(value, value[1:])))
    else:
        ok = (isinstance(value, list) and len(value) == option.length and all(number(x) and in_range(x)
                                                                              for x in value)
              and all(a <= b for a, b in zip(value, value[1:])))
    if not ok:
        raise ValueError(f"{_show(value)} is not {option.describe()}")
    return float(value) if option.kind == "number" else value


def _show(value) -> str:
    text = value if isinstance(value, str) else json.dumps(value, allow_nan=True)
    return repr(text if len(text) <= 40 else text[:39] + "…")


def validate(options: object, where: str = "ranker options") -> dict:
    """Every option (defaults filled in), checked; InputError naming `where` and the option otherwise."""
    if not isinstance(options, dict):
        raise InputError(where, None, None, "expected an object of ranker options")
    out = dict(DEFAULT_OPTIONS)
    for key, value in options.items():
        option = BY_NAME.get(key)
        if option is None:
            raise InputError(where, None, key, f"unknown ranker option (options: {', '.join(BY_NAME)})")
        try:
            out[key] = check_value(option, value)
        except ValueError as e:
            raise InputError(where, None, key, str(e)) from None
    problem = combination_problem(out)
    if problem:
        raise InputError(where, None, problem[0], problem[1])
    return out


def combination_problem(options: dict) -> tuple[str, str] | None:
    """(option, message) when valid values combine into a ranker that cannot work, else None: a normalised
    fusion takes its absolute confidence from the c_* weights, and with all of them 0 every record would
    say "nothing related". data.js's rankerOptionProblems checks the same."""
    if options.get("norm") != "none" and not any(v > 0 for k, v in options.items() if k.startswith("c_")):
        return "c_dense", f"with norm {options.get('norm')!r} at least one c_* weight must be above 0"
    return None


def parse_items(items: list[str], where: str = "--ranker-option") -> dict:
    """``KEY=VALUE`` command-line items → checked options (only those given). A value is read as JSON
    (numbers, lists), else as text (``algorithm=fused-v3``)."""
    out: dict = {}
    for item in items:
        key, sep, raw = item.partition("=")
        key = key.strip()
        if not sep or key not in BY_NAME:
            raise InputError(where, None, None, f"{_show(item)}: expected KEY=VALUE with KEY one of "
                             f"{', '.join(BY_NAME)}")
        try:
            value = safeio.parse_checked(raw, where, key)
        except InputError:  # not JSON, or JSON it cannot carry (NaN, a key twice): the text, which the checks refuse
            value = raw
        try:
            out[key] = check_value(BY_NAME[key], value)
        except ValueError as e:
            raise InputError(where, None, key, str(e)) from None
    return out
