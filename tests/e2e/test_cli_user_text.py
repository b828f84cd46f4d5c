"""The curation commands print user and graph text verbatim: rich markup in it is neither run nor a crash."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from dkg.cli.main import app
from dkg.graph.builder import build
from dkg.graph.db import Graph
from dkg.graph.sources import input_from_source

pytestmark = pytest.mark.neo4j

MARKUP = "[/x] [bold]not bold[/bold] [r:NEXT_STEP]"


@pytest.fixture()
def kidney(graph: Graph) -> Graph:
    graph.write("MATCH (n:Node {guideline: 'kidney'}) DETACH DELETE n")
    graph.write("MATCH (g:GuidelineVersion {guideline: 'kidney'}) DETACH DELETE g")
    graph.write("MATCH (c:Change) WHERE c.node_uid STARTS WITH 'kidney|' DETACH DELETE c")
    build(graph, [input_from_source("kidney", "1.2026")])
    return graph


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": "300"})
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result.exit_code, result.output


def test_find_prints_the_searched_text_verbatim(kidney: Graph) -> None:
    code, output = _run("constraint", "find", MARKUP)
    assert code == 0
    assert f"no node contains {MARKUP!r}" in output


def test_set_refusal_names_the_markup_constraint(kidney: Graph) -> None:
    code, output = _run("constraint", "set", "Renal mass in an adult", "[/x]", "-r", "test", "-g", "kidney")
    assert code == 1
    assert "[/x]" in output and "Traceback" not in output


def test_history_and_change_show_reason_and_wording_verbatim(kidney: Graph) -> None:
    code, output = _run("constraint", "set", "Renal mass in an adult", "age>=21", "-r", MARKUP, "-g", "kidney",
                        "--content", "Renal mass [b]in[/b] an adult")
    assert code == 0, output
    assert "[b]in[/b]" in output
    code, output = _run("history", "Renal mass [b]in", "-g", "kidney")
    assert code == 0, output
    assert MARKUP in output
    code, output = _run("history", MARKUP)
    assert code == 1
    assert MARKUP in output
