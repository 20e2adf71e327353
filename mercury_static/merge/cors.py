"""Whether the team's storage lets the page upload from where it is served (CORS), asked before `links` hands
out links: a storage without CORS for the page's origin fails every upload in the browser, and the annotators
only see "Failed to fetch".

The check is the preflight a browser sends: OPTIONS with the page's Origin, the method of the page's upload
(S3: the presigned POST; WebDAV: a PUT) and the headers it sets (WebDAV: Content-Type, and Authorization with
credentials), read by the Fetch standard's rules.
"""

from __future__ import annotations

import urllib.error
import urllib.request
from dataclasses import dataclass
from urllib.parse import urlsplit

from mercury_static.core.records import InputError
from mercury_static.merge.storage_errors import ATTEMPTS, StorageError, explain, redact, scrub, timeout

SAFE_METHODS = ("GET", "HEAD", "POST")
"""Methods a preflight need not list (CORS-safelisted)."""
PROBE = "mercury-static-cors-check.json"
"""The file name a WebDAV preflight is asked for (OPTIONS writes nothing): a name like the page's."""


@dataclass(frozen=True)
class Upload:
    """The page's upload request as the storage sees it: where, how, and the headers it sets."""

    url: str
    method: str
    headers: tuple[str, ...]


def page_origin(origin: str | None, page_url: str) -> str | None:
    """The origin the page is served from: `--origin` (any http(s) URL, reduced to its origin), else that of
    an absolute `--url`; None when neither says (a relative `--url`)."""
    if origin is not None:
        if origin != origin.strip():
            raise InputError("--origin", None, None, f"{redact(origin)!r} has spaces around it (a browser sends "
                             f"{redact(origin.strip())!r}: give that)")
        parts = urlsplit(origin)
        try:
            port = parts.port
        except ValueError:
            port = -1
        if parts.scheme not in ("http", "https") or not parts.hostname or "@" in parts.netloc or port == -1:
            raise InputError("--origin", None, None, f"{redact(origin)!r} is not the http(s) address where the "
                             "bundle is served (e.g. https://team.example.org)")
        return _origin(origin)
    if urlsplit(page_url).scheme in ("http", "https"):
        return _origin(page_url)
    return None


def _origin(url: str) -> str:
    """The origin as a browser serialises it in its Origin header: lower-case scheme and host, a Unicode host
    in its ASCII (punycode) form by UTS #46 as the URL standard does, the default port dropped, no path."""
    parts = urlsplit(url)
    default = {"http": 80, "https": 443}[parts.scheme]
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    elif not host.isascii():
        import idna  # the collect extra's (links and collecting need it anyway)

        try:
            host = idna.encode(host, uts46=True, transitional=False).decode("ascii")
        except idna.IDNAError as e:
            raise InputError("--origin", None, None, f"{host!r} is not a host name a browser can reach ({e})") \
                from None
    return f"{parts.scheme}://{host}" + (f":{parts.port}" if parts.port not in (None, default) else "")


def upload_of(payload: dict) -> Upload:
    """The upload a link's payload (collect.s3_link / webdav_link) makes the page send."""
    if payload["kind"] == "s3":
        return Upload(payload["url"], "POST", ())
    return Upload(payload["url"] + PROBE, "PUT", ("authorization", "content-type") if payload.get("auth")
                  else ("content-type",))


def problem(status: int, headers, origin: str, upload: Upload) -> str | None:
    """What a preflight answer (`status`, `headers` with .get) does not allow, or None when the browser
    would send the upload."""
    if not 200 <= status < 300:
        return f"the preflight was answered HTTP {status}"
    allowed = (headers.get("Access-Control-Allow-Origin") or "").strip()
    if allowed not in ("*", origin):
        return f"Access-Control-Allow-Origin is {allowed!r}, not {origin}" if allowed else \
            "no Access-Control-Allow-Origin"
    methods = _list(headers.get("Access-Control-Allow-Methods"))
    if upload.method not in SAFE_METHODS and not {upload.method.lower(), "*"} & methods:
        return f"{upload.method} is not in Access-Control-Allow-Methods"
    names = _list(headers.get("Access-Control-Allow-Headers"))
    missing = [h for h in upload.headers if h not in names and ("*" not in names or h == "authorization")]
    if missing:
        return f"{', '.join(missing)} not in Access-Control-Allow-Headers"
    return None


def _list(value: str | None) -> set[str]:
    return {v.strip().lower() for v in (value or "").split(",") if v.strip()}


def advice(kind: str, origin: str, upload: Upload) -> str:
    if kind == "s3":
        return (f"add a CORS rule to the bucket allowing origin {origin} and method POST (S3: put-bucket-cors; "
                "MinIO and others: their CORS setting)")
    headers = ", ".join(h.title() for h in upload.headers)
    return (f"configure the WebDAV server to answer CORS for origin {origin}: Access-Control-Allow-Origin, "
            f"Access-Control-Allow-Methods PUT, Access-Control-Allow-Headers {headers}")


def check_cors(payload: dict, origin: str, source: str, secrets: tuple[str, ...] = ()) -> None:
    """A StorageError naming the storage (`source`, redacted) and what to configure, unless it allows the
    page's upload from `origin`."""
    upload = upload_of(payload)
    request = urllib.request.Request(upload.url, method="OPTIONS", headers={
        "Origin": origin, "Access-Control-Request-Method": upload.method,
        **({"Access-Control-Request-Headers": ",".join(upload.headers)} if upload.headers else {})})
    for attempt in range(ATTEMPTS):
        try:
            with urllib.request.urlopen(request, timeout=timeout()) as response:
                status, headers = response.status, response.headers
            break
        except urllib.error.HTTPError as e:
            status, headers = e.code, e.headers
            break
        except Exception as e:
            message, whole = explain(e)
            if not (whole and "tries" in message) or attempt == ATTEMPTS - 1:
                raise StorageError(source, f"the CORS check failed: {scrub(message, secrets)}") from None
    why = problem(status, headers, origin, upload)
    if why is not None:
        raise StorageError(source, f"does not allow the page's uploads from {origin} (CORS: {why}): "
                           f"{advice(payload['kind'], origin, upload)}")
