"""`build --engine ray` on a real local Ray (2 CPUs) gives the bundle `--engine local` gives,
byte for byte; a cluster address that answers nothing is one line, at once."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import TEST_CACHE

pytestmark = pytest.mark.slow  # starts Ray (and a Ray cluster): seconds of fixed cost a test

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True, scope="module")
def _ray():
    """Skipped without Ray; imported here, not at collection (3 s of CPU in every run that deselects these)."""
    pytest.importorskip("ray.data")


WORDS = ("harbour lighthouse council euros million reopen June project cost restoration keeper storm ferry "
         "island tourists engineers granite lamp beam nautical miles coast guard volunteers museum").split()


def dataset(path: Path, records: int = 60) -> Path:
    """Records whose sentences vary in length (many batches, so both actors work) and repeat (dedup)."""
    rng = random.Random(7)

    def sentence() -> str:
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 60))).capitalize() + "."

    shared = [sentence() for _ in range(5)]
    with path.open("w", encoding="utf-8") as f:
        for i in range(records):
            source = " ".join([sentence() for _ in range(rng.randint(4, 14))] + shared[: i % 3])
            summary = " ".join(sentence() for _ in range(rng.randint(1, 4)))
            f.write(json.dumps({"id": f"r{i}", "source": source, "summary": summary}) + "\n")
    return path


def files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_ray_engine_builds_the_local_engines_bundle(tmp_path):
    from mercury_static.pipeline.steps import BuildOptions, build

    data = dataset(tmp_path / "data.jsonl")
    local, ray_one, ray_two = tmp_path / "local", tmp_path / "ray1", tmp_path / "ray2"
    build([data], local, BuildOptions(cache_dir=TEST_CACHE))
    build([data], ray_two, BuildOptions(cache_dir=TEST_CACHE, engine="ray", workers=2))
    # chunks of 7 records: one Ray for the build, called once per chunk of the streaming build
    build([data], ray_one, BuildOptions(cache_dir=TEST_CACHE, engine="ray", workers=1, chunk_records=7))
    expected = files(local)
    assert len(expected) > 10
    assert files(ray_two) == expected
    assert files(ray_one) == expected


def test_the_engine_itself_gives_the_local_vectors(exported_model, embedder, tmp_path):
    """The engine called directly (so the equality above cannot come from a build that ran locally)."""
    import numpy as np

    from mercury_static.assist.embed_ray import RayEngine

    texts = [line for rec in dataset(tmp_path / "d.jsonl", 20).read_text().splitlines()
             for line in json.loads(rec)["source"].split(". ")]
    local, slot = embedder.embed_unique(texts, dtype=np.float16)
    seen = []
    ray_engine = RayEngine(exported_model.dir, workers=2)

    def engine(ids, batches):
        for batch, vectors in ray_engine(ids, batches):
            seen.append(len(batch))
            yield batch, vectors

    try:
        remote, remote_slot = embedder.embed_unique(texts, dtype=np.float16, engine=engine)
    finally:
        ray_engine.close()
    assert sum(seen) == len(local) and len(seen) > 4
    assert np.array_equal(slot, remote_slot) and local.tobytes() == remote.tobytes()


def cli(*args) -> subprocess.CompletedProcess:
    """The real command in a subprocess (a hang is a failed test, not a stuck suite)."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "MERCURY_STATIC_CACHE": str(TEST_CACHE), "HF_HUB_OFFLINE": "1"}
    return subprocess.run([sys.executable, "-c", "from mercury_static.cli import app; app()", *map(str, args)],
                          capture_output=True, text=True, timeout=120, env=env)


def test_unreachable_cluster_is_one_line_before_any_work(tmp_path):
    out = tmp_path / "bundle"
    run = cli("build", dataset(tmp_path / "d.jsonl", 3), "-o", out, "--engine", "ray", "--ray-address", "127.0.0.1:1")
    assert run.returncode == 2, run.stderr
    lines = [x for x in (run.stdout + run.stderr).splitlines() if x.strip()]
    assert lines == ["error: --ray-address: nothing answers at 127.0.0.1:1 (Connection refused)"], lines
    assert not out.exists()


@pytest.mark.parametrize("args, message", [
    (["--engine", "spark"], "error: --engine spark: expected local or ray"),
    (["--ray-address", "auto"], "error: --ray-address: only with --engine ray"),
    (["--engine", "ray", "--ray-address", "nowhere"], "error: --ray-address: 'nowhere': expected HOST:PORT, "
                                                      "ray://HOST:PORT or auto"),
])
def test_engine_flags_are_checked(tmp_path, args, message):
    run = cli("build", dataset(tmp_path / "d.jsonl", 2), "-o", tmp_path / "b", *args)
    assert run.returncode == 2
    assert [x for x in (run.stdout + run.stderr).splitlines() if x.strip()] == [message]


class _NotRay:
    """A plain TCP service on loopback that is not Ray: one that never answers, or one that answers HTTP/1."""

    def __init__(self, reply: bytes | None):
        import socket
        import threading

        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.reply, self.conns = reply, []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            self.conns.append(conn)
            if self.reply is not None:
                conn.recv(100)
                conn.sendall(self.reply)

    def close(self):
        for c in [*self.conns, self.server]:
            c.close()


@pytest.mark.parametrize("reply", [None, b"HTTP/1.1 400 Bad Request\r\n\r\n", b"SSH-2.0-OpenSSH_9.6\r\n"])
@pytest.mark.parametrize("scheme", ["", "ray://"])
def test_a_service_that_is_not_ray_is_one_line_in_seconds(tmp_path, reply, scheme):
    """Ray itself retries such an address for minutes; the probe speaks gRPC's HTTP/2 preface and wants
    a SETTINGS frame back within 3 s."""
    service = _NotRay(reply)
    try:
        address = f"{scheme}127.0.0.1:{service.port}"
        start = time.monotonic()
        run = cli("build", dataset(tmp_path / "d.jsonl", 3), "-o", tmp_path / "b", "--engine", "ray",
                  "--ray-address", address)
        took = time.monotonic() - start
    finally:
        service.close()
    lines = [x for x in (run.stdout + run.stderr).splitlines() if x.strip()]
    assert run.returncode == 2 and lines == [f"error: --ray-address: {address} answers, but not as Ray (no gRPC "
                                             "reply within 3 s): give a Ray cluster's address (HOST:6379, or "
                                             "ray://HOST:10001)"], lines
    assert took < 20, took  # the command's start-up (~2 s, more on a loaded machine) and the 3 s probe
    assert not (tmp_path / "b").exists()


def test_a_real_ray_cluster_passes_the_probe():
    import ray

    from mercury_static.assist.embed_ray import _probe

    ray.init(num_cpus=1, include_dashboard=False, logging_level="ERROR")
    try:
        _probe(ray.get_runtime_context().gcs_address)
    finally:
        ray.shutdown()
