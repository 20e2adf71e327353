"""The Ray engine of the build's embedding step (`build --engine ray`, the `[ray]` extra).

Ray Data runs the batches `Embedder.plan` made on an actor pool: each actor loads the model once (its
files travel through Ray's object store, so a cluster's nodes need no shared folder, only
`mercury-static[ray]` installed), batches stream to the actors with Ray Data's back-pressure, and vectors
come back as they finish. The batches and the session options are those of the local engine, so the
bundle is byte-identical to `--engine local`. No scheduler of our own: Ray Data is the one teams run.
"""

from __future__ import annotations

import logging
import os
import socket
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from mercury_static.core.records import InputError

BATCHES_PER_TASK = 8
"""Planned batches (≤ 512 padded tokens each) per Ray Data task: enough to hide Ray's per-task overhead,
small enough to keep every worker busy until the end."""


_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])
"""HTTP/2's client preface and an empty SETTINGS frame: a gRPC server (Ray's GCS, its client server) answers
with a SETTINGS frame of its own at once."""


def _probe(address: str, timeout: float = 3.0) -> None:
    """One line now if nothing listens at a cluster address, or something that is not Ray (Ray itself
    retries for minutes): Ray's cluster and client ports speak gRPC, so the first frame back must be
    HTTP/2's SETTINGS. A cluster with TLS (RAY_USE_TLS) is only checked to listen."""
    hostport = address.split("://", 1)[-1].rsplit("/", 1)[0]
    host, _, port = hostport.rpartition(":")
    if not host or not port.isdigit():
        raise InputError("--ray-address", None, None, f"{address!r}: expected HOST:PORT, ray://HOST:PORT or auto")
    try:
        conn = socket.create_connection((host.strip("[]"), int(port)), timeout=timeout)
    except OSError as e:
        raise InputError("--ray-address", None, None, f"nothing answers at {address} ({e.strerror or e})") from None
    with conn:
        if os.environ.get("RAY_USE_TLS", "0").lower() in ("1", "true"):
            return
        reply = b""
        try:
            conn.sendall(_PREFACE)
            deadline = time.monotonic() + timeout
            while len(reply) < 9 and (chunk := conn.recv(9 - len(reply))):
                reply += chunk
                conn.settimeout(max(0.01, deadline - time.monotonic()))
        except OSError:  # a timeout, or the service hung up
            pass
    if len(reply) < 9 or reply[3] != 4:
        raise InputError("--ray-address", None, None, f"{address} answers, but not as Ray (no gRPC reply within "
                         f"{timeout:g} s): give a Ray cluster's address (HOST:6379, or ray://HOST:10001)")


def _model_files(model_dir: Path) -> dict[str, bytes]:
    return {str(p.relative_to(model_dir)): p.read_bytes() for p in sorted(model_dir.rglob("*")) if p.is_file()}


class _EmbedActor:
    """One onnxruntime session per actor, from the model files in the object store (`files` holds their
    reference in a list, so that Ray passes the reference, not the model's bytes as constructor arguments)."""

    def __init__(self, files: list):
        import ray

        from mercury_static.assist.embed import Embedder

        self._dir = tempfile.TemporaryDirectory(prefix="mercury-static-model-")
        root = Path(self._dir.name)
        for rel, data in ray.get(files[0]).items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_bytes(data)
        self._embedder = Embedder(root, workers=1)

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, list]:
        rows, vectors = [], []
        for flat, lengths, members in zip(batch["flat"], batch["lengths"], batch["rows"]):
            ids = np.split(np.asarray(flat), np.cumsum(lengths)[:-1])
            rows.append(np.asarray(members, dtype=np.int64))
            vectors.append(self._embedder._run(ids).astype(np.float32).ravel())
        return {"rows": rows, "vectors": vectors}


class RayEngine:
    """An `embed.Engine` on Ray: `address` is a running cluster's (`ray://…` or `auto`); without it a local
    Ray with `workers` CPUs is started for the build and stopped after it."""

    def __init__(self, model_dir: Path, workers: int | None = None, address: str | None = None):
        if address and address != "auto":
            _probe(address)
        try:
            import ray  # noqa: F401
            import ray.data  # noqa: F401
        except ImportError:
            raise InputError("--engine ray", None, None, "needs Ray: pip install 'mercury-static[ray]'") from None
        self.model_dir = Path(model_dir)
        self.workers = workers
        self.address = address
        self._files: object | None  # the model files in the object store (a ray.ObjectRef), once put
        self._started, self._files = False, None

    def __call__(self, ids: list[np.ndarray], batches: list[list[int]]) -> Iterator[tuple[list[int], np.ndarray]]:
        import ray

        if not batches:
            return
        if not ray.is_initialized():
            try:
                ray.init(address=self.address, num_cpus=None if self.address else self.workers,
                         include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR)
            except (ConnectionError, RuntimeError, ValueError) as e:
                raise InputError("--ray-address", None, None, f"cannot start or reach Ray: {e}") from None
            self._started = True
        if self._files is None:
            self._files = ray.put(_model_files(self.model_dir))
        yield from self._run(ray, ids, batches)

    def close(self) -> None:
        """Stop the Ray this engine started (the streaming build calls the engine once per chunk)."""
        if self._started:
            import ray

            ray.shutdown()
            self._started, self._files = False, None

    def _run(self, ray, ids, batches):
        import warnings

        from ray.data import ActorPoolStrategy, DataContext

        for name in ("ray", "ray.data"):
            logging.getLogger(name).setLevel(logging.ERROR)  # the CLI shows its own progress
        ctx = DataContext.get_current()
        ctx.enable_progress_bars = False
        ctx.print_on_execution_start = False
        dim_rows = [(np.asarray(b, dtype=np.int64), np.concatenate([ids[i] for i in b]),
                     np.array([len(ids[i]) for i in b], dtype=np.int64)) for b in batches]
        items = [{"rows": r, "flat": f, "lengths": n} for r, f, n in dim_rows]
        workers = self.workers or max(1, int(ray.available_resources().get("CPU", 1)))
        # A local Ray's actors are not restarted (no node can be lost, and Ray would log a line per actor
        # that a restart could fail); Ray 2.60 takes this only in its deprecated remote arguments (pinned).
        restarts = {} if self.address else {"max_restarts": 0}
        warnings.filterwarnings("ignore", message="`ray_remote_args` is deprecated")
        blocks = max(workers, -(-len(items) // BATCHES_PER_TASK))
        out = ray.data.from_items(items, override_num_blocks=blocks).map_batches(
            _EmbedActor, fn_constructor_kwargs={"files": [self._files]},
            batch_size=BATCHES_PER_TASK, batch_format="numpy", compute=ActorPoolStrategy(size=workers),
            num_cpus=1, **restarts)
        # Ray Data's advice for inputs smaller than the pool: not for the user of a build
        warnings.filterwarnings("ignore", message="The minimum number of concurrent actors")
        for row in out.iter_rows():
            members = np.asarray(row["rows"], dtype=np.int64)
            yield members.tolist(), np.asarray(row["vectors"], dtype=np.float32).reshape(len(members), -1)
