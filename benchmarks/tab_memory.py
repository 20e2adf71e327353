"""Memory of a bundle's tab in a Chromium that no DevTools network agent watches.

A Playwright-driven page has the DevTools Network domain enabled (Playwright needs it for its request
events), and Chromium then keeps a copy of every fetched response body in the renderer (the inspector
buffer: up to ~100-200 MB), so after a few record switches a Playwright tab holds all the shards it
fetched. This module drives Chromium over `--remote-debugging-pipe` with no domain but Target (open the
tab, attach to its worker), Page.navigate and Runtime.evaluate, and reads the renderer's memory from
/proc, as a user's tab would have it.

    python benchmarks/tab_memory.py BUNDLE_DIR        # prints the figures
    measure(bundle_dir) -> {"first record": {...}, "after switches": {...}, "after switches + GC": {...},
                            "after switches + memory-reducing GC": {...}}   (renderer_memory_mb fields)
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mercury_static.bundle.record_index import read_columns

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_page import ARGS, serve  # noqa: E402
from pagedriver import expression  # noqa: E402  (tests/, on the path by bench_page)


class PipeBrowser:
    """Headless Chromium spoken to over --remote-debugging-pipe (fd 3 in, fd 4 out, NUL-separated JSON)."""

    def __init__(self, args: list[str]):
        to_chrome_r, self._w = os.pipe()
        self._r, from_chrome_w = os.pipe()
        self.profile = tempfile.mkdtemp(prefix="tabmem-")

        def fds():
            os.dup2(to_chrome_r, 3)
            os.dup2(from_chrome_w, 4)

        chromium = os.environ.get("CHROMIUM", "/usr/bin/chromium")
        self.proc = subprocess.Popen([chromium, "--headless", "--remote-debugging-pipe", f"--user-data-dir={self.profile}",
                                      *args, "about:blank"], pass_fds=(3, 4), preexec_fn=fds,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._id = 0
        self._buf = b""
        self.attached: list[dict] = []  # Target.attachedToTarget events (auto-attached workers)

    def send(self, method: str, params: dict | None = None, session: str | None = None) -> dict:
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._w, json.dumps(msg).encode() + b"\0")
        while True:
            while b"\0" not in self._buf:
                chunk = os.read(self._r, 1 << 20)
                if not chunk:
                    raise RuntimeError("chromium closed the pipe")
                self._buf += chunk
            raw, self._buf = self._buf.split(b"\0", 1)
            reply = json.loads(raw)
            if reply.get("method") == "Target.attachedToTarget":
                self.attached.append(reply["params"])
            if reply.get("id") == self._id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply["result"]

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()
        os.close(self._w)
        os.close(self._r)
        shutil.rmtree(self.profile, ignore_errors=True)


class Tab:
    """One page target; JavaScript evaluated through the Runtime domain only."""

    def __init__(self, browser: PipeBrowser, url: str):
        self.b = browser
        target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        browser.send("Target.setAutoAttach", {"autoAttach": True, "waitForDebuggerOnStart": False, "flatten": True},
                     self.session)  # the embedding worker, to collect its garbage too
        browser.send("Page.navigate", {"url": url}, self.session)

    def collect_garbage(self, reduce_memory: bool = False) -> None:
        """A full GC in the page and in its workers (Chromium runs with --js-flags=--expose-gc); with
        `reduce_memory`, the memory-reducing kind Chromium runs under memory pressure (it also gives
        the heap's free pages back)."""
        call = "gc({type: 'major', execution: 'sync', flavor: 'last-resort'})" if reduce_memory else "gc()"
        self.eval(call)
        for target in self.b.attached:
            if target["targetInfo"]["type"] == "worker":
                self.eval(call, target["sessionId"])

    def eval(self, expression: str, session: str | None = None):
        r = self.b.send("Runtime.evaluate", {"expression": expression, "awaitPromise": True, "returnByValue": True},
                        session or self.session)
        if "exceptionDetails" in r:
            raise RuntimeError(f"{expression}: {r['exceptionDetails'].get('text')}")
        return r["result"].get("value")

    def wait(self, condition: str, timeout: float = 120.0) -> None:
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.eval(f"(() => {{ try {{ return Boolean({condition}); }} catch {{ return false; }} }})()"):
                return
            time.sleep(0.1)
        raise TimeoutError(condition)


def renderer_memory_mb() -> list[dict]:
    """Memory of each Chromium renderer process started by this process (VmRSS, and PSS / private from
    /proc/PID/smaps_rollup: RSS also counts Chromium's shared pages, PSS splits them among processes)."""
    children: dict[int, list[int]] = {}
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                ppid = int((p / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(p.name))
    todo, out = [os.getpid()], []
    while todo:
        pid = todo.pop()
        todo.extend(children.get(pid, []))
        try:
            if b"--type=renderer" not in Path(f"/proc/{pid}/cmdline").read_bytes():
                continue
            fields = {}
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
                name, value = line.split(":", 1)
                fields[name] = int(value.split()[0]) / 1024
        except OSError:
            continue
        out.append({"pid": pid, "rss": fields["Rss"], "pss": fields["Pss"],
                    "private": fields["Private_Clean"] + fields["Private_Dirty"]})
    return out


def descends_from(pid: int, ancestor: int) -> bool:
    while pid > 1:
        if pid == ancestor:
            return True
        try:
            pid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            return False
    return False


def renderer(browser: PipeBrowser) -> dict:
    """The largest renderer process of `browser` (the tab's; its worker runs inside it)."""
    own = [r for r in renderer_memory_mb() if descends_from(r["pid"], browser.proc.pid)]
    return max(own, key=lambda r: r["private"])


def measure(bundle: Path, switches: int = 24) -> dict:
    """Open the bundle (model loaded), then `switches` records spread over it (as bench_scale.visit):
    renderer memory at the first record, after the switches, after a full GC of the page and its embedding
    worker, and after a memory-reducing GC of both (what is left is live memory)."""
    index = read_columns(bundle / "data")
    server, url = serve(bundle)
    browser = PipeBrowser([*ARGS, "--js-flags=--expose-gc"])
    try:
        tab = Tab(browser, url + "?annotator=bench")
        tab.wait("document.body.dataset.ready === 'true'")
        tab.wait(expression("() => ['ready', 'failed'].includes(pd.modelStatus())"), 180)
        time.sleep(0.5)

        def snapshot() -> dict:
            return {**renderer(browser), "elements": tab.eval("document.getElementsByTagName('*').length")}

        memory = {"first record": snapshot()}
        ids = index["ids"]
        step = max(1, len(ids) // (switches + 1))
        for i in list(range(step, len(ids), step))[:switches]:
            tab.eval(expression("(id) => pd.goTo(id)", ids[i]))
            tab.wait(expression("(id) => pd.currentId() === id && pd.record() && !pd.loading()", ids[i]))
            time.sleep(0.3)
        memory["after switches"] = snapshot()
        tab.collect_garbage()
        time.sleep(1)
        memory["after switches + GC"] = snapshot()
        tab.collect_garbage(reduce_memory=True)
        time.sleep(1)
        memory["after switches + memory-reducing GC"] = snapshot()
        return memory
    finally:
        browser.close()
        server.shutdown()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("bundle", type=Path)
    ap.add_argument("--switches", type=int, default=24)
    args = ap.parse_args()
    for when, m in measure(args.bundle, args.switches).items():
        print(f"{when:36s} private {m['private']:5.0f} MB  PSS {m['pss']:5.0f} MB  RSS {m['rss']:5.0f} MB  "
              f"elements {m['elements']:,}")


if __name__ == "__main__":
    main()
