"""The way into the pathway: which position starts (:func:`dkg.qa.pathway.start_nodes`) a root reaches along a
path consistent with the stated facts, and which stated facts that path tests.

A walk from a start inside the pathway (a relapse page, a response assessment) counts the stated facts tested
on the way in as used, as a walk from the root does; otherwise a later page that re-tests one of them (the
surveillance page testing the histology again) would look better informed than the step the patient is at.

The way in is checked against every stated fact except the event that moved the patient on (a relapse: its
page is entered whatever came before) and, once such an event is stated, the facts about the course after it
(the response to re-induction is not the response to induction). An event that is not stated is never
assumed: a relapse page is no start for a question that states no relapse. Which keys those are is lexicon
data (``course_events`` in dkg/lexicon/data/clinical_facts.yaml).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Any

import networkx as nx

from dkg.errors import ConstraintError
from dkg.graph.db import Graph, named_queries
from dkg.lexicon import expand_query
from dkg.lexicon.clinical import clinical_lexicon, course_events
from dkg.qa.stems import porter_stem
from dkg.types import Constraint, Op
from dkg.vocabulary import VOCABULARY, KeyKind

FactValue = float | str
_WORDS = re.compile(r"[a-z][a-z0-9/-]{2,}")
_ANY_WORD = re.compile(r"[a-z0-9][a-z0-9/-]*")
_BRACKETED = re.compile(r"\([^)]*\)")


def without_brackets(text: str) -> str:
    """A box's text without its bracketed asides (footnotes, conditions in brackets).

    >>> without_brackets("Amiodarone (if refractory) 300 mg")
    'Amiodarone   300 mg'
    """
    return _BRACKETED.sub(" ", text)


def holds(constraint: Constraint, value: FactValue) -> bool:
    """Whether a stated value satisfies a constraint ('any' is met by every value but 'none', as in the walk).

    >>> holds(Constraint.parse("age in [15,39]"), 34.0), holds(Constraint.parse("metastasis=any"), "lung")
    (True, True)
    >>> holds(Constraint.parse("response!=progression"), "progression")
    False
    """
    target = constraint.value
    if isinstance(value, float):
        if constraint.op is Op.IN and isinstance(target, tuple):
            return target[0] <= value <= target[1]
        if not isinstance(target, (int, float)):
            return False
        return {Op.EQ: value == target, Op.NE: value != target, Op.LT: value < target, Op.LE: value <= target,
                Op.GT: value > target, Op.GE: value >= target}[constraint.op]
    values = target if isinstance(target, frozenset) else frozenset({str(target)})
    inside = value in values or ("any" in values and value != "none")
    return not inside if constraint.op is Op.NE else inside


@dataclass(frozen=True)
class Edge:
    """One arrow of the walk and the conditions crossing it checks (its own and those of the box it enters)."""

    source: str
    target: str
    tests: tuple[Constraint, ...]
    target_tests: tuple[Constraint, ...]
    action: bool
    content: str = ""


def _parse(texts: list[str] | None) -> tuple[Constraint, ...]:
    out = []
    for text in texts or []:
        try:
            out.append(Constraint.parse(text))
        except ConstraintError:
            continue  # a constraint the vocabulary no longer knows tests nothing the question can state
    return tuple(out)


@dataclass(frozen=True)
class WayInFacts:
    """What the way in checks: ``facts`` must hold where tested; a test of a ``required`` key blocks unless
    the key is stated (``facts`` leaves it out when it is the stated event)."""

    facts: dict[str, FactValue]
    required: frozenset[str]


def way_in_facts(facts: dict[str, FactValue]) -> WayInFacts:
    """The stated facts the way in must agree with, and the event keys it may not assume (module docstring)."""
    events = course_events()
    stated_event = any(str(facts.get(k)) in values for k, values in events.event.items())
    checked = {k: v for k, v in facts.items() if k not in events.event and not (stated_event and k in events.resets)}
    return WayInFacts(checked, frozenset(k for k in events.event if k not in facts))


@dataclass(frozen=True)
class Indifferent:
    """Arrows ('source>target' uids) the walk may cross without their key, and those keys
    (:meth:`WayIn.indifferent`)."""

    arrows: frozenset[str]
    keys: frozenset[str]


def _covers(key: str, tests: list[Constraint]) -> bool:
    """Whether the tests together admit every value of a closed categorical key."""
    spec = VOCABULARY.get(key)
    if spec is None or spec.kind is not KeyKind.CATEGORICAL or spec.open or not spec.values:
        return False
    return all(any(holds(c, value) for c in tests) for value in spec.values)


_SENTENCE_START = re.compile(r"(?<=[a-z0-9%])\s+(?=[A-Z][a-z]+\b)")
_QUESTION_START = re.compile(r"(?:what|how|which|when|who|whom|why|where|should|would|could|can|shall|will|is|are|"
                             r"was|were|does|do|did|has|have|any|next|please|thoughts|plan|management|"
                             r"recommend\w*|options?)\b", re.IGNORECASE)


def _asking_sentence(sentences: list[str]) -> int:
    """Which of the sentences found inside a question's last clause asks: the last one after the first that
    starts with a question word, else a short last one ('Neoadjuvant plan') after a first that does not ask."""
    starts = [i for i, s in enumerate(sentences) if i and _QUESTION_START.match(s.strip())]
    if starts:
        return starts[-1]
    if len(sentences) > 1 and len(sentences[-1].split()) <= 3 and not _QUESTION_START.match(sentences[0].strip()):
        return len(sentences) - 1
    return 0


@lru_cache(maxsize=1)
def _not_done_wordings() -> re.Pattern[str]:
    """The lexicon's wordings that report a result with a done cue in them ('complete response'), as one regex."""
    wordings = sorted(map(re.escape, clinical_lexicon().data.not_done_wordings), key=len, reverse=True)
    return re.compile(rf"\b(?:{'|'.join(wordings)})\b" if wordings else r"(?!)", re.IGNORECASE)


def _reported_clauses(question: str, shorthand: bool = False) -> list[set[str]]:
    """The words of each clause of ``question`` that reports rather than asks. The clause that asks ('should
    doxorubicin and cisplatin be given around surgery?') names a step to come, and a list in brackets is one clause
    ('staging done (CT chest, PET, bilateral marrow)'). ``shorthand``: a clause also has the words its shorthand
    stands for (lexicon abbreviations: 'echo' → echocardiogram)."""
    return [_words_and_parts(c) | (_shorthand_words(c) if shorthand else set()) for c in reported_texts(question)]


def reported_texts(question: str) -> list[str]:
    """The text of each clause of ``question`` that reports rather than asks (see :func:`_reported_clauses`)."""
    question = _not_done_wordings().sub(" ", question)
    parts = re.split(r"([.;,?!])", re.sub(r"\([^()]*\)", lambda m: re.sub(r"[.;,]", " ", m.group()), question))
    reported = []
    for clause, end in zip(parts[::2], [*parts[1::2], ""], strict=True):
        if end == "?":
            # a note typed without full stops asks only from its last sentence ('MRI done How often should we image
            # him?'): a capitalised word after a lower-case one starts a sentence, and the asking one starts with a
            # question word or is a few words ('... audiogram normal Neoadjuvant plan?')
            sentences = _SENTENCE_START.split(clause)
            reported += sentences[:_asking_sentence(sentences)]
        else:
            reported.append(clause)
    return reported


_CONSEQUENCE = re.compile(r"\b(?:so|then|but|therefore|hence)\b", re.IGNORECASE)


def _cue_parts(question: str, cues: set[str]) -> list[set[str]]:
    """The words (and their shorthand's) of each part of a reported clause that holds a done cue, a clause split
    where it turns from a finding to what was done about it ('so', 'then', 'but' …).

    >>> [sorted(p) for p in _cue_parts("Rhythm regular so adenosine given twice, nothing. Next?", {"given"})]
    [['adenosine', 'given', 'twice']]
    """
    parts = [_words_and_parts(p) | _shorthand_words(p) for clause in reported_texts(question)
             for p in _CONSEQUENCE.split(clause)]
    return [p for p in parts if p & cues]


def in_place_reports(question: str) -> list[tuple[str, set[str]]]:
    """Each short clause that reports a step in place by a particle ('pads on', 'IV in', 'on monitor'; lexicon
    ``done_particles``), with its words, the particle left out.

    >>> in_place_reports("62M, BP 82/50. pads on, line in. On monitor. In VF. What first?")
    [(' pads on', {'pads'}), (' line in', {'line'}), (' On monitor', {'monitor'})]
    """
    particles = clinical_lexicon().data.done_particles
    ending, opening = {w.lower() for w in particles.ending}, {w.lower() for w in particles.opening}
    reports = []
    for clause in reported_texts(question):
        words = _ANY_WORD.findall(clause.lower())
        if 2 <= len(words) <= particles.max_words and (words[-1] in ending or words[0] in opening):
            named = set(_WORDS.findall(" ".join(words[:-1] if words[-1] in ending else words[1:])))
            if named:
                reports.append((clause, named))
    return reports


def _short_reports(question: str) -> list[set[str]]:
    """The words of each clause of :func:`in_place_reports`."""
    return [named for _, named in in_place_reports(question)]


def _shorthand_words(text: str) -> set[str]:
    return {w for e in expand_query(text).expansions if e.kind == "shorthand"
            for w in _WORDS.findall(e.expansion.lower())}


def _stems(words: Iterable[str]) -> set[str]:
    """The Porter stems of ``words`` (nltk; 'resected' and 'resection' are both 'resect')."""
    return {porter_stem(w) for w in words}


def _words_and_parts(text: str) -> set[str]:
    """The words of ``text`` and the parts of its hyphenated words ('post-induction': post, induction)."""
    words = set(_WORDS.findall(text.lower()))
    return words | {p for w in words if "-" in w for p in _WORDS.findall(w.replace("-", " "))}


@dataclass(frozen=True)
class Way:
    """The best way in to one node: the stated keys it tests and the actions it passes (the node included)."""

    keys: frozenset[str]
    actions: int

    def better_than(self, other: Way) -> bool:
        return (len(self.keys), -self.actions) > (len(other.keys), -other.actions)


class WayIn:
    """The arrows of one guideline version, read once, and the consistent ways from its roots to any node."""

    def __init__(self, rows: list[dict[str, Any]]) -> None:
        """From rows of the ``walk_edges`` query (a, b, arrow, box, action)."""
        self.edges: dict[str, list[Edge]] = defaultdict(list)
        targets: set[str] = set()
        sources: set[str] = set()
        for r in rows:
            self.edges[r["a"]].append(Edge(r["a"], r["b"], _parse(r["arrow"]), _parse(r["box"]), bool(r["action"]),
                                           str(r.get("content") or "")))
            sources.add(r["a"])
            targets.add(r["b"])
        self.roots = sorted(sources - targets)

    @classmethod
    def of(cls, graph: Graph, guideline: str, version: str) -> WayIn:
        """The arrows of one guideline version as loaded in the graph."""
        return cls(graph.read(named_queries("qa_pathway")["walk_edges"], {"guideline": guideline, "version": version}))

    def ways(self, checked: WayInFacts) -> dict[str, Way]:
        """Node uid → the best consistent way from a root to it (most stated keys tested, then fewest actions
        passed), for every node a root reaches consistently with ``checked``."""
        facts = checked.facts
        best: dict[str, Way] = {root: Way(frozenset(), 0) for root in self.roots}
        for node in self._topological():
            if node not in best:
                continue
            for edge in self.edges.get(node, []):
                checks = edge.tests + edge.target_tests
                if any(c.key in checked.required for c in checks):
                    continue
                if not all(c.key not in facts or holds(c, facts[c.key]) for c in checks):
                    continue
                # the alternatives of an OR are drawn as parallel arrows: a stated fact on another alternative's
                # key was tested at the same choice ("FiO2 never changed" beside the PEEP arrow into the event)
                tested = {c.key for e in self.edges[node] if e.target == edge.target
                          for c in e.tests + e.target_tests if c.key in facts}
                way = Way(best[node].keys | tested, best[node].actions + int(edge.action))
                if edge.target not in best or way.better_than(best[edge.target]):
                    best[edge.target] = way
        return best

    @cached_property
    def contents(self) -> dict[str, str]:
        """The text of every box an arrow enters (the roots' text is not carried by the arrows).

        >>> WayIn([{"a": "q", "b": "y", "arrow": [], "box": [], "action": True, "content": "Give X"}]).contents
        {'y': 'Give X'}
        """
        return {e.target: e.content for edges in self.edges.values() for e in edges}

    @cached_property
    def arrows(self) -> nx.MultiDiGraph:
        """The arrows as a networkx graph, each with the conditions crossing it checks (``checks``: the arrow's
        own and its target box's); two boxes may be joined by several arrows (one per alternative of an OR)."""
        arrows = nx.MultiDiGraph()
        for source, edges in self.edges.items():
            for edge in edges:
                arrows.add_edge(source, edge.target, checks=edge.tests + edge.target_tests)
        return arrows

    def sources_into(self, uid: str) -> list[str]:
        """The boxes with an arrow into ``uid``, each once, in the order the arrows were read.

        >>> WayIn([{"a": "q", "b": "y", "arrow": [], "box": [], "action": False},
        ...        {"a": "r", "b": "y", "arrow": [], "box": [], "action": True}]).sources_into("y")
        ['q', 'r']
        """
        return list(dict.fromkeys(e.source for edges in self.edges.values() for e in edges if e.target == uid))

    def keys_tested_with(self, uid: str) -> set[str]:
        """The keys the arrows and boxes of ``uid``'s own flowchart test (the arrows connected to it, whatever their
        direction): a fact on another key says nothing about where ``uid`` is.

        >>> way = WayIn([{"a": "q", "b": "y", "arrow": ["performance_status<=2"], "box": [], "action": False},
        ...              {"a": "r", "b": "s", "arrow": [], "box": ["age<18"], "action": True}])
        >>> sorted(way.keys_tested_with("y")), sorted(way.keys_tested_with("r")), way.keys_tested_with("z")
        (['performance_status'], ['age'], set())
        """
        if uid not in self.arrows:
            return set()
        chart = nx.node_connected_component(self.arrows.to_undirected(as_view=True), uid)
        return {c.key for source in chart for edge in self.edges.get(source, [])
                for c in edge.tests + edge.target_tests}

    def names_value(self, key: str, value: str) -> bool:
        """Whether an arrow or decision tests ``key`` for ``value`` itself, not only against another value."""
        return any(c.key == key and c.op is not Op.NE and holds(c, value)
                   for edges in self.edges.values() for edge in edges for c in edge.tests + edge.target_tests)

    def blocked(self, edge: Edge, checked: WayInFacts) -> bool:
        """Whether crossing ``edge`` contradicts a stated fact or needs a course event the question does not
        state (the conditions of a question box that its arrows do not branch on count, as on the way in)."""
        return any(c.key in checked.required or (c.key in checked.facts and not holds(c, checked.facts[c.key]))
                   for c in edge.tests + edge.target_tests)

    def blocked_question_boxes(self, checked: WayInFacts) -> set[str]:
        """Question boxes that branch, side by side, on a condition their arrows do not test ('Extremity
        primary: resectable?' beside 'Pelvic or axial primary: resectable?') and whose own condition contradicts
        a stated fact: the walk may not enter them (a femur is no pelvic primary). A single question box's own
        condition only restates who reaches it and is not checked (as in the walk)."""
        out: set[str] = set()
        for edges in self.edges.values():
            boxes = [e for e in edges if e.content.rstrip().endswith("?")]
            for key in {c.key for e in boxes for c in e.target_tests if c.key in checked.facts}:
                siblings = [e for e in boxes if any(c.key == key for c in e.target_tests)]
                if len(siblings) < 2:
                    continue
                out |= {e.target for e in siblings
                        if any(c.key == key and not holds(c, checked.facts[key]) for c in e.target_tests)}
        return out

    def dead_ends(self, checked: WayInFacts) -> set[str]:
        """Steps every arrow out of which is blocked (:meth:`blocked`): a link to a recurrence page for a patient
        with no recurrence leads nowhere, so the treatment beside it is the step the patient is at."""
        return {node for node, edges in self.edges.items() if edges and all(self.blocked(e, checked) for e in edges)}

    def indifferent(self, checked: WayInFacts) -> Indifferent:
        """Arrows that branch on a key the question leaves unstated when every value of the key leads on to the
        same steps ('resectable' → upfront nephrectomy / biopsy first, both then branch on the histology) and those
        steps test a stated fact: the walk may cross them without the key, since no answer beyond them depends on
        it. Where the next arrows test nothing stated, crossing would only carry the walk past a step not yet
        done (a chondrosarcoma's excision on to its surveillance), so the key stays unknown."""
        arrows: set[str] = set()
        keys: set[str] = set()
        for node, edges in self.edges.items():
            unstated = {c.key for e in edges for c in e.tests} - set(checked.facts)
            for key in unstated:
                branches = [e for e in edges if any(c.key == key for c in e.tests)]
                if len(branches) < 2 or not _covers(key, [c for e in branches for c in e.tests if c.key == key]):
                    continue
                if any({c.key for c in e.tests + e.target_tests} - set(checked.facts) - {key} for e in branches):
                    continue
                onward = [frozenset(x.target for x in self.edges.get(e.target, [])) for e in branches]
                if (onward[0] and all(o == onward[0] for o in onward)
                        and self._keys_tested_next(e.target for e in branches) & set(checked.facts)):
                    arrows |= {f"{node}>{e.target}" for e in branches}
                    keys.add(key)
        return Indifferent(frozenset(arrows), frozenset(keys))

    def _keys_tested_next(self, nodes: Iterable[str]) -> set[str]:
        """The keys the arrows out of ``nodes`` test (their targets' own conditions included)."""
        return {c.key for node in nodes for e in self.edges.get(node, []) for c in e.tests + e.target_tests}

    @staticmethod
    def says_done(question: str) -> bool:
        """Whether a clause of ``question`` that does not ask (no question mark) has a done cue ('during MAP')."""
        data = clinical_lexicon().data
        cues = {c.lower() for c in data.done_cues + data.done_step_cues}
        return any(clause & cues for clause in _reported_clauses(question)) or bool(_short_reports(question))

    def done_steps(self, question: str, root_contents: Mapping[str, str] | None = None) -> set[str]:
        """Actions the question says were done: a clause with a done cue ('Baseline post-op CT chest and MRI
        done') shares at least two distinctive words with the action's own text (footnotes left out), or one
        word of six letters or more that no other action's text has ('curettage with phenol, finished'). Words are
        compared by their Porter stems, so 'primary resected' names 'resection of the primary'. A short clause
        with a particle ('pads on', 'IV in', 'on monitor': lexicon ``done_particles``) reports its words done, one
        of them alone naming the action no other action shares it with. A clause ending in
        a question mark asks about a step, it does not report one. ``root_contents``: the text of the roots (no
        arrow enters them, so the arrows do not carry it), when the caller has read it; they count as actions."""
        data = clinical_lexicon().data
        naming = {c.lower() for c in data.done_step_cues}
        cues = {c.lower() for c in data.done_cues} | naming
        stop = {w.lower() for w in data.done_stop_words}
        # shorthand is read in its expanded form beside it ('echo (echocardiogram) normal')
        clauses = _reported_clauses(question, shorthand=True)
        done_words = _stems(set().union(*(c - (cues - naming) for c in clauses if c & cues)) - stop
                            if clauses else set())
        # of a clause joining a finding to the step it led to ('rhythm regular and monomorphic so adenosine given'),
        # the step done is named in the part with the cue: a step sharing only the finding's words was not done
        cue_parts = _cue_parts(question, cues)
        named_by_cue = _stems(set().union(*cue_parts) - (cues - naming)) - stop if cue_parts else set()
        # a short report names its step with few words ('pads on'): one word no other action has is enough
        named_alone = _stems(set().union(*_short_reports(question))) - stop
        done_words |= named_alone
        if not done_words:
            return set()
        actions = {e.target for edges in self.edges.values() for e in edges if e.action}
        contents = {uid: text for uid, text in self.contents.items() if uid in actions}
        contents |= {uid: text for uid, text in (root_contents or {}).items() if uid in self.roots}
        words_of = {uid: _stems(set(_WORDS.findall(without_brackets(text.lower())))) - stop
                    for uid, text in contents.items()}
        # a long word of one action only names that action on its own ('curettage with phenol, finished')
        actions_with: dict[str, int] = defaultdict(int)
        for own in words_of.values():
            for word in own:
                actions_with[word] += 1
        return {target for target, own in words_of.items() if (len(own & done_words) >= 2 or any(
            (len(w) >= 6 or w in named_alone) and actions_with[w] == 1 for w in own & done_words))
            and own & (named_by_cue | named_alone)}

    def roots_testing_most(self, keys: Iterable[str], among: Iterable[str] | None = None) -> list[str]:
        """The roots whose flowchart (the nodes a root's arrows reach) tests the most of ``keys``: on a guideline of
        several charts, each with its own root, the chart the stated facts are about ("wide QRS, not sinus tach,
        HR 165" is the tachycardia chart's, not the chest pain chart a stated BP alone would also admit). All
        roots (of ``among``, when given) when none tests any of them.

        >>> way = WayIn([{"a": "r1", "b": "q", "arrow": ["heart_rate>100"], "box": [], "action": False},
        ...              {"a": "q", "b": "t", "arrow": ["qrs_complex=wide"], "box": [], "action": True},
        ...              {"a": "r2", "b": "u", "arrow": ["bp>100"], "box": [], "action": True}])
        >>> way.roots_testing_most({"heart_rate", "qrs_complex", "bp"}), way.roots_testing_most({"age"})
        (['r1'], ['r1', 'r2'])
        """
        wanted = set(keys)
        roots = [root for root in self.roots if among is None or root in set(among)]
        counts = {root: len(wanted & self._keys_under[root]) for root in roots}
        most = max(counts.values(), default=0)
        return [root for root in roots if counts[root] == most]

    @cached_property
    def _keys_under(self) -> dict[str, frozenset[str]]:
        """The keys tested in each root's flowchart (the arrows out of the nodes it reaches)."""
        keys_under: dict[str, frozenset[str]] = {}
        for root in self.roots:
            reach = nx.descendants(self.arrows, root) | {root} if root in self.arrows else {root}
            keys_under[root] = frozenset(c.key for node in reach for e in self.edges.get(node, [])
                                         for c in e.tests + e.target_tests)
        return keys_under

    def keys_on_ways_to(self, uids: str | Iterable[str], through: Iterable[str] | None = None) -> set[str]:
        """The keys the arrows on any way from a root to ``uids`` (one box or several) test, the boxes they enter
        included; only the arrows out of the ``through`` boxes when given.

        >>> way = WayIn([{"a": "r", "b": "q", "arrow": ["age>=18"], "box": [], "action": False},
        ...              {"a": "q", "b": "t", "arrow": ["tumor_size>5"], "box": [], "action": True},
        ...              {"a": "q", "b": "u", "arrow": ["resectable=yes"], "box": [], "action": True}])
        >>> sorted(way.keys_on_ways_to("t")), sorted(way.keys_on_ways_to(["t"], through={"q"}))
        (['age', 'tumor_size'], ['tumor_size'])
        """
        targets = {uids} if isinstance(uids, str) else set(uids)
        on_way = self.before(targets) | targets
        sources = on_way if through is None else on_way & set(through)
        return {c.key for node in sources for e in self.edges.get(node, []) if e.target in on_way
                for c in e.tests + e.target_tests}

    def before(self, steps: Iterable[str]) -> set[str]:
        """The nodes from which an arrow path leads to one of ``steps`` (arrows closing a loop left out): a
        patient said to have had a step is past them."""
        into: dict[str, set[str]] = defaultdict(set)
        for edges in self.edges.values():
            for edge in edges:
                into[edge.target].add(edge.source)
        seen: set[str] = set()
        frontier = list(steps)
        while frontier:
            for source in into.get(frontier.pop(), set()) - seen:
                seen.add(source)
                frontier.append(source)
        return seen

    def _topological(self) -> list[str]:
        indegree: dict[str, int] = defaultdict(int)
        for edges in self.edges.values():
            for edge in edges:
                indegree[edge.target] += 1
        ready = list(self.roots)
        order: list[str] = []
        while ready:
            node = ready.pop()
            order.append(node)
            for edge in self.edges.get(node, []):
                indegree[edge.target] -= 1
                if indegree[edge.target] == 0:
                    ready.append(edge.target)
        return order
