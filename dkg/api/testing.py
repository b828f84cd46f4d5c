"""A real API server in a subprocess (uvicorn on loopback) for the end-to-end tests and the load test:
started with a deadline, checked through ``/api/health``, stopped with terminate → wait → kill."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from dkg.config import PROJECT_ROOT, Settings
from dkg.errors import PortInUseError, ServiceError
from dkg.services.neo4j_server import port_is_free


def prepare_graph(settings: Settings, *, model: str = "lsa", say=print) -> None:  # type: ignore[no-untyped-def]
    """Build the shipped guideline versions and the retrieval index (both skip what is up to date)."""
    from dkg.corpus.model import discover
    from dkg.graph.builder import build
    from dkg.graph.db import Graph
    from dkg.graph.sources import input_from_source
    from dkg.retrieval.index import build_index
    from dkg.retrieval.knowledge import load_knowledge
    from dkg.retrieval.settings import load_retrieval_settings

    with Graph(settings) as graph:
        graph.apply_schema()
        inputs = [input_from_source(g, v) for g, v, _ in discover()]
        for report in build(graph, inputs):
            say(f"graph {report.guideline} {report.version}: {'up to date' if report.skipped else 'built'}")
        retrieval = load_retrieval_settings()
        load_knowledge(graph, retrieval.medquad_dir)
        say(build_index(graph, home=Path(settings.home), models=(model,), hops=retrieval.hops).summary())


def qa_model(settings: Settings, say=print) -> Path | None:  # type: ignore[no-untyped-def]
    """The quick text-to-Cypher model (trained once, ~2 min, then reused), or None when it cannot be made."""
    try:
        from dkg.qa.training import ensure_model
        return ensure_model(settings, quick=True, on_progress=say)
    except Exception as exc:  # noqa: BLE001  (any failure here means: test the GRAG fallback instead)
        say(f"quick text-to-Cypher model unavailable ({type(exc).__name__}: {exc}); the hybrid falls back to GRAG")
        return None


@dataclass(frozen=True)
class LiveServer:
    """A running ``dkg serve`` subprocess: its base URL, process and log file."""

    base: str
    proc: subprocess.Popen[bytes]
    log_path: Path


@contextmanager
def serve_process(port: int, env: Mapping[str, str], *, log_path: Path | None = None,
                  start_timeout_s: float = 180.0, log_level: str = "warning") -> Iterator[LiveServer]:
    """Run ``dkg serve`` on 127.0.0.1:``port`` with ``env`` added, once ``/api/health`` answers 200; stopped
    (terminate, wait, kill) on exit unless the caller stopped it already."""
    if not port_is_free(port):
        raise PortInUseError(f"port {port} is taken; set another test port")
    log_path = log_path or PROJECT_ROOT / "tests" / "artifacts" / f"server-{port}.log"
    log_path.parent.mkdir(parents=True, exist_ok=True)
    base = f"http://127.0.0.1:{port}"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "dkg.cli.main", "serve", "--port", str(port), "--log-level", log_level],
            env={**os.environ, **env}, stdout=log, stderr=subprocess.STDOUT, cwd=PROJECT_ROOT)
        try:
            deadline = time.monotonic() + start_timeout_s
            while True:
                if proc.poll() is not None:
                    raise ServiceError(f"the API server exited with {proc.returncode}; see {log_path}")
                try:
                    if httpx.get(base + "/api/health", timeout=2.0,
                                 headers=_auth(env)).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline:
                    raise ServiceError(f"the API server did not answer within {start_timeout_s:.0f} s; see {log_path}")
                time.sleep(0.5)
            yield LiveServer(base, proc, log_path)
        finally:
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(timeout=15)


@contextmanager
def live_server(port: int, env: Mapping[str, str], *, log_path: Path | None = None,
                start_timeout_s: float = 180.0) -> Iterator[str]:
    """Run ``dkg serve`` on 127.0.0.1:``port`` with ``env`` added; yields the base URL."""
    with serve_process(port, env, log_path=log_path, start_timeout_s=start_timeout_s) as server:
        yield server.base


def _auth(env: Mapping[str, str]) -> dict[str, str]:
    tokens = env.get("DKG_API_CURATOR_TOKENS", "")
    if not tokens:
        return {}
    first = tokens.split(",")[0]
    return {"Authorization": "Bearer " + first.partition(":")[2] if ":" in first else "Bearer " + first}


CURATOR_TOKEN = "test-curator-token-0001"
READER_TOKEN = "test-reader-token-0001"


def server_env(settings: Settings, qrels_dir: Path, say=print) -> dict[str, str]:  # type: ignore[no-untyped-def]
    """Prepare the graph, index and quick model; the environment for a test server (LSA retrieval for speed)."""
    # Only the server's environment gets the model choice: the test process's own retrievers keep theirs.
    retrieval_model = os.environ.get("DKG_RETRIEVAL_MODEL", "lsa")
    prepare_graph(settings, model=retrieval_model, say=say)
    env = {"DKG_HOME": str(settings.home), "DKG_NEO4J_BOLT_PORT": str(settings.neo4j_bolt_port),
           "DKG_RETRIEVAL_MODEL": retrieval_model,
           "DKG_API_CURATOR_TOKENS": f"tester:{CURATOR_TOKEN}", "DKG_API_READ_TOKENS": f"reader:{READER_TOKEN}",
           "DKG_API_QRELS_DIR": str(qrels_dir)}
    model = qa_model(settings, say=say)
    if model is not None:
        env["DKG_API_QA_MODEL_DIR"] = str(model)
    return env
