"""Collecting exports in the team's own storage: per-annotator upload links, the bundle's CSP, and reading back.

An S3 link is a presigned POST policy (signature v4) whose key must start with `PREFIX/ANNOTATOR/`: the
link is made before any browser exists, and each browser posts to `PREFIX/ANNOTATOR/CLIENT_ID.json`, so two
devices of one annotator never overwrite each other, while no holder can write outside their own folder, nor
list or read anything (a presigned PUT is for one exact key, hence one browser). A WebDAV link is a folder
URL (a Nextcloud file drop, or any WebDAV folder) with optional Basic credentials; the page PUTs
`ANNOTATOR--CLIENT_ID.json` there. The secret part of a link travels in its URL fragment, never sent to the
static host; the page keeps it per bundle and annotator. Reading back goes through fsspec (s3fs, webdav4:
the `collect` extra).

Every network call here is bounded (TIMEOUT per connect or read, ATTEMPTS tries) and every failure becomes a
StorageError: one line naming the storage with its secrets removed (`redact`), never a traceback or a hang.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import json
import os
import re
import tempfile
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Protocol, TypeVar
from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit, urlunsplit

from mercury_static.core import safeio
from mercury_static.core.records import InputError
from mercury_static.formats import EXPORT
from mercury_static.merge.storage_errors import (ATTEMPTS, NO_CREDENTIALS, StorageError, _chain, _HTTPStatus, _status,
                                                    explain, redact, scrub, timeout)

MAX_UPLOAD = 256 * 1024 * 1024
"""The largest export an S3 link accepts (content-length-range)."""
DURATION = re.compile(r"^(\d+)([smhd])$")
UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
CSP_CONNECT = "connect-src 'self'"
def page_link(page_url: str, annotator: str, secret: str) -> str:
    """`page_url` with `annotator=NAME` added to its query (replacing one there) and `collect=SECRET` to its
    fragment (the page reads `collect=` among other fragment parts)."""
    parts = urlsplit(page_url)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != "annotator"]
    query.append(("annotator", annotator))
    fragment = "&".join(p for p in (parts.fragment, f"collect={secret}") if p)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(query, quote_via=quote), fragment))


def check_page_url(page_url: str) -> str:
    """The `--url` of `links`: an http(s) address or a path relative to where the links are opened; any other
    scheme (javascript:, data:, file:) would put something else than the page behind each link."""
    try:
        parts = urlsplit(page_url)
    except ValueError as e:
        raise InputError("--url", None, None, f"{redact(page_url)!r} is not a URL ({e})") from None
    if parts.scheme not in ("", "http", "https") or (parts.scheme and not parts.hostname) \
            or (not parts.scheme and (parts.netloc or ":" in parts.path.split("/", 1)[0])) \
            or any(ord(c) < 33 for c in page_url):
        raise InputError("--url", None, None, f"{redact(page_url)!r} is not an http(s) address of the page "
                         "(e.g. https://team.example/bundle/) nor a relative path")
    return page_url


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
    try:
        parts = urlsplit(text)
        if parts.port == 0:  # reading the port raises ValueError for a bad one, here rather than later
            raise ValueError("port 0")
    except ValueError as e:
        raise InputError(redact(text), None, None, f"not a storage address ({e})") from None
    if parts.scheme == "s3":
        if not parts.hostname or "@" in parts.netloc:
            raise InputError(redact(text), None, None, "expected s3://BUCKET/PREFIX (credentials come from the "
                             "AWS environment, never from the address)")
        if endpoint is not None and urlsplit(endpoint).scheme not in ("http", "https"):
            raise InputError("--endpoint", None, None, f"{redact(endpoint)!r} is not an http(s) URL")
        return Target("s3", text, bucket=parts.netloc, prefix=parts.path.strip("/"), endpoint=endpoint)
    if parts.scheme in ("http", "https") and parts.hostname:
        if endpoint is not None:
            raise InputError("--endpoint", None, None, "only with an s3:// target")
        host = parts.netloc.rsplit("@", 1)[-1]
        bare = urlunsplit((parts.scheme, host, parts.path.rstrip("/") + "/", "", ""))
        user = None if parts.username is None else unquote(parts.username)
        password = None if parts.password is None else unquote(parts.password)
        return Target("webdav", bare, user=user, password=password)
    raise InputError(redact(text), None, None, "expected s3://BUCKET/PREFIX or an http(s):// WebDAV folder")


def origin(url: str) -> str:
    p = urlsplit(url)
    return f"{p.scheme}://{p.netloc.rsplit('@', 1)[-1]}"


@functools.cache
def _loader(data_path: str | None):
    """botocore's loader of its service data for one search path, kept for the process: each new session
    would parse the S3 model and the endpoint rules (megabytes of JSON) again, once per storage read."""
    from botocore.loaders import create_loader

    return create_loader(data_path)


def _with_shared_loader(session):
    """`session` (botocore's or aiobotocore's) reading service data through the process's loader; its
    credentials, region and endpoint are still its own, read from the environment when it is used."""
    session.register_component("data_loader", _loader(session.get_config_variable("data_path")))
    return session


def _s3_client(target: Target):
    """A botocore S3 client with bounded timeouts and tries; a StorageError without botocore or credentials."""
    try:
        import botocore.session  # the collect extra (s3fs) brings botocore
        from botocore.config import Config
    except ImportError:
        raise StorageError(target.url, "S3 links need the collect extra (botocore): "
                           "pip install 'mercury-static[collect]'") from None
    try:
        session = _with_shared_loader(botocore.session.Session())
        credentials = session.get_credentials()
    except Exception as e:  # a broken profile or config file
        raise StorageError(target.url, f"cannot read the AWS credentials: {explain(e)[0]}") from None
    if credentials is None:
        raise StorageError(target.url, NO_CREDENTIALS)
    region = session.get_config_variable("region") or "us-east-1"
    config = Config(signature_version="s3v4", s3={"addressing_style": "path" if target.endpoint else "virtual"},
                    connect_timeout=timeout(), read_timeout=timeout(),
                    retries={"total_max_attempts": ATTEMPTS, "mode": "standard"})
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


def check_annotator_bundle(bundle: Path) -> None:
    """Refuse a review bundle: its page never uploads (the reviewer's export goes to `gold`), so a link would
    spend its secret on a page that keeps the work in the browser."""
    manifest = safeio.read_checked(bundle / "manifest.json", limit=safeio.INPUT_LIMIT)
    if isinstance(manifest, dict) and "review" in manifest:
        raise InputError(bundle, None, None, "a review bundle: its page does not upload; give the reviewer the "
                         "bundle's address and ask for the review export (for `gold`); links are for annotators' "
                         "bundles")


def links(bundle: Path, annotators: list[str], target: Target, seconds: int, page_url: str,
          now: float, page_origin: str | None = None, source: str | None = None) -> dict[str, str]:
    """Each annotator's personal link (`page_url?annotator=NAME#collect=SECRET`), after checking that the
    storage (`source`: as given, for messages) allows uploads from `page_origin` (CORS; not checked when None)
    and allowing the storage origin in the bundle's CSP."""
    from mercury_static.merge.cors import check_cors

    check_page_url(page_url)
    check_annotator_bundle(bundle)
    payloads = {name: s3_link(target, name, seconds, now) if target.kind == "s3" else webdav_link(target, seconds, now)
                for name in annotators}
    if page_origin is not None and payloads:
        secrets = tuple(s for s in (target.user, target.password) if s)
        check_cors(next(iter(payloads.values())), page_origin, source or target.url, secrets)
    out = {}
    for name, payload in payloads.items():
        payload["annotator"] = name
        out[name] = page_link(page_url, name, encode_link(payload))
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


class Storage:
    """An s3:// or WebDAV source opened for reading: every call bounded, every failure a StorageError."""

    def __init__(self, source: str):
        self.source = source
        self.target = parse_target(source)
        self.secrets = tuple(s for s in (self.target.user, self.target.password) if s)
        self.fs, self.root = self._call(self._open)

    def _open(self):
        import fsspec  # ImportError: explained as the collect extra

        if self.target.kind == "s3":
            s3 = fsspec.get_filesystem_class("s3")  # ImportError without s3fs
            from aiobotocore.session import AioSession  # type: ignore[import-untyped]  # s3fs brings it

            endpoint = os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL")
            fs = s3(
                skip_instance_cache=True, session=_with_shared_loader(AioSession()),
                client_kwargs={"endpoint_url": endpoint} if endpoint else {},
                config_kwargs={"connect_timeout": timeout(), "read_timeout": timeout(),
                               "retries": {"total_max_attempts": ATTEMPTS, "mode": "standard"}})
            fs.retries = 1  # botocore's tries above are the only ones
            return fs, f"{self.target.bucket}/{self.target.prefix}".rstrip("/")
        import httpx

        auth = (self.target.user, self.target.password or "") if self.target.user is not None else None
        fs = fsspec.filesystem("webdav", skip_instance_cache=True, base_url=self.target.url, auth=auth,
                               timeout=httpx.Timeout(timeout()), retry=False)
        return fs, ""

    def _attempts(self, function, *args):
        """`function(*args)`, tried ATTEMPTS times while the failure is the connection's (s3fs tries through
        botocore already); the last failure is raised as it is."""
        tries = 1 if self.target.kind == "s3" else ATTEMPTS
        for attempt in range(tries):
            try:
                return function(*args)
            except Exception as e:
                message, whole = explain(e)
                if not (whole and "tries" in message) or attempt == tries - 1:
                    raise
        raise AssertionError("unreachable")

    def _call(self, function, *args):
        """`function(*args)` as `_attempts` runs it; any failure a StorageError naming the storage."""
        try:
            return self._attempts(function, *args)
        except InputError:
            raise
        except Exception as e:
            raise StorageError(self.source, scrub(explain(e)[0], self.secrets)) from None

    def name(self, rel: str) -> str:
        """The printable address of one file of this storage (secrets removed, the file name as it is)."""
        return redact(self.source.split("?", 1)[0].split("#", 1)[0]).rstrip("/") + "/" + rel

    def list(self) -> list[tuple[str, dict]]:
        """Every .json file under the source, sorted by path: (path relative to the source, fsspec info)."""
        if self.target.kind == "webdav":  # webdav4 lists a missing folder as an empty one
            info = self._call(self.fs.info, "")
            if info.get("type") != "directory":
                raise StorageError(self.source, "is a file, not a folder: give the folder that holds the exports")
        found = self._call(self.fs.find, self.root, None, False, True)
        out = []
        for path, info in sorted(found.items()):
            rel = path[len(self.root):].lstrip("/") if self.root else path.lstrip("/")
            if rel.endswith(".json") and info.get("type", "file") == "file":
                out.append((rel, info))
        return out

    def read(self, rel: str) -> bytes:
        """One file's bytes; a StorageError for a failure of the whole storage, an InputError naming the
        file for a failure of this file only (the caller skips it)."""
        try:
            return self._read(rel)
        except InputError:
            raise
        except Exception as e:
            message, whole = explain(e)
            if whole:
                raise StorageError(self.source, scrub(message, self.secrets)) from None
            raise InputError(self.name(rel), None, None, f"cannot read ({scrub(message, self.secrets)})") from None

    def _read(self, rel: str) -> bytes:
        if self.target.kind == "s3":
            return self._attempts(self.fs.cat_file, f"{self.root}/{rel}")
        # webdav4 puts a path into its URL unquoted (a '#' or '%' in a name breaks it): GET it quoted here
        url = self.target.url + quote(rel, safe="/")

        def get() -> bytes:
            response = self.fs.client.http.get(url)
            if response.status_code >= 400:
                raise _HTTPStatus(response.status_code)
            return response.content
        return self._attempts(get)


def check_target(target: Target, source: str) -> None:
    """Before links are handed out: the storage `source` (as given, for the message) answers and accepts the
    credentials (a StorageError otherwise). An S3 403 or a WebDAV folder that refuses listing is accepted:
    upload-only rights are enough."""
    if target.kind == "s3":
        client = _s3_client(target)
        try:
            client.head_bucket(Bucket=target.bucket)
        except Exception as e:
            message, whole = explain(e)
            status, _ = _status(_chain(e))
            if whole or status in (404, None):
                raise StorageError(source, message) from None
        return
    import urllib.request

    request = urllib.request.Request(target.url, method="PROPFIND", headers={"Depth": "0"})
    if target.user is not None:
        request.add_header("Authorization", "Basic " + base64.b64encode(
            f"{target.user}:{target.password or ''}".encode()).decode("ascii"))
    secrets = tuple(s for s in (target.user, target.password) if s)
    for attempt in range(ATTEMPTS):
        try:
            with urllib.request.urlopen(request, timeout=timeout()):
                return
        except Exception as e:
            message, whole = explain(e)
            status, _ = _status(_chain(e))
            if status is not None and status not in (401, 404, 409):
                return
            if not (whole and "tries" in message) or attempt == ATTEMPTS - 1:
                raise StorageError(source, scrub(message, secrets)) from None


def is_remote(text: str) -> bool:
    """A URL (any scheme://), never a path: an unsupported scheme is then refused by parse_target with one
    line instead of being looked up as a file."""
    return bool(re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]+://", str(text)))


def fetch_exports(source: str, dest: Path) -> tuple[list[Path], list[InputError], dict[str, str]]:
    """Copy every export under `source` into `dest` (same relative paths): the local paths (sorted), the
    files that could not be read (each an InputError naming it), and local path → printable address."""
    storage = Storage(source)
    paths, problems, names = [], [], {}
    for rel, _info in storage.list():
        try:
            data = storage.read(rel)
        except StorageError:
            raise
        except InputError as e:
            problems.append(e)
            continue
        local = dest / rel
        local.parent.mkdir(parents=True, exist_ok=True)
        local.write_bytes(data)
        paths.append(local)
        names[str(local)] = storage.name(rel)
    return paths, problems, names


@dataclass
class Inputs:
    """Merge or review inputs made local: the paths, the storage files that could not be read, and each
    fetched file's printable storage address (for the lines that name it)."""

    paths: list[Path] = field(default_factory=list)
    problems: list[InputError] = field(default_factory=list)
    names: dict[str, str] = field(default_factory=dict)

    def rename(self, problems: list) -> None:
        """Name fetched files by their storage address, not their temporary copy, in `problems`."""
        for p in problems:
            if isinstance(p, InputError) and p.file in self.names:
                p.file = self.names[p.file]


class Read(Protocol):
    """What a reader of the inputs returns: anything with its problems, one line each."""

    problems: list[InputError]


R = TypeVar("R", bound=Read)


def read_local(inputs: list, read: Callable[[list[Path]], R], strict: bool = False) -> tuple[R, Inputs]:
    """`read` run on the inputs made local, and those local inputs: each remote source fetched, in sorted
    order, into a temporary folder removed after the call. A file of a storage that cannot be read is
    skipped (stops under `strict`), put first in the result's problems, and every problem names a fetched
    file by its storage address; a storage that cannot be used is a StorageError."""
    out = Inputs()
    with contextlib.ExitStack() as stack:
        for item in inputs:
            if is_remote(str(item)):
                dest = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="mercury-collect-")))
                found, problems, names = fetch_exports(str(item), dest)
                if problems and strict:
                    raise problems[0]
                if not found and not problems:
                    raise StorageError(str(item), "holds no .json export")
                out.paths.extend(found)
                out.problems.extend(problems)
                out.names.update(names)
            else:
                out.paths.append(Path(item))
        result = read(out.paths)
    result.problems[:0] = out.problems
    out.rename(result.problems)
    return result, out

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
        storage = Storage(source)
        listed = storage.list()
        rels = {storage.name(rel): rel for rel, _info in listed}
        found = [(storage.name(rel), info) for rel, info in listed]
        read = lambda p: storage.read(rels[p])  # noqa: E731
    else:
        base = Path(source)
        files = sorted(base.rglob("*.json")) if base.is_dir() else [base]
        found = [(str(p), {"mtime": p.stat().st_mtime}) for p in files]
        read = lambda p: Path(p).read_bytes()  # noqa: E731
    people: dict[str, Progress] = {}
    for path, info in found:
        try:
            doc = safeio.parse_checked(read(path).decode("utf-8"), path)
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
