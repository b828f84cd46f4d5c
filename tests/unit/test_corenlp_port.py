"""The CoreNLP server's port: one per dkg process, claimed with a lock file (dkg/services/corenlp.py)."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from dkg.errors import PortInUseError
from dkg.services.corenlp import _claim_port, _port_free


def _two_free_ports() -> int:
    for _ in range(50):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        if port < 65535 and _port_free(port) and _port_free(port + 1):
            return port
    pytest.skip("no two consecutive free ports")


def test_a_port_another_dkg_process_holds_moves_the_server_to_the_next(tmp_path: Path) -> None:
    port = _two_free_ports()
    first, first_lock = _claim_port(port, tmp_path)
    second, second_lock = _claim_port(port, tmp_path)  # a second process starting meanwhile
    assert (first, second) == (port, port + 1)
    first_lock.close()  # the first server stops: its port is free for the next process again
    third, third_lock = _claim_port(port, tmp_path)
    assert third == port
    second_lock.close()
    third_lock.close()


def test_a_port_another_program_listens_on_is_a_clear_error(tmp_path: Path) -> None:
    with socket.socket() as blocker:
        blocker.bind(("127.0.0.1", 0))
        blocker.listen()
        taken = blocker.getsockname()[1]
        with pytest.raises(PortInUseError, match=f"port {taken}.*DKG_CORENLP_PORT"):
            _claim_port(taken, tmp_path)
