"""The first visit over a real network, a second visit, and an offline one (issue 47).

    python benchmarks/bench_network.py [--runs 1] [--profiles 20,5] [--before-ref REF] [--variants today,after]

Headless Chromium, the network held by Chrome DevTools' emulation (`Network.emulateNetworkConditions` on the
page, its model worker and its service worker) to 20 Mbit/s down / 40 ms round trip and 5 Mbit/s / 150 ms.
Bytes on the wire are summed from `Network.loadingFinished`'s `encodedDataLength` over every request of the
page, its worker and its service worker (a response the service worker answered is counted where it was
fetched, once). Two bundles of the same FaithBench data, served by `mercury-static serve` in the same run:
- `today`: the page of `--before-ref` (the last commit before precompressed files and the service worker)
  and no precompressed siblings: what a bundle was;
- `after`: the bundle as `build` writes it now.

Per bundle and network, four visits, each measuring navigation start -> the first record's texts painted
(`first record`), -> the model's first answer (`model ready`), the bytes on the wire, and the CPU seconds
of every Chromium process over the visit (the machine is shared: wall times include waiting for a core):
- first visit: a fresh browser profile on disk;
- second visit: the same profile, the browser started again (its HTTP cache on disk);
- private: a second load in an incognito context (its HTTP cache in memory) after a first one;
- offline: the profile of the first two, the network cut (`context.set_offline`), the page reloaded.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_page import CACHE, REPO, build_cached, serve  # noqa: E402
from pagedriver import query  # noqa: E402  (tests/, on the path by bench_page)

ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--no-first-run", "--disable-sync"]
PROFILES = {"20": (20e6, 40), "5": (5e6, 150)}
"""Mbit/s down -> (bits per second, round trip ms); upload at the same rate."""
BEFORE_REF = "140616e"
FAITHBENCH = Path(os.environ.get("MERCURY_SHARED", REPO.parent / "shared")) / "data" / "faithbench"
TIMEOUT_S = 240.0
MARKS_JS = """() => [performance.getEntriesByName('mercury-first-paint')[0]?.startTime ?? null,
  performance.getEntriesByName('mercury-model-ready')[0]?.startTime ?? null,
  pd.hooked() ? pd.modelStatus() : null]"""


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


class Wire:
    """Network emulation and byte counting over a page's CDP session and the targets it starts (its model
    worker, its service worker), attached through the page session (non-flat: Target.sendMessageToTarget)."""

    def __init__(self, context, page, bps: float, rtt: float, offline: bool = False):
        self.cond = {"offline": offline, "latency": rtt, "downloadThroughput": bps / 8, "uploadThroughput": bps / 8}
        self.bytes = 0
        self.next_id = 10**6
        self.from_sw: dict[tuple[str, str], bool] = {}
        self.cdp = context.new_cdp_session(page)
        self.cdp.on("Network.responseReceived", lambda ev: self.response("page", ev))
        self.cdp.on("Network.loadingFinished", lambda ev: self.finished("page", ev))
        self.cdp.on("Target.attachedToTarget", self.attached)
        self.cdp.on("Target.receivedMessageFromTarget", self.received)
        self.cdp.send("Network.enable")
        self.cdp.send("Network.emulateNetworkConditions", self.cond)
        self.cdp.send("Target.setAutoAttach", {"autoAttach": True, "waitForDebuggerOnStart": True, "flatten": False})

    def response(self, who: str, ev: dict) -> None:
        self.from_sw[(who, ev["requestId"])] = bool(ev["response"].get("fromServiceWorker"))

    def finished(self, who: str, ev: dict) -> None:
        if not self.from_sw.pop((who, ev["requestId"]), False):
            self.bytes += ev["encodedDataLength"]

    def child(self, session: str, method: str, params: dict) -> None:
        self.next_id += 1
        self.cdp.send("Target.sendMessageToTarget", {"sessionId": session, "message": json.dumps(
            {"id": self.next_id, "method": method, "params": params})})

    def attached(self, ev: dict) -> None:
        session = ev["sessionId"]
        self.child(session, "Network.enable", {})
        self.child(session, "Network.emulateNetworkConditions", self.cond)  # "not supported" by a dedicated worker
        self.child(session, "Target.setAutoAttach", {"autoAttach": True, "waitForDebuggerOnStart": True, "flatten": False})
        self.child(session, "Runtime.runIfWaitingForDebugger", {})

    def received(self, ev: dict) -> None:
        msg = json.loads(ev["message"])
        method = msg.get("method")
        if method == "Network.responseReceived":
            self.response(ev["sessionId"], msg["params"])
        elif method == "Network.loadingFinished":
            self.finished(ev["sessionId"], msg["params"])


def visit(context, url: str, bps: float, rtt: float, offline: bool = False) -> dict:
    """One load of `url` in a new page of `context`: its marks, bytes and CPU."""
    page = context.new_page()
    wire = Wire(context, page, bps, rtt, offline)
    if offline:
        context.set_offline(True)
    cpu0, t0 = cpu_ticks(), time.time()
    row: dict = {"first record": None, "model ready": None}
    try:
        page.goto(url, wait_until="commit")
    except Exception as err:  # noqa: BLE001 — offline without a service worker: no page at all
        row["error"] = str(err).splitlines()[0]
    else:
        time.sleep(1.0)  # untouched while it loads (bench_page.QUIET_S)
        while time.time() - t0 < TIMEOUT_S:
            first, ready, status = query(page, MARKS_JS)
            row["first record"], row["model ready"] = first, ready
            if ready is not None or status == "failed" or (offline and first is None and time.time() - t0 > 15):
                break
            time.sleep(0.2)
        time.sleep(1.5)  # what the page and its service worker fetch right after (the queue's records ahead)
    row["MB"] = wire.bytes / 1e6
    row["CPU s"] = cpu_since(cpu0)
    if offline:
        context.set_offline(False)
    page.close()
    return row


def run_variant(p, url: str, bps: float, rtt: float) -> dict[str, dict]:
    rows = {}
    profile = Path(tempfile.mkdtemp(prefix="bench-network-"))
    try:
        launch = {"executable_path": os.environ.get("CHROMIUM", "/usr/bin/chromium"), "headless": True, "args": ARGS,
                  "viewport": {"width": 1500, "height": 900}}
        ctx = p.chromium.launch_persistent_context(str(profile), **launch)
        rows["first visit"] = visit(ctx, url, bps, rtt)
        ctx.close()
        ctx = p.chromium.launch_persistent_context(str(profile), **launch)
        rows["second visit"] = visit(ctx, url, bps, rtt)
        rows["offline"] = visit(ctx, url, bps, rtt, offline=True)
        ctx.close()
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    browser = p.chromium.launch(executable_path=launch["executable_path"], headless=True, args=ARGS)
    ctx = browser.new_context(viewport={"width": 1500, "height": 900})
    visit(ctx, url, bps, rtt)
    rows["private"] = visit(ctx, url, bps, rtt)
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
    urls = {"today": serve(today)[1], "after": serve(after)[1]}
    results: list[tuple[str, str, str, dict]] = []
    with sync_playwright() as p:
        for run in range(args.runs):
            for prof in args.profiles.split(","):
                bps, rtt = PROFILES[prof]
                order = args.variants.split(",")
                for variant in (order if run % 2 == 0 else order[::-1]):
                    rows = run_variant(p, urls[variant] + "?annotator=bench", bps, rtt)
                    for visit_name, row in rows.items():
                        results.append((prof, variant, visit_name, row))
                        print(prof, variant, visit_name, row, file=sys.stderr, flush=True)
    print("| network | visit | bundle | MB on the wire | first record s | model ready s | Chromium CPU s |")
    print("|---|---|---|---|---|---|---|")
    for prof, variant, visit_name, row in sorted(results, key=lambda r: (-int(r[0]), list(
            ("first visit", "second visit", "private", "offline")).index(r[2]), r[1] != "today")):
        bps, rtt = PROFILES[prof]
        extra = f" ({row['error'][:40]})" if row.get("error") else ""
        print(f"| {prof} Mbit/s, {rtt} ms | {visit_name} | {variant} | {row['MB']:.2f} | "
              f"{fmt(row['first record'], 'ms')}{extra} | {fmt(row['model ready'], 'ms')} | {row['CPU s']:.1f} |")


if __name__ == "__main__":
    main()
