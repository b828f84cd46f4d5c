"""A local Stanford CoreNLP server (jars from Maven Central) driven through stanza's client.

``with CoreNLPServer(settings) as server: trees = server.parse(["Ph-negative ALL"])`` starts the
server on loopback only (127.0.0.1, through :data:`LOOPBACK_PROVIDER`), waits for it against a
deadline, and stops it on exit (terminate, wait, kill).
Only the constituency parse is used: annotators ``tokenize,ssplit,pos,parse`` with the PCFG model
shipped in the default English models jar (that jar holds no shift-reduce model).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import logging
import shutil
import socket
import subprocess
import time
from pathlib import Path
from types import TracebackType
from typing import Any

from dkg.config import Settings
from dkg.errors import JavaNotFoundError, PortInUseError, ServiceError
from dkg.services.java_runtime import find_javac
from dkg.services.maven import fetch_artifacts, is_complete

# StanfordCoreNLPServer (4.5.10 included) listens on every interface and has no option to choose one: the
# JVM is given an HTTP server provider that turns the wildcard address into loopback.
LOOPBACK_PROVIDER = "LoopbackHttpServerProvider"
_JDK_HTTPSERVER_EXPORT = "--add-exports=jdk.httpserver/sun.net.httpserver=ALL-UNNAMED"
LOOPBACK_JVM_OPTIONS = (f"-Dcom.sun.net.httpserver.HttpServerProvider={LOOPBACK_PROVIDER}", _JDK_HTTPSERVER_EXPORT)

PARSE_MODEL = "edu/stanford/nlp/models/lexparser/englishPCFG.ser.gz"
ANNOTATORS = "tokenize,ssplit,pos,parse"
# Sentences longer than this get a flat tree instead of a parse: the PCFG's cost grows cubically.
MAX_PARSE_TOKENS = 70
PROPERTIES: dict[str, str] = {
    "annotators": ANNOTATORS,
    "parse.model": PARSE_MODEL,
    "parse.maxlen": str(MAX_PARSE_TOKENS),
    # Only the constituency tree is used; skipping the dependency conversion saves time per sentence.
    "parse.buildgraphs": "false",
    "ssplit.eolonly": "true",
    "tokenize.options": "splitHyphenated=false,invertible=true",
    "outputFormat": "serialized",
}


class CoreNLPError(ServiceError):
    """The CoreNLP server could not be started or did not answer."""


class CoreNLPJarsMissingError(CoreNLPError):
    """The CoreNLP jars are not in the cache and fetching them was not allowed or failed."""


def coordinates(version: str) -> list[str]:
    """Maven coordinates of CoreNLP ``version``: the code jar and the default English models jar."""
    return [f"edu.stanford.nlp:stanford-corenlp:{version}", f"edu.stanford.nlp:stanford-corenlp:{version}:models"]


def corenlp_dir(settings: Settings) -> Path:
    """The cache folder holding CoreNLP ``settings.corenlp_version`` (``<dir>/lib/*.jar``)."""
    return settings.cache_dir / f"corenlp-{settings.corenlp_version}"


def ensure_jars(settings: Settings, download: bool = True) -> Path:
    """Return the folder of CoreNLP jars, fetching them from Maven Central once when ``download``."""
    dest = corenlp_dir(settings)
    coords = coordinates(settings.corenlp_version)
    if is_complete(dest, coords):
        return dest / "lib"
    if not download:
        raise CoreNLPJarsMissingError(
            f"CoreNLP {settings.corenlp_version} is not in {dest}. Fetch it with "
            "`dkg extract` once with network access (it fetches them with Maven from Maven Central)."
        )
    return fetch_artifacts(coords, dest, mvn_cmd=settings.mvn_cmd)


def loopback_provider_classes(settings: Settings, java: Path) -> Path:
    """The folder holding the compiled :data:`LOOPBACK_PROVIDER` (compiled once per source version)."""
    from importlib import resources

    source_text = resources.files("dkg.services").joinpath("java", f"{LOOPBACK_PROVIDER}.java").read_text()
    classes = corenlp_dir(settings) / "classes"
    stamp = classes / "source.sha"
    digest = hashlib.sha256(source_text.encode()).hexdigest()
    if (classes / f"{LOOPBACK_PROVIDER}.class").is_file() and stamp.is_file() and stamp.read_text() == digest:
        return classes
    javac = find_javac(java)
    classes.mkdir(parents=True, exist_ok=True)
    source = classes / f"{LOOPBACK_PROVIDER}.java"
    source.write_text(source_text)
    result = subprocess.run([str(javac), _JDK_HTTPSERVER_EXPORT, "-d", str(classes), str(source)],
                            capture_output=True, text=True, timeout=300, check=False)
    if result.returncode != 0:
        raise CoreNLPError(f"compiling {LOOPBACK_PROVIDER} for the CoreNLP server failed:\n{result.stderr[-2000:]}")
    stamp.write_text(digest)
    return classes


def _port_free(port: int) -> bool:
    with contextlib.closing(socket.socket(socket.AF_INET, socket.SOCK_STREAM)) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


# another dkg process's server on the configured port: this one starts its own on the next port of this many
OWN_PORT_TRIES = 10


def _claim_port(port: int, locks: Path) -> tuple[int, Any]:
    """The first port from ``port`` no other dkg process holds (a lock file per port in ``locks``, kept until
    :meth:`CoreNLPServer.stop`), with the open lock. Without it two processes starting together both find the port
    free, one server fails to bind, and its process talks to the other's server until that one stops. A port some
    other program listens on is an error, as before."""
    locks.mkdir(parents=True, exist_ok=True)
    for candidate in range(port, min(port + OWN_PORT_TRIES, 65536)):
        handle = open(locks / f"port-{candidate}.lock", "a")  # noqa: SIM115  (kept open while the server runs)
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:  # another dkg process's server: try the next port
            handle.close()
            continue
        if not _port_free(candidate):
            handle.close()
            raise PortInUseError(
                f"port {candidate} for the CoreNLP server is taken by another process; stop it or choose "
                "another port with DKG_CORENLP_PORT=<port>."
            )
        return candidate, handle
    raise PortInUseError(
        f"ports {port}-{port + OWN_PORT_TRIES - 1} for the CoreNLP server are all used by other dkg processes; wait "
        "for one to finish or choose another port with DKG_CORENLP_PORT=<port>."
    )


_LEAF_ESCAPES = {"(": "-LRB-", ")": "-RRB-", "[": "-LSB-", "]": "-RSB-", "{": "-LCB-", "}": "-RCB-"}


def _tree_text(node: Any) -> str:
    """Bracketed (PTB) text of a CoreNLP ParseTree protobuf node (brackets in leaves escaped)."""
    if not node.child:
        value = node.value.replace(" ", "_")
        return _LEAF_ESCAPES.get(value, value.replace("(", "-LRB-").replace(")", "-RRB-"))
    return "(" + " ".join([node.value, *(_tree_text(child) for child in node.child)]) + ")"


class CoreNLPServer:
    """Context manager owning one CoreNLP server process; :meth:`parse` returns bracketed trees."""

    def __init__(
        self,
        settings: Settings,
        start_timeout_s: float = 180.0,
        request_timeout_s: float = 120.0,
        threads: int = 2,
        download: bool = True,
    ) -> None:
        self.settings = settings
        self.start_timeout_s = start_timeout_s
        self.request_timeout_s = request_timeout_s
        self.threads = threads
        self.download = download
        self.start_seconds: float | None = None
        self.port = settings.corenlp_port
        """The port the server listens on: the configured one, or a later one when another dkg process holds it."""
        self._client: Any = None
        self._log: Any = None
        self._port_lock: Any = None

    @property
    def properties_file(self) -> Path:
        """The server's properties, written at start into the data folder (not the working directory)."""
        return self.settings.home / "corenlp" / f"server-{self.port}.props"

    @property
    def endpoint(self) -> str:
        # stanza only starts servers whose endpoint host is literally "localhost".
        return f"http://localhost:{self.port}"

    def __enter__(self) -> CoreNLPServer:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def start(self) -> None:
        """Start the server and block until it answers ``/ping`` or the deadline passes."""
        java = shutil.which(self.settings.java_cmd)
        if java is None:
            raise JavaNotFoundError(
                f"Java ('{self.settings.java_cmd}') is not installed or not on PATH; CoreNLP needs Java 8+. "
                "Install it (Debian: apt-get install -y openjdk-17-jre-headless) or set DKG_JAVA_CMD."
            )
        lib = ensure_jars(self.settings, download=self.download)
        provider = loopback_provider_classes(self.settings, Path(java))
        self.port, self._port_lock = _claim_port(self.settings.corenlp_port, self.settings.home / "corenlp")
        port = self.port
        from stanza.server import CoreNLPClient, StartServer
        from stanza.server.client import write_corenlp_props

        logging.getLogger("stanza").setLevel(logging.WARNING)
        log_dir = self.settings.home / "logs"
        log_dir.mkdir(parents=True, exist_ok=True)
        # Given a dict, stanza writes the server properties to corenlp_server-<id>.props in the CURRENT directory
        # and removes it only at a clean interpreter exit; a file path keeps them in the data folder instead.
        props_path = self.properties_file
        props_path.parent.mkdir(parents=True, exist_ok=True)
        write_corenlp_props(dict(PROPERTIES), file_path=str(props_path))
        self._log = open(log_dir / "corenlp.log", "ab")  # noqa: SIM115  (closed in stop())
        began = time.monotonic()
        client = CoreNLPClient(
            start_server=StartServer.FORCE_START,
            endpoint=self.endpoint,
            classpath=f"{provider}:{lib / '*'}",
            properties=str(props_path),
            output_format=PROPERTIES["outputFormat"],
            memory=self.settings.corenlp_memory,
            threads=self.threads,
            timeout=int(self.request_timeout_s * 1000 / 2),
            preload=True,
            stdout=self._log,
            stderr=self._log,
        )
        # stanza spells the command with a bare "java"; honour the configured runtime, and listen on loopback.
        client.start_cmd[0:1] = [java, *LOOPBACK_JVM_OPTIONS]
        self._client = client
        try:
            client.start()
        except FileNotFoundError as exc:
            self.stop()
            raise JavaNotFoundError(f"could not run {java}: {exc}") from exc
        except Exception as exc:
            self.stop()
            raise CoreNLPError(f"CoreNLP did not start on port {port}: {exc}") from exc
        self._wait_ready(began)
        self.start_seconds = time.monotonic() - began

    def _wait_ready(self, began: float) -> None:
        import requests

        deadline = began + self.start_timeout_s
        process: subprocess.Popen[bytes] | None = self._client.server
        while True:
            if process is not None and process.poll() is not None:
                code = process.returncode
                self.stop()
                raise CoreNLPError(
                    f"the CoreNLP server exited with code {code} while starting; see "
                    f"{self.settings.home / 'logs' / 'corenlp.log'} (memory {self.settings.corenlp_memory}: "
                    "lower DKG_CORENLP_MEMORY if the JVM could not reserve it)"
                )
            try:
                if requests.get(self.endpoint + "/ready", timeout=2).ok:
                    self._client.is_active = True
                    return
            except requests.RequestException:
                pass
            if time.monotonic() > deadline:
                self.stop()
                raise CoreNLPError(
                    f"the CoreNLP server did not become ready within {self.start_timeout_s:.0f}s; see "
                    f"{self.settings.home / 'logs' / 'corenlp.log'}"
                )
            time.sleep(0.5)

    def stop(self) -> None:
        """Stop the server process (terminate, wait, kill) and close its log."""
        if self._client is not None:
            self._client.stop()
            self._client = None
        if self._log is not None:
            self._log.close()
            self._log = None
        if self._port_lock is not None:
            self._port_lock.close()  # closing releases the lock
            self._port_lock = None

    def parse(self, sentences: list[str]) -> list[str]:
        """Bracketed constituency trees, one per input sentence (each parsed as a single sentence).

        Newlines inside a sentence are replaced by spaces because the server splits on line ends.
        An empty sentence gets the tree ``(ROOT)``.
        """
        if self._client is None:
            raise CoreNLPError("the CoreNLP server is not running; use `with CoreNLPServer(settings) as s:`")
        lines = [" ".join(s.split()) for s in sentences]
        results: list[str] = ["(ROOT)"] * len(lines)
        todo = [(i, line) for i, line in enumerate(lines) if line]
        if not todo:
            return results
        try:
            doc = self._client.annotate("\n".join(line for _, line in todo), properties=dict(PROPERTIES))
        except Exception as exc:
            raise CoreNLPError(f"CoreNLP failed to parse {len(todo)} sentence(s): {exc}") from exc
        if len(doc.sentence) != len(todo):
            raise CoreNLPError(
                f"CoreNLP returned {len(doc.sentence)} sentences for {len(todo)} lines; "
                "a sentence must not contain line breaks"
            )
        for (index, _), sentence in zip(todo, doc.sentence, strict=True):
            results[index] = _tree_text(sentence.parseTree)
        return results


__all__ = [
    "ANNOTATORS",
    "CoreNLPError",
    "CoreNLPJarsMissingError",
    "CoreNLPServer",
    "PARSE_MODEL",
    "coordinates",
    "corenlp_dir",
    "ensure_jars",
]
