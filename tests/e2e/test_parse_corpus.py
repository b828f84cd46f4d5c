"""Digital parsing of the rendered corpus PDFs against their gold edge files."""

from __future__ import annotations

from pathlib import Path

import pytest

from dkg.parsing import parse_pdf
from dkg.parsing.corpus_eval import corpus_pdfs
from dkg.parsing.evaluate import prf, read_edges

CORPUS = Path(__file__).resolve().parents[2] / "datasets" / "guidelines"
DIGITAL = [i for i in (corpus_pdfs(CORPUS) if CORPUS.is_dir() else []) if not i.scanned]


@pytest.mark.skipif(not DIGITAL, reason="corpus not rendered (dkg corpus render)")
@pytest.mark.parametrize("item", DIGITAL, ids=lambda i: i.pdf.name)
def test_digital_corpus_edge_f1(item) -> None:  # type: ignore[no-untyped-def]
    result = parse_pdf(item.pdf, ocr="never")
    scores = prf([e.model_dump() for e in result.edges], read_edges(item.gold))
    assert scores["f1"] >= 0.98, scores
