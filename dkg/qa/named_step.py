"""Questions that name a step of the flowchart and ask what follows it.

A procedure page (decontaminate, then isolate, then notify …) has steps that lead on to other steps with no
patient condition between them, so a question about it states no patient facts: "after decontamination, what
next?", "what are the steps after the 12 lead ECG?". The walk of :mod:`dkg.qa.pathway` places a patient by the
facts stated and cannot place such a question. Here the step the question names is found among the guideline's
boxes by its words, and the answer is the steps its arrows lead to — all of them when the step fans out — each
with the label of its arrow (the route). Read-only queries of ``cypher/qa_steps.cypher``; thresholds in
:class:`NamedStepSettings`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import islice
from os.path import commonprefix
from typing import Any

import networkx as nx
from rapidfuzz import fuzz

from dkg.answers import Answer, Evidence
from dkg.graph.db import Graph, named_queries
from dkg.qa.populations import pages_by_population
from dkg.qa.way_in import FactValue, WayIn, WayInFacts, holds, way_in_facts
from dkg.types import Constraint

# "after X, what next?" / "X done — next?" / "what comes after X?" / "what are the steps after X?": the named step
_CONNECTOR = r"\s*(?:[,;:.—–]|\s-)+\s*"
_ASK = r"(?:what|which|next|then|now|where|how)\b"
_DONE = (r"(?:(?:is|are|has been|have been|was|were)\s+)?"
         r"(?:done|given|complete|completed|finished|performed|started|over|met|confirmed|fulfilled|satisfied)")
STEP_PATTERNS: tuple[re.Pattern[str], ...] = tuple(re.compile(p, re.IGNORECASE) for p in (
    rf"^(?:.*?[:;,]\s*)?(?:right |just |immediately )?(?:after|following|once|post)\s+(?P<step>.+?)\s*(?:{_DONE})?"
    rf"{_CONNECTOR}(?:.*?\b)?{_ASK}",
    r"\b(?:what|which)\s+(?:steps?\s+)?"
    r"(?:comes?|follows?|happens?|is|are|should (?:come|happen|be done)|do (?:we|i|you) do)"
    r"\s+(?:next\s+|then\s+)?(?:after|following)\s+(?P<step>.+?)\s*[?.!]*$",
    r"\bnext steps?\s+(?:after|following)\s+(?P<step>.+?)\s*[?.!]*$",
    r"\b(?:what|which)\s+(?:are|is)\s+the\s+(?:next\s+)?steps?\s+(?:after|following|of|for)\s+(?P<step>.+?)\s*[?.!]*$",
    r"\bwhat\s+follows\s+(?P<step>.+?)\s*[?.!]*$",
    # "X is done and the unit has deployed. What now?": a clause after "done" says what else happened
    rf"^(?:.*?[:;,]\s*)?(?P<step>[^:;,]+?)\s+{_DONE}(?:\s+and\s+[^.?!;:]+)?{_CONNECTOR}(?:.*?\b)?{_ASK}",
    # a step named as a heading whose contents are asked: "what are the X measures?", "which X should be
    # requested?", "to X, what should be done?", "X: which lines of effort start?"
    r"^(?:what|which)\s+(?:are|is)\s+the\s+(?P<step>.+?)\s*[?.!]*$",
    r"^which\s+(?P<step>.+?)\s+(?:should|must|need to|are to)\s+be\s+\w+\b.*$",
    r"^to\s+(?P<step>[^,]+?),\s*(?:what|which|how)\b.*$",
    r"^(?P<step>[^:?]+?):\s*(?:what|which)\b(?!\s+(?:patients?|people|persons?)\b).*$",
))
# "Pt meets VAC", "meets criteria for X", "X criteria": the step is X (the patient is there)
MEETS = re.compile(r"^(?:(?:the\s+)?(?:pt|patient|case)\s+)?(?:now\s+|just\s+)?(?:meets|met|fulfils|fulfills|"
                    r"satisfies|qualifies\s+for|triggered|triggers|reached|hit)\s+(?:the\s+)?"
                    r"(?:criteria\s+(?:for|of)\s+)?(?:an?\s+)?|\s+criteria$", re.IGNORECASE)
# "<a step the team is at>. <a question about what follows>": the statement names the step
_SENTENCE_END = re.compile(r"(?<=[.!;])\s+(?=[A-Z])")
_ASKS_ON = re.compile(r"^(?:what|which|how|where)\b.*\?\s*$", re.IGNORECASE)
# "which step covers that?": the question describes a step, it names none whose successors it asks for
_ASKS_WHICH_COVERS = re.compile(r"\b(?:which|what)\s+(?:step|box|part|lane|line|task|action)s?\s+(?:covers?|handles?|"
                                r"deals?\s+with|address(?:es)?|is\s+for|applies)\b", re.IGNORECASE)
# "should we X?", "is it appropriate to X?", "should X be considered?": whether a step the question names is advised
# ("Bradycardia: should we …?": a leading "X:" says where)
_WHERE_FIRST = r"^(?:[^:?]{1,60}:\s*)?"
# "… Report as IVAC?", "should we call it a VAC?", "is it an IVAC?", "should this count as possible VAP?": whether
# the case is the step a surveillance or classification chart names (a statement before it may give the facts)
_CLASSIFY = r"(?:call|report|count|classify|label|code|diagnose)"
_AS_STEP = r"(?:as\s+)?(?:an?\s+)?(?P<step>[^?]+?)\s*\?\s*$"
_NOT_A_STEP = (r"(?!(?:appropriate|advisable|reasonable|recommended|right|indicated|necessary|ok|okay|useful|wise|"
               r"safe|possible|too|still|worth|time|true|normal|likely|unlikely)\b)")
CLASSIFY_PATTERNS: tuple[re.Pattern[str], ...] = tuple(re.compile(r"^(?:.*?[.!:;]\s+)?" + p, re.IGNORECASE) for p in (
    rf"(?:should|shall|must|can|could|do|would)\s+(?:we|i|you|they)\s+{_CLASSIFY}\s+(?:it|this|that|the\s+case)?\s*"
    + _AS_STEP,
    rf"{_CLASSIFY}\s+(?:it\s+|this\s+|that\s+)?" + _AS_STEP,
    r"(?:should|does|would|can|could|will|do)\s+(?:it|this|that|the\s+case|the\s+event)\s+(?:count|qualify|be\s+"
    r"(?:called|classified|reported|counted|labell?ed|coded))\s+" + _AS_STEP,
    r"(?:is|was)\s+(?:it|this|that)\s+(?:now\s+|still\s+|already\s+)?(?:an?\s+)" + _NOT_A_STEP + r"(?P<step>[^?]+?)"
    r"(?:\s+(?:yet|now|already|still))?\s*\?\s*$",
    # a note's last line: "… ran 7 days. counts as IVAC?"
    r"(?:it\s+|this\s+|that\s+)?(?:counts?|qualif(?:y|ies))\s+" + _AS_STEP,
))
ADVISE_PATTERNS: tuple[re.Pattern[str], ...] = tuple(re.compile(_WHERE_FIRST + p, re.IGNORECASE) for p in (
    r"(?:should|shall|must|can|could|do|would)\s+(?:we|i|you|they|the\s+(?:team|unit|medical\s+team|staff))\s+"
    r"(?:also\s+)?(?P<step>.+?)\s*[?.!]*$",
    r"(?:is|would)\s+it\s+(?:be\s+)?(?:appropriate|advisable|reasonable|recommended|right|indicated|necessary|"
    r"ok|okay|useful|wise)\s+to\s+(?P<step>.+?)\s*[?.!]*$",
    r"(?:should|must|can|could)\s+(?P<subject>.+?)\s+be\s+(?P<step>\w+(?:\s.*?)?)\s*[?.!]*$",
))
# "what are the criteria for X?", "which findings suggest X?", "when is X indicated?", "when should we X?": the
# conditions under which a step the question names is reached
_CRITERIA = r"(?:criteria|conditions|indications|requirements|prerequisites|findings)"
CONDITIONS_PATTERNS: tuple[re.Pattern[str], ...] = tuple(re.compile(p, re.IGNORECASE) for p in (
    rf"^(?:what|which)\s+(?:are|were|is)\s+the\s+{_CRITERIA}\s+(?:for|of|to)\s+(?P<step>.+?)\s*[?.!]*$",
    rf"^(?:what|which)\s+{_CRITERIA}\s+(?:\w+\s+){{0,3}}?(?:for|define|defines|lead\s+to|leads\s+to|suggest|"
    r"suggests|indicate|indicates|point\s+to|qualify\s+for|trigger|triggers)\s+(?P<step>.+?)\s*[?.!]*$",
    r"^what\s+(?:defines|qualifies\s+as|counts\s+as)\s+(?P<step>.+?)\s*[?.!]*$",
    # "what does it take to call a VAC?", "what makes it an IVAC?", "when does a VAC become an IVAC?"
    rf"^what\s+does\s+it\s+take\s+(?:for\s+(?:an?\s+|the\s+|this\s+)?[\w-]+\s+)?to\s+(?:be\s+{_CLASSIFY}(?:ed)?|"
    rf"{_CLASSIFY}|be|declare|reach|meet|make|qualify\s+(?:as|for))"
    r"\s+(?:it\s+|this\s+)?(?:as\s+)?(?:an?\s+)?(?P<step>.+?)\s*[?.!]*$",
    r"^what\s+makes\s+(?:it|this|that|a\s+case|the\s+case)\s+(?:an?\s+)?(?P<step>.+?)\s*[?.!]*$",
    r"^when\s+(?:does|do|is|are|should|would|can|will)\s+.+?\s+(?:become|turn\s+into|progress\s+to|advance\s+to|"
    r"qualify\s+as|count\s+as|upgrade\s+to)\s+(?:an?\s+|the\s+)?(?P<step>.+?)\s*[?.!]*$",
    r"^how\s+(?:is|are)\s+(?P<step>.+?)\s+(?:defined|diagnosed|determined|identified|recogni[sz]ed)\s*[?.!]*$",
    r"^when\s+(?:is|are)\s+(?P<step>.+?)\s+(?:indicated|recommended|required|needed|met|reached|declared|"
    r"diagnosed|called|appropriate|started|begun|initiated|done|given|performed|used)\s*[?.!]*$",
    r"^when\s+(?:should|do|does|must|can|would)\s+(?:we|i|you|one|they|the\s+(?:team|unit|medical\s+team|staff))\s+"
    r"(?P<step>.+?)\s*[?.!]*$",
    r"^when\s+(?:should|must|can)\s+(?P<step>.+?)\s+be\s+\w+\s*[?.!]*$",
    rf"^(?P<step>[^:?]+?):\s*(?:(?:what|which)\s+are\s+the\s+)?{_CRITERIA}\s*[?.!]*$",
    # "in what circumstances does a child with probable SVT go on to synchronized cardioversion?", after a clause
    # saying where ("On the paediatric chart, ...")
    r"^(?:[^?]*?,\s*)?(?:in|under)\s+(?:what|which)\s+(?:circumstances|situations?|conditions|cases)\s+"
    r"(?:does|do|is|are|should|would|will|can|must)\s+(?:.+?\s+)?(?:go\s+on\s+to|proceed\s+to|move\s+on\s+to|"
    r"progress\s+to|get|receive|need|undergo|be\s+given)\s+(?P<step>.+?)\s*[?.!]*$",
    # "when does the chest pain chart let you give morphine?", "when does the chart have you give adenosine?"
    r"^when\s+(?:does|do|will|would|can)\s+(?:the\s+|this\s+|our\s+)?(?:[\w-]+\s+){0,3}?"
    r"(?:chart|algorithm|protocol|guideline|flowchart|pathway)\s+(?:let|have|allow|tell|want)\s+"
    r"(?:you|me|us|one|the\s+team)\s+(?:to\s+)?(?:give|use|start|do|perform|try)\s+(?P<step>.+?)\s*[?.!]*$",
))
# "the chest pain chart", "the bradycardia algorithm": up to three words naming a chart, not a patient's findings
_CHART_NAME = re.compile(r"\b((?:(?!(?:the|this|our|a|an|does|do|is|what|whats|which|per|by|in|on|to)\b)"
                         r"[\w-]+\s+){1,3})(?=(?:chart|algorithm|protocol|flowchart|pathway)\b)", re.IGNORECASE)


def without_chart_names(text: str) -> str:
    """``text`` with the words that name a chart blanked (they say which chart, not what the patient has).

    >>> without_chart_names("When does the chest pain chart let you give morphine?")
    'When does the  chart let you give morphine?'
    >>> without_chart_names("what does the chart say?")
    'what does the chart say?'
    """
    return _CHART_NAME.sub(" ", text)


# a clause before a colon says who or where ("Child with poor perfusion: when does the chart have you give X?")
_LEAD_CLAUSE = re.compile(r":\s+(?=(?:when|what|which|how)\b)", re.IGNORECASE)
# a clause saying when ("once the criteria are met", "when a bioincident is suspected"), not what
_WHEN = re.compile(r"\s+(?:once|when|whenever|if|as soon as|while|after|before|until)\s+.*$", re.IGNORECASE)
# "X in adult tachycardia": the trailing clause says where X is, not what X is
_WHERE = re.compile(r"\s+(?:in|for|on|during|within)\s+(?:the\s+|a\s+|an\s+)?(?=\w)"
                    r"(?!.*\s(?:in|for|on|during|within)\s)", re.IGNORECASE)
_WORD = re.compile(r"[a-z0-9]+(?:[-'][a-z0-9]+)*")
STOPWORDS = frozenset(
    "a an the of in on for to and or with without at by is are be been was were has have had it its this that these "
    "those step steps what which next then now do we i you should comes come follows follow after following once "
    "giving given starting started doing done performing performed complete completed finished patient pt check "
    "box question there".split())


@dataclass(frozen=True)
class NamedStepSettings:
    """How closely a question's words must name a box."""

    word_ratio: float = 85.0       # a question word counts as a box word at this rapidfuzz ratio (typos, plurals)
    min_named: float = 0.75        # share of the named step's words that must be in the box (all of 1 or 2 words)
    max_tied: int = 3              # more boxes tied for best than this: the step is too vague to name one
    box_named: float = 1.0         # or: share of the box's words the question names (a short heading said in full
    #                                among other words, "initial mitigation of a suspected bioincident")
    box_named_words: int = 2       # ... when the box has at least this many content words


@dataclass(frozen=True)
class Box:
    uid: str
    content: str
    pages: tuple[str, ...]
    has_next: bool
    titles: tuple[str, ...] = ()
    """The titles of ``pages`` (same order; "" for a page without one)."""


def page_titles(boxes: list[Box]) -> dict[str, str]:
    """Page → its title, from the boxes' pages."""
    return {page: title for box in boxes for page, title in zip(box.pages, box.titles, strict=False) if title}


def pages_asked(question: str, titles: dict[str, str], pages: set[str]) -> set[str]:
    """The pages among ``pages`` the question points to by its population and the words of their titles
    ("Adult tachycardia: …" → the tachycardia page, not the paediatric one); all of ``pages`` when nothing
    tells them apart.

    >>> titles = {"4": "TACHYCARDIA w/ PULSE", "7": "PEDIATRIC TACHYCARDIA with Pulse and Poor Perfusion"}
    >>> sorted(pages_asked("Adult tachycardia: after cardioversion?", titles, {"4", "7"}))
    ['4']
    >>> sorted(pages_asked("SVT in a child: after adenosine?", titles, {"4", "7"}))
    ['7']
    >>> sorted(pages_asked("after cardioversion, what next?", titles, {"4", "7"}))
    ['4', '7']
    """
    own, other = pages_by_population(question, titles)
    said = set(words(question))

    def fit(page: str) -> tuple[int, int]:
        hits = sum(any(same_word(w, t, 85.0) for w in said) for t in set(words(titles.get(page, ""))))
        return (0 if page in other else 1 + (page in own), hits)

    if len(pages) < 2 or not any(titles.get(p) for p in pages):
        return set(pages)
    fits = {p: fit(p) for p in pages}
    best = max(fits.values())
    return {p for p, f in fits.items() if f == best}


def words(text: str) -> list[str]:
    """The content words of a text, lower-cased."""
    return [w for w in _WORD.findall(text.casefold()) if w not in STOPWORDS]


def named_step(question: str) -> str | None:
    """The step a question names and asks what follows, or None when it asks something else.

    >>> named_step("After decontamination, what next?")
    'decontamination'
    >>> named_step("Pre-deployment preparation is done and the unit has deployed. What now?")
    'Pre-deployment preparation'
    >>> named_step("What are the surveillance and control measures?")
    'surveillance and control measures'
    >>> named_step("We keep a common operating picture. What comes next?")
    'We keep a common operating picture'
    >>> named_step("HR 38 and hypotensive: first step?") is None
    True
    """
    named = named_step_and_form(question)
    return named[0] if named else None


def named_step_and_form(question: str) -> tuple[str, bool] | None:
    """:func:`named_step` and whether the step is a statement before the question ("We keep a common operating
    picture. What comes next?"), which a patient's description also is: the caller answers it as a step only
    when it states no patient fact. A step the patient is said to meet ("Pt meets VAC", "IVAC criteria met")
    is named without those words.

    >>> named_step_and_form("Pt meets VAC. What do we check next?")
    ('VAC', True)
    >>> named_step_and_form("IVAC criteria met. Next step in the algorithm?")
    ('IVAC', False)
    >>> named_step_and_form("Criteria met, but no specimens collected yet. Which step covers that?") is None
    True
    """
    text = question.strip()
    if _ASKS_WHICH_COVERS.search(_SENTENCE_END.split(text)[-1]):
        return None  # "… nobody has collected specimens yet. Which step covers that?" describes the step it asks for
    for pattern in STEP_PATTERNS:
        match = pattern.search(text)
        if match:
            step = MEETS.sub("", match.group("step").strip(" ,;:-—–"))
            if words(step):
                return step, False
    sentences = _SENTENCE_END.split(text)
    if len(sentences) >= 2 and _ASKS_ON.match(sentences[-1]):
        step = MEETS.sub("", sentences[-2].strip(" .!;"))
        if words(step):
            return step, True
    return None


def without_where(step: str) -> str:
    """``step`` without its trailing clause saying where it is ("measures for a potential bioincident" →
    "measures"); ``step`` itself when it has none.

    >>> without_where("We keep a common operating picture in theatre")
    'We keep a common operating picture'
    """
    where = _WHERE.search(step)
    return step[:where.start()] if where is not None and words(step[:where.start()]) else step


def named_action(question: str) -> list[str]:
    """The step a yes/no question asks whether to take, as phrases to look for, longest first (the whole phrase,
    then without its clause saying when, then without where); empty when it asks something else.

    >>> named_action("Should we initiate an outbreak investigation once the criteria are met?")
    ['initiate an outbreak investigation once the criteria are met', 'initiate an outbreak investigation']
    >>> named_action("Should a dedicated facility be considered for cases?")
    ['considered for cases a dedicated facility', 'considered a dedicated facility']
    >>> named_action("Is adenosine reasonable at 170?")
    []
    >>> named_action("VAC on day 3, T 38.4. Report as IVAC?"), named_action("Should we call it a VAC?")
    (['IVAC'], ['VAC'])
    >>> named_action("Should this count as possible VAP?"), named_action("Is it an IVAC?")
    (['possible VAP'], ['IVAC'])
    >>> named_action("FiO2 up 0.15 for 2 days. Is this a VAC yet?"), named_action("ran 7 days. counts as IVAC?")
    (['VAC'], ['IVAC'])
    """
    text = question.strip()
    for pattern in CLASSIFY_PATTERNS:
        match = pattern.match(text)
        if match and words(match.group("step")):
            return [match.group("step").strip(" ,;:-—–")]
    for pattern in ADVISE_PATTERNS:
        match = pattern.match(text)
        if not match:
            continue
        step = match.group("step").strip(" ,;:-—–")
        subject = match.groupdict().get("subject")
        phrases = [step]
        for cut in (_WHEN, _WHERE):
            shorter = cut.split(phrases[-1], maxsplit=1)[0].strip(" ,;:") if cut.search(phrases[-1]) else ""
            if shorter and words(shorter) and shorter != phrases[-1]:
                phrases.append(shorter)
        if subject:
            phrases = [f"{p} {subject.strip()}" for p in phrases]
        return list(dict.fromkeys(p for p in phrases if words(p)))
    return []


def named_conditions(question: str) -> list[str]:
    """The step whose conditions a question asks for, as phrases to look for, shortest first (without a clause
    saying where, then whole); empty when it asks something else.

    >>> named_conditions("What are the criteria for infection-related ventilator-associated complication?")
    ['infection-related ventilator-associated complication']
    >>> named_conditions("When should the initial mitigation steps for a biological incident be started?")
    ['the initial mitigation steps', 'the initial mitigation steps for a biological incident']
    >>> named_conditions("We keep a high index of suspicion. Which findings suggest a potential outbreak?")
    ['a potential outbreak']
    >>> named_conditions("When is transcutaneous pacing indicated?"), named_conditions("What next?")
    (['transcutaneous pacing'], [])
    >>> named_conditions("Wide QRS and poor perfusion: when does the chart have you give adenosine?")
    ['adenosine']
    >>> named_conditions("On the paediatric chart, in what circumstances does a child go on to cardioversion?")
    ['cardioversion']
    """
    # the asking sentence: a statement before it ("We maintain a healthy index of suspicion.") says where
    text = _LEAD_CLAUSE.split(_SENTENCE_END.split(question.strip())[-1])[-1]
    for pattern in CONDITIONS_PATTERNS:
        match = pattern.match(text)
        if not match:
            continue
        step = match.group("step").strip(" ,;:-—–")
        shorter = _WHERE.split(step, maxsplit=1)[0].strip(" ,;:") if _WHERE.search(step) else ""
        return list(dict.fromkeys(p for p in (shorter, step) if p and words(p)))
    return []


def initialisms(text: str, longest: int = 5) -> list[str]:
    """The initials of each run of two to ``longest`` consecutive words of ``text`` (a hyphen also parts words),
    three letters or more, so that a question's "VAP" names "Ventilator-Associated Pneumonia".

    >>> "vap" in initialisms("Possible Ventilator-Associated Pneumonia (PVAP)")
    True
    """
    parts = [p for w in words(text) for p in w.split("-") if p]
    return sorted({"".join(p[0] for p in parts[i:i + n]) for n in range(3, longest + 1)
                   for i in range(len(parts) - n + 1)})


def same_word(a: str, b: str, ratio: float) -> bool:
    """One word written two ways: a typo or plural (rapidfuzz ratio), or one stem ('treating' / 'treat',
    'identified' / 'identify'; words run together by the parser, 'tachycardiaprobable')."""
    if a == b:
        return True
    if min(len(a), len(b)) < 4:
        return False
    common = len(commonprefix([a, b]))
    return fuzz.ratio(a, b) >= ratio or (common >= 4 and common >= min(len(a), len(b)) - 3)


def _hits(phrase: list[str], box: list[str], ratio: float) -> int:
    return sum(any(same_word(w, b, ratio) for b in box) for w in phrase)


def all_words_in(phrase: str, text: str, settings: NamedStepSettings | None = None) -> bool:
    """Whether every content word of ``phrase`` is a word of ``text`` (written either way, :func:`same_word`).

    >>> all_words_in("probable ventricular tachycardia", "Probable Ventricular TachycardiaProbable")
    True
    >>> all_words_in("nephrectomy and recurrence", "Nephrectomy")
    False
    """
    said = words(phrase)
    return _hits(said, words(text), (settings or NamedStepSettings()).word_ratio) == len(said)


def names_in_full(phrase: str, box: Box, exactly: bool = False) -> bool:
    """Whether every content word of ``phrase`` is a word of the box or of its initials ("VAC" names
    "Ventilator-Associated Complication (VAC)"); unless ``exactly``, also a word written another way
    (:func:`same_word`)."""
    own = words(box.content) + initialisms(box.content)
    return all(w in own for w in words(phrase)) or (not exactly and all_words_in(phrase, box.content))


def best_boxes(step: str, question: str, boxes: list[Box], settings: NamedStepSettings | None = None,
               preferred: set[str] | frozenset[str] = frozenset()) -> list[Box]:
    """The boxes ``step`` names best: most of its words in the box, then a box on a ``preferred`` page (one
    titled for the question's population), then the box least of whose words it leaves out, then the box whose
    page (its boxes and title) shares most of the question's other words; empty when none is named closely
    enough or too many tie."""
    settings = settings or NamedStepSettings()
    phrase = words(step)
    if not phrase:
        return []
    need = len(phrase) if len(phrase) <= 2 else settings.min_named * len(phrase)
    page_words: dict[str, set[str]] = {}
    for box in boxes:
        for page in box.pages:
            page_words.setdefault(page, set()).update(words(box.content))
    for page, title in page_titles(boxes).items():
        page_words.setdefault(page, set()).update(words(title))
    context = set(words(question)) - set(phrase)
    ranked: list[tuple[tuple[int, bool, float, int], Box]] = []
    for box in boxes:
        own = words(box.content)
        hits = _hits(phrase, own + initialisms(box.content), settings.word_ratio)
        if not own:
            continue
        covered = _hits(own, phrase, settings.word_ratio) / len(own)
        if hits < need and (covered < settings.box_named or len(set(own)) < settings.box_named_words):
            continue
        on_page = max((len(context & page_words[p]) for p in box.pages), default=0)
        ranked.append(((hits, bool(set(box.pages) & preferred), round(covered, 3), on_page), box))
    if not ranked:
        return []
    top = max(key for key, _ in ranked)
    tied = [box for key, box in ranked if key == top]
    return tied if len(tied) <= settings.max_tied else []


def answer_named_step(graph: Graph, question: str, guideline: str, version: str,
                      settings: NamedStepSettings | None = None, step: str | None = None) -> Answer | None:
    """The steps after the step ``question`` names (``step``, when the caller has read it already), as an
    :class:`Answer`; None when the question names no step of the guideline that leads anywhere (the caller then
    answers it as a patient question)."""
    step = step if step is not None else named_step(question)
    if step is None:
        return None
    queries = named_queries("qa_steps")
    params: dict[str, Any] = {"guideline": guideline, "version": version}
    boxes = step_boxes(graph, guideline, version)
    titles = page_titles(boxes)
    # a step only on pages of the other population ("Adult …" and a PEDIATRIC page) is not the one named
    preferred, other = pages_by_population(question, titles)
    leading = [b for b in boxes if b.has_next and (not b.pages or set(b.pages) - other)]
    named = best_boxes(step, question, leading, settings, preferred)
    core = without_where(step)
    if core != step:
        # "VAC on vent day 4": the words before the clause saying where name a box in full, while the whole
        # phrase's best box (one mentioning days of ventilation) does not hold them: that box is the one named
        by_core = best_boxes(core, question, leading, settings, preferred)
        if by_core and (not named or (all(names_in_full(core, b) for b in by_core)
                                      and not all(names_in_full(core, b) for b in named))):
            named = by_core
    if not named:
        return None
    params = {**params, "uids": [b.uid for b in named]}
    rows = graph.read(queries["steps_after"], params)
    # one step printed on two pages (an entry box shared by two algorithms) leads on to both: keep the asked page's
    asked = pages_asked(question, titles, {p for b in named for p in b.pages})
    rows = [r for r in rows if set(map(str, r.get("pages") or [])) & asked] or rows
    if not rows:
        return None
    evidence = [Evidence(node_uid=r["uid"], content=str(r["content"]), kind="Action", guideline=guideline,
                         version=version) for r in rows]
    return Answer(question=question, route="text2cypher", answer=steps_text(rows), cypher=queries["steps_after"],
                  cypher_params=params, rows=rows, matched_nodes=list(dict.fromkeys(str(r["uid"]) for r in rows)),
                  evidence=evidence)


def step_boxes(graph: Graph, guideline: str, version: str) -> list[Box]:
    """Every box of one guideline version (``step_boxes`` of ``cypher/qa_steps.cypher``)."""
    return [Box(str(r["uid"]), str(r["content"]), tuple(str(p) for p in r["pages"]), bool(r["has_next"]),
                tuple(str(t) for t in r["page_titles"]))
            for r in graph.read(named_queries("qa_steps")["step_boxes"], {"guideline": guideline, "version": version})]


def names_a_box(phrases: list[str], question: str, boxes: list[Box],
                settings: NamedStepSettings | None = None) -> list[Box]:
    """The boxes the first of ``phrases`` that names any names best (:func:`best_boxes`), a box on a page the
    question points to by its population or title words ("Bradycardia: …") first."""
    pages = {p for b in boxes for p in b.pages}
    asked = pages_asked(question, page_titles(boxes), pages)
    preferred = frozenset(asked) if asked != pages else frozenset()
    for phrase in phrases:
        named = best_boxes(phrase, question, boxes, settings, preferred)
        if named:
            return named
    return []


def _contradicts(check: Constraint, checked: WayInFacts) -> bool:
    return check.key in checked.facts and not holds(check, checked.facts[check.key])


def _paths_to(way_in: WayIn, uid: str, arrows: nx.MultiDiGraph, max_paths: int) -> list[list[tuple[str, str, int]]]:
    """At most ``max_paths`` arrow paths from a root of the guideline to ``uid`` within ``arrows``."""
    if uid not in arrows:
        return []
    paths = (p for root in way_in.roots if root in arrows for p in nx.all_simple_edge_paths(arrows, root, uid))
    return list(islice(paths, max_paths))


def conditions_to(way_in: WayIn, uid: str, checked: WayInFacts, max_paths: int = 20) -> list[tuple[str, ...]]:
    """The conditions the question leaves unstated on the ways from a root to ``uid`` consistent with the stated
    facts, one tuple per distinct way (an empty tuple: a way with no condition left). Only arrows the stated
    facts allow are walked, so every way looked at is consistent; at most ``max_paths`` of them are looked at,
    so a large guideline is not walked in full."""
    def allowed(a: str, b: str, k: int) -> bool:
        checks = way_in.arrows.edges[a, b, k]["checks"]
        return not any(c.key in checked.required or _contradicts(c, checked) for c in checks)

    found: dict[tuple[str, ...], None] = {}
    for path in _paths_to(way_in, uid, nx.subgraph_view(way_in.arrows, filter_edge=allowed), max_paths):
        checks = [c for a, b, k in path for c in way_in.arrows.edges[a, b, k]["checks"]]
        found[tuple(dict.fromkeys(str(c) for c in checks if c.key not in checked.facts))] = None
    return sorted(found, key=len)


def conflicts_to(way_in: WayIn, uid: str, checked: WayInFacts, max_paths: int = 20) -> list[str]:
    """The conditions on the ways from a root to ``uid`` that the stated facts contradict (each once, in the order
    met), at most ``max_paths`` ways looked at."""
    found: dict[str, None] = {}
    for path in _paths_to(way_in, uid, way_in.arrows, max_paths):
        for a, b, k in path:
            found.update((str(c), None) for c in way_in.arrows.edges[a, b, k]["checks"] if _contradicts(c, checked))
    return list(found)


def _stated_text(stated: dict[str, FactValue], keys: set[str]) -> str:
    return ", ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in stated.items() if k in keys)


def answer_named_action(graph: Graph, question: str, guideline: str, version: str, phrases: list[str],
                        stated: dict[str, FactValue], settings: NamedStepSettings | None = None,
                        say_no: bool = False) -> Answer | None:
    """Whether to take the step a yes/no question names ("should we request technical reachback early?"): yes
    when the step is one of the guideline's and a way to it agrees with the stated facts, with the conditions
    the question leaves unstated on that way (the route) and the arrows into it. When the stated facts lead
    elsewhere: no, with the conditions they contradict, if ``say_no`` (the caller has no walk to place the
    patient); else None, as when the question names no box (the caller then answers it as a patient question)."""
    # an action, not a question box ("Substantial comorbidities?"), is what a yes/no question asks to take
    actions = [b for b in step_boxes(graph, guideline, version) if not b.content.rstrip().endswith("?")]
    # the step without its when / where clause first: the clause says when to act ("once the criteria are met")
    # and, read as part of the step, names the box of that condition rather than the action
    named = names_a_box(phrases[::-1], question, actions, settings)
    if not named:
        return None
    way_in = WayIn.of(graph, guideline, version)
    checked = way_in_facts(stated)
    reached = way_in.ways(checked)
    rows: list[dict[str, Any]] = []
    for box in named:
        before = way_in.sources_into(box.uid)
        if box.uid not in reached:
            if say_no:
                rows.append({"uid": box.uid, "content": box.content, "advisable": False, "after_uids": before,
                             "conditions": conflicts_to(way_in, box.uid, checked)})
            continue
        ways = conditions_to(way_in, box.uid, checked)
        rows.append({"uid": box.uid, "content": box.content, "advisable": True, "conditions": list(ways[0]) if ways
                     else [], "other_ways": [list(w) for w in ways[1:]], "after_uids": before})
    if any(r["advisable"] for r in rows):
        rows = [r for r in rows if r["advisable"]]
    if not rows:
        return None
    contents = {b.uid: b.content for b in step_boxes(graph, guideline, version)}
    parts = []
    for row in rows:
        after = "; ".join(f'"{contents.get(u, u)}"' for u in row["after_uids"])
        when = " and ".join(row["conditions"])
        if not row["advisable"]:
            said = _stated_text(stated, {Constraint.parse(c).key for c in row["conditions"]})
            parts.append(f'No: "{row["content"]}" is a step of the guideline' + (f" when {when}" if when else "")
                         + (f"; the question states {said}" if said else "") + ".")
            continue
        parts.append(f'Yes: "{row["content"]}" is a step of the guideline' + (f", after {after}" if after else "")
                     + (f", when {when}" if when else "") + ".")
    evidence = [Evidence(node_uid=r["uid"], content=str(r["content"]), kind="Action", guideline=guideline,
                         version=version) for r in rows]
    return Answer(question=question, route="text2cypher", answer=" ".join(parts),
                  cypher=named_queries("qa_steps")["step_boxes"],
                  cypher_params={"guideline": guideline, "version": version, "uids": [r["uid"] for r in rows]},
                  rows=rows, matched_nodes=[r["uid"] for r in rows], evidence=evidence)


def answer_named_conditions(graph: Graph, question: str, guideline: str, version: str, phrases: list[str],
                            stated: dict[str, FactValue], settings: NamedStepSettings | None = None
                            ) -> Answer | None:
    """When the step a question names is reached ("what are the criteria for X?"): the boxes whose arrows lead
    into it (the criteria a page draws as boxes) and the conditions on each way from a root to it that the
    stated facts leave open (one row per distinct way, shortest first). None when no box is named, the stated
    facts reach none of the named boxes, or no arrow and no condition leads to them (the caller then answers
    it another way)."""
    boxes = step_boxes(graph, guideline, version)
    named = names_a_box(phrases, question, boxes, settings)
    if not named:
        return None
    way_in = WayIn.of(graph, guideline, version)
    checked = way_in_facts(stated)
    reached = way_in.ways(checked)
    if not any(box.uid in reached for box in named):
        # the box the phrase names best is one the stated facts rule out ("wide QRS: when is adenosine given?" names
        # the narrow side's adenosine box first): the box it names among those the facts leave reachable
        named = names_a_box(phrases, question, [box for box in boxes if box.uid in reached], settings) or named
    contents = {b.uid: b.content for b in boxes}
    rows: list[dict[str, Any]] = []
    leading: list[str] = []
    for box in named:
        if box.uid not in reached:
            continue
        before = way_in.sources_into(box.uid)
        leading += [u for u in before if u not in leading]
        ways = conditions_to(way_in, box.uid, checked) or [()]
        rows += [{"step_uid": box.uid, "content": box.content, "constraints": list(way), "after_uids": before}
                 for way in ways]
    # a step no arrow reaches and no condition guards says nothing about when it is reached (a page whose criteria
    # table stands apart from its "Criteria Met" box): the other routes may read the question better
    if not rows or (not leading and not any(r["constraints"] for r in rows)):
        return None
    parts = []
    for uid in dict.fromkeys(str(r["step_uid"]) for r in rows):
        own = [r for r in rows if r["step_uid"] == uid]
        after = "; ".join(f'"{contents.get(u, u)}"' for u in own[0]["after_uids"])
        whens = [" and ".join(r["constraints"]) for r in own if r["constraints"]]
        parts.append(f'"{contents.get(uid, uid)}" is reached' + (f" after {after}" if after else "")
                     + (f", when {'; or when '.join(whens)}" if whens else ", with no condition on the way") + ".")
    uids = leading or list(dict.fromkeys(str(r["step_uid"]) for r in rows))
    evidence = [Evidence(node_uid=u, content=contents.get(u, u), kind="Action", guideline=guideline,
                         version=version) for u in dict.fromkeys([*uids, *(str(r["step_uid"]) for r in rows)])]
    return Answer(question=question, route="text2cypher", answer=" ".join(parts),
                  cypher=named_queries("qa_steps")["step_boxes"],
                  cypher_params={"guideline": guideline, "version": version,
                                 "uids": list(dict.fromkeys(str(r["step_uid"]) for r in rows))},
                  rows=rows, matched_nodes=uids, evidence=evidence)


def steps_text(rows: list[dict[str, Any]]) -> str:
    """'After "Aspirin …": 12 Lead ECG' — each next step with its arrow's label."""
    parts: dict[str, list[str]] = {}
    for row in rows:
        label = str(row.get("label") or "").strip()
        parts.setdefault(str(row["after"]), []).append(f"{row['content']}" + (f" (if {label})" if label else ""))
    return " ".join(f"After \"{after}\": {'; '.join(steps)}." for after, steps in parts.items())


__all__ = ["NamedStepSettings", "all_words_in", "answer_named_action", "answer_named_conditions", "answer_named_step",
           "best_boxes", "conditions_to", "conflicts_to", "named_action", "named_conditions", "named_step",
           "named_step_and_form", "names_a_box",
           "step_boxes", "steps_text", "without_where", "words"]
