"""What survives a SIGKILL of the browser right after a write (issue 10 §1): localStorage, IndexedDB
with relaxed durability, IndexedDB with strict durability (what the page uses).

Each trial: a persistent Chromium profile, a page on a loopback origin writes a value (IndexedDB: waits
for the transaction's `complete`), waits `--delay` ms, the browser process is SIGKILLed, the profile is
reopened and the value read back. Prints survivals per method.

Usage:  python benchmarks/bench_durability.py [--trials 5] [--delay 0]
"""

from __future__ import annotations

import argparse
import os
import signal
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--no-first-run"]

WRITE = {
    "localStorage": "(v) => { localStorage.setItem('k', v); }",
    "IndexedDB relaxed": None,
    "IndexedDB strict": None,
}
IDB_WRITE = """async ([v, durability]) => {
  const req = (r) => new Promise((ok, ko) => { r.onsuccess = () => ok(r.result); r.onerror = () => ko(r.error); });
  const open = indexedDB.open('d', 1);
  open.onupgradeneeded = () => open.result.createObjectStore('s');
  const db = await req(open);
  const tx = db.transaction('s', 'readwrite', {durability});
  tx.objectStore('s').put(v, 'k');
  await new Promise((ok, ko) => { tx.oncomplete = ok; tx.onabort = () => ko(tx.error); });
}"""
READ = {
    "localStorage": "() => localStorage.getItem('k')",
    "IndexedDB": """async () => {
  const req = (r) => new Promise((ok, ko) => { r.onsuccess = () => ok(r.result); r.onerror = () => ko(r.error); });
  const open = indexedDB.open('d', 1);
  open.onupgradeneeded = () => open.result.createObjectStore('s');
  const db = await req(open);
  return (await req(db.transaction('s').objectStore('s').get('k'))) ?? null;
}""",
}


class Blank(BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 - http.server's name
        body = b"<!doctype html><title>d</title>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


class QuietServer(ThreadingHTTPServer):
    def handle_error(self, request, client_address):  # a killed browser drops its connections
        pass


def browser_pid(profile: Path) -> int:
    flag = f"--user-data-dir={profile}".encode()
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                args = (p / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if flag in args and not any(a.startswith(b"--type=") for a in args):
                return int(p.name)
    raise RuntimeError("browser process not found")


def trial(kind, url: str, method: str, delay_ms: int) -> bool:
    with tempfile.TemporaryDirectory() as tmp:
        profile = Path(tmp) / "profile"
        exe = os.environ.get("CHROMIUM", "/usr/bin/chromium")
        ctx = kind.launch_persistent_context(profile, executable_path=exe, headless=True, args=ARGS)
        page = ctx.pages[0] if ctx.pages else ctx.new_page()
        page.goto(url)
        value = f"v{time.time_ns()}"
        if method == "localStorage":
            page.evaluate(WRITE[method], value)
        else:
            page.evaluate(IDB_WRITE, [value, method.split()[1]])
        time.sleep(delay_ms / 1000)
        os.kill(browser_pid(profile), signal.SIGKILL)
        try:
            ctx.close()
        except Exception:  # noqa: BLE001 - the browser is gone
            pass
        ctx = kind.launch_persistent_context(profile, executable_path=exe, headless=True, args=ARGS)
        page = ctx.pages[0] if ctx.pages else ctx.new_page()
        page.goto(url)
        got = page.evaluate(READ["localStorage" if method == "localStorage" else "IndexedDB"])
        ctx.close()
        return got == value


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=5)
    ap.add_argument("--delay", type=int, default=0, help="ms between the write and the SIGKILL")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    server = QuietServer(("127.0.0.1", 0), Blank)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_port}/"
    with sync_playwright() as p:
        print(f"SIGKILL {args.delay} ms after the write (IndexedDB: after the transaction's complete event)")
        print("| storage | survived |")
        print("|---|---|")
        for method in WRITE:
            ok = sum(trial(p.chromium, url, method, args.delay) for _ in range(args.trials))
            print(f"| {method} | {ok} / {args.trials} |", flush=True)
    server.shutdown()


if __name__ == "__main__":
    main()
