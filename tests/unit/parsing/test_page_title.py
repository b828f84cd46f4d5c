"""A flowchart's title printed above it is read as its page's title (real born-digital pages)."""

from __future__ import annotations

from dkg.config import PROJECT_ROOT
from dkg.graph.build_input import BuildInput
from dkg.parsing import parse_pdf
from dkg.parsing.output import sidecar

REAL = PROJECT_ROOT / "datasets" / "realpdfs"


def test_the_titles_of_real_development_pages() -> None:
    result = parse_pdf(REAL / "smog-cardiac-flowcharts.pdf", pages="1,2,4,5,7")
    assert [page.title for page in result.pages] == [
        "BRADYCARDIA with PULSE", "CHEST PAIN", "TACHYCARDIA w/ PULSE", "PEDIATRIC CARDIAC ARREST",
        "PEDIATRIC TACHYCARDIA with Pulse and Poor Perfusion"]  # a two-line title is one
    assert [p["title"] for p in sidecar(result)["pages"]][2] == "TACHYCARDIA w/ PULSE"
    # a page of body text with a figure in it: no line stands out, no title
    assert parse_pdf(REAL / "cbrn-bio-response.pdf").pages[0].title is None


def test_nodes_keep_the_titles_of_their_pages_and_hashes_without_titles_stay() -> None:
    plain = BuildInput("g", "1")
    plain.add_node("Entry", [], "n1", page="1")
    titled = BuildInput("g", "1", page_titles={"4": "TACHYCARDIA w/ PULSE"})
    shared = titled.add_node("Entry", [], "n1", page="1")
    titled.add_node("Entry", [], "n2", page="4")
    alone = titled.add_node("Stable?", [], "n3", page="1")
    assert titled.titles_of(titled.nodes[shared]) == ["", "TACHYCARDIA w/ PULSE"]  # in the order of its pages
    assert titled.titles_of(titled.nodes[alone]) is None
    assert [r["props"]["page_titles"] for r in plain.node_rows({})] == [None]
    same = BuildInput("g", "1", page_titles={"1": "BRADYCARDIA"})
    same.add_node("Entry", [], "n1", page="1")
    assert plain.source_sha() != same.source_sha()  # a title changes the graph ...
    # ... and a build without titles hashes as before titles existed (no key in the payload: graphs stay current)
    assert plain.source_sha() == "29189b82db53" + plain.source_sha()[12:]
