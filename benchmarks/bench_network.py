"""The first visit over a real network, a second visit, and an offline one (issue 47).

    python benchmarks/bench_network.py [--runs 1] [--profiles 20,5] [--before-ref REF] [--variants today,after]

Headless Chromium reaches `mercury-static serve` through a proxy that holds the wire to 20 Mbit/s down / 40 ms
round trip, or 5 Mbit/s / 150 ms (throttle.py: one link shared by the page, its model worker and its service
worker, whose own fetches DevTools' per-target emulation missed). Bytes on the wire are what the proxy carried
towards the browser (HTTP headers included), and each visit's largest responses are printed (stderr). Two
bundles of the same FaithBench data, served in the same run:
- `today`: the page of `--before-ref` (the last commit before precompressed files and the service worker)
  and no precompressed siblings: what a bundle was;
- `after`: the bundle as `build` writes it now.

Per bundle and network, four visits of a record with a prior annotation, whose summary span is selected at the
first paint (bench_page's cold first highlight), each measuring navigation start -> the first record's texts
painted (`first record`), -> the model's first answer (`model ready`), -> the answer from the selection's tokens
(`first highlight from the tokens`), the bytes on the wire, and the CPU seconds of every Chromium process over
the visit (the machine is shared: wall times include waiting for a core):
- first visit: a fresh browser profile on disk;
- second visit: the same profile, the browser started again (its HTTP cache on disk);
- private: a second load in an incognito context (its HTTP cache in memory) after a first one;
- offline: the profile of the first two, the network cut (`context.set_offline`, and the proxy refuses), the page
  reloaded.
"""

from __future__ import annotations

import argparse
import functools
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_page import CACHE, COLD_SELECT_INIT, REPO, WATCH_SELECT_JS, build_cached, opening_jobs  # noqa: E402
from pagedriver import init_script, query  # noqa: E402  (tests/, on the path by bench_page)

from mercury_static.bundle.contents import load_bundle  # noqa: E402
from throttle import Link, wait_quiet  # noqa: E402  (tests/)

from mercury_static.bundle.serve import BundleHandler, BundleServer  # noqa: E402

ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--no-first-run", "--disable-sync", "--proxy-server=direct://", "--proxy-bypass-list=*"]
PROFILES = {"20": (20e6, 40), "5": (5e6, 150)}
"""Mbit/s down -> (bits per second, round trip ms); upload at the same rate."""
BEFORE_REF = "140616e"
FAITHBENCH = Path(os.environ.get("MERCURY_SHARED", REPO.parent / "shared")) / "data" / "faithbench"
TIMEOUT_S = 240.0
QUIET_S = 2.0
"""A visit ends once no byte has moved for this long after the model is ready."""
MARKS_JS = """() => [performance.getEntriesByName('mercury-first-paint')[0]?.startTime ?? null,
  performance.getEntriesByName('mercury-model-ready')[0]?.startTime ?? null,
  pd.hooked() ? pd.modelStatus() : null,
  performance.getEntriesByName('bench-tokens')[0]?.startTime ?? null]"""
TOKENS_WAIT_S = 20.0
"""After the model is ready, how long a visit waits for the answer from the selection's tokens."""


def cpu_ticks() -> dict[int, int]:
    """CPU clock ticks used so far by each running Chromium process."""
    ticks = {}
    for stat in glob.glob("/proc/[0-9]*/stat"):
        try:
            text = Path(stat).read_text()
        except OSError:
            continue
        name, fields = text[text.index("(") + 1:text.rindex(")")], text[text.rindex(")") + 2:].split()
        if "chrom" in name:
            ticks[int(Path(stat).parent.name)] = int(fields[11]) + int(fields[12])
    return ticks


def cpu_since(before: dict[int, int]) -> float:
    """CPU seconds the Chromium processes running now used since `before` (a process gone meanwhile is not
    counted: a closed page's renderer)."""
    return sum(t - before.get(pid, 0) for pid, t in cpu_ticks().items()) / os.sysconf("SC_CLK_TCK")


def today_bundle(bundle: Path, ref: str) -> Path:
    """`bundle` as `ref` built it: that commit's page (packed from its sources, its index.html), no .br/.gz."""
    from mercury_static.bundle.page import pack

    out = CACHE / "network-today" / bundle.name
    shutil.rmtree(out, ignore_errors=True)
    for path in sorted(bundle.rglob("*")):
        rel = path.relative_to(bundle)
        if path.is_file() and rel.parts[0] not in ("app", "index.html") and path.suffix not in (".br", ".gz"):
            (out / rel).parent.mkdir(parents=True, exist_ok=True)
            os.link(path, out / rel)
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "src"
        src.mkdir()
        archive = subprocess.run(["git", "-C", str(REPO), "archive", ref, "site_template"], capture_output=True,
                                 check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(src)], input=archive, check=True)
        sw = src / "site_template" / "app" / "sw.js"
        if not sw.exists():  # pack copies it; that page never registers it (and it stays in app/, out of scope)
            sw.write_text("", encoding="utf-8")
        page = pack(src / "site_template" / "app", Path(tmp) / "packed")
        import jinja2

        from mercury_static import __version__
        env = jinja2.Environment(loader=jinja2.FileSystemLoader(src / "site_template"), autoescape=True,
                                 keep_trailing_newline=True)
        manifest = json.loads((bundle / "manifest.json").read_text(encoding="utf-8"))
        html = env.get_template("index.html").render(manifest=manifest, title=manifest["title"],
                                                     tool_version=__version__, preload=page.preload)
        (out / "index.html").write_text(html, encoding="utf-8")
        shutil.copytree(page.app, out / "app")
    return out


class CountingHandler(BundleHandler):
    """serve's handler that notes each response's path, body bytes and encoding (where the bytes went)."""

    sent: list[tuple[str, int, str]] = []

    def send_header(self, keyword, value):
        if keyword == "Content-Length":
            self._length = int(value)
        elif keyword == "Content-Encoding":
            self._encoding = value
        super().send_header(keyword, value)

    def end_headers(self):
        super().end_headers()
        if getattr(self, "_length", None) is not None and self.command == "GET":
            self.sent.append((self.path.split("?")[0], self._length, getattr(self, "_encoding", "")))
        self._length = self._encoding = None


def serve_counted(directory: Path) -> int:
    """The bundle served by serve's handler on a free port; returns the port."""
    server = BundleServer(directory, "127.0.0.1", 0)
    server.RequestHandlerClass = functools.partial(CountingHandler, directory=str(directory))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server.server_port


def visit(context, link: Link, query_string: str, offline: bool = False) -> dict:
    """One load of the bundle through `link` in a new page of `context`: its marks, bytes and CPU."""
    page = context.new_page()
    link.reset()
    CountingHandler.sent.clear()
    if offline:
        context.set_offline(True)
        link.set_offline(True)
    cpu0, t0 = cpu_ticks(), time.time()
    row: dict = {"first record": None, "model ready": None, "tokens": None}
    try:
        page.goto(link.url + query_string, wait_until="commit")
    except Exception as err:  # noqa: BLE001 — offline without a service worker: no page at all
        row["error"] = str(err).splitlines()[0]
    else:
        time.sleep(1.0)  # untouched while it loads (bench_page.QUIET_S)
        ready_at = None
        while time.time() - t0 < TIMEOUT_S:
            first, ready, status, tokens = query(page, MARKS_JS)
            row["first record"], row["model ready"], row["tokens"] = first, ready, tokens
            ready_at = ready_at or (time.time() if ready is not None else None)
            if tokens is not None or status == "failed" or (offline and first is None and time.time() - t0 > 15) \
                    or (ready_at is not None and time.time() - ready_at > TOKENS_WAIT_S):
                break
            time.sleep(0.2)
        wait_quiet(link, QUIET_S, TIMEOUT_S)  # what the page and its service worker fetch after (records ahead)
    row["MB"] = link.bytes_down / 1e6
    row["CPU s"] = cpu_since(cpu0)
    row["files"] = list(CountingHandler.sent)
    if offline:
        context.set_offline(False)
        link.set_offline(False)
    page.close()
    return row


def run_variant(p, port: int, bps: float, rtt: float, qs: str, init: str) -> dict[str, dict]:
    """The four visits of one bundle over one network; `init`: the selection made at the first paint."""
    rows = {}
    link = Link(port, bps, rtt)
    profile = Path(tempfile.mkdtemp(prefix="bench-network-"))
    try:
        launch = {"executable_path": os.environ.get("CHROMIUM", "/usr/bin/chromium"), "headless": True, "args": ARGS,
                  "viewport": {"width": 1500, "height": 900}}
        ctx = p.chromium.launch_persistent_context(str(profile), **launch)
        ctx.add_init_script(init)
        rows["first visit"] = visit(ctx, link, qs)
        ctx.close()
        ctx = p.chromium.launch_persistent_context(str(profile), **launch)
        ctx.add_init_script(init)
        rows["second visit"] = visit(ctx, link, qs)
        rows["offline"] = visit(ctx, link, qs, offline=True)
        ctx.close()
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    browser = p.chromium.launch(executable_path=launch["executable_path"], headless=True, args=ARGS)
    ctx = browser.new_context(viewport={"width": 1500, "height": 900})
    ctx.add_init_script(init)
    visit(ctx, link, qs)
    rows["private"] = visit(ctx, link, qs)
    browser.close()
    return rows


def fmt(v, unit: str) -> str:
    if v is None:
        return "—"
    return f"{v / 1000:.2f}" if unit == "ms" else f"{v:.2f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--profiles", default="20,5")
    ap.add_argument("--before-ref", default=BEFORE_REF)
    ap.add_argument("--variants", default="today,after")
    ap.add_argument("--rebuild", action="store_true", help="build the FaithBench bundle again (after a change of build)")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    after = build_cached("faithbench", sorted(Path(x) for x in glob.glob(str(FAITHBENCH / "batch_*.json"))),
                         rebuild=args.rebuild, title="FaithBench")
    today = today_bundle(after, args.before_ref)
    ports = {"today": serve_counted(today), "after": serve_counted(after)}
    [(rid, side, start, end)] = opening_jobs(load_bundle(after), 1)
    qs = f"?annotator=bench#record={rid}"
    watch = WATCH_SELECT_JS.replace("setTimeout(finish, 20000)", f"setTimeout(finish, {TIMEOUT_S * 1000:.0f})")
    assert watch != WATCH_SELECT_JS  # a slow link's model comes long after bench_page's 20 s
    init = init_script(COLD_SELECT_INIT.replace("SPAN_ARGS", json.dumps([side, start, end, True]))
                       .replace("WATCH_SELECT", watch))
    results: list[tuple[str, str, str, dict]] = []
    with sync_playwright() as p:
        for run in range(args.runs):
            for prof in args.profiles.split(","):
                bps, rtt = PROFILES[prof]
                order = args.variants.split(",")
                for variant in (order if run % 2 == 0 else order[::-1]):
                    rows = run_variant(p, ports[variant], bps, rtt, qs, init)
                    for visit_name, row in rows.items():
                        results.append((prof, variant, visit_name, row))
                        files = row.pop("files")
                        print(prof, variant, visit_name, row, file=sys.stderr, flush=True)
                        for path, size, encoding in sorted(files, key=lambda f: -f[1])[:8]:
                            print(f"    {size / 1e6:7.3f} MB {encoding or '-':5} {path}", file=sys.stderr)
    print("| network | visit | bundle | MB on the wire | first record s | model ready s | first highlight from the tokens s "
          "| Chromium CPU s |")
    print("|---|---|---|---|---|---|---|---|")
    for prof, variant, visit_name, row in sorted(results, key=lambda r: (-int(r[0]), list(
            ("first visit", "second visit", "private", "offline")).index(r[2]), r[1] != "today")):
        bps, rtt = PROFILES[prof]
        extra = f" ({row['error'][:40]})" if row.get("error") else ""
        print(f"| {prof} Mbit/s, {rtt} ms | {visit_name} | {variant} | {row['MB']:.2f} | "
              f"{fmt(row['first record'], 'ms')}{extra} | {fmt(row['model ready'], 'ms')} | {fmt(row['tokens'], 'ms')} | "
              f"{row['CPU s']:.1f} |")


if __name__ == "__main__":
    main()
