"""Annotator queues (Argilla's task distribution): every record in exactly `overlap` queues, queue sizes
within one of each other, deterministic (seeded by the bundle id, never the time or a random state).

`mercury-static assign` writes them into an existing bundle (`assign_bundle`); `build` writes them from the
settings file's `distribution`. The bundle id does not change: queues change no stored work.

The queues file (`formats.QUEUES`: `{format, version, queues: {annotator: [record ids]}}`) is named by its
content (`data/queues-<hash>.json`) and only the manifest names it, so an assign is one atomic switch, the
manifest's rename: a page, a merge or a killed assign sees the old queues with the old manifest or the new
with the new, never a manifest naming some annotators and queues of others.

Check records (`assign --checks`, docs/checks.md) are records of the bundle whose answer the coordinator
knows: they are left out of the distribution and mixed into every queue at a seeded rate, unmarked. The
queues file lists record ids only; the known answers never enter the bundle.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from pathlib import Path

from mercury_static.core import safeio
from mercury_static.bundle.contents import Bundle, dumps, load_bundle
from mercury_static.bundle.manifest import manifest_bytes
from mercury_static.core.names import normalize_name
from mercury_static.core.records import InputError
from mercury_static.formats import QUEUES
from mercury_static.settings.checks import check_distribution
from mercury_static.settings.model import Distribution

QUEUES_DIR = "data"
log = logging.getLogger("mercury_static")


def make_queues(record_ids: list[str], dist: Distribution, seed: str) -> dict[str, list[str]]:
    """Queues of `dist.annotators`: records in an order shuffled by `seed`; the i-th record goes to the
    `overlap` annotators i*overlap … i*overlap+overlap-1 (mod n), so each gets ⌊N·k/n⌋ or ⌈N·k/n⌉ records and
    a record's annotators reach it at about the same point of their queues."""
    def rank(rid: str) -> str:
        return hashlib.sha256(f"{seed}\0{rid}".encode()).hexdigest()

    order = sorted(record_ids, key=lambda rid: (rank(rid), rid))
    n, k = len(dist.annotators), dist.overlap
    queues: dict[str, list[str]] = {name: [] for name in dist.annotators}
    for i, rid in enumerate(order):
        for j in range(k):
            queues[dist.annotators[(i * k + j) % n]].append(rid)
    return queues


CHECK_RATE = 0.1
"""The share of check records in each queue when `--check-rate` is not given."""


def check_count(regular: int, rate: float, available: int) -> int:
    """How many check records a queue of `regular` records gets so that they are about `rate` of it (at least
    one while any is available)."""
    return min(available, max(1, round(regular * rate / (1 - rate))))


def mix_checks(queues: dict[str, list[str]], checks: list[str], rate: float, seed: str) -> dict[str, list[str]]:
    """Each queue with the same `check_count` check records (the first of a seeded order, so every annotator
    is scored on the same ones), each at a seeded place of its own share of the queue: spread evenly, not at
    the start or at a place one annotator could tell another."""
    def unit(*parts: str) -> float:
        return int(hashlib.sha256("\0".join((seed, *parts)).encode()).hexdigest()[:12], 16) / 16 ** 12

    chosen = sorted(checks, key=lambda rid: (unit("check", rid), rid))
    out = {}
    for name, queue in queues.items():
        picked = chosen[:check_count(len(queue), rate, len(chosen))] if chosen else []
        placed = [((i + 0.5) / len(queue), 0, rid) for i, rid in enumerate(queue)]
        placed += [((j + unit("place", name, rid)) / len(picked), 1, rid) for j, rid in enumerate(picked)]
        out[name] = [rid for _, _, rid in sorted(placed)]
    return out


def check_rate(rate: float) -> float:
    """`--check-rate`: a share of the queue, strictly between 0 and 1."""
    if not 0 < rate < 1:
        raise InputError("--check-rate", None, None, f"{rate!r} is not a share between 0 and 1 (e.g. 0.1)")
    return rate


def write_queues(out: Path, record_ids: list[str], dist: Distribution, seed: str,
                 checks: tuple[list[str], float] | None = None) -> dict:
    """Write the queues file (named by its content, whole or not at all); return the manifest's `queues`.
    `checks`: the check records and their rate, left out of the distribution and mixed into every queue."""
    held = set(checks[0]) if checks else set()
    queues = make_queues([r for r in record_ids if r not in held], dist, seed)
    if checks:
        queues = mix_checks(queues, checks[0], checks[1], seed)
    doc = {"format": QUEUES.name, "version": QUEUES.version, "queues": queues}
    data = dumps(doc).encode("utf-8")
    path = f"{QUEUES_DIR}/queues-{hashlib.sha256(data).hexdigest()[:12]}.json"
    safeio.write_file(Path(out) / path, data)
    return {"path": path, "overlap": dist.overlap, "annotators": list(dist.annotators)}


def parse_annotators(text: str) -> list[str]:
    """`--annotators alice,bob,carol` → names as given (normalised and checked by check_distribution)."""
    return text.split(",")


def read_queues(directory: Path, manifest: dict) -> dict[str, list[str]] | None:
    """The bundle's queues by annotator name as compared (names.normalize_name), as the page reads them
    (io/queue.js); None for a bundle without queues. An InputError names a queues file that cannot be read."""
    info = manifest.get("queues")
    if not isinstance(info, dict) or not isinstance(info.get("annotators"), list):
        return None
    path = Path(directory) / str(info.get("path") or f"{QUEUES_DIR}/queues.json")
    doc = safeio.read_checked(path)
    queues = doc if QUEUES.check(doc, str(path)) == 1 else doc.get("queues")
    if not isinstance(queues, dict):
        raise InputError(path, None, "queues", "expected an object {annotator: [record ids]}")
    return {normalize_name(name): [i for i in ids if isinstance(i, str)] for name, ids in queues.items()
            if name in info["annotators"] and isinstance(ids, list)}


def bare_checks(bundle: Bundle, check_ids: list[str], file: str) -> list[str]:
    """The check records, refused when the bundle itself carries annotations of one (a bundle built from a
    Mercury dump with its spans): whoever opens the bundle could read that answer."""
    for rid in check_ids:
        record = bundle.record(rid)
        if record is not None and record.prior_annotations:
            raise InputError(file, f"record {rid}", "annotations", "this check record carries annotations in the "
                             "bundle (it was built from a dump with its spans), so anyone could read its answer "
                             "there: rebuild the bundle from the texts alone, then assign again")
    return check_ids


def assign_bundle(directory: Path, annotators: list[str], overlap: int,
                  checks: Callable[[Bundle], list[str]] | None = None, rate: float = CHECK_RATE,
                  seed: str | None = None) -> dict:
    """Write queues into a bundle, then switch its manifest to them (beside, then rename; the marker stays);
    the queues files no manifest names any more are removed after. Under the bundle's lock. `checks` gives
    the bundle's check records (read from the coordinator's known answers); `seed` defaults to the bundle id."""
    from mercury_static.bundle.folder import editing, is_bundle

    directory = Path(directory)
    with editing(directory, "assign"):
        bundle = load_bundle(directory)
        if not is_bundle(directory):
            raise InputError(directory, None, None, "not a bundle written by mercury-static build (no marker file)")
        dist = check_distribution(annotators, overlap, str(directory), None, ("--annotators", "--overlap"))
        mixed = None
        if checks:
            rate = check_rate(rate)
            mixed = (checks(bundle), rate)
        manifest = dict(bundle.manifest)
        manifest["queues"] = write_queues(directory, [r.id for r in bundle.records], dist,
                                          seed if seed is not None else manifest["bundle_id"], mixed)
        safeio.write_file(directory / "manifest.json", manifest_bytes(manifest))
        for old in (directory / QUEUES_DIR).glob("queues*.json"):
            if old.name != Path(manifest["queues"]["path"]).name:
                old.unlink(missing_ok=True)
    blind = bundle.settings.blind
    stray = [n for n in blind if normalize_name(n) not in dist.annotators] if isinstance(blind, tuple) else []
    if stray:  # the blind list was written for other names: whoever was meant to work blind now sees everything
        log.warning("%s: blind annotator(s) %s of the settings (suggestions.blind) are not among --annotators: "
                    "blind mode hides suggestions only from the names it lists (rebuild with the right names)",
                    directory, ", ".join(stray))
    return manifest

