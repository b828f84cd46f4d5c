"""`dkg review add-box / add-arrow / add-key` add what the parser missed to a draft (audited), with a one-line
error for a bad page, box or key; `dkg review list --json` prints JSON that parses."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from typer.testing import CliRunner

from dkg.cli.main import app
from dkg.graph.db import Graph
from dkg.graph.drafts import DraftItem, create_draft, draft_items, review_history

pytestmark = pytest.mark.neo4j

NAME, VERSION = "review-cli-add-e2e", "1.2026"
ITEMS = [DraftItem("n1", "node", "Assess the review-cli patient " + "with a long box text " * 8, page="2"),
         DraftItem("n2", "node", "Observe the review-cli patient", page="2"),
         DraftItem("e1", "edge", "", head="n1", tail="n2")]


def _clean(graph: Graph) -> None:
    graph.write("MATCH (d:DraftVersion {of_guideline: $g}) OPTIONAL MATCH (d)-[:HAS_ITEM]->(i) DETACH DELETE i, d",
                {"g": NAME})
    graph.write("MATCH (a:ReviewAction) WHERE a.version_uid STARTS WITH $p DETACH DELETE a", {"p": NAME + "|"})


@pytest.fixture()
def draft(graph: Graph) -> Iterator[Graph]:
    _clean(graph)
    create_draft(graph, NAME, VERSION, ITEMS, title="review-cli draft", source="test", who="e2e")
    yield graph
    _clean(graph)


def _run(*args: str) -> tuple[int, str]:
    # a narrow terminal: JSON printed by the CLI must not be broken at its width
    result = CliRunner().invoke(app, ["review", *args], env={"COLUMNS": "60"})
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result.exit_code, result.output


def test_a_curator_adds_a_box_an_arrow_and_a_key_from_the_cli(draft: Graph) -> None:
    code, out = _run("add-box", NAME, VERSION, "--text", "Refer the review-cli patient", "--page", "5",
                     "--reason", "missed")
    assert code == 1 and "page '5' is not a page of the draft" in out and "Traceback" not in out
    code, out = _run("add-box", NAME, VERSION, "--text", "Refer the review-cli patient", "--page", "2")
    assert code == 1 and "say why the item is added" in out
    code, out = _run("add-box", NAME, VERSION, "--text", "Refer the review-cli patient", "--page", "2",
                     "--reason", "the parser missed it")
    assert code == 0 and "added box n3 on page 2" in out, out
    code, out = _run("add-key", NAME, VERSION, "review_cli_flag", "--kind", "boolean", "--yes", "flagged",
                     "--no", "not flagged", "--description", "a made-up flag", "--reason", "not proposed")
    assert code == 0 and "added key k:review_cli_flag" in out, out
    code, out = _run("add-key", NAME, VERSION, "review_cli_rate", "--kind", "numeric", "--unit", "1/min",
                     "--reason", "x")
    assert code == 1 and "needs --unit and --range" in out
    code, out = _run("add-arrow", NAME, VERSION, "n2", "n3", "--label", "if flagged",
                     "--constraints", "review_cli_flag=yes", "--reason", "the parser missed it")
    assert code == 0 and "added arrow e2: n2 → n3 [if flagged]" in out, out
    code, out = _run("add-arrow", NAME, VERSION, "n2", "n9", "--reason", "x")
    assert code == 1 and "has no box 'n9'" in out
    added = {it.item: it for it in draft_items(draft, NAME, VERSION)}
    box = added["n3"]
    assert (box.content, box.page, box.status) == ("Refer the review-cli patient", "2", "edited")
    assert added["e2"].constraints == ["review_cli_flag=yes"]
    assert [(h["action"], h["item"]) for h in review_history(draft, NAME, VERSION)][-3:] == [
        ("add", "n3"), ("add", "k:review_cli_flag"), ("add", "e2")]
    code, out = _run("list", NAME, VERSION, "--json")
    assert code == 0
    assert [i["item"] for i in json.loads(out)] == ["n1", "n2", "e1", "n3", "k:review_cli_flag", "e2"]
