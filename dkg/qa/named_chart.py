"""Questions that ask what one chart of a multi-chart guideline says: "CP pt, ASA given, ECG shows sinus brady at
42 bpm, has a pulse. What's the chest pain chart tell me to do?".

A guideline onboarded from several flowchart pages links them: the chest pain chart's "Bradycardia with Pulse"
box leads into the bradycardia chart. The walk follows the patient across that link, so its answer is a step of
the other chart. When the question names one chart by its title and every step of the answer is on other charts,
the answer is where the patient's way leaves the named chart: its boxes from which an arrow leaves the chart
towards the answer's steps, or that name the answer's chart by its title (a link drawn as a box, "Bradycardia with
Pulse"), the ones the stated facts do not rule out first, said with the steps they lead to.
"""

from __future__ import annotations

import re
from typing import Any

from dkg.answers import Answer, Evidence
from dkg.graph.db import named_queries
from dkg.lexicon import expand_query, load_lexicon
from dkg.qa.named_step import Box, words
from dkg.qa.stems import porter_stem
from dkg.qa.way_in import FactValue, WayIn, way_in_facts

# "the chest pain chart", "the bradycardia algorithm": up to four words before a word for a chart
_CHART = re.compile(r"\b(?P<name>(?:[\w/-]+\s+){1,4}?)(?:chart|algorithm|flowchart|protocol|pathway)\b",
                    re.IGNORECASE)
_NOT_A_NAME = {"whats", "what", "does", "do", "the", "this", "our", "per", "by", "on", "in", "to", "of", "which",
               "that", "says", "say", "tell", "me"}


def names_a_chart(question: str) -> bool:
    """Whether the question has a word for a chart at all (before the boxes and their titles are read)."""
    return _CHART.search(question) is not None


def charts_named(question: str, titles: dict[str, str]) -> set[str]:
    """The pages whose title has every word the question uses to name a chart: a word matches a title word of the
    same Porter stem or that it begins ("poor perfusion" → "Poor Perfusion", "brady" → "BRADYCARDIA"), after the
    lexicon's shorthand ("brady" → bradycardia) and British spellings ("paediatric") are expanded.

    >>> titles = {"1": "BRADYCARDIA with PULSE", "2": "CHEST PAIN", "7": "PEDIATRIC TACHYCARDIA with Pulse"}
    >>> charts_named("What's the chest pain chart tell me to do?", titles)
    {'2'}
    >>> charts_named("Per the bradycardia algorithm, what next?", titles), charts_named("What now?", titles)
    ({'1'}, set())
    >>> charts_named("What does the chart say?", titles)
    set()
    >>> charts_named("per the brady flowchart", titles)
    {'1'}
    >>> charts_named("on the paediatric tachy algorithm", titles)
    {'7'}
    """
    named: set[str] = set()
    title_words = {page: _title_words(title) for page, title in titles.items()}
    for match in _CHART.finditer(question):
        said = [w for w in said_words(match["name"]) if w not in _NOT_A_NAME]
        # the words right before "chart" name it ("... to the chest pain chart": chest pain)
        while said:
            pages = {p for p, used in title_words.items() if all(_matches(w, used) for w in said)}
            if pages:
                named |= pages
                break
            said = said[1:]
    return named


def titles_said(question: str, titles: dict[str, str]) -> set[str]:
    """The pages every word of whose title the question says, anywhere, matched as :func:`charts_named` matches
    ("crushing substernal CP" says CHEST PAIN; a one-letter title word such as "w/" is no word to say).

    >>> titles = {"1": "BRADYCARDIA with PULSE", "2": "CHEST PAIN", "4": "TACHYCARDIA w/ PULSE"}
    >>> titles_said("54M crushing substernal CP x30 min", titles), titles_said("brady 38 with a pulse", titles)
    ({'2'}, {'1'})
    >>> titles_said("HR 150, narrow complex", titles)
    set()
    """
    said = said_words(question)
    return {page for page, title in titles.items()
            if (used := _sayable(title)) and title_words_said(said, title) == used}


def title_words_said(said: list[str], title: str) -> set[str]:
    """The words of ``title`` that the question words ``said`` (:func:`said_words`) say.

    >>> sorted(title_words_said(said_words("Sinus tach 125, stable"), "TACHYCARDIA w/ PULSE"))
    ['tachycardia']
    """
    return {w for w in _sayable(title) if any(_matches(s, {w}) for s in said)}


def _sayable(title: str) -> set[str]:
    return {w for w in _title_words(title) if len(w) > 1}


_PREFIX_MIN = 4  # a shorter word is no truncated title word ("pain" of "painful" is; "ca" of "cardiac" is not)


def said_words(name: str) -> list[str]:
    """The words naming a chart (or of a whole question), with the lexicon's shorthand spelled out and British
    spellings made American."""
    expanded = expand_query(name)
    spelled = load_lexicon().american_spelling(name)
    out, last = [], 0
    for e in sorted((e for e in expanded.expansions if e.kind == "shorthand"), key=lambda e: e.start):
        out += [*words(spelled[last:e.start]), *words(e.expansion)]
        last = e.end
    return out + words(spelled[last:])


def _title_words(title: str) -> set[str]:
    return set(words(load_lexicon().american_spelling(title)))


def _matches(said: str, title_words: set[str]) -> bool:
    return any(porter_stem(said) == porter_stem(t) or (len(said) >= _PREFIX_MIN and t.startswith(said))
               for t in title_words)


def answer_on_named_chart(question: str, answer: Answer, boxes: list[Box], way_in: WayIn,
                          facts: dict[str, FactValue], titles: dict[str, str]) -> Answer | None:
    """Where the patient's way leaves the chart the question names, when every step of ``answer`` is on another
    chart (module docstring); None otherwise."""
    params = answer.cypher_params or {}
    named = charts_named(question, titles)
    if len(named) != 1 or not answer.matched_nodes or "guideline" not in params:
        return None
    page = next(iter(named))
    on_page = {b.uid for b in boxes if page in b.pages}
    steps = set(answer.matched_nodes)
    if steps & on_page:
        return None
    towards = way_in.before(steps) | steps
    exits = [uid for uid in way_in.before(steps) & on_page
             if any(e.target not in on_page and e.target in towards for e in way_in.edges.get(uid, []))]
    # a box naming the answer's chart by its title is the link to it, drawn or not ("Bradycardia with Pulse")
    answer_pages = {p for b in boxes if b.uid in steps for p in b.pages} - {page}
    exits += [b.uid for b in boxes if b.uid in on_page and b.uid not in exits and any(
        titles.get(p) and set(words(titles[p])) <= set(words(b.content)) for p in answer_pages)]
    reached = way_in.ways(way_in_facts(facts))
    exits = [uid for uid in exits if uid in reached] or exits
    if not exits:
        return None
    contents = {b.uid: b.content for b in boxes}
    guideline, version = str(params["guideline"]), str(params["version"])
    rows: list[dict[str, Any]] = [{"uid": uid, "content": contents.get(uid, uid), "leads_to": sorted(steps)}
                                  for uid in sorted(exits)]
    text = (f"On the {titles[page]} chart the way leaves it at "
            + "; ".join(f'"{r["content"]}"' for r in rows) + ", which leads to "
            + "; ".join(f'"{contents.get(uid, uid)}"' for uid in answer.matched_nodes) + " on the next chart.")
    evidence = [Evidence(node_uid=r["uid"], content=str(r["content"]), kind="Action", guideline=guideline,
                         version=version) for r in rows] + list(answer.evidence)
    return Answer(question=question, route=answer.route, answer=text,
                  cypher=named_queries("qa_pathway")["walk_edges"],
                  cypher_params={"guideline": guideline, "version": version, "uids": [r["uid"] for r in rows]},
                  rows=rows, matched_nodes=[r["uid"] for r in rows], evidence=evidence,
                  missing_facts=answer.missing_facts)


__all__ = ["answer_on_named_chart", "charts_named", "names_a_chart", "said_words", "title_words_said", "titles_said"]
