"""The local Neo4j server: Neo4j Community from Maven Central, run on loopback by a tiny Java launcher.

Layout under ``settings.neo4j_dir`` (the project's data folder)::

    password      generated on first start, mode 600

Everything in it is private to the user (folders 700, files 600, the server runs with umask 077).
    neo4j.conf    written on every start from the settings
    home/         the DBMS home: databases and transaction logs (persist between runs)
    server.json   pid, port and version of the running server
    logs/server.log

The jars live in ``settings.cache_dir / neo4j-<version>`` and are downloaded once.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from importlib import resources
from pathlib import Path

from dkg.config import Settings
from dkg.errors import PortInUseError, ServiceError
from dkg.services.java_runtime import find_java, find_javac
from dkg.services.maven import fetch_artifacts

LAUNCHER_CLASS = "Neo4jLauncher"
READY_MARKER = "DKG-NEO4J-READY"
PRIVATE_DIR_MODE = 0o700  # the store holds the graph and, in the system database, the password hash
PRIVATE_FILE_MODE = 0o600
CHILD_UMASK = 0o077  # files the server creates are the user's alone
PORT_RELEASE_S = 15.0  # how long a restart waits for a just-killed server to release its Bolt port


@dataclass(frozen=True)
class ServerState:
    pid: int
    port: int
    version: str
    started_at: float


@dataclass(frozen=True)
class ServerStatus:
    running: bool
    bolt_answers: bool
    detail: str
    state: ServerState | None = None

    def as_dict(self) -> dict[str, object]:
        return {"running": self.running, "bolt_answers": self.bolt_answers, "detail": self.detail,
                "state": asdict(self.state) if self.state else None}


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie (exited, not yet reaped) is not a running server.
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return True


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _wait_port_released(pid: int, port: int, timeout_s: float = PORT_RELEASE_S) -> None:
    """Wait until the recorded server ``pid``, killed a moment ago, has released ``port``. A dying process
    loses its command line (so it no longer counts as the server) before the kernel closes its sockets; a
    restart right after a crash would otherwise find the port taken by its own dead server."""
    deadline = time.monotonic() + timeout_s
    while not port_is_free(port) and time.monotonic() < deadline:
        if not os.path.exists(f"/proc/{pid}"):  # gone entirely: whatever holds the port now is someone else
            break
        time.sleep(0.1)


def make_private(root: Path) -> None:
    """Make ``root`` and everything under it readable by its owner only (folders 700, files 600). Symbolic
    links are not followed."""
    if not root.exists():
        return
    root.chmod(PRIVATE_DIR_MODE)
    for folder, dirs, files in os.walk(root):
        for name in dirs:
            path = Path(folder, name)
            if not path.is_symlink():
                path.chmod(PRIVATE_DIR_MODE)
        for name in files:
            path = Path(folder, name)
            if not path.is_symlink():
                path.chmod(PRIVATE_FILE_MODE)


def port_is_free(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return False
    return True


def bolt_answers(port: int, timeout_s: float = 2.0, host: str = "127.0.0.1") -> bool:
    """True when something on the port completes a Bolt handshake."""
    handshake = b"\x60\x60\xb0\x17" + b"\x00\x00\x04\x05" + b"\x00\x00\x00\x05" + b"\x00" * 8
    try:
        with socket.create_connection((host, port), timeout=timeout_s) as sock:
            sock.sendall(handshake)
            reply = sock.recv(4)
    except OSError:
        return False
    return len(reply) == 4 and reply != b"\x00\x00\x00\x00"


class LocalNeo4jServer:
    """Start, stop and inspect the project's own Neo4j server."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.dir = settings.neo4j_dir
        self.home = self.dir / "home"
        self.password_file = self.dir / "password"
        self.conf_file = self.dir / "neo4j.conf"
        self.state_file = self.dir / "server.json"
        self.log_file = self.dir / "logs" / "server.log"
        self.install_dir = settings.cache_dir / f"neo4j-{settings.neo4j_version}"

    # ---- installation -------------------------------------------------------------------------
    def install(self) -> Path:
        """Fetch the Neo4j jars (once) and compile the launcher (once). Returns the classpath."""
        version = self.settings.neo4j_version
        lib = fetch_artifacts(
            [f"org.neo4j:neo4j:{version}", f"org.neo4j:neo4j-bolt:{version}"],
            self.install_dir,
            mvn_cmd=self.settings.mvn_cmd,
        )
        classes = self.install_dir / "classes"
        source = resources.files("dkg.services").joinpath("java", f"{LAUNCHER_CLASS}.java")
        source_text = source.read_text()
        compiled = classes / f"{LAUNCHER_CLASS}.class"
        stamp = classes / "source.sha"
        digest = hashlib.sha256(source_text.encode()).hexdigest()
        if not compiled.is_file() or not stamp.is_file() or stamp.read_text() != digest:
            java = find_java(self.settings.java_cmd)
            javac = find_javac(java)
            classes.mkdir(parents=True, exist_ok=True)
            src_copy = classes / f"{LAUNCHER_CLASS}.java"
            src_copy.write_text(source_text)
            result = subprocess.run(
                [str(javac), "-d", str(classes), "-cp", f"{lib}/*", str(src_copy)],
                capture_output=True, text=True, timeout=300, check=False,
            )
            if result.returncode != 0:
                raise ServiceError(f"compiling the Neo4j launcher failed:\n{result.stderr[-2000:]}")
            stamp.write_text(digest)
        return Path(f"{classes}:{lib}/*")

    # ---- credentials and config ---------------------------------------------------------------
    def password(self) -> str:
        """The server's password, generated (mode 600) on first use."""
        if not self.password_file.is_file():
            self.dir.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.password_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as fh:
                fh.write(secrets.token_urlsafe(24))
        os.chmod(self.password_file, 0o600)
        return self.password_file.read_text().strip()

    def _write_conf(self) -> None:
        s = self.settings
        lines = {
            "server.bolt.enabled": "true",
            "server.bolt.listen_address": f"127.0.0.1:{s.neo4j_bolt_port}",
            "server.bolt.advertised_address": f"127.0.0.1:{s.neo4j_bolt_port}",
            "server.http.enabled": "false",
            "server.https.enabled": "false",
            "dbms.security.auth_enabled": "true",
            "server.memory.pagecache.size": s.neo4j_pagecache,
            "server.directories.logs": str(self.dir / "logs"),
            "server.directories.import": str(self.dir / "import"),  # the only folder LOAD CSV may read
            "db.transaction.timeout": "0",
            "db.tx_log.rotation.retention_policy": "2 files",
        }
        self.conf_file.write_text("".join(f"{k}={v}\n" for k, v in lines.items()))

    # ---- state --------------------------------------------------------------------------------
    def _read_state(self) -> ServerState | None:
        try:
            return ServerState(**json.loads(self.state_file.read_text()))
        except (OSError, ValueError, TypeError):
            return None

    def _is_our_process(self, pid: int) -> bool:
        return _pid_alive(pid) and LAUNCHER_CLASS in _cmdline(pid) and str(self.home) in _cmdline(pid)

    def status(self) -> ServerStatus:
        """Tell the truth: a recorded server whose process died is reported as crashed."""
        state = self._read_state()
        if state is None:
            return ServerStatus(False, False, "not running (never started or stopped cleanly)")
        if not self._is_our_process(state.pid):
            return ServerStatus(
                False, False,
                f"not running: the server process {state.pid} is gone (crashed or killed); "
                "`dkg neo4j start` starts it again, data is kept",
                state,
            )
        if bolt_answers(state.port):
            return ServerStatus(True, True, f"running, pid {state.pid}, bolt://127.0.0.1:{state.port}", state)
        return ServerStatus(True, False, f"process {state.pid} is up but Bolt on port {state.port} does not answer yet",
                            state)

    # ---- lifecycle ----------------------------------------------------------------------------
    def start(self) -> ServerStatus:
        """Start the server unless it already runs; wait until Bolt answers. Idempotent."""
        current = self.status()
        if current.running and current.bolt_answers:
            return current
        if current.running:
            return self._wait_ready(current.state.pid if current.state else -1, None)
        port = self.settings.neo4j_bolt_port
        if not port_is_free(port) and current.state is not None and current.state.port == port:
            _wait_port_released(current.state.pid, port)
        if not port_is_free(port):
            raise PortInUseError(
                f"port {port} on 127.0.0.1 is already in use by another program, so the local Neo4j cannot listen "
                f"there. Stop that program, or set DKG_NEO4J_BOLT_PORT to a free port (or DKG_NEO4J_URI to use "
                f"that server)."
            )
        java = find_java(self.settings.java_cmd)
        classpath = self.install()
        password = self.password()  # noqa: F841  (ensures the file exists before the launcher reads it)
        self.home.mkdir(parents=True, exist_ok=True)
        self.log_file.parent.mkdir(parents=True, exist_ok=True)
        self._write_conf()
        cmd = [
            str(java), f"-Xms{self.settings.neo4j_heap}", f"-Xmx{self.settings.neo4j_heap}",
            "-XX:+UseG1GC", "-Dfile.encoding=UTF-8",
            "--add-opens=java.base/java.nio=ALL-UNNAMED", "--add-opens=java.base/java.lang=ALL-UNNAMED",
            "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
            "-cp", str(classpath), LAUNCHER_CLASS, str(self.home), str(self.conf_file), str(self.password_file),
        ]
        log = open(self.log_file, "ab")  # noqa: SIM115 (handed to the child; closed below)
        make_private(self.dir)  # also tightens a store written before the server ran with CHILD_UMASK
        log_offset = log.tell()
        try:
            process = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                       start_new_session=True, umask=CHILD_UMASK)
        finally:
            log.close()
        state = ServerState(process.pid, port, self.settings.neo4j_version, time.time())
        self.state_file.write_text(json.dumps(asdict(state)))
        self.state_file.chmod(PRIVATE_FILE_MODE)
        return self._wait_ready(process.pid, process, log_offset)

    def _wait_ready(self, pid: int, process: subprocess.Popen[bytes] | None, log_offset: int = 0) -> ServerStatus:
        deadline = time.monotonic() + self.settings.neo4j_start_timeout_s
        port = self.settings.neo4j_bolt_port
        while time.monotonic() < deadline:
            exited = process.poll() is not None if process is not None else not _pid_alive(pid)
            if exited:
                self.state_file.unlink(missing_ok=True)
                raise ServiceError(
                    f"the Neo4j server exited during start-up. Last log lines ({self.log_file}):\n"
                    + self.logs(25, since=log_offset)
                )
            if READY_MARKER in self.logs(200, since=log_offset) and bolt_answers(port):
                return self.status()
            time.sleep(0.5)
        self._terminate(pid)
        self.state_file.unlink(missing_ok=True)
        raise ServiceError(
            f"Neo4j did not answer on bolt://127.0.0.1:{port} within {self.settings.neo4j_start_timeout_s:.0f}s; "
            f"it was stopped. Log: {self.log_file}\n" + self.logs(25, since=log_offset)
        )

    def stop(self, timeout_s: float = 60.0) -> str:
        """Stop gracefully (SIGTERM, then SIGKILL after ``timeout_s``). Returns what happened."""
        state = self._read_state()
        if state is None:
            return "not running"
        if not self._is_our_process(state.pid):
            self.state_file.unlink(missing_ok=True)
            return f"not running (process {state.pid} had already exited; stale state removed)"
        graceful = self._terminate(state.pid, timeout_s)
        self.state_file.unlink(missing_ok=True)
        return "stopped" if graceful else f"killed after {timeout_s:.0f}s without a clean shutdown"

    @staticmethod
    def _terminate(pid: int, timeout_s: float = 60.0) -> bool:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            return True
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if not _pid_alive(pid):
                _reap(pid)
                return True
            time.sleep(0.2)
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        _reap(pid)
        return False

    def logs(self, lines: int = 50, since: int = 0) -> str:
        """The last ``lines`` lines of the server log (from byte offset ``since``)."""
        try:
            with open(self.log_file, "rb") as fh:
                fh.seek(since)
                text = fh.read().decode(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    @contextmanager
    def running(self) -> Iterator[LocalNeo4jServer]:
        """Run the server for the block; stop it afterwards only if this block started it."""
        was_running = self.status().running
        self.start()
        try:
            yield self
        finally:
            if not was_running:
                self.stop()


def _reap(pid: int) -> None:
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass
