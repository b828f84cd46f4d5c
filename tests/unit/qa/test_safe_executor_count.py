"""SafeExecutor counts a run the server reports as not read-only (and rolls it back), whatever the plan check
said: the count is read from the run's own summary, so it would catch a plan check that let a write through."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

import dkg.qa.safety as safety
from dkg.config import Settings
from dkg.errors import UnsafeQueryError
from dkg.qa.safety import PlanCheck, SafeExecutor


@dataclass
class _Counters:
    contains_updates: bool = False
    contains_system_updates: bool = False


@dataclass
class _Summary:
    query_type: str
    counters: _Counters = field(default_factory=_Counters)


@dataclass
class _Record:
    row: dict[str, Any]

    def data(self) -> dict[str, Any]:
        return self.row


@dataclass
class _Result:
    rows: list[dict[str, Any]]
    summary: _Summary

    def __iter__(self) -> Iterator[_Record]:
        return iter(_Record(r) for r in self.rows)

    def consume(self) -> _Summary:
        return self.summary


@dataclass
class _Tx:
    result: _Result

    def run(self, cypher: str, params: dict[str, Any]) -> _Result:
        return self.result


@dataclass
class _Graph:
    """What the server would answer for the one query run: its rows and its summary."""

    result: _Result
    runs: int = 0

    def execute_read(self, work: Callable[[Any], Any]) -> Any:
        self.runs += 1
        return work(_Tx(self.result))

    def read(self, cypher: str, params: Any = None, **_: Any) -> list[dict[str, Any]]:
        self.runs += 1
        return list(self.result.rows)


@pytest.fixture()
def plan_check_lets_everything_through(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(safety, "check_plan", lambda graph, cypher, params=None: PlanCheck("r"))


def _executor(summary: _Summary, rows: list[dict[str, Any]] | None = None) -> tuple[SafeExecutor, _Graph]:
    graph = _Graph(_Result(rows if rows is not None else [{"n": 1}], summary))
    return SafeExecutor(graph, Settings(), row_limit=5), graph  # type: ignore[arg-type]


@pytest.mark.usefixtures("plan_check_lets_everything_through")
def test_a_write_that_got_past_the_plan_check_is_counted_and_raises() -> None:
    executor, graph = _executor(_Summary("rw", _Counters(contains_updates=True)))
    with pytest.raises(UnsafeQueryError, match="rolled back"):
        executor.run("CREATE (n:Leak) RETURN n")
    assert graph.runs == 1
    assert executor.unsafe_executed == 1


@pytest.mark.usefixtures("plan_check_lets_everything_through")
@pytest.mark.parametrize("summary", [_Summary("w"), _Summary("s"),
                                     _Summary("r", _Counters(contains_system_updates=True))])
def test_any_run_that_was_not_a_pure_read_is_counted(summary: _Summary) -> None:
    executor, _ = _executor(summary)
    with pytest.raises(UnsafeQueryError):
        executor.run("MATCH (n) RETURN n")
    assert executor.unsafe_executed == 1


@pytest.mark.usefixtures("plan_check_lets_everything_through")
def test_a_pure_read_is_not_counted_and_keeps_the_row_limit() -> None:
    executor, _ = _executor(_Summary("r"), rows=[{"n": i} for i in range(9)])
    rows = executor.run("MATCH (n) RETURN n")
    assert rows == [{"n": i} for i in range(5)]
    assert (executor.executed, executor.unsafe_executed, executor.refused) == (1, 0, 0)
