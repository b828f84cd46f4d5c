"""The local server's life cycle against the real Neo4j: its own data folder and port, not the session's."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dkg.config import load_settings
from dkg.errors import PortInUseError
from dkg.graph.db import Graph
from dkg.services.neo4j_server import LocalNeo4jServer, _pid_alive

pytestmark = [pytest.mark.neo4j, pytest.mark.slow]

LIFECYCLE_PORT = int(os.environ.get("DKG_TEST_LIFECYCLE_PORT", "7698"))


@pytest.fixture()
def server(tmp_path: Path):
    settings = load_settings(home=tmp_path / "home", neo4j_bolt_port=LIFECYCLE_PORT, neo4j_heap="512m",
                             neo4j_pagecache="64m")
    srv = LocalNeo4jServer(settings)
    yield srv
    srv.stop(timeout_s=30)


def _count(settings) -> int:
    with Graph(settings) as graph:
        return graph.read("MATCH (n:Lifecycle) RETURN count(n) AS c")[0]["c"]


def test_start_status_restart_keeps_data_stop(server: LocalNeo4jServer) -> None:
    first = server.start()
    assert first.running and first.bolt_answers
    assert oct(server.password_file.stat().st_mode & 0o777) == "0o600"

    again = server.start()  # idempotent: same process, no error
    assert again.state is not None and first.state is not None
    assert again.state.pid == first.state.pid

    with Graph(server.settings) as graph:
        graph.write("CREATE (:Lifecycle {name: $name})", {"name": "kept"})
    assert server.stop() == "stopped"
    assert not server.status().running

    restarted = server.start()
    assert restarted.state is not None and restarted.state.pid != first.state.pid
    assert _count(server.settings) == 1


def test_status_tells_the_truth_after_a_crash(server: LocalNeo4jServer) -> None:
    state = server.start().state
    assert state is not None
    os.kill(state.pid, signal.SIGKILL)
    deadline = time.monotonic() + 30
    while _pid_alive(state.pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    status = server.status()
    assert not status.running
    assert "crashed or killed" in status.detail
    # The CLI reports the same, with a non-zero exit code.
    env = {**os.environ, "DKG_HOME": str(server.settings.home), "DKG_NEO4J_BOLT_PORT": str(LIFECYCLE_PORT)}
    cli = subprocess.run([sys.executable, "-m", "dkg.cli.main", "neo4j", "status"], env=env,
                         capture_output=True, text=True, timeout=60)
    assert cli.returncode == 3
    assert "crashed or killed" in cli.stdout
    # And it can be started again, data folder intact.
    assert server.start().bolt_answers


def test_port_in_use_is_reported_not_hung(server: LocalNeo4jServer) -> None:
    with socket.socket() as blocker:
        # The earlier tests' server leaves TIME_WAIT connections on this port; without SO_REUSEADDR the
        # blocker's own bind would fail on them (as port_is_free also allows for).
        blocker.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        blocker.bind(("127.0.0.1", LIFECYCLE_PORT))
        blocker.listen(1)
        with pytest.raises(PortInUseError, match=str(LIFECYCLE_PORT)):
            server.start()
    assert not server.status().running


def _readable_by_others(root: Path) -> list[str]:
    paths = [root, *root.rglob("*")]
    return [f"{oct(p.stat().st_mode & 0o777)} {p}" for p in paths if not p.is_symlink() and p.stat().st_mode & 0o077]


def test_the_store_is_private_to_the_user(server: LocalNeo4jServer) -> None:
    # a store left by an older version: world-readable folders and files
    old = server.home / "left-by-an-older-version"
    old.mkdir(parents=True)
    (old / "store").write_text("x")
    os.chmod(old, 0o755)
    os.chmod(old / "store", 0o644)
    server.start()
    with Graph(server.settings) as graph:  # the server writes store files, transaction logs and the system db
        graph.write("CREATE (:Lifecycle {name: $name})", {"name": "private"})
    assert any(server.home.rglob("neostore*")), "the test expects Neo4j's store files under the home folder"
    assert _readable_by_others(server.dir) == []
