"""`links`: each annotator's personal upload link to the team's storage."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from mercury_static.core.names import normalize_name
from mercury_static.core.records import InputError
from mercury_static.merge.collect import (check_annotator_bundle, check_page_url, check_target, links as make_links,
                                          parse_duration, parse_target)
from mercury_static.merge.cors import page_origin
from mercury_static.merge.storage_errors import redact


@dataclass
class Links:
    """The link of each annotator, the storage (its secrets removed) and whether its CORS was checked."""

    links: dict[str, str]
    storage: str
    cors_checked: bool


def links(bundle: Path, annotators: str, collect: str, endpoint: str | None, expires: str, url: str,
          origin: str | None) -> Links:
    """Check the storage `collect` (and its CORS for the page's origin, when known), allow it in the bundle's
    page and sign each annotator's link, valid for `expires`."""
    names = [normalize_name(n) for n in annotators.split(",")]
    if not all(names) or len(set(names)) != len(names) or any("/" in n for n in names):
        raise InputError(f"--annotators {annotators!r}", None, None,
                         "expected distinct non-empty names without '/', comma-separated")
    target = parse_target(collect, endpoint)
    seconds = parse_duration(expires)
    check_page_url(url)
    cors_origin = page_origin(origin, url)
    check_annotator_bundle(bundle)
    check_target(target, collect)
    made = make_links(bundle, names, target, seconds, url, time.time(), cors_origin, collect)
    return Links(made, redact(collect), cors_origin is not None)
