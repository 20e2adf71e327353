"""Collecting exports in the team's own storage: per-annotator upload links, the bundle's CSP, and reading back.

An S3 link is a presigned POST policy (signature v4) whose key must start with `PREFIX/ANNOTATOR/`: the
link is made before any browser exists, and each browser posts to `PREFIX/ANNOTATOR/CLIENT_ID.json`, so two
devices of one annotator never overwrite each other, while no holder can write outside their own folder, nor
list or read anything (a presigned PUT is for one exact key, hence one browser). A WebDAV link is a folder
URL (a Nextcloud file drop, or any WebDAV folder) with optional Basic credentials; the page PUTs
`ANNOTATOR--CLIENT_ID.json` there. The secret part of a link travels in its URL fragment, never sent to the
static host; the page keeps it per bundle and annotator. Reading back goes through fsspec (s3fs, webdav4:
the `collect` extra).
"""

from __future__ import annotations

import base64
import json
import re
import tempfile
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from urllib.parse import quote, urlsplit, urlunsplit

from mercury_static.core.records import InputError
from mercury_static.formats import EXPORT

MAX_UPLOAD = 256 * 1024 * 1024
"""The largest export an S3 link accepts (content-length-range)."""
DURATION = re.compile(r"^(\d+)([smhd])$")
UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
CSP_CONNECT = "connect-src 'self'"


@dataclass(frozen=True)
class Target:
    """Where exports are collected: kind 's3' (bucket, prefix, endpoint) or 'webdav' (url, user, password)."""

    kind: str
    url: str
    bucket: str = ""
    prefix: str = ""
    endpoint: str | None = None
    user: str | None = None
    password: str | None = None


def parse_duration(text: str) -> int:
    """'30d', '12h', '90m', '45s' → seconds (at least one)."""
    m = DURATION.match(text.strip())
    if not m or int(m.group(1)) <= 0:
        raise InputError("--expires", None, None, f"{text!r} is not a duration such as 30d, 12h, 90m or 45s")
    return int(m.group(1)) * UNITS[m.group(2)]


def parse_target(text: str, endpoint: str | None = None) -> Target:
    """s3://bucket/prefix or http(s)://[user:password@]host/dav/folder."""
    parts = urlsplit(text)
    if parts.scheme == "s3":
        if not parts.netloc:
            raise InputError(text, None, None, "expected s3://BUCKET/PREFIX")
        if endpoint is not None and urlsplit(endpoint).scheme not in ("http", "https"):
            raise InputError("--endpoint", None, None, f"{endpoint!r} is not an http(s) URL")
        return Target("s3", text, bucket=parts.netloc, prefix=parts.path.strip("/"), endpoint=endpoint)
    if parts.scheme in ("http", "https") and parts.hostname:
        if endpoint is not None:
            raise InputError("--endpoint", None, None, "only with an s3:// target")
        bare = urlunsplit((parts.scheme, parts.hostname + (f":{parts.port}" if parts.port else ""),
                           parts.path.rstrip("/") + "/", "", ""))
        return Target("webdav", bare, user=parts.username, password=parts.password)
    raise InputError(text, None, None, "expected s3://BUCKET/PREFIX or an http(s):// WebDAV folder")


def origin(url: str) -> str:
    p = urlsplit(url)
    return f"{p.scheme}://{p.netloc.rsplit('@', 1)[-1]}"


def _s3_client(target: Target):
    import botocore.session  # the collect extra (s3fs) brings botocore
    from botocore.config import Config

    session = botocore.session.get_session()
    region = session.get_config_variable("region") or "us-east-1"
    config = Config(signature_version="s3v4", s3={"addressing_style": "path" if target.endpoint else "virtual"})
    return session.create_client("s3", region_name=region, endpoint_url=target.endpoint, config=config)


def s3_link(target: Target, annotator: str, seconds: int, now: float) -> dict:
    """A presigned POST policy for keys under PREFIX/ANNOTATOR/, valid `seconds` from `now`."""
    client = _s3_client(target)
    folder = "/".join(p for p in (target.prefix, annotator) if p) + "/"
    post = client.generate_presigned_post(
        target.bucket, folder + "${filename}", ExpiresIn=seconds,
        Conditions=[["starts-with", "$key", folder], ["content-length-range", 1, MAX_UPLOAD]])
    fields = {k: v for k, v in post["fields"].items() if k != "key"}
    return {"kind": "s3", "url": post["url"], "prefix": folder, "fields": fields, "expires": int(now + seconds)}


def webdav_link(target: Target, seconds: int, now: float) -> dict:
    auth = None
    if target.user is not None:
        auth = base64.b64encode(f"{target.user}:{target.password or ''}".encode()).decode("ascii")
    return {"kind": "webdav", "url": target.url, "auth": auth, "expires": int(now + seconds)}


def encode_link(payload: dict) -> str:
    """The fragment's value: base64url of the JSON (no padding)."""
    raw = json.dumps(payload, sort_keys=True, separators=(",", ":")).encode("utf-8")
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def links(bundle: Path, annotators: list[str], target: Target, seconds: int, page_url: str,
          now: float) -> dict[str, str]:
    """Each annotator's personal link (`page_url?annotator=NAME#collect=SECRET`), after allowing the storage
    origin in the bundle's CSP."""
    out = {}
    for name in annotators:
        payload = s3_link(target, name, seconds, now) if target.kind == "s3" else webdav_link(target, seconds, now)
        payload["annotator"] = name
        out[name] = f"{page_url}?annotator={quote(name)}#collect={encode_link(payload)}"
        allowed = origin(payload["url"])
    allow_origin(bundle, allowed)
    return out


def allow_origin(bundle: Path, allowed: str) -> None:
    """Rewrite the bundle's index.html CSP so that connect-src is 'self' and exactly `allowed`."""
    index = bundle / "index.html"
    html = index.read_text(encoding="utf-8")
    new, n = re.subn(r"connect-src 'self'[^;\"]*", f"{CSP_CONNECT} {allowed}", html, count=1)
    if not n:
        raise InputError(index, None, None, "no connect-src in its Content-Security-Policy (not a bundle page?)")
    index.write_text(new, encoding="utf-8")


def _filesystem(source: str):
    """fsspec filesystem and root path of an s3:// or WebDAV source."""
    try:
        import fsspec
    except ImportError:
        raise InputError(source, None, None, "reading from storage needs the collect extra "
                         "(pip install 'mercury-static[collect]')") from None
    target = parse_target(source)
    if target.kind == "s3":
        import os

        endpoint = os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL")
        fs = fsspec.filesystem("s3", client_kwargs={"endpoint_url": endpoint} if endpoint else {})
        return fs, f"{target.bucket}/{target.prefix}".rstrip("/")
    auth = (target.user, target.password or "") if target.user is not None else None
    fs = fsspec.filesystem("webdav", base_url=target.url, auth=auth)
    return fs, ""


def is_remote(text: str) -> bool:
    return bool(re.match(r"^(s3|https?)://", str(text)))


def list_exports(source: str) -> list[tuple[str, dict]]:
    """Every .json file under `source`, sorted by path: (path relative to the source, fsspec info)."""
    fs, root = _filesystem(source)
    try:
        found = fs.find(root, detail=True)
    except (OSError, ValueError) as e:
        raise InputError(source, None, None, f"cannot list: {e}") from None
    out = []
    for path, info in sorted(found.items()):
        rel = path[len(root):].lstrip("/") if root else path.lstrip("/")
        if rel.endswith(".json") and info.get("type", "file") == "file":
            out.append((rel, info))
    return out


def fetch_exports(source: str, dest: Path) -> list[Path]:
    """Copy every export under `source` into `dest` (same relative paths); the local paths, sorted."""
    fs, root = _filesystem(source)
    paths = []
    for rel, _info in list_exports(source):
        local = dest / rel
        local.parent.mkdir(parents=True, exist_ok=True)
        with fs.open(f"{root}/{rel}" if root else rel, "rb") as f:
            local.write_bytes(f.read())
        paths.append(local)
    return paths


def local_inputs(inputs: list, stack) -> list[Path]:
    """The merge inputs as local files: each remote source fetched into a temporary folder kept open by the
    ExitStack `stack`, in sorted order."""
    out: list[Path] = []
    for item in inputs:
        if is_remote(str(item)):
            dest = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="mercury-collect-")))
            found = fetch_exports(str(item), dest)
            if not found:
                raise InputError(item, None, None, "holds no .json export")
            out.extend(found)
        else:
            out.append(Path(item))
    return out


@dataclass
class Progress:
    """One annotator's work as found in the collected exports (each record at its newest version)."""

    annotator: str
    browsers: set = field(default_factory=set)
    records: dict = field(default_factory=dict)
    """record id → (updated_at, status)."""
    last_upload: datetime | None = None

    def count(self, status: str) -> int:
        return sum(1 for _t, s in self.records.values() if s == status)


def _modified(info: dict) -> datetime | None:
    t = info.get("LastModified") or info.get("modified") or info.get("mtime")
    if isinstance(t, (int, float)):
        return datetime.fromtimestamp(t, timezone.utc)
    return t.astimezone(timezone.utc) if isinstance(t, datetime) else None


def progress(source: str, bundle_id: str) -> list[Progress]:
    """Per annotator (sorted by name): browsers, records by status, last upload; exports of another bundle
    are left out, a file that is not an export is an InputError naming it."""
    from mercury_static.core.names import normalize_name

    if is_remote(source):
        fs, root = _filesystem(source)
        found = [(f"{root}/{rel}" if root else rel, info) for rel, info in list_exports(source)]
        read = lambda p: fs.cat_file(p)  # noqa: E731
    else:
        base = Path(source)
        files = sorted(base.rglob("*.json")) if base.is_dir() else [base]
        found = [(str(p), {"mtime": p.stat().st_mtime}) for p in files]
        read = lambda p: Path(p).read_bytes()  # noqa: E731
    people: dict[str, Progress] = {}
    for path, info in found:
        try:
            doc = json.loads(read(path))
            EXPORT.check(doc, path)
            if not isinstance(doc.get("records"), list):
                raise ValueError("not a mercury-static annotations export")
            name = normalize_name(str(doc["annotator"]))
        except (ValueError, KeyError, AttributeError, UnicodeDecodeError) as e:
            raise InputError(path, None, None, f"cannot read as an export: {e}") from None
        if doc.get("bundle_id") != bundle_id:
            continue
        who = people.setdefault(name, Progress(name))
        who.browsers.add(doc.get("client_id"))
        when = _modified(info)
        if when and (who.last_upload is None or when > who.last_upload):
            who.last_upload = when
        for r in doc["records"]:
            if isinstance(r, dict) and isinstance(r.get("record_id"), str):
                seen = who.records.get(r["record_id"])
                mine = (str(r.get("updated_at") or ""), str(r.get("status") or "in_progress"))
                if seen is None or mine[0] > seen[0]:
                    who.records[r["record_id"]] = mine
    return [people[k] for k in sorted(people)]
