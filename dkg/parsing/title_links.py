"""Arrows from one flowchart page to another that a box makes by naming the other page's title.

Publishers chain their charts by name: the tachycardia chart's "Chest Pain / SOB?" YES branch ends in a box
"Chest Pain Guideline", the arrest chart's in "ROSC at any time: go to: Post-Cardiac Arrest Care Guideline".
Such a box is the last step of its own page (no arrow leaves it there), ends with a word naming a chart
(guideline, protocol, algorithm, chart, pathway), and what stands before that word — after the last "go to",
"see", "refer to", "move to", "continue with" when there is one — names another parsed page's title: every word
of the name is a word of that title, and it names a larger share of that title (at least
``TitleLinkSettings.min_title_share``: a name may leave out the population and a qualifier) than of any other.
The link is an arrow from the box to that page's entry (its topmost box with arrows leaving and none entering),
so a walk through the document goes on where the publisher sends the reader. Pages without a title read
(scans) are never linked to.
"""

from __future__ import annotations

import re

from dkg.parsing.models import ParsedPage
from dkg.parsing.settings import DEFAULT_TITLE_LINK_SETTINGS, TitleLinkSettings
from dkg.types import HeadTailEdge

_CHART_NOUN = r"(?:guidelines?|protocols?|algorithms?|charts?|pathways?)"
_NAMED_CHART = re.compile(rf"^(?P<name>.*?)\s*\b{_CHART_NOUN}\s*[.:]?\s*$", re.IGNORECASE | re.DOTALL)
_SEND_CUE = re.compile(r"\b(?:go\s*to|goto|see|refer\s+to|move\s+to|proceed\s+to|continue\s+(?:with|to|on))\b\s*:?",
                       re.IGNORECASE)
_WORD = re.compile(r"[a-z0-9]+")
_NOT_NAMING = frozenset({"a", "an", "and", "or", "the", "of", "for", "with", "w", "to", "in", "on", "at", "per",
                         "by", "page", "guideline", "guidelines", "protocol", "protocols", "algorithm", "algorithms",
                         "chart", "charts", "pathway", "pathways"})


def _words(text: str) -> frozenset[str]:
    return frozenset(_WORD.findall(text.lower())) - _NOT_NAMING


def chart_name(text: str) -> frozenset[str]:
    """The words a box names a chart with (empty when it names none).

    >>> sorted(chart_name("Chest Pain Guideline"))
    ['chest', 'pain']
    >>> sorted(chart_name("ROSC at any time: go to: Post-Cardiac Arrest Care Guideline"))
    ['arrest', 'cardiac', 'care', 'post']
    >>> chart_name("Universal Patient Care Guideline O2 (if Hypoxemic)")
    frozenset()
    """
    match = _NAMED_CHART.match(text.strip())
    if match is None:
        return frozenset()
    name = match["name"]
    cues = list(_SEND_CUE.finditer(name))
    return _words(name[cues[-1].end():] if cues else name)


def named_page(text: str, titles: dict[int, str],
               settings: TitleLinkSettings = DEFAULT_TITLE_LINK_SETTINGS) -> int | None:
    """The page (key of ``titles``) whose title the box text names, when exactly one is named best.

    >>> titles = {2: "CHEST PAIN", 4: "TACHYCARDIA w/ PULSE", 7: "PEDIATRIC TACHYCARDIA with Pulse and Poor Perfusion"}
    >>> named_page("Chest Pain Guideline", titles), named_page("see Tachycardia Protocol", titles)
    (2, 4)
    >>> named_page("Move to VF / pulseless VT side of guideline", titles) is None
    True
    """
    name = chart_name(text)
    if not name:
        return None
    shares = {}
    for page, title in titles.items():
        words = _words(title)
        if words and name <= words:
            shares[page] = len(name) / len(words)
    best = max(shares.values(), default=0.0)
    chosen = [page for page, share in shares.items() if share == best]
    return chosen[0] if best >= settings.min_title_share and len(chosen) == 1 else None


def title_links(pages: list[ParsedPage], settings: TitleLinkSettings = DEFAULT_TITLE_LINK_SETTINGS
                ) -> list[tuple[HeadTailEdge, tuple[str, str]]]:
    """The arrows (with the two boxes' original texts) from the boxes that name another page's title to that
    page's entry box (module docstring)."""
    titles = {i: page.title for i, page in enumerate(pages) if page.title}
    links = []
    for i, page in enumerate(pages):
        heads = {e.head_box_id for e in page.edges}
        tails = {e.tail_box_id for e in page.edges}
        for box in page.boxes:
            if box.id in heads or box.id not in tails or box.link_code is not None:
                continue
            target = named_page(box.text, {j: t for j, t in titles.items() if j != i}, settings)
            entries = [] if target is None else pages[target].entry_boxes()
            if not entries:
                continue
            entry = entries[0]
            edge = HeadTailEdge(head=box.text, tail=entry.text, page=page.code or str(page.number),
                                head_box_id=box.id, tail_box_id=entry.id)
            links.append((edge, (box.original, entry.original)))
    return links
