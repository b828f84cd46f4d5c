"""A box ending its page by naming another page's title is an arrow to that page's entry box (real pages)."""

from __future__ import annotations

import csv
import io

from dkg.config import PROJECT_ROOT
from dkg.constraints.io import ConstrainedEdge
from dkg.graph.onboard import draft_items_of
from dkg.parsing import parse_pdf
from dkg.parsing.models import ParsedPage
from dkg.parsing.output import render_csv, sidecar
from dkg.parsing.title_links import title_links
from dkg.types import HeadTailEdge

REAL = PROJECT_ROOT / "datasets" / "realpdfs"


def test_the_tachycardia_chart_sends_chest_pain_to_the_chest_pain_chart() -> None:
    result = parse_pdf(REAL / "smog-cardiac-flowcharts.pdf", pages="1,2,4,5,7")
    assert [(e.head, e.head_box_id, e.tail_box_id, e.page) for e in result.links] == [
        ("Chest Pain Guideline", "p4-b10", "p2-b4", "4")]
    assert result.links[0].tail.startswith("Universal Patient Care Protocol")  # the chest pain chart's first box
    # "go to: Post-Cardiac Arrest Care Guideline" names no parsed page (that chart is not among these pages)
    assert not any("Post-Cardiac" in e.head for e in result.links)
    text, rows = render_csv(result)
    written = list(csv.DictReader(io.StringIO(text)))
    assert rows == len(written) == len(result.edges) and written[-1]["tail_box_id"] == "p2-b4"
    assert sidecar(result)["links"][0]["head_original"] == "Chest Pain Guideline"
    # parsed alone, the page it names is not there: no link
    assert parse_pdf(REAL / "smog-cardiac-flowcharts.pdf", pages="4").links == []


def _page(number: int, title: str | None, edges: list[tuple[str, str]]) -> ParsedPage:
    from dkg.parsing.geometry import BBox
    from dkg.parsing.models import Box

    page = ParsedPage(number=number, source="digital", width=600, height=800, title=title)
    texts = dict.fromkeys(t for edge in edges for t in edge)
    for i, text in enumerate(texts):
        page.boxes.append(Box(f"p{number}-b{i + 1}", BBox(10, 10 + 50 * i, 200, 40 + 50 * i), "rect", text, text))
    ids = {b.text: b.id for b in page.boxes}
    page.edges = [HeadTailEdge(head=h, tail=t, page=str(number), head_box_id=ids[h], tail_box_id=ids[t])
                  for h, t in edges]
    return page


def test_only_a_last_step_naming_one_title_best_links() -> None:
    pages = [_page(1, "Adult Bradycardia", [("Assess", "HR < 50?"), ("HR < 50?", "Tachycardia Protocol")]),
             _page(2, "Adult Tachycardia with Pulse", [("Assess rhythm", "Stable?"),
                                                       ("Stable?", "Bradycardia Guideline"),
                                                       ("Bradycardia Guideline", "Monitor")]),
             _page(3, None, [("Start", "see Bradycardia Protocol")])]
    links = title_links(pages)
    # page 1's last box names page 2's title (one word of three); page 2's box leads on on its own page; page 3 has
    # no title to be named but names page 1
    assert [(e.head_box_id, e.tail_box_id) for e, _ in links] == [("p1-b3", "p2-b1"), ("p3-b2", "p1-b1")]
    pages[1].title = "Adult Tachycardia with a Pulse and Poor Perfusion"  # one word of four: too little of it
    assert [e.head_box_id for e, _ in title_links(pages)] == ["p3-b2"]


def test_a_link_joins_the_entry_box_of_the_other_page_in_the_draft() -> None:
    def row(edge: HeadTailEdge) -> ConstrainedEdge:
        return ConstrainedEdge(edge, [], [], None)

    edges = [HeadTailEdge(head="Universal care", tail="Aspirin", page="2", head_box_id="p2-b1", tail_box_id="p2-b2"),
             HeadTailEdge(head="Chest pain?", tail="Chest Pain Guideline", label="YES", page="4",
                          head_box_id="p4-b1", tail_box_id="p4-b2"),
             HeadTailEdge(head="Chest Pain Guideline", tail="Universal care", page="4", head_box_id="p4-b2",
                          tail_box_id="p2-b1")]
    items = draft_items_of([row(e) for e in edges])
    nodes = {i.item: i for i in items if i.kind == "node"}
    assert len(nodes) == 4  # the link's tail is page 2's box, not a new one
    link = [i for i in items if i.kind == "edge"][-1]
    assert (nodes[link.head].content, nodes[link.tail].content, nodes[link.tail].page) == (
        "Chest Pain Guideline", "Universal care", "2")
