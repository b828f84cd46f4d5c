"""Grounding of a decoded query in its question: every literal must appear in (or be derivable from) the
question, every slot must get a value from it; otherwise the query is repaired from the question or rejected.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field

from rapidfuzz import fuzz

from dkg.errors import QAError
from dkg.lexicon.clinical import asked_part, asks, not_a_treatment
from dkg.lexicon.topics import guideline_topics
from dkg.qa.facts import Facts, detect_guidelines, extract_facts, find_facts
from dkg.qa.queries import QuerySketch, QuestionType, parse_model_output
from dkg.qa.vocabulary_facts import find_vocabulary_facts
from dkg.qa.way_in import in_place_reports


class GroundingError(QAError):
    """A decoded query cannot be grounded in the question."""


@dataclass
class Grounded:
    sketch: QuerySketch
    facts: Facts
    repairs: list[str] = field(default_factory=list)


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text.lower().replace("–", "-")).strip()


def ground_treatment(treatment: str, question: str, known: list[str] | None = None) -> tuple[str, str | None]:
    """(phrase, repair note): the phrase as it appears in the question when it names a treatment the guideline
    knows, else the best known phrase the question contains (fuzzy), else :class:`GroundingError`."""
    q = _norm(question)
    t = _norm(treatment)
    if t and (t in q or (fuzz.partial_ratio(t, q) >= 92 and len(t) >= 5)) and is_known_treatment(t, known):
        combination = combination_in_question(t, known or [])
        if combination and combination != t:
            return combination, f"treatment {treatment!r} is the guideline's {combination!r}"
        return t, None
    # patient facts are never the treatment ('ECOG performance status 3' names no option 'status')
    found = treatment_in_question(_masked_facts(question, known), known or [])
    if found:
        return found, f"treatment {treatment!r} not a known treatment in the question; used {found!r} from the question"
    if t and t in q:
        raise GroundingError(f"{treatment!r} is not a treatment the guideline knows")
    raise GroundingError(f"treatment {treatment!r} does not appear in the question")


def is_known_treatment(phrase: str, known: list[str] | None) -> bool:
    """Whether ``phrase`` names (part of) a treatment option of the graph; ordinary words never do ('marrow',
    'months', 'neoadjuvant'). Without a list of known treatments only the ordinary words are refused."""
    p = _norm(phrase)
    if not p or not_a_treatment(p) or all(not_a_treatment(w) or w in _STOP for w in re.findall(r"[a-z0-9\-/]+", p)):
        return False
    if not known:
        return True
    options = [_norm(k) for k in known]
    return any(p in o or (len(o) >= 4 and o in p) for o in options) or bool(
        {w for w in re.findall(r"[a-z][a-z0-9\-]{5,}", p) if w not in _STOP} & _option_words(options))


def _option_words(options: list[str]) -> set[str]:
    words = {w for o in options for w in re.findall(r"[a-z][a-z0-9\-]{5,}", o)}
    # the drug of a hyphenated option ('nelarabine-containing consolidation' names nelarabine), never the drug an
    # option leaves out ('methotrexate-free')
    words |= {m.group(1) for o in options
              for m in re.finditer(r"(?<![a-z0-9-])([a-z][a-z0-9]{5,})-(?!free|sparing|naive)[a-z]+", o)}
    return {w for w in words if w not in _STOP and not not_a_treatment(w)}


_STOP = frozenset({"therapy", "treatment", "chemotherapy", "clinical", "trial", "patients", "patient", "disease",
                   "followed", "without", "with", "then", "after", "before", "surgery", "review", "imaging",
                   "induction", "consolidation", "maintenance", "assessment", "staging", "workup", "recommended",
                   "options", "response", "standard", "therapies", "treatments", "pediatric", "reduced",
                   "interval", "modified", "multiagent", "intensified", "guideline", "guidelines", "pathway",
                   "high-dose", "low-dose", "during", "status", "necrosis"})


_COMBINED = r"\s*(?:\+|&|/|\bplus\b|\bwith\b|\band\b)\s*"
"""What joins the drugs of a combination: 'irinotecan with temozolomide', 'irinotecan + temozolomide'."""


def combination_in_question(question: str, known: list[str]) -> str | None:
    """The longest known combination of two or three drugs that the question writes in another way or order
    ('temozolomide/irinotecan' for the guideline's 'irinotecan with temozolomide'), else None."""
    q = _norm(question)
    for k in sorted({_norm(k) for k in known}, key=len, reverse=True):
        parts = [p for p in re.split(_COMBINED, k) if p]
        if not 2 <= len(parts) <= 3 or any(not_a_treatment(p) for p in parts):
            continue
        for order in itertools.permutations(parts):
            if re.search(r"(?<![a-z0-9])" + _COMBINED.join(map(re.escape, order)) + r"(?![a-z0-9])", q):
                return k
    return None


def treatment_in_question(question: str, known: list[str]) -> str | None:
    """The longest known treatment phrase the question contains (fuzzy, or a combination written in another
    way), else its first distinctive word of a known treatment (e.g. a drug name like 'ponatinib' inside 'a
    switch to ponatinib'), else None. Ordinary words of guideline steps ('marrow', 'months') are never
    treatments."""
    q = _norm(question)
    phrases = [(len(k), _norm(k)) for k in known
               if len(k) >= 4 and not not_a_treatment(k) and fuzz.partial_ratio(_norm(k), q) >= 92]
    combination = combination_in_question(question, known)
    if combination:
        phrases.append((len(combination), combination))
    if phrases:
        return max(phrases)[1]
    present: list[tuple[int, str]] = []
    for word in _option_words([_norm(k) for k in known]):
        m = re.search(rf"(?<![a-z]){re.escape(word)}(?![a-z])", q)
        if m:
            present.append((m.start(), word))
    # a short regimen name written in capitals ('POMP', 'MAP', 'SBRT') that is a word of a known option
    short = {w for k in known for w in re.findall(r"[a-z][a-z0-9/\-]{2,5}", _norm(k))}
    for m in re.finditer(r"(?<![A-Za-z0-9])[A-Z][A-Z0-9/\-]{2,5}(?![A-Za-z0-9])", question):
        word = m.group(0).lower()
        if word in short and not not_a_treatment(word) and word not in _STOP:
            present.append((m.start(), word))
    return min(present)[1] if present else None


def ground(decoded: str, question: str, known_treatments: list[str] | None = None,
           facts: Facts | None = None, guidelines: list[str] | None = None) -> Grounded:
    """Parse and ground one decoded query; raise :class:`GroundingError` / :class:`QAError` when impossible."""
    return ground_sketch(parse_model_output(decoded), question, known_treatments, facts, guidelines)


def _masked_facts(question: str, known: list[str] | None = None) -> str:
    """The question with the words that state patient facts ("no metastases", "resectable") and steps reported
    in place ("on monitor") blanked out: they are not treatment phrases, unless they are part of a known
    treatment written out ('CAR T-cell therapy' is a treatment, not a T-cell lineage)."""
    lowered = question.lower()
    kept = [(m.start(), m.end()) for k in known or [] if len(k) >= 8
            for m in re.finditer(re.escape(k.lower()), lowered)]
    masked = list(question)
    for match in find_facts(question):
        around = [(a, b) for a, b in kept if a <= match.start and match.end <= b and b - a > match.end - match.start]
        if match.key == "prior_therapy":
            # a therapy already given is history, not the treatment asked about: its whole regimen is blanked
            # ('progressed on pembrolizumab + axitinib. Is belzutifan an option?')
            for a, b in around:
                masked[a:b] = " " * (b - a)
            around = []
        if not around:
            masked[match.start:match.end] = " " * (match.end - match.start)
    for fact in find_vocabulary_facts(question, detect_guidelines(question)):  # an onboarded guideline's facts
        masked[fact.start:fact.end] = " " * (fact.end - fact.start)
    # a step reported in place ('on monitor', 'IV in') is what was done, not the treatment asked about
    for clause in {clause.strip() for clause, _ in in_place_reports(question)}:
        for reported in re.finditer(rf"(?<!\w){re.escape(clause)}(?!\w)", question, re.IGNORECASE):
            masked[reported.start():reported.end()] = " " * len(clause)
    # the name of a guideline's topic ('the bone sarcoma guideline') is no treatment, though an option's text may
    # hold it ('referral to a bone sarcoma center')
    for topic in guideline_topics():
        for a, b in topic.name_spans(question):
            masked[a:b] = " " * (b - a)
    return "".join(masked)


def asked_treatment(question: str, known: list[str]) -> str | None:
    """The known treatment the question asks about: one named where it asks ('..., on cabozantinib. Is denosumab
    appropriate?' asks about denosumab), else one named anywhere; patient-fact words are never one."""
    masked = _masked_facts(question, known)
    return treatment_in_question(asked_part(masked), known) or treatment_in_question(masked, known)


def fallback_sketch(question: str, guideline: str, known_treatments: list[str], facts: Facts) -> QuerySketch | None:
    """A query built from the question alone (used only when no decoded beam can be grounded): patient facts
    and a treatment in a question of the advise form → advise; a treatment in a "for whom" question, or a
    treatment only → conditions; facts otherwise → next step."""
    treatment = asked_treatment(question, known_treatments)
    if treatment and asks(question, "conditions"):
        return QuerySketch(QuestionType.CONDITIONS, guideline, (), treatment)
    if facts and treatment and asks(question, "advise"):
        return QuerySketch(QuestionType.ADVISE, guideline, tuple(sorted(facts)), treatment)
    if facts:
        return QuerySketch(QuestionType.NEXT_STEP, guideline, tuple(sorted(facts)))
    if treatment:
        return QuerySketch(QuestionType.CONDITIONS, guideline, (), treatment)
    return None


def ground_sketch(sketch: QuerySketch, question: str, known_treatments: list[str] | None = None,
                  facts: Facts | None = None, guidelines: list[str] | None = None) -> Grounded:
    """Ground an already parsed sketch (see :func:`ground`); ``guidelines`` are those the question is about
    (default: :func:`detect_guidelines`)."""
    facts = extract_facts(question) if facts is None else facts
    repairs: list[str] = []
    guideline = sketch.guideline
    found = detect_guidelines(question) if guidelines is None else guidelines
    if guideline not in found:
        if len(found) == 1:
            repairs.append(f"guideline {guideline!r} not derivable from the question; used {found[0]!r}")
            guideline = found[0]
        else:
            raise GroundingError(f"guideline {guideline!r} is not named or implied by the question")
    treatment = sketch.treatment
    if sketch.qtype is QuestionType.CONDITIONS and facts and not asks(question, "conditions"):
        # a "for whom" query needs a question asking for whom; a question stating a patient's facts without that
        # form asks for the patient's next step ('... resected, necrosis 60%, what now')
        repairs.append(f"the question does not ask for whom {treatment!r} is recommended; answered as next step")
        sketch = QuerySketch(QuestionType.NEXT_STEP, sketch.guideline, tuple(sorted(facts)))
        treatment = None
    if sketch.qtype is not QuestionType.CONDITIONS and known_treatments and asks(question, "conditions") \
            and not asks(question, "advise"):
        # the question's form decides the type over the decoded one: "who gets X?" asks for whom a treatment the
        # guideline knows is recommended, even when it also names the patient group. Stricter than
        # fallback_sketch, which has no decoded type to weigh: "when is X recommended?" has both forms, and a
        # decoded advise or next step stands for it (dev-ALL-17, dev-bone-16 need the fallback's precedence)
        named = asked_treatment(question, known_treatments)
        if named:
            repairs.append(f"the question asks for whom {named!r} is recommended; answered as conditions")
            sketch = QuerySketch(QuestionType.CONDITIONS, sketch.guideline, (), named)
            treatment = named
    if sketch.qtype is QuestionType.ADVISE and not asks(question, "advise"):
        # an advise query needs a question about a treatment ("is X appropriate?"); otherwise the patient's
        # facts ask for the next step
        repairs.append(f"the question does not ask whether {treatment!r} is advisable; answered as next step")
        sketch = QuerySketch(QuestionType.NEXT_STEP, sketch.guideline, sketch.keys)
        treatment = None
    if sketch.qtype is QuestionType.NEXT_STEP and known_treatments and asks(question, "advise"):
        # the question has the advise form and names a treatment the guideline knows: it asks about that
        # treatment, whatever query type was decoded
        named = asked_treatment(question, known_treatments)
        if named:
            repairs.append(f"the question asks whether {named!r} is advisable; answered as advise")
            sketch = QuerySketch(QuestionType.ADVISE, sketch.guideline, sketch.keys, named)
            treatment = named
    if sketch.qtype is QuestionType.ADVISE and treatment and known_treatments and \
            _norm(treatment) not in _norm(_masked_facts(question, known_treatments)):
        # the decoded treatment is named only as therapy already given ('progressed on X. Is Y an option?')
        named = asked_treatment(question, known_treatments)
        if named and _norm(named) != _norm(treatment):
            repairs.append(f"{treatment!r} is therapy already given; the question asks about {named!r}")
            treatment = named
    if sketch.qtype is QuestionType.ADVISE and treatment and known_treatments:
        # the sentence that asks names the treatment asked about ('Relapse with a new lesion. Is samarium-153 an
        # option?'): a decoded phrase from another sentence loses to it, even when it shares a word with an option
        asking = asked_part(_masked_facts(question, known_treatments))
        named = treatment_in_question(asking, known_treatments)
        if named and _norm(treatment) not in _norm(asking) and _norm(named) != _norm(treatment):
            repairs.append(f"the question asks about {named!r}, not {treatment!r}")
            treatment = named
    if treatment is not None:
        treatment, note = ground_treatment(treatment, question, known_treatments)
        if note:
            repairs.append(note)
    keys = list(sketch.keys)
    if sketch.qtype is not QuestionType.CONDITIONS:
        missing = sorted({k for k in keys if k not in facts})
        if missing:
            keys = [k for k in keys if k in facts]
            if not keys and not facts:
                raise GroundingError(f"slot(s) {', '.join('$' + k for k in missing)} have no value in the question")
            repairs.append(f"dropped slot(s) without a value in the question: {', '.join(missing)}")
        extra = [k for k in facts if k not in keys]
        if extra:
            repairs.append(f"added fact slot(s) stated in the question: {', '.join(extra)}")
            keys = sorted(set(keys) | set(extra))
        used = {k: facts[k] for k in keys}
    else:
        used = {}
    grounded = QuerySketch(sketch.qtype, guideline, tuple(sorted(keys)), treatment)
    grounded.check()
    return Grounded(grounded, used, repairs)
