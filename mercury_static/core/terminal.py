"""Text for the coordinator's terminal: names, ids and paths come from untrusted files, so control
characters (an ANSI ``ESC[2K`` erasing the line) and bidi overrides are shown as escapes, and everything is
printed as rich `Text` (never parsed as markup, so ``[b]`` or ``a:b:c`` print as they are)."""

from __future__ import annotations

import os
import re

from rich.console import Console
from rich.text import Text

_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    """`text` with control and direction-override characters replaced by visible escapes (``\\x1b``)."""
    return _UNSAFE.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), str(text))


def relative(text: str) -> str:
    """`text` with paths under the working folder shown relative to it: the CLI makes every path absolute
    (cli.command), and a user who typed `data.jsonl` reads `data.jsonl` again, not the whole path."""
    here = os.getcwd()
    if os.path.dirname(here) == here:  # the root folder: every absolute path would lose its leading /
        return text
    return text.replace(here + os.sep, "")


def line(text: str, style: str | None = None) -> Text:
    """One safe line of output."""
    return Text(printable(relative(str(text))), style=style or "")


def console(stderr: bool = False, **kwargs) -> Console:
    """A console that prints no emoji codes and highlights nothing (ids like ``a:b:c`` stay as they are)."""
    return Console(stderr=stderr, emoji=False, highlight=False, markup=False, **kwargs)
