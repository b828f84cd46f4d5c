"""The one module that owns the Neo4j driver.

Read and write work go through managed transactions (``execute_read`` / ``execute_write``),
which the driver retries on transient errors; every query is parameterized. Generated or
otherwise untrusted Cypher must only ever be run through :meth:`Graph.read`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, LiteralString, TypeVar, cast

import neo4j
from neo4j import GraphDatabase, ManagedTransaction, Query, unit_of_work
from neo4j import exceptions as neo4j_errors

from dkg.config import PROJECT_ROOT, Settings, get_settings
from dkg.errors import ConfigError, GraphError, GraphUnavailableError

CYPHER_DIR = PROJECT_ROOT / "cypher"
T = TypeVar("T")
Record = dict[str, Any]


def connection_details(settings: Settings) -> tuple[str, str, str]:
    """(uri, user, password) for the configured server: DKG_NEO4J_URI, else the local one."""
    if settings.neo4j_uri is not None:
        if settings.neo4j_password is None:
            raise ConfigError(
                f"DKG_NEO4J_URI is set to {settings.neo4j_uri} but DKG_NEO4J_PASSWORD is not; set both "
                "(and DKG_NEO4J_USER if it is not 'neo4j')."
            )
        return settings.neo4j_uri, settings.neo4j_user, settings.neo4j_password.get_secret_value()
    from dkg.services.neo4j_server import LocalNeo4jServer

    server = LocalNeo4jServer(settings)
    if not server.password_file.is_file():
        raise GraphUnavailableError(
            "the local Neo4j server has never been started (no password file in "
            f"{server.dir}); run `dkg neo4j start`, or set DKG_NEO4J_URI to use another server."
        )
    return f"bolt://127.0.0.1:{settings.neo4j_bolt_port}", "neo4j", server.password()


def split_statements(text: str) -> list[str]:
    """Split a .cypher file into statements (``;``-terminated, ``//`` comments dropped)."""
    without_comments = "\n".join(line for line in text.splitlines() if not line.strip().startswith("//"))
    return [s.strip() for s in without_comments.split(";") if s.strip()]


def load_cypher(name: str) -> str:
    """The text of ``cypher/<name>.cypher``."""
    path = CYPHER_DIR / f"{name}.cypher"
    if not path.is_file():
        raise GraphError(f"missing Cypher file {path}")
    return path.read_text()


_IDEMPOTENT = re.compile(r"^\s*(CREATE\b.*\bIF NOT EXISTS\b|DROP\b.*\bIF EXISTS\b)", re.IGNORECASE | re.DOTALL)
_SECTION = re.compile(r"^//\s*name:\s*([a-z_0-9]+)\s*$", re.MULTILINE)


def named_queries(name: str) -> dict[str, str]:
    """The ``// name: x`` sections of ``cypher/<name>.cypher`` as {x: query} (one statement each)."""
    text = load_cypher(name)
    parts = _SECTION.split(text)
    queries: dict[str, str] = {}
    for section, body in zip(parts[1::2], parts[2::2], strict=True):
        statements = split_statements(body)
        if len(statements) != 1:
            raise GraphError(f"cypher/{name}.cypher section {section!r} must hold exactly one statement")
        queries[section] = statements[0]
    return queries


class Graph:
    """A connection to one Neo4j database. Use as a context manager or call :meth:`close`."""

    def __init__(self, settings: Settings | None = None, *, max_retry_time_s: float = 15.0) -> None:
        self.settings = settings or get_settings()
        self.uri, user, password = connection_details(self.settings)
        self.database = self.settings.neo4j_database
        try:
            self._driver = GraphDatabase.driver(
                self.uri, auth=(user, password), max_transaction_retry_time=max_retry_time_s,
                connection_acquisition_timeout=30.0, connection_timeout=10.0,
                notifications_min_severity="OFF",
            )
        except (ValueError, neo4j_errors.ConfigurationError) as exc:
            raise ConfigError(f"invalid Neo4j URI {self.uri!r}: {exc}") from exc

    def __enter__(self) -> Graph:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._driver.close()

    def verify(self) -> None:
        """Raise :class:`GraphUnavailableError` naming the URI if the server cannot be reached."""
        with self._translate_errors():
            self._driver.verify_connectivity()

    @contextmanager
    def _translate_errors(self) -> Iterator[None]:
        try:
            yield
        except neo4j_errors.AuthError as exc:
            raise GraphUnavailableError(
                f"Neo4j at {self.uri} refused the credentials ({exc.message}); check DKG_NEO4J_USER / "
                "DKG_NEO4J_PASSWORD (for the local server: the password file in the data folder)."
            ) from exc
        except (neo4j_errors.ServiceUnavailable, neo4j_errors.SessionExpired, OSError) as exc:
            hint = "run `dkg neo4j start`" if self.settings.uses_local_neo4j else "check DKG_NEO4J_URI and the server"
            raise GraphUnavailableError(f"cannot reach Neo4j at {self.uri}: {exc}; {hint}.") from exc
        except neo4j_errors.Neo4jError as exc:
            raise GraphError(f"Neo4j refused the query ({exc.code}): {exc.message}") from exc
        except neo4j_errors.DriverError as exc:
            raise GraphError(f"Neo4j driver error talking to {self.uri}: {exc}") from exc

    @staticmethod
    def _query(cypher: str, timeout_s: float | None) -> Query:
        return Query(cast(LiteralString, cypher), timeout=timeout_s)

    def read(self, cypher: str, params: Mapping[str, Any] | None = None, *, timeout_s: float | None = None,
             limit: int | None = None) -> list[Record]:
        """Run ``cypher`` in a READ transaction (writes are refused by the server) and return records."""
        statement = cast(LiteralString, cypher)

        @unit_of_work(timeout=timeout_s)
        def work(tx: ManagedTransaction) -> list[Record]:
            result = tx.run(statement, dict(params or {}))
            rows: list[Record] = []
            for record in result:
                if limit is not None and len(rows) >= limit:
                    break
                rows.append(record.data())
            return rows

        return self.execute_read(work)

    def write(self, cypher: str, params: Mapping[str, Any] | None = None, *, timeout_s: float | None = None
              ) -> list[Record]:
        """Run one parameterized statement in a WRITE transaction and return its records."""
        statement = cast(LiteralString, cypher)

        @unit_of_work(timeout=timeout_s)
        def work(tx: ManagedTransaction) -> list[Record]:
            return [r.data() for r in tx.run(statement, dict(params or {}))]

        return self.execute_write(work)

    def run_autocommit(self, cypher: str, params: Mapping[str, Any] | None = None) -> None:
        """Run a trusted maintenance statement in an implicit transaction (needed for
        ``CALL { … } IN TRANSACTIONS``); not retried, never for untrusted Cypher."""
        with self._translate_errors(), self._driver.session(database=self.database) as session:
            session.run(self._query(cypher, None), dict(params or {})).consume()

    def execute_read(self, work: Callable[[ManagedTransaction], T]) -> T:
        """Run ``work`` in a managed read transaction (retried on transient errors)."""
        with self._translate_errors(), self._driver.session(
            database=self.database, default_access_mode=neo4j.READ_ACCESS
        ) as session:
            return session.execute_read(work)

    def execute_write(self, work: Callable[[ManagedTransaction], T]) -> T:
        """Run ``work`` in one managed write transaction: all of it commits, or none of it."""
        with self._translate_errors(), self._driver.session(database=self.database) as session:
            return session.execute_write(work)

    def ensure_schema(self) -> None:
        """Apply the schema once per connection (cheap to call again)."""
        if not getattr(self, "_schema_applied", False):
            self.apply_schema()
            self._schema_applied = True

    def apply_schema(self, names: tuple[str, ...] | None = None) -> int:
        """Apply ``cypher/schema*.cypher`` (idempotent ``IF NOT EXISTS``). Returns the statement count."""
        paths = sorted(CYPHER_DIR.glob("schema*.cypher")) if names is None else [
            CYPHER_DIR / f"{n}.cypher" for n in names]
        count = 0
        for path in paths:
            for statement in split_statements(path.read_text()):
                if not _IDEMPOTENT.search(statement):
                    raise GraphError(f"{path.name}: schema statement must be CREATE … IF NOT EXISTS or "
                                     f"DROP … IF EXISTS: {statement[:80]}")
                with self._translate_errors(), self._driver.session(database=self.database) as session:
                    session.run(self._query(statement, None)).consume()
                count += 1
        return count


def open_graph(settings: Settings | None = None) -> Graph:
    """Open the configured graph and check it answers."""
    graph = Graph(settings)
    try:
        graph.verify()
    except Exception:
        graph.close()
        raise
    return graph


