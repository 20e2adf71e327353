"""A slow network between the browser and a local server: a TCP proxy that holds every byte to one link's
rate and round trip, and counts the bytes it carries.

Why a proxy rather than Chrome DevTools' network emulation: emulation is set per target, and a service
worker's own fetches (the model it keeps for offline use) escape it unless the worker's target is found and
attached in time; the proxy sits on the wire, so the page, its workers and its service worker share one
link, as they do on a real connection.

The link: each connection waits one round trip before its first byte (the TCP handshake); bytes towards
the browser queue on one shared link at `bps` and arrive half a round trip after they leave it; bytes
towards the server arrive half a round trip late. `offline` refuses new connections and drops open ones.
"""

from __future__ import annotations

import asyncio
import threading
import time

CHUNK = 16 * 1024


class Link:
    def __init__(self, upstream_port: int, bps: float, rtt_ms: float):
        self.upstream_port = upstream_port
        self.rate = bps / 8  # bytes per second
        self.half_rtt = rtt_ms / 2000
        self.bytes_down = 0
        self.bytes_up = 0
        self.offline = False
        self._free_at = 0.0  # when the shared downstream link is next idle
        self._writers: set[asyncio.StreamWriter] = set()
        self._loop = asyncio.new_event_loop()
        started = threading.Event()
        self.port = 0

        def run() -> None:
            asyncio.set_event_loop(self._loop)
            server = self._loop.run_until_complete(asyncio.start_server(self._connection, "127.0.0.1", 0))
            self.port = server.sockets[0].getsockname()[1]
            started.set()
            self._loop.run_forever()

        threading.Thread(target=run, daemon=True).start()
        started.wait()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def reset(self) -> None:
        """Zero the byte counts (a new visit)."""
        self.bytes_down = self.bytes_up = 0

    def set_offline(self, offline: bool) -> None:
        self.offline = offline
        if offline:
            for w in list(self._writers):
                self._loop.call_soon_threadsafe(w.close)

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.offline:
            writer.close()
            return
        await asyncio.sleep(2 * self.half_rtt)
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.upstream_port)
        except OSError:
            writer.close()
            return
        self._writers.update((writer, up_writer))
        try:
            await asyncio.gather(self._pump(reader, up_writer, down=False), self._pump(up_reader, writer, down=True),
                                 return_exceptions=True)
        finally:
            self._writers.difference_update((writer, up_writer))
            for w in (writer, up_writer):
                w.close()

    async def _pump(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, down: bool) -> None:
        """Read as bytes come, each chunk stamped with its arrival time; a second task delivers them then
        (the round trip delays every byte once, the link's rate spaces them out)."""
        loop, queue = self._loop, asyncio.Queue()

        async def deliver() -> None:
            while (item := await queue.get()) is not None:
                arrive, data = item
                await asyncio.sleep(max(0.0, arrive - loop.time()))
                writer.write(data)
                await writer.drain()
            if writer.can_write_eof():
                writer.write_eof()

        sender = asyncio.ensure_future(deliver())
        try:
            while not self.offline:
                data = await reader.read(CHUNK)
                if not data:
                    break
                now = loop.time()
                if down:
                    self._free_at = max(self._free_at, now) + len(data) / self.rate
                    self.bytes_down += len(data)
                    queue.put_nowait((self._free_at + self.half_rtt, data))
                    await asyncio.sleep(max(0.0, self._free_at - loop.time() - 0.05))  # read no further ahead
                else:
                    self.bytes_up += len(data)
                    queue.put_nowait((now + self.half_rtt, data))
        finally:
            queue.put_nowait(None)
            await sender


def wait_quiet(link: Link, quiet_s: float, timeout_s: float) -> None:
    """Wait until no byte has moved for `quiet_s` (what a visit fetches after its marks), at most `timeout_s`."""
    deadline, last, since = time.time() + timeout_s, -1, time.time()
    while time.time() < deadline:
        total = link.bytes_down + link.bytes_up
        if total != last:
            last, since = total, time.time()
        elif time.time() - since >= quiet_s:
            return
        time.sleep(0.1)
