"""Safe execution of generated Cypher: ``EXPLAIN`` first and check the plan, then run read-only with a
timeout and a row limit.

Keyword blocklists are bypassed easily (comments, unicode escapes, ``CALL { … }``), so the decision rests on
what the server says it would do: the plan's operators and the summary's query type. The query then runs in
a READ transaction, where the server itself refuses writes.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, LiteralString, cast

from neo4j import ManagedTransaction, unit_of_work

from dkg.config import Settings
from dkg.errors import GraphError, UnsafeQueryError
from dkg.graph.db import Graph

# Operators that change data or schema, or touch anything outside the graph.
_WRITE_MARKERS = ("create", "merge", "delete", "set", "remove", "foreach", "loadcsv", "load csv",
                  "transactionforeach", "transactionapply", "emptyresult", "createindex", "dropindex",
                  "createconstraint", "dropconstraint", "donothingifexists")
_PROCEDURE_MARKERS = ("procedurecall", "procedure")
ALLOWED_PROCEDURES = frozenset({"db.labels", "db.relationshiptypes", "db.propertykeys"})
DEFAULT_ROW_LIMIT = 100


@dataclass
class PlanCheck:
    """The verdict on one query plan."""

    query_type: str
    operators: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def safe(self) -> bool:
        return not self.problems


def _walk(plan: Mapping[str, Any] | None) -> Iterator[Mapping[str, Any]]:
    if not plan:
        return
    yield plan
    for child in plan.get("children", []) or []:
        yield from _walk(child)


def _procedure_name(args: Mapping[str, Any]) -> str:
    text = " ".join(str(v) for v in args.values()).lower()
    for word in text.replace("(", " ").split():
        if "." in word:
            return word.strip("`")
    return text[:60]


def check_plan(graph: Graph, cypher: str, params: Mapping[str, Any] | None = None) -> PlanCheck:
    """EXPLAIN ``cypher`` (nothing runs) and list every reason it is not a pure read of the graph."""
    if cypher.lstrip().upper().startswith(("EXPLAIN", "PROFILE")):
        return PlanCheck("?", problems=["the query must not carry its own EXPLAIN/PROFILE prefix"])

    def work(tx: ManagedTransaction) -> tuple[str, dict[str, Any] | None]:
        summary = tx.run("EXPLAIN " + cypher, dict(params or {})).consume()  # type: ignore[arg-type]
        return str(summary.query_type or "?"), summary.plan

    try:
        query_type, plan = graph.execute_read(work)
    except GraphError as exc:
        return PlanCheck("?", problems=[f"the server cannot plan the query: {exc}"])
    check = PlanCheck(query_type)
    if query_type != "r":
        check.problems.append(f"query type is {query_type!r}, not read-only 'r'")
    for op in _walk(plan):
        name = str(op.get("operatorType", "")).split("@")[0]
        check.operators.append(name)
        lowered = name.lower().replace("_", "")
        if any(m in lowered for m in _PROCEDURE_MARKERS):
            proc = _procedure_name(op.get("args", {}) or {})
            if proc not in ALLOWED_PROCEDURES:
                check.problems.append(f"calls procedure {proc!r} (allowed: {', '.join(sorted(ALLOWED_PROCEDURES))})")
        elif any(m in lowered for m in _WRITE_MARKERS):
            check.problems.append(f"plan operator {name} writes or reads outside the graph")
    return check


class SafeExecutor:
    """Runs untrusted Cypher only after its plan passed :func:`check_plan`; counts what it refused, what it
    ran, and what it ran although the server's summary of the run says it was not a pure read
    (``unsafe_executed``: each such run is rolled back and raises, so a plan check that let a write through
    shows up here instead of in the graph)."""

    def __init__(self, graph: Graph, settings: Settings, row_limit: int = DEFAULT_ROW_LIMIT) -> None:
        self.graph = graph
        self.settings = settings
        self.row_limit = row_limit
        self.refused = 0
        self.executed = 0
        self.unsafe_executed = 0

    def run(self, cypher: str, params: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        """Rows of ``cypher``; raises :class:`UnsafeQueryError` naming the problems before anything runs, or
        after the run (rolled back) when the server reports that it was not read-only after all."""
        check = check_plan(self.graph, cypher, params)
        if not check.safe:
            self.refused += 1
            raise UnsafeQueryError("refused generated query: " + "; ".join(check.problems))
        statement = cast(LiteralString, cypher)
        limit = self.row_limit

        @unit_of_work(timeout=self.settings.neo4j_query_timeout_s)
        def work(tx: ManagedTransaction) -> list[dict[str, Any]]:
            result = tx.run(statement, dict(params or {}))
            rows: list[dict[str, Any]] = []
            for record in result:
                if len(rows) >= limit:
                    break
                rows.append(record.data())
            summary = result.consume()
            counters = summary.counters
            if summary.query_type != "r" or counters.contains_updates or counters.contains_system_updates:
                self.unsafe_executed += 1
                raise UnsafeQueryError(f"generated query ran as query type {summary.query_type!r} with updates "
                                       f"{counters}; rolled back")  # raising in the work function rolls back
            return rows

        self.executed += 1
        return self.graph.execute_read(work)
