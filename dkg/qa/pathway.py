"""Where the patient is in the pathway: facts about the course so far (relapse, response, MRD, therapy given)
and subtype facts (a value narrower than the one an early decision tests, e.g. papillary under non-clear-cell)
let the walk start in front of the decision that tests them, not only at the guideline's root. Which keys
and values do this is lexicon data (``position_keys``, ``broader`` in dkg/lexicon/data/clinical_facts.yaml);
the start nodes come from the graph."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from dkg.answers import MissingFact
from dkg.graph.db import Graph, named_queries
from dkg.lexicon.clinical import clinical_lexicon, course_events
from dkg.qa.populations import pages_by_population, population_of, titled_pages
from dkg.qa.queries import QuerySketch, QuestionType, bodies
from dkg.qa.vocabulary_facts import then_and_now
from dkg.qa.way_in import Way, WayIn, WayInFacts, way_in_facts
from dkg.types import constraint_key
from dkg.vocabulary import VOCABULARY, KeyKind

_ROOT_CLAUSE = ("MATCH (root:Node {guideline: guideline, version: $version})\n"
                "WHERE NOT EXISTS { (:Node)-[l:NEXT_STEP WHERE l.closes_loop IS NULL]->(root) }")
_FROM_STARTS = "MATCH (root:Node {guideline: guideline, version: $version})\nWHERE root.uid IN $starts"


@dataclass(frozen=True)
class WalkSettings:
    """What the patient walk takes as evidence of where the patient is now."""

    # keys whose stated value holds for the whole course (the age at diagnosis): a later test of one is no sign
    # that the path's treatments were given; any other stated fact tested anew later on the path is, whether
    # categorical ('new cardiac dysfunction during therapy') or a number measured now (ECOG 3-4 at progression)
    course_constant_keys: tuple[str, ...] = ("age",)


WALK_SETTINGS = WalkSettings()


def state_keys(settings: WalkSettings = WALK_SETTINGS) -> list[str]:
    """The vocabulary keys a later test of which is evidence for the actions before it (see ``_UNEVIDENCED``)."""
    return sorted(k for k in VOCABULARY if k not in settings.course_constant_keys)


@dataclass(frozen=True)
class PositionTests:
    """The stated facts that place a patient inside the flowchart, as (key, value) tests. Once a course event is
    stated (a relapse), the other course facts describe the course after it: the walk starts only in front of
    the event's tests and checks them further on, never at a test of the first course ('not in remission' after
    re-induction is not the '<CR' after induction)."""

    tests: tuple[tuple[str, str], ...]

    @classmethod
    def of(cls, facts: dict[str, float | str], course_begun: bool = False) -> PositionTests:
        """``course_begun``: the question says a step was done or is under way; only then does a finding of the
        course (lexicon ``position_values``: a cardiac dysfunction) place the patient, since the same finding at
        diagnosis ('history of cardiomyopathy') is tested before any treatment."""
        lexicon = clinical_lexicon().data
        course_values = lexicon.position_values if course_begun else {}
        events = lexicon.course_events
        stated_event = any(str(facts.get(k)) in values for k, values in events.event.items())
        tests = [(k, str(v)) for k, v in facts.items() if isinstance(v, str) and (
            k in lexicon.position_keys or v in lexicon.broader.get(k, {}) or v in course_values.get(k, []))
            and not (stated_event and k in events.resets)]
        return cls(tuple(sorted(tests)))

    def query_rows(self) -> list[dict[str, str | bool]]:
        """The ``$tests`` of the ``position_starts`` query. ``course``: the test may also be an arrow excluding
        other values ('response != progression' places a stable response), except for a value saying the course
        has just begun (lexicon ``course_events.onset``: a new diagnosis is not placed after surveillance by
        'recurrence confirmed? NO')."""
        course = clinical_lexicon().data.position_keys
        onset = course_events().onset
        return [{"k": k, "v": v, "course": k in course and v not in onset.get(k, [])} for k, v in self.tests]


def start_nodes(graph: Graph, guideline: str, version: str, facts: dict[str, float | str],
                course_begun: bool = False) -> list[str]:
    """The roots of the guideline plus the nodes in front of a test of a position fact that a root reaches
    consistently with the stated facts (:mod:`dkg.qa.way_in`)."""
    return sorted(_starts(graph, guideline, version, facts, course_begun=course_begun))


def _starts(graph: Graph, guideline: str, version: str, facts: dict[str, float | str],
            way_in: WayIn | None = None, course_begun: bool = False) -> dict[str, Way]:
    """Start uid → the best way in to it (nothing for a root)."""
    tests = PositionTests.of(facts, course_begun)
    queries = named_queries("qa_pathway")
    params = {"guideline": guideline, "version": version}
    roots = [r["uid"] for r in graph.read(queries["roots"], params)]
    out = {uid: Way(frozenset(), 0) for uid in roots}
    if not tests.tests:
        return out
    rows = tests.query_rows()
    inner = graph.read(queries["position_starts"], {**params, "tests": rows})
    candidates = sorted({r["uid"] for r in inner} - set(roots))
    # the way in is checked with the broader value of a subtype (papillary reaches the non-clear-cell page)
    broader = _broader_facts(facts)
    way_in = way_in or WayIn.of(graph, guideline, version)
    reached = way_in.ways(way_in_facts(broader))
    out.update({uid: reached[uid] for uid in candidates if uid in reached})
    # a value that changes over the course (lexicon course_events.resets: 'MRD rising' at surveillance) is the
    # value now, not the one an earlier test of the same key saw (the MRD after induction): a start it places that
    # no consistent way reaches is reached without that key
    changing = sorted({str(r["k"]) for r in rows} & set(course_events().resets))
    if changing and (unreached := [uid for uid in candidates if uid not in reached]):
        placed = {r["uid"] for r in graph.read(queries["position_starts"], {
            **params, "tests": [r for r in rows if r["k"] in changing]})}
        later = _ways_without(way_in, broader, changing)
        out.update({uid: later[uid] for uid in unreached if uid in placed and uid in later})
    # a stated value of such a key that places nothing is the value now too ('further surgery not possible' after
    # a resection the way in passed as resectable): a start no consistent way reaches is reached without it
    drifting = sorted(set(broader) & set(course_events().resets) - {str(r["k"]) for r in rows})
    if drifting and (unreached := [uid for uid in candidates if uid not in out]):
        later = _ways_without(way_in, broader, drifting)
        out.update({uid: later[uid] for uid in unreached if uid in later})
    return out


def _ways_without(way_in: WayIn, facts: dict[str, float | str], keys: list[str]) -> dict[str, Way]:
    """The best ways in when the values of ``keys`` are left out (values that change over the course)."""
    return way_in.ways(way_in_facts({k: v for k, v in facts.items() if k not in keys}))


def _without_changing(facts: dict[str, float | str]) -> WayInFacts:
    """The way-in facts of ``facts`` without the values that change over the course (lexicon
    ``course_events.resets``): a step said to be done lies on a way consistent with what was true then."""
    resets = set(course_events().resets)
    return way_in_facts({k: v for k, v in facts.items() if k not in resets})


def _broader_facts(facts: dict[str, float | str]) -> dict[str, float | str]:
    """``facts`` with each subtype value replaced by the broader value earlier decisions test (lexicon data)."""
    broader = clinical_lexicon().data.broader
    return {k: broader.get(k, {}).get(str(v), v) for k, v in facts.items()}


@dataclass(frozen=True)
class Walk:
    """A patient query ready to run, and the algorithms for one age group its starts left out."""

    cypher: str
    params: dict[str, object]
    population_titles_left_out: list[str]


def walk_query(graph: Graph, sketch: QuerySketch, params: dict[str, object], question: str = "",
               way_in: WayIn | None = None, earlier: Callable[[], Mapping[str, float | str]] | None = None) -> Walk:
    """The patient query of ``sketch`` walking from the roots and the position starts of its stated facts, with
    the parameters that walk needs (``$starts``, ``$position_weights``; ``$prefix_keys`` and ``$prefix_passed``:
    the stated keys tested and the actions passed on the way in to each start, which the walk counts as a walk
    from the root would; ``$event_keys``: the keys of course events, lexicon data; ``$done``: the actions
    ``question`` says were done, which lose a tie to the step after them). ``way_in``: the guideline version's
    arrows when the caller has read them already; ``earlier``: reads the values the question says held before
    they changed (:attr:`~dkg.qa.vocabulary_facts.ThenAndNow.earlier`), called only when it says steps were
    done."""
    stated = {k: v for k, v in params.items() if k in sketch.keys and isinstance(v, (float, str))}
    way_in = way_in or WayIn.of(graph, sketch.guideline, str(params["version"]))
    unplaced = onset_facts_no_test_names(stated, way_in)
    stated = {k: v for k, v in stated.items() if k not in unplaced}
    params = {**params, **dict.fromkeys(unplaced)}
    course_begun = way_in.says_done(question)
    starts = _starts(graph, sketch.guideline, str(params["version"]), stated, way_in, course_begun=course_begun)
    checked = way_in_facts(checked_facts := _broader_facts(stated))
    indifferent = way_in.indifferent(checked)
    done = way_in.done_steps(question) if course_begun else set()
    # the patient is past the steps before a done step that lies on a way consistent with what was true then,
    # and the walk may start at it: the decisions on the way to it were passed, whatever they tested
    # ... and what was true then is the value a key had before the question says it changed ("PEA arrest, IO in,
    # epi given, … now VF": the access and epinephrine of the non-shockable side)
    then: Mapping[str, float | str] = {}
    if done:
        then = earlier() if earlier is not None else then_and_now(question, [sketch.guideline]).earlier
    consistent = way_in.ways(_without_changing({**checked_facts, **then})) if done else {}
    before_done = way_in.before(done & set(consistent))
    starts.update({uid: consistent[uid] for uid in sorted(done & set(consistent)) if uid not in starts})
    age = stated.get("age")
    left_out, other_algorithms = population_left_out(graph, sketch.guideline, str(params["version"]), sorted(starts),
                                                     question, age if isinstance(age, float) else None)
    for uid in left_out:
        starts.pop(uid)
    # of several charts, each entered at its own root, the walk starts on those testing the most stated keys
    fitting = set(way_in.roots_testing_most(stated, among=starts))
    starts = {uid: way for uid, way in starts.items() if uid not in way_in.roots or uid in fitting}
    return Walk(cypher_from_starts(sketch), {
        "done": sorted(done), "before_done": sorted(before_done),
        "dead_ends": sorted(way_in.dead_ends(checked)),
        "indifferent": sorted(indifferent.arrows), "indifferent_keys": sorted(indifferent.keys),
        "blocked_boxes": sorted(way_in.blocked_question_boxes(checked)),
        **params, "starts": sorted(starts), "position_weights": position_weights(),
        "prefix_keys": {uid: sorted(way.keys) for uid, way in starts.items() if way.keys},
        "prefix_passed": {uid: way.actions for uid, way in starts.items() if way.actions},
        "event_keys": sorted(course_events().event),
        "state_keys": state_keys()}, other_algorithms)


def other_population_starts(graph: Graph, guideline: str, version: str, uids: list[str], question: str,
                            age: float | None = None) -> list[str]:
    """The starts standing only on pages whose flowchart title names the population the question does not
    ("PEDIATRIC TACHYCARDIA …" for "68M, …"; :func:`dkg.qa.populations.pages_by_population`), or, when the
    question names no population, on pages whose title names any (an untitled algorithm the facts fit answers
    "wide complex tachycardia, HR 170, stable"); none when that would leave no start or the pages have no titles."""
    return population_left_out(graph, guideline, version, uids, question, age)[0]


def population_left_out(graph: Graph, guideline: str, version: str, uids: list[str], question: str,
                        age: float | None = None) -> tuple[list[str], list[str]]:
    """(:func:`other_population_starts`, the titles of the pages they stand on when the question names no
    population: algorithms for one age group that fit the stated facts too, so the answer asks for the age)."""
    if not uids or not question:
        return [], []
    rows = graph.read(named_queries("qa_pathway")["start_page_titles"],
                      {"guideline": guideline, "version": version, "uids": uids})
    titles = {str(p): str(t) for r in rows for p, t in zip(r["pages"], r["page_titles"], strict=False) if t}
    own, other = pages_by_population(question, titles, age)
    unstated = population_of(question, age) is None
    if unstated:
        # no age group stated: an algorithm titled for one ("PEDIATRIC …") yields to an untitled one the facts fit
        other = titled_pages(titles)
    on_own = [r for r in rows if set(map(str, r["pages"])) & own]
    if not other and not on_own:
        return [], []
    # an age group stated: the pages titled for it, when the facts reach any, stand before untitled ones too
    # ("4 yo, HR 230, wide QRS": PEDIATRIC TACHYCARDIA, not the untitled adult tachycardia chart)
    left_out = [str(r["uid"]) for r in rows if r["pages"] and (set(map(str, r["pages"])) <= other
                                                                 or (on_own and r not in on_own))]
    if len(left_out) >= len(uids):
        return [], []
    named = sorted({titles[p] for r in rows if str(r["uid"]) in left_out for p in map(str, r["pages"])
                    if p in titles}) if unstated else []
    return left_out, named


def onset_facts_no_test_names(stated: dict[str, float | str], way_in: WayIn) -> set[str]:
    """The stated keys whose value says the course has just begun (lexicon ``course_events.onset``: a new
    diagnosis) and that no arrow or decision of the guideline tests for that value. The walk passes them as null,
    so they pass no test of their key: a new diagnosis is no 'recurrence confirmed? NO' after surveillance
    (``disease_status != recurrent``), which it would otherwise pass."""
    onset = course_events().onset
    return {k for k, v in stated.items()
            if isinstance(v, str) and v in onset.get(k, []) and not way_in.names_value(k, v)}


def missing_facts(graph: Graph, uids: list[str], stated: dict[str, float | str]) -> list[MissingFact]:
    """The facts the decisions right after the answer node(s) need and the question does not state, each with
    the values or ranges those decisions distinguish (empty when the stated facts reach an end)."""
    query = named_queries("qa_pathway")["next_conditions"]
    needed: dict[str, list[str]] = {}
    for uid in uids:
        for row in graph.read(query, {"uid": uid}):
            for constraint in [*row["arrow"], *row["decision"], *row["question"]]:
                key = constraint_key(constraint)
                if key in VOCABULARY and key not in stated:
                    shown = constraint[len(key):].strip()
                    values = needed.setdefault(key, [])
                    if shown not in values:
                        values.append(shown)
    out = []
    for key, shown in needed.items():
        spec = VOCABULARY[key]
        if spec.kind is KeyKind.CATEGORICAL:
            allowed = sorted({v for s in shown for v in re.findall(r"[A-Za-z0-9_+\-]+", s)} - {"in"})
        else:
            allowed = shown
        out.append(MissingFact(key=key, description=spec.description, allowed=allowed))
    return out


def stated_facts(params: dict[str, Any]) -> dict[str, float | str]:
    """The patient facts among an answer's query parameters (what "known so far" lists)."""
    return {k: v for k, v in params.items() if k in VOCABULARY and isinstance(v, (float, str))}


def clarification(facts: dict[str, float | str], missing: list[MissingFact]) -> str:
    """'Known so far: ...; to go further I need: comorbidity (none / substantial)'."""
    known = ", ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in sorted(facts.items()))
    need = "; ".join(f"{m.description.lower()} ({' / '.join(m.allowed)})" for m in missing)
    return f"Known so far: {known or 'nothing'}. To go further I need: {need}."


def position_weights() -> dict[str, int]:
    """The fact keys that place a patient in the pathway and their weights (lexicon data)."""
    return dict(clinical_lexicon().data.position_keys)


def _key(c: str) -> str:
    """Cypher for the fact key of constraint text ``c`` (as the bodies of cypher/qa.cypher compute it)."""
    return f"head(split(replace(replace(replace(replace({c}, '!=', '='), '<', '='), '>', '='), ' in ', '='), '='))"


def _tests(j: str) -> str:
    """Cypher for the constraints checked on step ``j`` of a path: the arrow rs[j] and, when the box it enters is a
    decision (not a question box, whose arrows carry its branches), that decision's own."""
    return (f"coalesce(rs[{j}].constraints, []) + CASE WHEN ns[{j} + 1]:Decision AND NOT ns[{j} + 1].content "
            f"ENDS WITH '?' THEN coalesce(ns[{j} + 1].constraints, []) ELSE [] END")


def _last_done(i: str) -> str:
    """Cypher for the index of the last action before path position ``i`` the question says was done (0 if none)."""
    return f"reduce(m = 0, j IN range(0, {i} - 1) | CASE WHEN ns[j].uid IN $done THEN j ELSE m END)"


def _news(candidates: str, i: str) -> str:
    """Cypher: whether any of the constraint list ``candidates`` (met right after path position ``i``) tests a stated
    key with a condition the path has not made since the last action said to be done (the same condition again
    says nothing new, 'bone metastases' after 'metastatic' does; after a done step, the stated findings describe
    its outcome). Keys tested on the way in to a start count as made."""
    made = f"reduce(acc = [], j IN range({_last_done(i)}, {i} - 1) | acc + {_tests('j')})"
    return (f"any(c IN {candidates} WHERE {_key('c')} IN keys(facts) AND NOT {_key('c')} IN "
            f"coalesce($prefix_keys[ns[0].uid], []) AND NOT c IN {made})")


# The actions a path passes that the question gives no evidence of, plus one when the path stops at an action the
# question does give evidence of (it goes on). Evidence for an action: the question says it, or an action after it
# on the path, was done ($done); or the conditions right after it (the arrow out of it and the decision it enters,
# or that decision's arrows) test a stated fact anew (_news: an assessment whose findings are stated, 'Before
# induction: ECOG, comorbidity review' then 'age 40-64, no comorbidities'); or a stated course fact (position_keys:
# a response, a margin, a relapse), or another stated fact the path has not tested before it (WalkSettings: 'new
# cardiac dysfunction during therapy', ECOG 3-4; not the age at diagnosis), is tested anywhere after it. Only
# actions the path later leaves the page of count (a link box is one node with the entry it leads to, so a node
# may be on two pages): a walk running past an action without evidence onto the next page (a treatment never said
# to be given, then the survivorship page re-testing the histology and the age) is not where the patient is now;
# on one page, later boxes re-read the same situation (the sites of disease reviewed beside the systemic therapy).
_AFTER = ("coalesce(rs[i].constraints, []) + CASE WHEN ns[i + 1]:Decision THEN (CASE WHEN ns[i + 1].content "
          "ENDS WITH '?' THEN [] ELSE coalesce(ns[i + 1].constraints, []) END) + CASE WHEN i + 1 < size(rs) "
          "THEN coalesce(rs[i + 1].constraints, []) ELSE [] END ELSE [] END")
_AFTER_END = ("reduce(acc = [], o IN [(t)-[o:NEXT_STEP WHERE o.closes_loop IS NULL]->(d) | coalesce(o.constraints, "
              "[]) + CASE WHEN d:Decision AND NOT d.content ENDS WITH '?' THEN coalesce(d.constraints, []) "
              "WHEN d:Decision THEN reduce(q = [], x IN [(d)-[x:NEXT_STEP]->() | coalesce(x.constraints, [])] | "
              "q + x) ELSE [] END] | acc + o)")
_UNEVIDENCED = (
    "size([i IN range(1, size(ns) - 2) WHERE ns[i]:Action AND NOT any(n IN ns[i..] WHERE n.uid IN $done) "
    "AND any(n IN ns[i + 1..] WHERE any(pg IN coalesce(n.pages, []) WHERE NOT pg IN coalesce(ns[i].pages, []))) "
    "AND NOT "
    + _news(_AFTER, "i") + " AND NOT any(j IN range(i, size(rs) - 1) WHERE any(c IN " + _tests("j")
    + " WHERE " + _key("c") + " IN keys(facts) AND (" + _key("c") + " IN keys($position_weights) OR ("
    + _key("c") + " IN $state_keys AND NOT " + _key("c") + " IN coalesce($prefix_keys[ns[0].uid], []) AND NOT "
    + _key("c") + " IN reduce(acc = [], x IN reduce(l = [], j2 IN range(0, i - 1) | l + " + _tests("j2") + ") | acc + "
    + _key("x") + ")))))]) + "
    "CASE WHEN " + _news(_AFTER_END, "size(ns) - 1") + " OR size([(t)-[:NEXT_STEP]->(d) WHERE d.uid IN $done | d]) "
    "> 0 THEN 1 ELSE 0 END")


# (pattern, replacement) pairs turning a patient body of cypher/qa.cypher into a walk from $starts that ranks
# paths testing more position facts first; each pattern must occur exactly once
_FROM_STARTS_EDITS: tuple[tuple[str, str], ...] = (
    (_ROOT_CLAUSE, _FROM_STARTS),
    # the stated keys tested on the way in to a start inside the pathway count as used (dkg.qa.way_in); a stated
    # event (a relapse) tested again on its own page ('local recurrence without metastases') is a step further
    ("reduce(acc = [], x IN [n IN ns WHERE",
     "ns, size([x IN [n IN ns[1..] WHERE NOT n.content ENDS WITH '?'] + rs WHERE any(k IN $event_keys WHERE "
     "k IN keys(facts) AND x[k] IS NOT NULL)]) AS events, " + _UNEVIDENCED + " AS unevidenced, "
     "reduce(acc = coalesce($prefix_keys[ns[0].uid], []), x IN [n IN ns WHERE"),
    # an arrow branching on an unstated key whose every value leads on to the same steps may be crossed, and
    # that key is not counted as unknown (dkg.qa.way_in.WayIn.indifferent)
    ("' in ', '='), '=')) IN keys(facts))))+ (t:Action",
     "' in ', '='), '=')) IN keys(facts)) OR a.uid + '>' + b.uid IN $indifferent)))+ (t:Action"),
    ("    AND all(c IN CASE WHEN coalesce(x.content, '') ENDS WITH '?' THEN [] ELSE coalesce(x.constraints, []) END",
     "    AND (all(c IN CASE WHEN coalesce(x.content, '') ENDS WITH '?' THEN [] ELSE coalesce(x.constraints, []) END"),
    ("CASE WHEN k IN keys(facts) OR k IN u THEN u ELSE u + k END)) AS unknown",
     "CASE WHEN k IN keys(facts) OR k IN $indifferent_keys OR k IN u THEN u ELSE u + k END)) AS unknown"),
    # a question box whose own (unbranched) condition contradicts a stated fact is not entered (dkg.qa.way_in)
    ("MATCH p = (root) ((a:Node)-[r:NEXT_STEP WHERE r.closes_loop IS NULL]->(b:Node)\n  WHERE all(x IN",
     "MATCH p = (root) ((a:Node)-[r:NEXT_STEP WHERE r.closes_loop IS NULL]->(b:Node)\n"
     "  WHERE NOT b.uid IN $blocked_boxes AND all(x IN"),
    ("size([k IN keys(facts) WHERE k IN ks]) AS known,",
     "events, unevidenced, size([k IN keys(facts) WHERE k IN ks]) AS known, "
     "size([k IN ks WHERE k IN keys(facts)]) AS tested, "
     "CASE WHEN t.uid IN $done THEN 1 ELSE 0 END AS done, CASE WHEN t.uid IN $before_done THEN 1 ELSE 0 END AS past, "
     "CASE WHEN t.uid IN $dead_ends THEN 1 ELSE 0 END AS dead, "
     "coalesce($prefix_passed[ns[0].uid], 0) + size([n IN ns[1..-1] WHERE n:Action]) AS passed, "
     "reduce(s = 0, k IN keys($position_weights) | s + CASE WHEN k IN ks THEN $position_weights[k] ELSE 0 END) "
     "AS positional,"),
    # a step the question says was done is not the answer, nor a step before one that lies on a way consistent with
    # the stated facts (the patient is past it); then the path passing fewest actions the question gives no
    # evidence of (the step the patient is at now, not the follow-up after a treatment never said to be given: see
    # _UNEVIDENCED); of equally good paths, the one passing fewest actions on the way (the treatment before the
    # surveillance that follows it); then the one testing the stated facts more often (of two branches of one
    # decision, the one whose arrow tests the stated age)
    ("ORDER BY unknown ASC, known DESC",
     "ORDER BY unknown ASC, positional DESC, events DESC, past ASC, done ASC, unevidenced ASC, known DESC, "
     "dead ASC, passed ASC, tested DESC"),
    ("collect({t: t, known: known, unknown: unknown}) AS ranked",
     "collect({t: t, known: known, unknown: unknown, positional: positional, events: events, passed: passed, "
     "tested: tested, done: done, past: past, dead: dead, unevidenced: unevidenced}) AS ranked"),
    ("WHERE r.known = ranked[0].known AND",
     "WHERE r.positional = ranked[0].positional AND r.events = ranked[0].events AND r.known = ranked[0].known "
     "AND r.passed = ranked[0].passed AND r.tested = ranked[0].tested AND r.done = ranked[0].done "
     "AND r.past = ranked[0].past "
     "AND r.dead = ranked[0].dead AND r.unevidenced = ranked[0].unevidenced AND"),
)


# The answer node is anchored to the guideline version, as the root is: with its label only, the planner may expand
# from every guideline's Action towards the roots, which timed out (cardiac-05 on a graph of five guidelines)
_ANCHOR = ("+ (t:Action)", "+ (t:Action {guideline: guideline, version: $version})")


def anchored(text: str) -> str:
    r"""A patient body of cypher/qa.cypher with its answer node anchored to ``guideline`` and ``$version``.

    >>> anchored("MATCH p = (root) ((a)-[r]->(b))+ (t:Action)\nRETURN t")
    'MATCH p = (root) ((a)-[r]->(b))+ (t:Action {guideline: guideline, version: $version})\nRETURN t'
    """
    if text.count(_ANCHOR[0]) != 1:
        raise ValueError(f"a patient body of cypher/qa.cypher changed: {_ANCHOR[0]!r} is not in it exactly once "
                         "(update dkg/qa/pathway.py)")
    return text.replace(*_ANCHOR)


# next-step questions only: when every best step is one the question says was done ($done loses ties, so the best
# are all done or none is), the answer is the step after it, if a single unconditional arrow leads on to an action
# ('staging done (CT chest, PET, bilateral marrow): lung-only metastases. Which induction?' is past the staging)
_NEXT_STEP_EDITS: tuple[tuple[str, str], ...] = (
    ("WITH DISTINCT best.t AS t, best.known AS known, best.unknown AS unknown",
     "WITH DISTINCT best.t AS best_t, best.known AS known, best.unknown AS unknown\n"
     "OPTIONAL MATCH (best_t)-[o:NEXT_STEP WHERE o.closes_loop IS NULL AND size(coalesce(o.constraints, [])) = 0]"
     "->(s:Action)\nWHERE best_t.uid IN $done AND COUNT { (best_t)-[:NEXT_STEP]->() } = 1\n"
     "WITH DISTINCT coalesce(s, best_t) AS t, known, unknown"),
)


def cypher_from_starts(sketch: QuerySketch) -> str:
    """The sketch's query walking from ``$starts`` (roots and position starts) instead of the roots only,
    preferring paths whose tests weigh more in ``$position_weights`` (patient questions only)."""
    if sketch.qtype is QuestionType.CONDITIONS:
        raise ValueError("a conditions query does not walk from a root")
    text = sketch.cypher()
    edits = _FROM_STARTS_EDITS + (_NEXT_STEP_EDITS if sketch.qtype is QuestionType.NEXT_STEP else ())
    for pattern, replacement in edits:
        if text.count(pattern) != 1:
            raise ValueError(f"the {sketch.qtype.value} body of cypher/qa.cypher changed: {pattern!r} is not in it "
                             "exactly once (update dkg/qa/pathway.py)")
        text = text.replace(pattern, replacement)
    return anchored(text)


__all__ = ["PositionTests", "anchored", "bodies", "clarification", "constraint_key", "cypher_from_starts",
           "missing_facts", "position_weights", "start_nodes", "Walk", "walk_query"]
