"""Text-to-Cypher question answering over the DKG: question → beam search → grounding → plan check →
read-only execution → :class:`dkg.answers.Answer`.

Used by ``dkg ask`` (hybrid route), the demo and ``dkg eval qa``. Questions that are empty, too long, out of
scope or about an unknown guideline, and queries that fail validation, get ``no_answer_reason`` — never a
made-up answer.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import networkx as nx

from dkg.answers import Answer, Evidence, MissingFact
from dkg.config import Settings, get_settings
from dkg.errors import DKGError, QAError
from dkg.graph.db import Graph, named_queries
from dkg.lexicon.clinical import asks_dose, implied_facts, out_of_scope, with_treatment_names
from dkg.lexicon.topics import guideline_topics
from dkg.qa.answers_text import answer_text
from dkg.qa.asked_class import answer_asked_class, asked_classes, classes_not_given
from dkg.qa.counts_as import answer_counts_as, counts_as_asked
from dkg.qa.current_step import answer_after_done, answer_from_current_step, steps_answer
from dkg.qa.dose_in_box import answer_dose_in_box
from dkg.qa.facts import (
    detect_guidelines,
    extract_facts,
    named_guidelines,
    refused_facts,
    unknown_diseases,
    worded_guidelines,
)
from dkg.qa.grounding import fallback_sketch, ground, ground_sketch
from dkg.qa.guideline_words import distinctive_words, guidelines_by_words
from dkg.qa.named_chart import answer_on_named_chart, charts_named, names_a_chart
from dkg.qa.named_outcome import answer_named_outcome, asks_for_name, names_a_diagnosis
from dkg.qa.named_step import (
    Box,
    all_words_in,
    answer_named_action,
    answer_named_conditions,
    answer_named_step,
    named_action,
    named_conditions,
    named_step,
    named_step_and_form,
    names_a_box,
    page_titles,
    step_boxes,
    steps_text,
    without_chart_names,
    without_where,
)
from dkg.qa.pathway import Walk, anchored, missing_facts, walk_query
from dkg.qa.populations import population_unstated
from dkg.qa.queries import QuerySketch, QuestionType
from dkg.qa.reported_place import answer_from_reported_place, only_negated
from dkg.qa.safety import SafeExecutor
from dkg.qa.seq2seq import Seq2Seq, use_answer_threads
from dkg.qa.served_model import served_model_dir
from dkg.qa.side_by_side import side_by_side
from dkg.qa.step_match import answer_described_step
from dkg.qa.step_order import answer_step_order, waits_for
from dkg.qa.titled_entry import answer_titled_entry, titled_entry
from dkg.qa.training import ensure_model
from dkg.qa.vocabulary_facts import ThenAndNow, find_vocabulary_facts, then_and_now
from dkg.qa.way_in import WayIn, holds, way_in_facts
from dkg.types import Constraint, version_order
from dkg.vocabulary import onboarded_guidelines, onboarded_sources

MAX_CHARS = 600
MAX_WORDS = 120
BEAMS = 4

__all__ = ["TextToCypherService", "ensure_model", "sample_questions"]


def sample_questions() -> list[str]:
    """A handful of questions for the demo (written freely, not from the generator's frames)."""
    return [
        "A 30-year-old with Ph-positive B-cell ALL and no substantial comorbidities: what is the recommended "
        "induction?",
        "Is blinatumomab appropriate for a 70 year old man with Philadelphia-negative B-ALL who is MRD-positive "
        "after achieving complete remission?",
        "In renal cell carcinoma, which patients should receive partial nephrectomy?",
        "A 55-year-old woman has stage IV clear-cell RCC with IMDC favorable risk. What next?",
        "Which patients with bone sarcoma should get wide en bloc excision?",
        "What is the best treatment for metastatic breast cancer?",
        "What's the weather like tomorrow?",
    ]


@dataclass(frozen=True)
class Executed:
    """A grounded query as run: the sketch (its lenient variant when only that found steps), the Cypher, the rows
    and the algorithms for one age group the walk set aside (:class:`dkg.qa.pathway.Walk`)."""

    sketch: QuerySketch
    cypher: str
    rows: list[dict[str, Any]]
    population_titles_left_out: list[str]


class TextToCypherService:
    """Answers questions with the trained text-to-Cypher model over the configured Neo4j graph."""

    _only: str | None = None  # the one guideline answered while several are answered side by side

    def __init__(self, settings: Settings | None = None, *, graph: Graph | None = None,
                 model_dir: Path | None = None, versions: dict[str, str] | None = None, beams: int = BEAMS,
                 rules_only: bool = False) -> None:
        self.settings = settings or get_settings()
        self._own_graph = graph is None
        self.graph = graph or Graph(self.settings)
        # rules_only: no model; every question is answered by the query built from the question itself
        self.model: Seq2Seq | None = None
        if not rules_only:
            use_answer_threads()
            self.model = Seq2Seq.load(model_dir or served_model_dir(self.settings)).for_answering(self.settings.qa_int8)
        self.executor = SafeExecutor(self.graph, self.settings)
        self.versions = dict(versions or {})
        self.beams = beams
        self.stats: Counter[str] = Counter()
        self._treatments: dict[tuple[str, str], list[str]] = {}
        self.last_path = ""  # how the last answer was reached: beam<N>, fallback or refused
        self._distinctive: tuple[tuple[str, ...], dict[str, frozenset[str]]] = ((), {})
        self._start_answer("")

    def _start_answer(self, question: str) -> None:
        """Forget what the last answer read: a curation between answers is seen."""
        self._question = question  # the walk reads which steps the question says are done
        self._way_ins: dict[tuple[str, str], WayIn] = {}  # each version's arrows, read once per answer
        self._step_boxes: dict[tuple[str, str], list[Box]] = {}  # and its boxes
        self._courses: dict[tuple[str, tuple[str, ...]], ThenAndNow] = {}  # and each text's facts
        self._readings: dict[tuple[str, tuple[str, ...]], dict[str, float | str]] = {}
        self._screened: str | None = None  # why the question is refused before any route, once screened
        self._dose: tuple[str, Answer | None] | None = None  # the chart box giving the dose asked, once looked for
        self._measured_keys: tuple[str, dict[str, int]] | None = None  # numeric keys stated, per guideline

    def close(self) -> None:
        if self._own_graph:
            self.graph.close()

    def __enter__(self) -> TextToCypherService:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- graph look-ups ---------------------------------------------------------------------------
    def version_of(self, guideline: str) -> str:
        """The version answered from: the configured one, else the newest loaded in the graph."""
        if guideline not in self.versions:
            rows = self.graph.read(named_queries("qa_graph")["loaded_versions_of"], {"g": guideline})
            if not rows:
                raise QAError(f"guideline {guideline!r} is not loaded in the graph; build it first (dkg build)")
            self.versions[guideline] = max((str(r["v"]) for r in rows), key=version_order)
        return self.versions[guideline]

    def treatments(self, guideline: str, version: str) -> list[str]:
        key = (guideline, version)
        if key not in self._treatments:
            rows = self.graph.read(named_queries("qa_graph")["treatment_options"], {"g": guideline, "v": version})
            # a step that asks a question ("QRS Width?", kept as a step of an onboarded flowchart whose branches
            # carry the conditions) offers no treatment: its words ("QRS") must not make a question an advise one
            self._treatments[key] = [r["o"] for r in rows if "?" not in r["o"]]
        return self._treatments[key]

    # ---- answering --------------------------------------------------------------------------------
    def _refuse(self, question: str, reason: str, timings: dict[str, float], **extra: Any) -> Answer:
        self.stats["no_answer"] += 1
        return Answer(question=question, route="text2cypher", answer="", no_answer_reason=reason,
                      timings_ms=timings, **extra)

    def screen(self, question: str) -> str | None:
        """Why a question cannot be answered at all (before the model runs), or None."""
        text = question.strip()
        if not text:
            return "the question is empty"
        if len(text) > MAX_CHARS or len(text.split()) > MAX_WORDS:
            return f"the question is too long ({len(text)} characters; at most {MAX_CHARS} and {MAX_WORDS} words)"
        if not re.search(r"[A-Za-z]{2}", text):
            return "the question has no words"
        refused = refused_facts(text)
        if refused:  # never answer for a patient other than the one described
            return f"I could not use: {'; '.join(r.note for r in refused)}; correct it and ask again"
        found = detect_guidelines(text)
        beyond = out_of_scope(self._without_treatment_names(text, found))
        if beyond and not self._dose_in_box(text):
            return f"out of scope: {beyond} (route: text-to-Cypher over the decision graph; no step answers it)"
        other = unknown_diseases(text)
        # a disease no guideline covers wins over a drug or organ word that only hints at a guideline
        # ('melanoma on nivolumab'); a question that names a guideline's topic as well is answered
        if other and not named_guidelines(text):
            return (f"the question is about {other[0]!r}, which no loaded guideline covers "
                    f"(known guidelines: {self.topics_list()})")
        if (not found and not self._guidelines_by_step(text) and not self._guidelines_by_words(text)
                and not self._dose_in_box(text)):
            return (f"out of scope: the question names no guideline topic the decision knowledge graph covers "
                    f"(known guidelines: {self.topics_list()})")
        return None

    def _without_treatment_names(self, text: str, guidelines: list[str]) -> str:
        """``text`` (lower case) with the named guidelines' own treatment options blanked: an option the graph
        holds ('VDC/IE with dose adjustment and dexrazoxane') is a step of the pathway, not a dosing request."""
        lowered = text.lower()
        for guideline in guidelines:
            try:
                names = self.treatments(guideline, self.version_of(guideline))
            except DKGError:  # not loaded: the screen after this one says so
                continue
            for name in sorted(names, key=len, reverse=True):
                lowered = lowered.replace(name.lower(), " ")
        return lowered

    @staticmethod
    def topics_list() -> str:
        """'ALL (Acute Lymphoblastic Leukemia), ...': each known guideline with the first name of its topic."""
        return ", ".join(f"{t.guideline} ({t.names[0].alias})" if t.names else t.guideline
                         for t in guideline_topics())

    def decode(self, question: str) -> list[str]:
        """The model's beams for the question, best first (none without a model)."""
        return self.model.beam_search(question, beams=self.beams) if self.model is not None else []

    def answer(self, question: str) -> Answer:
        """Answer one question (see the module docstring); timings in ms per stage."""
        answer = self._answer_by_routes(question)
        if self.last_path.startswith("dose_in_box"):  # the box quoted is the answer: no walk moves it on
            return answer
        named = (self._named_outcome(question, answer) or self._on_named_chart(question, answer)
                 or self._reported_on_named_chart(question, answer) or self._presented_chart(question, answer))
        reached = named or answer
        classed = self._asked_class(question, reached)
        final = classed or named
        final = self._past_diagnosis(question, final or answer) or final
        return final.model_copy(update={"timings_ms": answer.timings_ms}) if final is not None else answer

    def _answer_by_routes(self, question: str) -> Answer:
        start = time.perf_counter()
        timings: dict[str, float] = {}
        self.stats["questions"] += 1
        self.last_path = "refused"
        self._start_answer(question)
        reason = self._screened = self.screen(question)
        if reason:
            timings["total"] = (time.perf_counter() - start) * 1000
            return self._refuse(question, reason, timings)
        alike = self._onboarded_alike(question)
        if len(alike) > 1:
            answer = self._side_by_side(question, alike)
            timings["total"] = (time.perf_counter() - start) * 1000
            return answer.model_copy(update={"timings_ms": timings})
        stepped = (self._dose_route(question) or self._step_order(question) or self._counts_as(question)
                   or self._named_conditions(question) or self._named_step(question) or self._named_action(question))
        if stepped is not None:
            timings["total"] = (time.perf_counter() - start) * 1000
            return stepped.model_copy(update={"timings_ms": timings})
        t, cpu = time.perf_counter(), time.process_time()
        beams = self.decode(question)
        timings["generate"] = (time.perf_counter() - t) * 1000
        # CPU time of the decoding (all threads of this process): wall time on a shared machine includes waiting
        timings["generate_cpu"] = (time.process_time() - cpu) * 1000
        facts = implied_facts(extract_facts(question))
        # an onboarded guideline's keys are read from its vocabulary file (no lexicon wordings exist for them)
        about = self._guidelines(question)
        facts = {**self._then_and_now(question, about).now, **facts}
        # treatments written short ('nivo/ipi') are matched by their full names, appended to the question
        question_text = with_treatment_names(question)
        grounding_about = ([self._only] if self._only is not None
                           else detect_guidelines(question_text) or self._guidelines_by_words(question))
        problems: list[str] = []
        for index, decoded in enumerate(beams):
            t = time.perf_counter()
            try:
                guess = ground(decoded, question_text, None, facts, grounding_about)
                version = self.version_of(guess.sketch.guideline)
                grounded = ground(decoded, question_text, self.treatments(guess.sketch.guideline, version), facts,
                                  grounding_about)
                sketch = grounded.sketch
                params = sketch.params(grounded.facts, version)
                timings["ground"] = timings.get("ground", 0.0) + (time.perf_counter() - t) * 1000
                t = time.perf_counter()
                run = self._execute(sketch, params)
                timings["execute"] = (time.perf_counter() - t) * 1000
            except DKGError as exc:
                problems.append(f"beam {index + 1}: {exc}")
                continue
            self.stats["valid_beam_1" if index == 0 else "rescued_by_later_beam"] += 1
            self.last_path = f"beam{index + 1}"
            timings["total"] = (time.perf_counter() - start) * 1000
            if not run.rows:
                # the walk from the roots placed no one: the step the question opens with, or the one it describes
                from_step = self._from_current_step(question) or self._described_step(question)
                if from_step is not None:
                    return from_step.model_copy(update={"timings_ms": timings})
                return self._refuse(question, "no step of the guideline matches the facts in the question "
                                              f"({', '.join(f'{k}={v}' for k, v in grounded.facts.items()) or 'none'})",
                                    timings, cypher=run.cypher, cypher_params=params)
            answer = self._answer(question, run.sketch, version, run.cypher, params, run.rows, timings,
                                  run.population_titles_left_out)
            ahead = self._ahead_of(question, answer) or self._past_done(question, answer)
            if ahead is not None:
                return ahead.model_copy(update={"timings_ms": timings})
            self.stats["answered"] += 1
            if grounded.repairs:
                self.stats["repaired"] += 1
            return answer
        self.stats["all_beams_invalid"] += 1
        found = about
        # a question stating no fact of an onboarded guideline that describes one of its steps in its own words
        # ("PPE running out, countermeasures won't last: what does the chart say?"): that step, before the repair
        # below reads a step's name into it
        described = None if facts else self._described_step(question)
        if described is not None:
            timings["total"] = (time.perf_counter() - start) * 1000
            return described.model_copy(update={"timings_ms": timings})
        if len(found) == 1:
            # Repair from the question itself: the same query language, built from the grounded facts
            # and treatment phrase; it still goes through the plan check.
            try:
                version = self.version_of(found[0])
                repair = fallback_sketch(question_text, found[0], self.treatments(found[0], version), facts)
                if repair is not None:
                    grounded = ground_sketch(repair, question_text, self.treatments(found[0], version), facts,
                                             grounding_about)
                    params = grounded.sketch.params(grounded.facts, version)
                    run = self._execute(grounded.sketch, params)
                    timings["total"] = (time.perf_counter() - start) * 1000
                    if run.rows:
                        answer = self._answer(question, run.sketch, version, run.cypher, params, run.rows, timings,
                                              run.population_titles_left_out)
                        ahead = self._ahead_of(question, answer) or self._past_done(question, answer)
                        if ahead is not None:
                            return ahead.model_copy(update={"timings_ms": timings})
                        self.stats["answered"] += 1
                        self.stats["fallback_from_question"] += 1
                        self.last_path = "fallback"
                        return answer
            except DKGError as exc:
                problems.append(f"repair from the question: {exc}")
        # the walk from the roots could not place the patient: a question opening with the step the patient is at
        # is walked from there
        from_step = self._from_current_step(question) or self._described_step(question)
        timings["total"] = (time.perf_counter() - start) * 1000
        if from_step is not None:
            return from_step.model_copy(update={"timings_ms": timings})
        return self._refuse(question, "no decoded query passed validation: " + "; ".join(problems[:3]), timings)

    def _guidelines_by_step(self, question: str) -> list[str]:
        """The loaded guidelines one of whose boxes the question names as a step (:mod:`dkg.qa.named_step`),
        for a question that names no guideline topic ("pre-deployment preparation is done: what now?")."""
        cached = getattr(self, "_by_step", None)
        if cached is not None and cached[0] == question:
            return cached[1]
        step = named_step(question)
        phrases = ([step] if step else []) + named_action(question) + named_conditions(question)
        found: list[str] = []
        if phrases and getattr(self, "graph", None) is not None:
            for topic in guideline_topics():
                try:
                    version = self.version_of(topic.guideline)
                    if names_a_box(phrases, question, self._boxes(topic.guideline, version)):
                        found.append(topic.guideline)
                except DKGError:  # not loaded
                    continue
        self._by_step = (question, found)
        return found

    def _guidelines_by_words(self, question: str) -> list[str]:
        """The onboarded guideline whose boxes (and curated topic) share distinctive words with a question that
        names no guideline topic (:mod:`dkg.qa.guideline_words`: "s/p ASA and NTG, 12-lead shows STEMI: where does
        the chart send him?"). Words are told apart against every loaded guideline, but only an onboarded one is
        found this way: a flowchart of presentations (bradycardia, chest pain) is asked about by findings and
        drugs, while the curated guidelines' topics name their diseases, and a question naming none of those is
        about another disease ("adamantinoma of the tibia: wide resection or curettage?" is no bone-sarcoma
        question)."""
        topics = guideline_topics()
        known = tuple(topic.guideline for topic in topics)
        if self._distinctive[0] != known:  # computed once per set of guidelines (a publish adds one)
            texts: dict[str, list[str]] = {}
            for topic in topics:
                try:
                    version = self.version_of(topic.guideline)
                except DKGError:  # not loaded
                    continue
                # the boxes' words and the curated topic's ("countermeasures", "biological")
                texts[topic.guideline] = [box.content for box in self._boxes(topic.guideline, version)] + [
                    *(name.alias for name in topic.names), *topic.hints]
            self._distinctive = (known, distinctive_words(texts))
        onboarded = onboarded_sources()
        return [g for g in guidelines_by_words(question, self._distinctive[1],
                                                 measured=self._measured(question, onboarded)) if g in onboarded]

    def _measured(self, question: str, onboarded: frozenset[str]) -> dict[str, int]:
        """Onboarded guideline → how many of its numeric keys ``question`` gives a value (a number: yes / no and
        categorical wordings such as "stable" are weaker signs), read once per answer."""
        if self._measured_keys is None or self._measured_keys[0] != question:
            counts = {g: len({f.key for f in find_vocabulary_facts(question, [g]) if isinstance(f.value, float)})
                      for g in self._distinctive[1] if g in onboarded}
            self._measured_keys = (question, counts)
        return self._measured_keys[1]

    def _guidelines(self, question: str) -> list[str]:
        """The guidelines a question names or implies (:func:`detect_guidelines`), else the one its words share
        with a guideline's boxes; only the one being answered while several are answered side by side."""
        if self._only is not None:
            return [self._only]
        return detect_guidelines(question) or self._guidelines_by_words(question)

    def _onboarded_alike(self, question: str) -> list[str]:
        """The loaded onboarded guidelines the question names when it names several, all onboarded (their topics
        share a name: a second bradycardia algorithm beside the cardiac charts); else none."""
        if self._only is not None:
            return []
        named = named_guidelines(question)
        onboarded = onboarded_guidelines()
        if len(named) < 2 or not all(g in onboarded for g in named):
            return []
        loaded = []
        for guideline in named:
            try:
                self.version_of(guideline)
            except DKGError:  # not published: nothing to answer from
                continue
            loaded.append(guideline)
        return loaded

    def _side_by_side(self, question: str, guidelines: list[str]) -> Answer:
        """The question answered from each guideline in turn (:mod:`dkg.qa.side_by_side`), counted once."""
        counted = self.stats["questions"]
        answers = []
        try:
            for guideline in guidelines:
                self._only = guideline
                answers.append((guideline, self.answer(question)))
        finally:
            self._only = None
            self.stats["questions"] = counted
        self.last_path = "side_by_side"
        self.stats["side_by_side"] += 1
        return side_by_side(question, answers)

    def _step_guideline(self, question: str) -> list[str]:
        return self._guidelines(question) or self._guidelines_by_step(question)

    def _named_step(self, question: str) -> Answer | None:
        """A question that states no patient facts and asks what follows a step it names ("after
        decontamination, what next?") is answered by the steps after that step (:mod:`dkg.qa.named_step`)."""
        named = named_step_and_form(question)
        if named is None:
            return None
        step, statement = named
        found = self._step_guideline(question)
        if len(found) != 1:
            return None
        if statement and self._lexicon_facts(question, found[0]):
            return None  # "I have a patient in his 50s with Ph- ALL. What next?" describes a patient
        try:
            version = self.version_of(found[0])
            answer = answer_named_step(self.graph, question, found[0], version, step=step)
            if answer is None:
                return None
            # a statement saying only what is absent ('No allergies.') is no step done, though it names an action
            # box by its condition ('Aspirin … (if no significant aspirin allergy)'); naming a question box it
            # answers it ('Not sinus tach.': the NO arrow is chosen below)
            if statement and only_negated(step) and not any(
                    str(r.get("after", "")).rstrip().endswith("?") for r in answer.rows):
                return None
            # the words that name the step: all of it, or without its clause saying where ('measures for a
            # potential bioincident', 'a common operating picture in theatre'), whose facts then locate the step.
            # Facts in those words that its box does not state ('after nephrectomy and recurrence'; a statement
            # '58F, substantial comorbidities. Which induction?') describe a patient, whom the walk places
            core = next((c for c in dict.fromkeys((step, without_where(step)))
                         if self._named_by_its_box(c, found, answer, strict=statement)), None)
            if core is None:
                return None
            # the rest of the question may state only facts that locate the step ('non-shockable side: after
            # treating reversible causes') or choose among its arrows ('preparation is done and the unit has
            # deployed'): a patient described beyond it ('after nephrectomy, pT3a, high risk') is placed by the walk
            rest = question.replace(core, " ")
            stated = self._stated(rest, found)
            if stated:
                chosen = self._branch_chosen(answer, stated)
                # facts beside a question box whose arrows do not test them: the walk decides for the patient
                if chosen is answer and any(str(r.get("after", "")).rstrip().endswith("?") for r in answer.rows):
                    return None
                answer = chosen
                if answer is None or not self._facts_locate(found[0], version, answer, stated,
                                                            branching=self._branch_keys(answer)):
                    return None
        except DKGError:
            return None
        return self._answered_by("named_step", answer)

    def _named_action(self, question: str) -> Answer | None:
        """A yes/no question about a step it names ("should we request technical reachback early?") is answered
        yes with the way to that step when the stated facts agree with one (:func:`answer_named_action`); a step
        whose own words state patient facts ('give blinatumomab to a 30-year-old') is left to the walk."""
        phrases = named_action(question)
        if not phrases:
            return None
        found = self._step_guideline(question)
        # a patient described in the clinical lexicon's terms (age, Ph, stage ...) is placed by the walk: whether a
        # treatment is advised depends on the step the patient is at, not on whether some way leads to it
        if len(found) != 1 or self._lexicon_facts(question, found[0]):
            return None
        stated = self._stated(question, found)
        try:
            version = self.version_of(found[0])
            # a guideline found only by the step (or by the keys its facts are on: "HR 120: should we place pacer
            # pads?") is not one the question names, so no walk places the patient: a way the facts rule out is a no
            worded = bool(worded_guidelines(question))
            answer = answer_named_action(self.graph, question, found[0], version, phrases, stated, say_no=True)
            if worded and answer is not None and not any(r["advisable"] for r in answer.rows):
                answer = self._facts_rule_out(found[0], version, answer, stated)
            # facts beyond those that say where the step is describe a patient, whom the walk places
            if (answer is not None and stated and any(r["advisable"] for r in answer.rows)
                    and not self._facts_locate(found[0], version, answer, stated)):
                return None
        except DKGError:
            return None
        return self._answered_by("named_action", answer)

    def _dose_in_box(self, question: str) -> Answer | None:
        """The box of an onboarded chart giving the dose the question asks (:mod:`dkg.qa.dose_in_box`): of the
        onboarded guidelines the question is about, else (about no guideline) of the one loaded onboarded
        guideline that doses what it asks about; None when none or several do, or when the question is about a
        curated guideline. Looked for once per answer (the screen asks first); counted by :meth:`_dose_route`."""
        if not asks_dose(question) or getattr(self, "graph", None) is None:  # no graph: screening alone
            return None
        if self._dose is not None and self._dose[0] == question:
            return self._dose[1]
        onboarded = onboarded_sources()
        named = self._step_guideline(question)
        about = [g for g in named if g in onboarded]
        if named and not about:  # about a curated guideline: its pathways give no doses
            self._dose = (question, None)
            return None
        answers: list[Answer] = []
        for guideline in about or sorted(onboarded):
            try:
                version = self.version_of(guideline)
                found = answer_dose_in_box(question, self._boxes(guideline, version), guideline, version)
            except DKGError:  # not loaded
                continue
            if found is not None:
                answers.append(found)
        answer = answers[0] if len(answers) == 1 else None
        self._dose = (question, answer)
        return answer

    def _dose_route(self, question: str) -> Answer | None:
        """:meth:`_dose_in_box` as the route answering (or refusing) the question, counted as such."""
        answer = self._dose_in_box(question)
        if answer is None or not answer.no_answer_reason:
            return self._answered_by("dose_in_box", answer)
        self.stats["no_answer"] += 1
        self.last_path = "dose_in_box_refused"
        return answer

    def _step_order(self, question: str) -> Answer | None:
        """Whether an onboarded guideline makes one step wait for another ("should logistics wait until the
        outbreak investigation is finished before asking for extra supplies?"; :mod:`dkg.qa.step_order`)."""
        if waits_for(question) is None:
            return None
        return self._on_chart_boxes(question, "step_order", answer_step_order)

    def _counts_as(self, question: str) -> Answer | None:
        """Whether a finding counts as a criterion of a step of an onboarded guideline ("does that single case
        count as a criterion for a potential bioincident?"; :mod:`dkg.qa.counts_as`)."""
        if counts_as_asked(question) is None:
            return None
        return self._on_chart_boxes(question, "counts_as", answer_counts_as)

    def _on_chart_boxes(self, question: str, path: str,
                        answer_from: Callable[[str, list[Box], WayIn, str, str], Answer | None]) -> Answer | None:
        """``answer_from`` (question, boxes, arrows, guideline, version) on the one onboarded guideline the
        question is about, counted as answered by ``path``; None when it is about no single onboarded one."""
        found = self._step_guideline(question)
        if len(found) != 1 or found[0] not in onboarded_sources():
            return None
        try:
            version = self.version_of(found[0])
            answer = answer_from(question, self._boxes(found[0], version),
                                 self._way_in(found[0], version), found[0], version)
        except DKGError:
            return None
        return self._answered_by(path, answer)

    def _facts_rule_out(self, guideline: str, version: str, ruled_out: Answer,
                        stated: dict[str, float | str]) -> Answer | None:
        """``ruled_out`` (a no to a yes/no question about a step of a guideline the question names) when the
        guideline is an onboarded one and each stated fact is a condition on the ways to the step: the facts decide
        whether the case is that step ("Stable 2 days, then FiO2 0.35 → 0.50, PEEP still 5. Is this a VAC yet?"),
        so no walk has to place the patient first. None otherwise."""
        if not stated or guideline not in onboarded_sources():
            return None
        way_in = self._way_in(guideline, version)
        if all(set(stated) <= way_in.keys_on_ways_to(uid) for uid in ruled_out.matched_nodes):
            return ruled_out
        return None

    def _named_conditions(self, question: str) -> Answer | None:
        """A question asking when a step it names is reached ("what are the criteria for X?", "when should we
        X?") is answered by the boxes leading into that step and the conditions on the ways to it
        (:func:`answer_named_conditions`), on an onboarded guideline; a patient described in the clinical
        lexicon's terms is left to the other routes, as are stated facts that do not say where the step is."""
        phrases = named_conditions(question)
        if not phrases:
            return None
        found = self._step_guideline(question)
        # a guideline built by onboarding a flowchart PDF has boxes and conditioned arrows only; the others'
        # "for whom is T recommended?" is answered from their decision → treatment links by the query route
        if len(found) != 1 or found[0] not in onboarded_sources() or self._lexicon_facts(question, found[0]):
            return None
        # the words naming the step are the step's, not facts stated ("criteria for a potential bioincident")
        stated = self._stated(without_chart_names(question.replace(phrases[-1], " ")), found)
        try:
            version = self.version_of(found[0])
            answer = answer_named_conditions(self.graph, question, found[0], version, phrases, stated)
            if answer is not None and stated and not self._facts_locate(found[0], version, answer, stated):
                return None
        except DKGError:
            return None
        return self._answered_by("named_conditions", answer)

    def _from_current_step(self, question: str) -> Answer | None:
        """A question that opens with the step the patient is at and states facts of an onboarded guideline ("IVAC
        pt: purulent secretions. What now?") is walked from that step (:mod:`dkg.qa.current_step`); a patient
        described in the clinical lexicon's terms is left to the walk from the roots."""
        return self._answered_by("current_step", self._current_step_answer(question))

    def _described_step(self, question: str) -> Answer | None:
        """The step of an onboarded guideline a question describes in its own words, when nothing else read it
        (:mod:`dkg.qa.step_match`: "PPE running out and the countermeasures won't last the week: what does the
        chart say to do?")."""
        found = self._step_guideline(question)
        if len(found) != 1 or found[0] not in onboarded_sources():
            return None
        try:
            version = self.version_of(found[0])
            answer = answer_described_step(self.graph, question, found[0], version,
                                           way_in=self._way_in(found[0], version),
                                           facts=lambda: self._stated(question, found))
        except DKGError:
            return None
        return self._answered_by("described_step", answer)

    def _current_step_answer(self, question: str) -> Answer | None:
        found = self._step_guideline(question)
        if len(found) != 1 or found[0] not in onboarded_sources() or self._lexicon_facts(question, found[0]):
            return None
        stated = self._then_and_now(question, found).now
        try:
            return answer_from_current_step(self.graph, question, found[0], self.version_of(found[0]), stated)
        except DKGError:
            return None

    def _ahead_of(self, question: str, answer: Answer) -> Answer | None:
        """The walk from the step the question opens with, when every step ``answer`` (the walk from the roots)
        names comes before that step: facts of earlier steps the question leaves unsaid stopped the walk behind
        where the question says the patient is ("IVAC, day 5 on the vent …" answered with the baseline box)."""
        if not answer.matched_nodes:
            return None
        ahead = self._current_step_answer(question)
        if ahead is None:
            return None
        params = ahead.cypher_params
        arrows = self._way_in(str(params["guideline"]), str(params["version"])).arrows
        start = str(params["start"])
        if start in arrows and all(u in arrows and u != start and nx.has_path(arrows, u, start)
                                   for u in answer.matched_nodes):
            return self._answered_by("current_step", ahead)
        return None

    def _past_diagnosis(self, question: str, answer: Answer) -> Answer | None:
        """The step after a box that only names a diagnosis ("Probable Ventricular Tachycardia") when the answer is
        that one box, the question asks for a step (not what the case is called) and one arrow without a condition
        leads on from it (:func:`dkg.qa.named_outcome.names_a_diagnosis`): the chart's next step is what a
        clinician asking "next?" is after, the diagnosis leads the answer."""
        if len(answer.matched_nodes) != 1 or not answer.evidence or asks_for_name(question):
            return None
        uid = answer.matched_nodes[0]
        guideline, version = answer.evidence[0].guideline, answer.evidence[0].version
        if guideline not in onboarded_sources() or not version:
            return None
        way_in = self._way_in(guideline, version)
        content = way_in.contents.get(uid, "")
        onward = way_in.edges.get(uid, [])
        if (not names_a_diagnosis(content) or len(onward) != 1 or onward[0].tests or onward[0].target_tests
                or not onward[0].action):
            return None
        self.stats["past_diagnosis"] += 1  # the answer was counted by the route that reached the diagnosis
        self.last_path = f"{self.last_path}+past_diagnosis"
        onward_answer = steps_answer(question, guideline, version, uid, [onward[0].target], way_in.contents,
                                     f'The chart names it "{content}"')
        return onward_answer.model_copy(update={"evidence": self._with_pages(onward_answer.evidence)})

    def _past_done(self, question: str, answer: Answer) -> Answer | None:
        """The steps after the answer's steps when the question says every one of them, or a step after each,
        was done already ("atropine given x3, still bradycardic: what now?" answered with atropine, "wide complex,
        cardioverted, adenosine given twice: which drug next?" with the probable VT box before them, by a walk that
        could not place the patient past them), on an onboarded guideline: the steps after the last done ones."""
        params = answer.cypher_params or {}
        guideline, version = str(params.get("guideline", "")), str(params.get("version", ""))
        if not answer.matched_nodes or guideline not in onboarded_sources():
            return None
        way_in = self._way_in(guideline, version)
        done = way_in.done_steps(question) if way_in.says_done(question) else set()
        steps = set(answer.matched_nodes)
        # a step the answer names that was done itself, or one before it, is where the patient is: done steps on
        # both sides of the answer are one report matching several boxes ('infection criteria checked' and the
        # resection criteria check after it), which leaves the walk's place standing
        ambiguous = steps & done or done & way_in.before(steps)
        later = {d for d in done - steps if steps & way_in.before({d})} if not ambiguous else set()
        if not steps <= done | way_in.before(later):
            return None
        # the last done steps: no other done step after the answer comes after them
        last = sorted(d for d in later if not any(d in way_in.before({e}) for e in later - {d}))
        stated = self._stated(question, [guideline])
        return self._answered_by("past_done", answer_after_done(self.graph, question, guideline, version,
                                                                last or list(answer.matched_nodes), stated, way_in))

    def _named_outcome(self, question: str, answer: Answer) -> Answer | None:
        """The names an answer's criteria steps lead to when the question asks what the case is called ("Which
        VAE is that?"), on an onboarded guideline (:mod:`dkg.qa.named_outcome`)."""
        params = answer.cypher_params or {}
        guideline, version = str(params.get("guideline", "")), str(params.get("version", ""))
        if not answer.rows or guideline not in onboarded_sources() or not asks_for_name(question):
            return None
        named = answer_named_outcome(question, answer, self._way_in(guideline, version),
                                     self._stated(question, [guideline]))
        if named is None:
            return None
        self.stats["named_outcome"] += 1
        self.last_path = f"{self.last_path}+named_outcome"
        return named.model_copy(update={"evidence": self._with_pages(named.evidence)})

    def _on_named_chart(self, question: str, answer: Answer) -> Answer | None:
        """Where the way leaves the chart the question names by its title, when the answer is on another chart of
        an onboarded guideline (:mod:`dkg.qa.named_chart`)."""
        params = answer.cypher_params or {}
        guideline, version = str(params.get("guideline", "")), str(params.get("version", ""))
        if not answer.matched_nodes or guideline not in onboarded_sources() or not names_a_chart(question):
            return None
        boxes = self._boxes(guideline, version)
        on_chart = answer_on_named_chart(question, answer, boxes, self._way_in(guideline, version),
                                         self._stated(question, [guideline]), page_titles(boxes))
        if on_chart is None:
            return None
        self.stats["named_chart"] += 1
        self.last_path = f"{self.last_path}+named_chart"
        return on_chart.model_copy(update={"evidence": self._with_pages(on_chart.evidence)})

    def _onboarded_answered(self, question: str, answer: Answer) -> tuple[str, str] | None:
        """The onboarded guideline (and its version) ``answer`` is from, else the one onboarded guideline the
        question is about; None for a question refused before any route ran (out of scope, a dose asked for)."""
        if not answer.matched_nodes and self._screened is not None:
            return None
        guideline = str((answer.cypher_params or {}).get("guideline", ""))
        if guideline not in onboarded_sources():
            found = [g for g in self._guidelines(question) if g in onboarded_sources()]
            if len(found) != 1:
                return None
            guideline = found[0]
        try:
            return guideline, self.version_of(guideline)
        except DKGError:
            return None

    def _presented_chart(self, question: str, answer: Answer) -> Answer | None:
        """The answer on the chart whose title the question's presentation says when it names no chart and the
        answer has no step on that chart (:mod:`dkg.qa.titled_entry`), on an onboarded guideline."""
        found = self._onboarded_answered(question, answer)
        if found is None:
            return None
        guideline, version = found
        boxes = self._boxes(guideline, version)
        if names_a_chart(question) and charts_named(question, page_titles(boxes)):
            return None
        way_in = self._way_in(guideline, version)
        stated = self._stated(question, [guideline])
        entered = titled_entry(question, guideline, boxes, way_in, stated)
        if entered is None or entered.on_chart & set(answer.matched_nodes):
            return None
        titled = answer_titled_entry(question, guideline, version, entered, boxes, way_in, stated)
        self.stats["titled_entry"] += 1
        self.last_path = f"{self.last_path}+titled_entry"
        return titled.model_copy(update={"evidence": self._with_pages(titled.evidence)})

    def _reported_on_named_chart(self, question: str, answer: Answer) -> Answer | None:
        """The steps after the place the question reports on the chart it names, when the answer has no step on
        that chart or only steps the report has the patient at or past, or on any chart when the question says
        "the chart" and has no answer (:mod:`dkg.qa.reported_place`), on an onboarded guideline. A question
        refused before any route ran (out of scope, a dose asked for) stays refused."""
        if not names_a_chart(question):
            return None
        found = self._onboarded_answered(question, answer)
        if found is None:
            return None
        guideline, version = found
        boxes = self._boxes(guideline, version)
        way_in = self._way_in(guideline, version)
        named = charts_named(question, page_titles(boxes))
        if len(named) == 1:
            page = next(iter(named))
            on_chart = [b for b in boxes if page in b.pages]
        elif not named and not answer.matched_nodes:
            # "where does the chart send him?", unanswered: the place is looked for on every chart
            on_chart = boxes
        else:
            return None
        placed = answer_from_reported_place(question, guideline, version, on_chart, way_in,
                                            self._stated(question, [guideline]))
        if placed is None:
            return None
        # an answer on that chart stands unless the question reports the patient at or past each of its steps
        answered_here = {b.uid for b in on_chart} & set(answer.matched_nodes)
        place = str((placed.cypher_params or {}).get("start", ""))
        if answered_here and not answered_here <= way_in.before({place}) | {place}:
            return None
        self.stats["reported_place"] += 1
        self.last_path = f"{self.last_path}+reported_place"
        return placed.model_copy(update={"evidence": self._with_pages(placed.evidence)})

    def _asked_class(self, question: str, answer: Answer) -> Answer | None:
        """The nearest steps after the answer's that give a drug of the class the question asks for, when the
        answer's steps give none (:mod:`dkg.qa.asked_class`), on an onboarded guideline; a refusal (out of scope)
        when no step of the guideline gives or names the class."""
        params = answer.cypher_params or {}
        guideline, version = str(params.get("guideline", "")), str(params.get("version", ""))
        if not answer.matched_nodes or guideline not in onboarded_sources() or not asked_classes(question):
            return None
        contents = {b.uid: b.content for b in self._boxes(guideline, version)}
        missing = classes_not_given(question, contents)
        if missing:
            self.last_path = f"{self.last_path}+class_not_given"
            names = " or ".join(c.name for c in missing)
            return self._refuse(question, f"out of scope: {guideline} {version} gives no {names} (no step names one "
                                          f"of its drugs); ask about the steps of the guideline", {})
        classed = answer_asked_class(question, answer, self._way_in(guideline, version), contents,
                                     self._stated(question, [guideline]))
        if classed is None:
            return None
        self.stats["asked_class"] += 1
        self.last_path = f"{self.last_path}+asked_class"
        return classed.model_copy(update={"evidence": self._with_pages(classed.evidence)})

    def _answered_by(self, path: str, answer: Answer | None) -> Answer | None:
        """``answer`` (when there is one) counted as answered by ``path``, its evidence with pages."""
        if answer is None:
            return None
        self.stats["answered"] += 1
        self.stats[path] += 1
        self.last_path = path
        return answer.model_copy(update={"evidence": self._with_pages(answer.evidence)})

    def _lexicon_facts(self, question: str, guideline: str) -> dict[str, float | str]:
        """The clinical lexicon's facts in ``question`` (age, Ph, stage ...: a patient described), on an onboarded
        guideline only those on keys its arrows test: "femoral pulse" reads as the bone chart's tumour site, which
        says nothing about where a child in cardiac arrest is."""
        facts = implied_facts(extract_facts(question))
        if not facts or guideline not in onboarded_sources():
            return facts
        try:
            way_in = self._way_in(guideline, self.version_of(guideline))
        except DKGError:
            return facts
        tested = {c.key for edges in way_in.edges.values() for e in edges for c in e.tests + e.target_tests}
        return {k: v for k, v in facts.items() if k in tested}

    def _then_and_now(self, text: str, found: list[str]) -> ThenAndNow:
        """The onboarded guidelines' facts ``text`` states (:func:`then_and_now`), read once per answer."""
        key = (text, tuple(found))
        if key not in self._courses:
            self._courses[key] = then_and_now(text, found)
        return self._courses[key]

    def _stated(self, text: str, found: list[str]) -> dict[str, float | str]:
        """The facts ``text`` states: the onboarded guidelines' vocabulary, then the clinical lexicon's (read once
        per answer)."""
        key = (text, tuple(found))
        if key not in self._readings:
            self._readings[key] = {**self._then_and_now(text, found).now, **implied_facts(extract_facts(text))}
        return self._readings[key]

    def _named_by_its_box(self, step: str, found: list[str], answer: Answer, strict: bool = False) -> bool:
        """Whether the facts a named step's own words state are the named box's own words ('pre-deployment
        preparation' names the box, though 'pre-deployment' reads as not deployed), not a patient's course
        ('after nephrectomy and recurrence'); ``strict``: whether it states no fact at all."""
        said = self._stated(step, found)
        if not said:
            return True
        if strict:
            return False
        boxes = " ".join(dict.fromkeys(str(r.get("after", "")) for r in answer.rows))
        if all_words_in(step, boxes):  # the step says nothing but the box's name
            return True
        own = self._stated(boxes, found)
        return all(own.get(k) == v for k, v in said.items())

    @staticmethod
    def _branch_keys(answer: Answer) -> set[str]:
        keys: set[str] = set()
        for row in answer.rows:
            for text in row.get("constraints") or []:
                try:
                    keys.add(Constraint.parse(str(text)).key)
                except DKGError:
                    continue
        return keys

    @staticmethod
    def _branch_chosen(answer: Answer, stated: dict[str, float | str]) -> Answer | None:
        """``answer`` with only the arrows out of the named step whose conditions the stated facts meet (the unit
        has deployed: the arrow labelled Deployment); None when the facts meet none."""
        def agrees(row: dict[str, Any]) -> bool:
            for text in row.get("constraints") or []:
                try:
                    constraint = Constraint.parse(str(text))
                except DKGError:
                    continue
                if constraint.key in stated and not holds(constraint, stated[constraint.key]):
                    return False
            return True

        rows = [r for r in answer.rows if agrees(r)]
        if not rows:
            return None
        if len(rows) == len(answer.rows):
            return answer
        kept = {str(r["uid"]) for r in rows}
        return answer.model_copy(update={"rows": rows, "matched_nodes": [u for u in answer.matched_nodes if u in kept],
                                         "evidence": [e for e in answer.evidence if e.node_uid in kept],
                                         "answer": steps_text(rows)})

    def _facts_locate(self, guideline: str, version: str, answer: Answer, stated: dict[str, float | str],
                      branching: set[str] | frozenset[str] = frozenset()) -> bool:
        """Whether every stated fact is tested on a consistent way from a root to each step the question named
        (the facts say where the step is, not what came after it), or on the arrows out of it (``branching``:
        they choose among them). A fact on a key the step's own flowchart never tests is left aside ("SVT" also
        reads as the adult chart's ``sinus_tach=no`` beside the paediatric step), but at least one fact must
        be on it."""
        named = [str(u) for u in (answer.cypher_params or {}).get("uids", [])]
        way_in = self._way_in(guideline, version)
        for uid in named:
            tested = way_in.keys_tested_with(uid)
            own = {k: v for k, v in stated.items() if k in tested}
            if not own:
                return False
            ways = way_in.ways(way_in_facts({k: v for k, v in own.items() if k not in branching}))
            if uid not in ways or not set(own) - branching <= ways[uid].keys:
                return False
        return bool(named)

    def _boxes(self, guideline: str, version: str) -> list[Box]:
        """The boxes of one guideline version, read once per answer (a curation between answers is seen)."""
        key = (guideline, version)
        if key not in self._step_boxes:
            self._step_boxes[key] = step_boxes(self.graph, guideline, version)
        return self._step_boxes[key]

    def _way_in(self, guideline: str, version: str) -> WayIn:
        """The arrows of one guideline version, read once per answer (a curation between answers is seen)."""
        key = (guideline, version)
        if key not in self._way_ins:
            self._way_ins[key] = WayIn.of(self.graph, guideline, version)
        return self._way_ins[key]

    def _execute(self, sketch: QuerySketch, params: dict[str, Any]) -> Executed:
        """Run a grounded query; when a patient query finds nothing, retry the lenient variant: the question may
        leave out a condition the pathway needs (e.g. the lineage of Ph+ ALL), so the path may assume the fewest
        unstated conditions, which the answer then names. Facts about the course so far (relapse, response ...)
        let the walk start inside the pathway as well as at its roots (:mod:`dkg.qa.pathway`)."""
        walk = Walk(sketch.cypher(), params, [])
        if sketch.qtype is not QuestionType.CONDITIONS:
            walk = walk_query(self.graph, sketch, params, self._question,
                              self._way_in(sketch.guideline, str(params["version"])),
                              lambda: self._then_and_now(self._question, [sketch.guideline]).earlier)
        rows = self.executor.run(walk.cypher, walk.params)
        if not rows and sketch.qtype is not QuestionType.CONDITIONS:
            lenient = replace(sketch, lenient=True)
            lenient_cypher = anchored(lenient.cypher())
            rows = self.executor.run(lenient_cypher, walk.params)
            if rows:
                self.stats["lenient"] += 1
                return Executed(lenient, lenient_cypher, rows, walk.population_titles_left_out)
        return Executed(sketch, walk.cypher, rows, walk.population_titles_left_out)

    def _answer(self, question: str, sketch: QuerySketch, version: str, cypher: str, params: dict[str, Any],
                rows: list[dict[str, Any]], timings: dict[str, float],
                population_titles_left_out: list[str] | None = None) -> Answer:
        """The answer from the rows of a query; ``population_titles_left_out``: the algorithms for one age
        group the walk set aside because the question names none (the answer asks for the age)."""
        if sketch.qtype is QuestionType.ADVISE:
            # steps tied for the patient (a fan-out the stated facts do not tell apart) are all recommended: the
            # treatment is advisable when one of them lists it, and that step answers first
            rows = sorted(rows, key=lambda r: not r.get("advisable"))
        evidence = [Evidence(node_uid=r["uid"], content=str(r["content"]),
                             kind="Decision" if sketch.qtype is QuestionType.CONDITIONS else "Action",
                             guideline=sketch.guideline, version=version) for r in rows]
        text = answer_text(sketch.qtype, rows, sketch.treatment)
        missing: list[MissingFact] = []
        if sketch.qtype is QuestionType.NEXT_STEP:
            # the stated facts stop before a decision: say what is known and which facts would go further
            stated = {k: v for k, v in params.items() if k in sketch.keys and isinstance(v, (float, str))}
            missing = missing_facts(self.graph, [r["uid"] for r in rows], stated)
        evidence = self._with_pages(evidence)
        if sketch.qtype is QuestionType.NEXT_STEP and not any(m.key == "age" for m in missing):
            age = params.get("age")
            missing += population_unstated(question, evidence, age if isinstance(age, float) else None,
                                           population_titles_left_out or [])
        return Answer(question=question, route="text2cypher", answer=text, cypher=cypher, cypher_params=params,
                      rows=rows, matched_nodes=[r["uid"] for r in rows], evidence=evidence,
                      timings_ms=timings, missing_facts=missing)

    def _with_pages(self, evidence: list[Evidence]) -> list[Evidence]:
        """``evidence`` with each node's pages and the flowchart titles printed on them (where it stands)."""
        graph = getattr(self, "graph", None)  # ADVISE text is also composed without a graph (tests, baselines)
        if not evidence or graph is None:
            return evidence
        try:
            rows = graph.read(named_queries("qa_graph")["node_pages"], {"uids": [e.node_uid for e in evidence]})
        except DKGError:  # where the steps stand is shown when it can be read; the answer stands without it
            return evidence
        where = {str(r["uid"]): ([str(p) for p in r["pages"]], [str(t) for t in r["page_titles"]]) for r in rows}
        return [e.model_copy(update={"pages": where[e.node_uid][0], "page_titles": where[e.node_uid][1]})
                if e.node_uid in where else e for e in evidence]
