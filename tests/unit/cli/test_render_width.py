"""Answers read well at 80 and 120 columns: no line wider than the terminal, no word split across lines."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from dkg.answers import Answer, Evidence
from dkg.cli.render import WIDE_MIN_COLUMNS, print_answer

TEXTS = [
    "Clinical trial or TKI + multiagent chemotherapy (hyper-CVAD or pediatric-inspired regimen) followed by "
    "allogeneic HCT in first complete remission for eligible patients with Philadelphia chromosome-positive disease",
    "Treatment of Philadelphia chromosome-positive acute lymphoblastic leukemia usually combines a tyrosine kinase "
    "inhibitor with chemotherapy or immunotherapy.",
    "Radical nephrectomy; partial nephrectomy when technically feasible.",
]


def _answer() -> Answer:
    evidence = [
        Evidence(node_uid="ALL|1.2026|79d7fb82ec92f257", kind="Action", guideline="ALL", version="1.2026",
                 pages=["ALL-3"], content=TEXTS[0], score=0.8123, hop=0, seed_uid="ALL|1.2026|79d7fb82ec92f257",
                 field_contributions={"content": 0.52, "treatments": 0.21},
                 path=["ALL|1.2026|1ef10ad1ce84ea33", "ALL|1.2026|59b49f10d04e6535", "ALL|1.2026|79d7fb82ec92f257"]),
        Evidence(node_uid="pdq:adult-all#treatment", kind="Section", content=TEXTS[1], score=0.7011, hop=2,
                 source_url="https://www.cancer.gov/types/leukemia/hp/adult-all-treatment-pdq",
                 seed_uid="ALL|1.2026|59b49f10d04e6535", field_contributions={"content": 0.61}),
        Evidence(node_uid="kidney|1.2026|0a1b2c3d4e5f6a7b", kind="Action", guideline="kidney", version="1.2026",
                 pages=["KID-2"], content=TEXTS[2], score=0.55),
    ]
    return Answer(question="q", route="text2cypher", answer="Clinical trial or TKI + multiagent chemotherapy",
                  cypher="MATCH (d:Decision)-[r:NEXT_STEP]->(a:Action) WHERE d.guideline = $guideline "
                         "RETURN a.uid AS uid, a.content AS content",
                  cypher_params={"guideline": "ALL"}, evidence=evidence)


def _render(width: int) -> str:
    buffer = io.StringIO()
    print_answer(Console(file=buffer, width=width), _answer(), notes=["answered by the GRAG retriever instead"],
                 elapsed_ms=12.0)
    return buffer.getvalue()


@pytest.mark.parametrize("width", [80, 120])
def test_no_line_is_wider_than_the_terminal(width: int) -> None:
    lines = _render(width).splitlines()
    assert lines and max(len(line) for line in lines) <= width


@pytest.mark.parametrize("width", [80, 120])
def test_every_word_of_the_evidence_stays_whole(width: int) -> None:
    shown = set(_render(width).split())
    for text in TEXTS:
        for word in text[:150].rsplit(" ", 1)[0].split():  # evidence text is cut after 160 characters
            assert word in shown, (width, word)


def test_layout_degrades_by_width() -> None:
    assert "┃ text" not in _render(WIDE_MIN_COLUMNS - 1)
    assert "┃ text" in _render(120)


def test_the_retrievers_reason_is_shown_in_both_layouts() -> None:
    from io import StringIO

    from rich.console import Console

    from dkg.answers import Evidence
    from dkg.cli.render import print_evidence

    item = Evidence(node_uid="s1", content="Treatment options for Ewing sarcoma.", kind="Section", score=0.9,
                    reason="sub-query 2 of 2: ewing sarcoma")
    for width in (80, 140):
        buffer = StringIO()
        print_evidence(Console(file=buffer, width=width, color_system=None), [item])
        assert "sub-query 2 of 2" in " ".join(buffer.getvalue().split()), width
