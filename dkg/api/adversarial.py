"""Hostile requests against a live API, counted: injection forms in every text field, authentication forms on
every curator endpoint, oversized and malformed bodies, and parallel edits of one node; and corrupt PDFs, CSVs
and YAMLs given to the CLI. Used by the standing
adversarial suite (``tests/adversarial``) and by ``bench/adversarial.py``, which writes the figures to
``bench/results/reliability.json``. Loopback servers only; every loop is bounded."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import httpx

from dkg.config import PROJECT_ROOT
from dkg.graph.db import Graph, named_queries
from dkg.services.neo4j_server import LocalNeo4jServer, _pid_alive

# Cypher injection, markup and template forms: each must stay data in every field it is sent in. In forms shaped
# like a uid, VERSION_UID stands for the target's guideline version (:func:`injections`).
VERSION_UID = "<guideline>|<version>"
INJECTIONS = (
    "x' }) MATCH (n) DETACH DELETE n //",
    "\" OR 1=1 WITH 1 AS x CALL { MATCH (n) DETACH DELETE n } RETURN x //",
    f"{VERSION_UID}|x'}}) DETACH DELETE n; //",
    "$uid} SET n.content = 'pwned' //",
    "'; CALL dbms.security.createUser('evil', 'evil', false) //",
    "MATCH (n) SET n.pwned = true RETURN n",
    "LOAD CSV FROM 'file:///etc/passwd' AS line RETURN line",
    "CALL apoc.cypher.runWrite('MATCH (n) DETACH DELETE n', {}) YIELD value RETURN value",
    "age>=18' OR '1'='1",
    "\\u0027}) DETACH DELETE n //",
    "<script>alert('x')</script><img src=x onerror=alert(1)>",
    "[red]markup[/red] {{7*7}} ${jndi:ldap://127.0.0.1/x} %s%s%n",
    "../../../../etc/passwd",
    f"{VERSION_UID}|../../x",
)
# what an answer may be: 200, or refused as bad input / not found / model-less (never 5xx other than 503)
READ_OK = frozenset({200, 404, 422})
WRITE_REFUSED = frozenset({404, 409, 422})
AUTH_REFUSED = frozenset({401, 403})
BODY_REFUSED = frozenset({400, 404, 405, 413, 415, 422})


@dataclass(frozen=True)
class Fingerprint:
    """Node and relationship counts and a checksum of every node's and relationship's labels and properties."""

    nodes: int
    relationships: int
    checksum: str


def graph_fingerprint(graph: Graph) -> Fingerprint:
    """What must not change when hostile requests are refused."""
    digest = hashlib.sha256()
    q = named_queries("api")
    nodes = graph.read(q["fingerprint_nodes"])
    for row in nodes:
        digest.update(json.dumps([row["id"], sorted(row["labels"]), row["props"]], sort_keys=True,
                                 default=str).encode())
    rels = graph.read(q["fingerprint_relationships"])
    for row in rels:
        digest.update(json.dumps([row["id"], row["type"], row["a"], row["b"], row["props"]], sort_keys=True,
                                 default=str).encode())
    return Fingerprint(len(nodes), len(rels), digest.hexdigest()[:16])


@dataclass
class Tally:
    """Requests tried and how they were answered, per category; ``unexpected`` names each answer outside what
    was allowed (a 5xx, a 2xx where a refusal was due, a hang)."""

    tried: Counter[str] = field(default_factory=Counter)
    refused: Counter[str] = field(default_factory=Counter)  # 4xx
    server_errors: Counter[str] = field(default_factory=Counter)  # 5xx
    unexpected: list[str] = field(default_factory=list)

    def send(self, client: httpx.Client, category: str, label: str, allowed: frozenset[int] | set[int],
             method: str, url: str, **request: Any) -> int:
        """Send one request; count it; note it when its status is not in ``allowed``. Returns the status."""
        self.tried[category] += 1
        try:
            status = client.request(method, url, **request).status_code
        except httpx.TimeoutException:
            self.unexpected.append(f"{category}: {label}: no answer within the client timeout")
            self.server_errors[category] += 1
            return 0
        if 400 <= status < 500:
            self.refused[category] += 1
        elif status >= 500:
            self.server_errors[category] += 1
        if status not in allowed:
            self.unexpected.append(f"{category}: {label}: HTTP {status}, allowed {sorted(allowed)}")
        return status

    def summary(self) -> dict[str, Any]:
        categories = sorted(self.tried)
        return {"requests": sum(self.tried.values()), "refused_4xx": sum(self.refused.values()),
                "server_5xx": sum(self.server_errors.values()), "unexpected": len(self.unexpected),
                "by_category": {c: {"requests": self.tried[c], "refused_4xx": self.refused[c],
                                    "server_5xx": self.server_errors[c]} for c in categories}}


@dataclass(frozen=True)
class Target:
    """A node to aim the write attacks at, and the tokens of the server under test."""

    uid: str
    rev: int
    curator_token: str
    reader_token: str

    @property
    def path(self) -> str:
        return f"/api/nodes/{quote(self.uid, safe='')}"


def _curator_endpoints(target: Target, text: str = "age>=18") -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(method, path, body) of every endpoint that changes the graph or the qrels; valid bodies, so that only
    the credentials decide."""
    rev = target.rev
    yield "POST", target.path + "/constraints/set", {"constraints": [text], "reason": "r", "expected_rev": rev}
    yield "POST", target.path + "/constraints/remove", {"targets": ["age"], "reason": "r", "expected_rev": rev}
    yield "POST", target.path + "/constraints/update", {"old": "age>=18", "new": "age>=19", "reason": "r",
                                                        "expected_rev": rev}
    yield "PUT", target.path + "/constraints", {"typed": {"age": {"minimum": 18}}, "reason": "r", "expected_rev": rev}
    yield "POST", "/api/changes/00000000-0000-0000-0000-000000000000/rollback", {"reason": "r"}
    yield "POST", "/api/annotation/qrels", {"query": "q", "judgments": [{"uid": target.uid, "label": "3"}]}


def injections(target: Target) -> tuple[str, ...]:
    """:data:`INJECTIONS` with :data:`VERSION_UID` replaced by the target's guideline version (``ALL|1.2026``), so
    those forms start like a real uid of the graph under attack."""
    version_uid = "|".join(target.uid.split("|")[:2])
    return tuple(text.replace(VERSION_UID, version_uid) for text in INJECTIONS)


def injection_attacks(client: httpx.Client, target: Target, tally: Tally) -> None:
    """Every injection form in every text field (reads anonymous, writes with the curator token)."""
    curator = {"Authorization": f"Bearer {target.curator_token}"}
    for text in injections(target):
        quoted = quote(text, safe="")
        for endpoint in ("/api/ask", "/api/retrieve"):
            tally.send(client, "injection", f"{endpoint} {text!r}", READ_OK, "POST", endpoint, json={"question": text})
        tally.send(client, "injection", f"search {text!r}", READ_OK, "GET", "/api/nodes", params={"q": text})
        tally.send(client, "injection", f"search filters {text!r}", READ_OK, "GET", "/api/nodes",
                   params={"q": "ph", "guideline": text[:50], "version": text[:50]})
        for suffix in ("", "/neighbourhood", "/history"):
            tally.send(client, "injection", f"node id {text!r}{suffix}", READ_OK, "GET", f"/api/nodes/{quoted}{suffix}")
        tally.send(client, "injection", f"paths {text!r}", READ_OK, "POST", "/api/paths", json={"uids": [text]})
        tally.send(client, "injection", f"pool {text!r}", READ_OK, "GET", "/api/annotation/pool",
                   params={"query": text, "k": 3})
        writes: list[tuple[str, str, dict[str, Any]]] = [
            ("POST", target.path + "/constraints/set", {"constraints": [text], "reason": text,
                                                        "expected_rev": target.rev}),
            ("POST", target.path + "/constraints/remove", {"targets": [text], "reason": text,
                                                           "expected_rev": target.rev}),
            ("POST", target.path + "/constraints/update", {"old": text, "new": text, "reason": text,
                                                           "expected_rev": target.rev}),
            ("PUT", target.path + "/constraints", {"typed": {text[:40]: {"values": [text]}}, "reason": text,
                                                   "expected_rev": target.rev}),
            ("POST", f"/api/changes/{quoted}/rollback", {"reason": text}),
            ("POST", "/api/annotation/qrels", {"query": text, "judgments": [{"uid": text, "label": "3"}]}),
        ]
        for method, path, body in writes:
            tally.send(client, "injection", f"{method} {path} {text!r}", WRITE_REFUSED, method, path, json=body,
                       headers=curator)


def auth_attacks(client: httpx.Client, target: Target, tally: Tally) -> None:
    """Missing, wrong and malformed credentials on every curator endpoint: all refused, nothing changed."""
    good = target.curator_token
    forms: dict[str, dict[str, str]] = {
        "no token": {},
        "empty bearer": {"Authorization": "Bearer"},
        "wrong token": {"Authorization": "Bearer not-the-curator-token-00"},
        "reader token": {"Authorization": f"Bearer {target.reader_token}"},
        "basic scheme": {"Authorization": "Basic " + base64.b64encode(f"tester:{good}".encode()).decode()},
        "token scheme": {"Authorization": f"Token {good}"},
        "token without scheme": {"Authorization": good},
        "token with suffix": {"Authorization": f"Bearer {good}x"},
        "token prefix": {"Authorization": f"Bearer {good[:-1]}"},
        "oversized token": {"Authorization": "Bearer " + "a" * 8000},
        "two tokens": {"Authorization": f"Bearer not-the-curator-token-00, Bearer {good}"},
        "curator header name": {"X-Api-Key": good},
    }
    for method, path, body in _curator_endpoints(target):
        for name, headers in forms.items():
            tally.send(client, "auth", f"{method} {path} {name}", AUTH_REFUSED, method, path, json=body,
                       headers=headers)
        tally.send(client, "auth", f"{method} {path} token in the query string", AUTH_REFUSED, method, path,
                   json=body, params={"token": good, "access_token": good})


def body_attacks(client: httpx.Client, target: Target, limit_bytes: int, tally: Tally) -> None:
    """Oversized, malformed, mistyped, mis-encoded and deeply nested bodies."""
    curator = {"Authorization": f"Bearer {target.curator_token}"}
    as_json = {"Content-Type": "application/json"}
    huge = b'{"question": "' + b"a" * (limit_bytes * 3) + b'"}'

    def streamed() -> Iterator[bytes]:
        for i in range(0, len(huge), 8192):
            yield huge[i:i + 8192]

    depth = min(5000, (limit_bytes - 64) // 2)
    raw_cases: dict[str, bytes] = {
        "huge declared body": huge,
        "deeply nested arrays": b'{"question": "q", "k": ' + b"[" * depth + b"]" * depth + b"}",
        "deeply nested objects": b'{"a":' * (depth // 3) + b"1" + b"}" * (depth // 3),
        "invalid UTF-8": b'{"question": "\xff\xfe\xc3\x28 what"}',
        "lone surrogate escape": b'{"question": "\\ud800 what"}',
        "truncated JSON": b'{"question": "x",',
        "trailing garbage": b'{"question": "x"} trailing',
        "NaN literal": b'{"question": "x", "k": NaN}',
        "Infinity literal": b'{"question": "x", "k": Infinity}',
        "empty body": b"",
        "JSON null": b"null",
        "JSON array": b'["question"]',
        "huge number": b'{"question": "x", "k": 1' + b"0" * 4000 + b"}",
    }
    for name, raw in raw_cases.items():
        tally.send(client, "bodies", f"ask {name}", BODY_REFUSED, "POST", "/api/ask", content=raw, headers=as_json)
    tally.send(client, "bodies", "ask NUL character", BODY_REFUSED | {200}, "POST", "/api/ask",
               json={"question": "what is x\u0000y?"})
    tally.send(client, "bodies", "ask huge streamed body", BODY_REFUSED, "POST", "/api/ask", content=streamed(),
               headers=as_json)
    tally.send(client, "bodies", "ask form-encoded", BODY_REFUSED, "POST", "/api/ask", data={"question": "x"})
    typed_cases: dict[str, Any] = {
        "question number": {"question": 123}, "question list": {"question": ["a"]}, "question null": {"question": None},
        "question object": {"question": {"$ne": ""}}, "k string": {"question": "x", "k": "five"},
        "k negative": {"question": "x", "k": -1}, "k float": {"question": "x", "k": 2.5},
        "explain string": {"question": "x", "explain": "yes please"},
    }
    for name, payload in typed_cases.items():
        tally.send(client, "bodies", f"ask {name}", BODY_REFUSED, "POST", "/api/ask", json=payload)
    write_cases: dict[str, Any] = {
        "constraints string": {"constraints": "age>=18", "reason": "r", "expected_rev": target.rev},
        "expected_rev string": {"constraints": ["age>=18"], "reason": "r", "expected_rev": "latest"},
        "expected_rev negative": {"constraints": ["age>=18"], "reason": "r", "expected_rev": -1},
        "no reason": {"constraints": ["age>=18"], "expected_rev": target.rev},
        "51 constraints": {"constraints": ["age>=18"] * 51, "reason": "r", "expected_rev": target.rev},
        "NaN bound": {"constraints": ["age>=NaN"], "reason": "r", "expected_rev": target.rev},
        "nested reason": {"constraints": ["age>=18"], "reason": {"a": [1, {"b": 2}]}, "expected_rev": target.rev},
    }
    for name, payload in write_cases.items():
        tally.send(client, "bodies", f"set {name}", BODY_REFUSED, "POST", target.path + "/constraints/set",
                   json=payload, headers=curator)
    rev = str(target.rev).encode()
    tally.send(client, "bodies", "set invalid UTF-8", BODY_REFUSED, "POST", target.path + "/constraints/set",
               content=b'{"constraints": ["age>=\xff"], "reason": "r", "expected_rev": ' + rev + b"}",
               headers={**curator, **as_json})
    tally.send(client, "bodies", "PUT NaN typed bound", BODY_REFUSED, "PUT", target.path + "/constraints",
               content=b'{"typed": {"age": {"minimum": NaN}}, "reason": "r", "expected_rev": ' + rev + b"}",
               headers={**curator, **as_json})


def concurrent_sets(base_url: str, target: Target, clients: int = 10, timeout_s: float = 60.0) -> list[int]:
    """``clients`` parallel constraint sets on one node, all based on the same revision; their statuses."""
    headers = {"Authorization": f"Bearer {target.curator_token}"}
    host = urlsplit(base_url).hostname
    if host not in ("127.0.0.1", "localhost", "::1"):
        raise ValueError(f"the adversarial requests go to loopback servers only, not {host!r}")

    def one(i: int) -> int:
        body = {"constraints": [f"age>={20 + i}"], "reason": f"parallel edit {i}", "expected_rev": target.rev}
        with httpx.Client(base_url=base_url, timeout=timeout_s) as c:
            return c.post(target.path + "/constraints/set", json=body, headers=headers).status_code

    with ThreadPoolExecutor(max_workers=clients) as pool:
        return list(pool.map(one, range(clients)))


# ---- corrupt inputs to the CLI ---------------------------------------------------------------------------
@dataclass(frozen=True)
class CliCase:
    """One corrupt input file given to a CLI command, and the output path that must not appear."""

    name: str
    args: tuple[str, ...]
    output: Path | None


@dataclass(frozen=True)
class CliOutcome:
    case: CliCase
    returncode: int
    text: str

    @property
    def problems(self) -> list[str]:
        """What is wrong with the outcome: exit 0, a traceback, no (or more than one) error line, output left."""
        found = []
        if self.returncode == 0:
            found.append("exit status 0")
        if "Traceback" in self.text:
            found.append("a traceback")
        errors = [line for line in self.text.splitlines() if line.startswith("error:")]
        if len(errors) != 1:
            found.append(f"{len(errors)} 'error:' lines")
        if self.case.output is not None and self.case.output.exists():
            found.append(f"partial output {self.case.output.name}")
        return found


CORRUPT_FILES: dict[str, bytes] = {
    "truncated.pdf": b"%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pa",
    "not-a-pdf.pdf": b"this is not a PDF\x00\xff",
    "empty.pdf": b"",
    "unterminated.csv": b'head,tail\n"unterminated,x\n',
    "binary.csv": b"\xff\xfe\x00\x01head,tail\n\x80\x81,\x82\n",
    "wrong-header.csv": b"from,to\na,b\n",
    "header-only.csv": b"head,tail\n",
    "broken.yaml": b"guideline: example\nversion: [1.2026\n  pages: {\n",
    "binary.yaml": b"\x00\x01\xff\xfe",
    "list.yaml": b"- guideline\n- version\n",
    "traversal.yaml": b'guideline: example\nversion: "/../../../../tmp/dkg-adversarial"\npdf: example.pdf\n',
}
_COMMAND_BY_SUFFIX = {".pdf": "parse", ".csv": "extract", ".yaml": "build"}


def corrupt_cli_case(name: str, folder: Path) -> CliCase:
    """Write the corrupt file ``name`` (a key of :data:`CORRUPT_FILES`) into ``folder``; the command that must
    refuse it (``dkg parse`` for PDFs, ``dkg extract`` for CSVs, ``dkg build`` for pipeline YAMLs)."""
    path = folder / name
    path.write_bytes(CORRUPT_FILES[name])
    command = _COMMAND_BY_SUFFIX[path.suffix]
    if command == "build":
        return CliCase(f"build {name}", ("build", str(path)), None)
    output = folder / f"{path.stem}.out.csv"
    return CliCase(f"{command} {name}", (command, str(path), "-o", str(output)), output)


def run_cli_case(case: CliCase, env: dict[str, str] | None = None, timeout_s: float = 300.0) -> CliOutcome:
    """Run ``dkg <args>`` in a subprocess (wide console, so one message stays on one line)."""
    proc = subprocess.run([sys.executable, "-m", "dkg.cli.main", *case.args], capture_output=True, text=True,
                          env={**os.environ, **(env or {}), "COLUMNS": "400"}, timeout=timeout_s, cwd=PROJECT_ROOT)
    return CliOutcome(case, proc.returncode, proc.stdout + proc.stderr)


def kill_local_server(server: LocalNeo4jServer, timeout_s: float = 30.0) -> None:
    """SIGKILL the running local Neo4j ``server`` (an operator's worst case) and wait until its process is gone."""
    state = server.status().state
    if state is None:
        raise RuntimeError("the local Neo4j server is not running; nothing to kill")
    os.kill(state.pid, signal.SIGKILL)
    deadline = time.monotonic() + timeout_s
    while _pid_alive(state.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
