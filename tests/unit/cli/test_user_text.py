"""User, query and graph text is printed verbatim: rich markup in it is neither interpreted nor a crash."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console
from typer.testing import CliRunner

from dkg.answers import Answer, Evidence
from dkg.cli.main import app
from dkg.cli.render import print_answer

CYPHER = ("MATCH (d:Decision)-[r:NEXT_STEP]->(a:Action) WHERE all(k IN keys($facts) WHERE d[k] IS NULL "
          "OR d[k] = facts[k]) RETURN a.uid AS uid")


def test_error_message_with_markup_is_printed_verbatim(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["parse", str(tmp_path / "x.pdf"), "-o", str(tmp_path / "x.csv"),
                                      "--ocr", "[/x]"])
    assert result.exit_code == 1
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "got '[/x]'" in result.output


def test_answer_cypher_notes_and_evidence_are_verbatim() -> None:
    answer = Answer(question="q", route="text2cypher", answer="Treat [bold]per[/bold] protocol [/x]",
                    cypher=CYPHER, cypher_params={"facts": {"age": 30}},
                    evidence=[Evidence(node_uid="ALL|1|a", content="Option [i]A[/i]", kind="Action",
                                       guideline="ALL", version="1", path=["ALL|1|root", "ALL|1|[a]"])])
    buffer = io.StringIO()
    print_answer(Console(file=buffer, width=400), answer, notes=["note [/x]"],
                 also_retrieved=[Evidence(node_uid="b", content="[red]B[/red]", kind="Section")])
    output = buffer.getvalue()
    assert CYPHER in output
    assert answer.answer in output
    assert "note [/x]" in output
    assert "Option [i]A[/i]" in output
    assert "[red]B[/red]" in output
    assert "ALL|1|root > ALL|1|[a]" in output


def test_dkg_ask_says_which_facts_would_go_further() -> None:
    from dkg.answers import MissingFact

    answer = Answer(question="q", route="text2cypher", answer="Probable VT", cypher_params={"performance_status": 1.0},
                    missing_facts=[MissingFact(key="age", description="Patient age", allowed=["<18", ">=18"])])
    buffer = io.StringIO()
    print_answer(Console(file=buffer, width=400), answer)
    assert "Known so far: performance_status=1. To go further I need: patient age (<18 / >=18)." in buffer.getvalue()
