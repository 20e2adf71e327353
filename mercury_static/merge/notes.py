"""The merge's notes: things merged that the coordinator should know about, one line each."""

from __future__ import annotations

from collections import defaultdict

from mercury_static.core.names import normalize_name


def name_notes(spellings: dict[str, set[str]]) -> list[str]:
    """Annotator names that are one name once Unicode-normalised."""
    return [f"annotator names {', '.join(ascii(x) for x in sorted(raw))} are one annotator {name!r} once "
            "Unicode-normalised (NFC, invisible characters removed): merged"
            for name, raw in sorted(spellings.items(), reverse=True) if len(raw) > 1]


def client_notes(clients: dict[str, set[str]]) -> list[str]:
    """Annotators who exported from several browsers."""
    return [f"annotator {annotator!r} exported from {len(ids)} browsers (client ids {', '.join(sorted(ids))}): "
            "merged, newest version of each record wins"
            for annotator, ids in sorted(clients.items(), reverse=True) if len(ids) > 1]


def shared_id_notes(records: list[dict]) -> list[str]:
    """Annotation ids found under several annotators of one record (e.g. an imported file)."""
    shared = []
    for r in records:
        owners: dict[str, set[str]] = defaultdict(set)
        for a in r["annotations"]:
            owners[a["id"]].add(a["annotator"])
        shared += [(r["id"], i, sorted(who)) for i, who in owners.items() if len(who) > 1]
    if not shared:
        return []
    record_id, ident, who = min(shared)
    return [f"{len(shared)} annotation id(s) appear under several annotators of one record "
            f"(e.g. record {record_id}, id {ident!r}: {', '.join(who)}); kept under each"]


def blind_notes(records: list[dict], blind: bool | tuple[str, ...]) -> list[str]:
    """Annotators the settings make blind whose exports say suggestions were shown (a name typed otherwise in
    an older page, a bundle rebuilt blind): their answers count as `shown` in the agent agreement."""
    if not blind:
        return []
    listed = None if isinstance(blind, bool) else {normalize_name(name).casefold()
                                                   for name in blind}  # an older bundle's
    shown: dict[str, int] = defaultdict(int)
    for r in records:
        for x in r.get("responses", []):
            if (x.get("suggestions") or {}).get("shown") and (listed is None or x["annotator"].casefold() in listed):
                shown[x["annotator"]] += 1
    return [f"annotator {name!r} is blind in the settings (suggestions.blind) but their export says suggestions "
            f"were shown on {n} record(s): those answers count as shown" for name, n in sorted(shown.items())]


def future_notes(future: list[str], command: str = "merge") -> list[str]:
    """Times after the command's start: a browser with a wrong clock; each counted as that start."""
    if not future:
        return []
    return [f"{len(future)} time(s) are in the future (a computer with a wrong clock?), e.g. {future[0]}: "
            f"each counted as the time of this {command}"]
