"""CPG-QA dataset generator: patient scenarios sampled from guideline paths in the DKG, rendered as
varied questions, every query executed on Neo4j and kept only when it returns the expected node.

A scenario is (guideline, patient facts) for question types 1 and 3, or (guideline, treatment) for type 2;
splits are assigned per scenario (70/15/15), and frames in :data:`dkg.qa.templates.UNSEEN` are used only
for extra items of test scenarios (split ``test_unseen``).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import random
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from functools import cache, lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from dkg.config import PROJECT_ROOT
from dkg.errors import QAError
from dkg.graph.db import Graph, named_queries
from dkg.lexicon.clinical import course_events
from dkg.qa.answers_text import answer_text
from dkg.qa.facts import GUIDELINE_NAMES, SURFACE, Facts, band_value, detect_guidelines, extract_facts
from dkg.qa.queries import TREATMENT_LITERAL, QuerySketch, QuestionType, model_target
from dkg.qa.templates import (
    DISTRACTORS,
    FRAMES,
    HISTORY,
    NOTE_DISTRACTORS,
    SUBJECTS,
    UNSEEN,
    age_phrase,
    age_sex_shorthand,
    clinicians_register,
    note_ending,
    typo,
)
from dkg.types import Constraint, Op
from dkg.vocabulary import VOCABULARY, KeyKind

GENERATOR_VERSION = "3"  # bump when a change to the generator, frames or queries changes the items
DATASET_PATH = PROJECT_ROOT / "datasets" / "qa" / "cpg-qa.json.gz"
DATASET_META_PATH = DATASET_PATH.with_name("cpg-qa.meta.json")
SPLITS = ("train", "dev", "test", "test_unseen")
Split = Literal["train", "dev", "test", "test_unseen"]


class DatasetError(QAError):
    """A saved CPG-QA file is not a list of valid items."""


def dataset_versions(root: Path | None = None, meta_path: Path = DATASET_META_PATH) -> tuple[tuple[str, str], ...]:
    """The guideline versions CPG-QA is generated from: the first version of every guideline with YAML sources
    (:func:`dkg.corpus.model.discover`), in the order the committed dataset's meta file lists them (so its item
    ids and hash hold), then any other guideline by name. Onboarded guidelines (no sources) get their own
    questions on publish (:mod:`dkg.qa.generated`)."""
    from dkg.corpus.model import discover

    first: dict[str, str] = {}
    for code, version, _path in discover(root):
        first.setdefault(code, version)  # discover() sorts versions oldest first
    listed: list[str] = []
    if meta_path.is_file():
        try:
            recorded = json.loads(meta_path.read_text(encoding="utf-8"))["config"]["versions"]
            listed = [str(code) for code, _version in recorded]
        except (ValueError, KeyError, TypeError):
            listed = []  # an unreadable meta file: the order by name (the dataset is then regenerated)
    order = [c for c in listed if c in first] + sorted(c for c in first if c not in listed)
    return tuple((code, first[code]) for code in order)


class QAItem(BaseModel):
    """One verified CPG-QA item. The aliases are the keys of the saved JSON (the reference dataset's
    ``QUESTION``/``ANSWER``/``QUERY``/``PARAMS``/``Expected_Node``/``DKG_response`` plus our own fields)."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    id: int = Field(ge=0, description="position in the dataset")
    question: str = Field(alias="QUESTION", min_length=1)
    answer: str = Field(alias="ANSWER", min_length=1, description="the answer text rendered from the rows")
    query: str = Field(alias="QUERY", min_length=1, description="the executable Cypher of the target")
    params: dict[str, float | str] = Field(alias="PARAMS", description="the query's parameters")
    expected_node: str = Field(alias="Expected_Node", min_length=1, description="uid of the answer node")
    dkg_response: list[str] = Field(alias="DKG_response", description="uids the query returned on the graph")
    guideline: str = Field(min_length=1)
    version: str = Field(min_length=1)
    question_type: QuestionType
    scenario_id: str = Field(min_length=1, description="items of one scenario share a split")
    template_id: str = Field(min_length=1, description="the question frame (dkg.qa.templates.FRAMES)")
    split: Split
    target: str = Field(min_length=1, description="what the model learns to emit (the query head)")

    def record(self) -> dict[str, Any]:
        """The item as saved: JSON types, alias keys."""
        return self.model_dump(mode="json", by_alias=True)


@dataclass(frozen=True)
class GenConfig:
    seed: int = 13
    paths_per_step: int = 12
    facts_per_path: int = 4
    questions_per_scenario: int = 3
    conditions_questions: int = 10
    unseen_per_scenario: int = 1
    versions: tuple[tuple[str, str], ...] = field(default_factory=dataset_versions)
    # the clinicians' register (note-style frames, dkg.qa.templates.clinicians_register); off: the frames and
    # items of generator version 1, so the committed dataset and the model trained on it stay valid
    clinicians_register: bool = False

    def quick(self) -> GenConfig:
        return GenConfig(self.seed, 2, 1, 1, 3, 1, self.versions, self.clinicians_register)

    def hashed(self) -> dict[str, Any]:
        """The fields that identify the generated items (the register flag only when on: older hashes hold)."""
        fields = asdict(self)
        if not self.clinicians_register:
            fields.pop("clinicians_register")
        return fields


@dataclass
class GraphView:
    guideline: str
    version: str
    nodes: dict[str, dict[str, Any]]
    edges: list[dict[str, Any]]
    parents: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    root: str = ""

    @classmethod
    def load(cls, graph: Graph, guideline: str, version: str, *, single_root: bool = True) -> GraphView:
        """The version's nodes and arrows; ``single_root`` refuses a graph with several entry boxes (an onboarded
        guideline of several pages has one per page: its paths start at any of them)."""
        q = named_queries("qa_graph")
        nodes = {r["uid"]: r for r in graph.read(q["version_nodes"], {"g": guideline, "v": version})}
        edges = graph.read(q["version_edges"], {"g": guideline, "v": version})
        nodes = dict(sorted(nodes.items()))
        edges.sort(key=lambda e: (e["head"], e["tail"], e["constraints"] or []))
        view = cls(guideline, version, nodes, edges)
        for e in edges:
            view.parents.setdefault(e["tail"], []).append(e)
        roots = [u for u in nodes if u not in view.parents]
        if len(roots) != 1 and (single_root or not roots):
            raise ValueError(f"{guideline} {version}: expected one root node, found {len(roots)}")
        view.root = roots[0]
        return view

    def is_question(self, uid: str) -> bool:
        return str(self.nodes[uid]["content"]).endswith("?")

    def node_constraints(self, uid: str) -> list[str]:
        n = self.nodes[uid]
        return [] if self.is_question(uid) or not n["decision"] else list(n["constraints"] or [])


def _conditional_steps(view: GraphView) -> list[dict[str, Any]]:
    """Edges d→t into an action whose condition is the edge's or the (non-question) decision node's."""
    out = []
    for e in view.edges:
        if view.nodes[e["tail"]]["decision"]:
            continue
        if e["constraints"] or view.node_constraints(e["head"]):
            out.append(e)
    return out


def _random_path(view: GraphView, start: str, rng: random.Random) -> list[dict[str, Any]] | None:
    """Edges of a random path from a root (a node without parents) to start, walking up random parents."""
    path: list[dict[str, Any]] = []
    current, seen = start, {start}
    while current in view.parents:
        parents = view.parents[current]
        e = rng.choice(parents)
        if e["head"] in seen:
            return None
        seen.add(e["head"])
        path.append(e)
        current = e["head"]
    return list(reversed(path))


@dataclass
class _Requirement:
    lo: float | None = None
    lo_strict: bool = False
    hi: float | None = None
    hi_strict: bool = False
    ne: set[float] = field(default_factory=set)
    allowed: set[str] | None = None
    excluded: set[str] = field(default_factory=set)


def _requirements(constraints: list[str]) -> dict[str, _Requirement] | None:
    reqs: dict[str, _Requirement] = {}
    for text in constraints:
        c = Constraint.parse(text)
        r = reqs.setdefault(c.key, _Requirement())
        if VOCABULARY[c.key].kind is KeyKind.NUMERIC:
            lows: list[tuple[float, bool]] = []
            highs: list[tuple[float, bool]] = []
            if c.op is Op.IN and isinstance(c.value, tuple):
                lo, hi = c.value
                lows.append((lo, False))
                highs.append((hi, False))
            elif c.op in (Op.GT, Op.GE):
                lows.append((float(c.value), c.op is Op.GT))  # type: ignore[arg-type]
            elif c.op in (Op.LT, Op.LE):
                highs.append((float(c.value), c.op is Op.LT))  # type: ignore[arg-type]
            elif c.op is Op.EQ:
                lows.append((float(c.value), False))  # type: ignore[arg-type]
                highs.append((float(c.value), False))  # type: ignore[arg-type]
            else:
                r.ne.add(float(c.value))  # type: ignore[arg-type]
            for v, s in lows:
                if r.lo is None or v > r.lo or (v == r.lo and s):
                    r.lo, r.lo_strict = v, s
            for v, s in highs:
                if r.hi is None or v < r.hi or (v == r.hi and s):
                    r.hi, r.hi_strict = v, s
        else:
            values = set(c.value) if isinstance(c.value, frozenset) else {str(c.value)}
            if c.op is Op.NE:
                r.excluded |= values
                continue
            if "any" in values:
                values = {v for (k, v) in SURFACE if k == c.key and v != "none"}
            if r.allowed is not None and "any" in r.allowed:
                r.allowed = None
            r.allowed = values if r.allowed is None else (r.allowed & values)
            if not r.allowed:
                return None
    return reqs


_NUM_RANGE = {"age": (1, 90, 1.0), "performance_status": (0, 4, 1.0), "tumor_size": (1, 20, 0.5),
              "necrosis": (10, 100, 1.0), "time_to_relapse": (2, 96, 1.0)}


def _sample_number(key: str, r: _Requirement, rng: random.Random) -> tuple[float, tuple[int, int] | None] | None:
    lo_d, hi_d, step = _NUM_RANGE[key]
    candidates = []
    v = float(lo_d)
    while v <= hi_d:
        ok = (r.lo is None or v > r.lo or (v == r.lo and not r.lo_strict)) and (
            r.hi is None or v < r.hi or (v == r.hi and not r.hi_strict)) and v not in r.ne
        if ok:
            candidates.append(v)
        v += step
    if not candidates:
        return None
    if key == "age" and rng.random() < 0.3:
        bands = []
        for decade in range(10, 100, 10):
            spans = [(13, 19)] if decade == 10 else [(decade, decade + 9), (decade, decade + 3),
                                                      (decade + 4, decade + 6), (decade + 7, decade + 9)]
            for span in spans:
                if all(float(a) in candidates for a in range(span[0], span[1] + 1)):
                    bands.append(span)
        if bands:
            band = rng.choice(bands)
            return band_value(*band), band
    value = rng.choice(candidates)
    if rng.random() < 0.15:  # boundaries exercise strict and non-strict bounds
        value = rng.choice([candidates[0], candidates[-1]])
    return value, None


def _draw_number(key: str, r: _Requirement, rng: random.Random, facts: Facts,
                 bands: dict[str, tuple[int, int]]) -> bool:
    """Draw a numeric key's value into ``facts`` (its band, if any, into ``bands``); False: none fits."""
    got = _sample_number(key, r, rng)
    if got is None:
        return False
    facts[key] = got[0]
    if got[1]:
        bands[key] = got[1]
    return True


def _sample_facts(reqs: dict[str, _Requirement], rng: random.Random
                  ) -> tuple[Facts, dict[str, tuple[int, int]]] | None:
    facts: Facts = {}
    bands: dict[str, tuple[int, int]] = {}
    for key, r in sorted(reqs.items()):
        if VOCABULARY[key].kind is KeyKind.NUMERIC:
            if not _draw_number(key, r, rng, facts, bands):
                return None
        else:
            if r.allowed is None and r.excluded and key in course_events().event:
                # 'recurrence confirmed? NO' (disease_status != recurrent) has no value of its own: a new
                # diagnosis or a relapse would be read as another place in the course
                return None
            allowed = r.allowed if r.allowed is not None else {v for (k, v) in SURFACE if k == key}
            pool = [v for v in sorted(allowed - r.excluded) if (key, v) in SURFACE]
            if not pool:
                return None
            facts[key] = rng.choice(pool)
    return facts, bands


@cache
def _name_facts(name: str) -> tuple[tuple[str, str], ...]:
    return tuple(sorted((key, str(value)) for key, value in extract_facts(name).items()))


def topic_name(guideline: str, facts: Facts, rng: random.Random) -> str:
    """A wording that names the guideline's topic and states no fact the question's facts do not hold.

    Some topic names carry a fact ("ccRCC" is clear-cell histology, "Ewing sarcoma" a histology): drawn for a
    patient with another histology, or for a question without facts, the question would contradict itself and
    be dropped by the round-trip check."""
    names = GUIDELINE_NAMES[guideline]
    fitting = [n for n in names if all(k in facts and str(facts[k]) == v for k, v in _name_facts(n))]
    return rng.choice(fitting or list(names))


def _fmt_num(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else f"{v:g}"


def _fact_phrase(key: str, value: Any, rng: random.Random) -> str:
    if key == "performance_status":
        return rng.choice(("ECOG {}", "ECOG performance status {}", "performance status of {}", "ECOG PS {}")
                          ).format(_fmt_num(value))
    if key == "tumor_size":
        return rng.choice(("a {} cm tumor", "tumor measuring {} cm", "a {}-cm mass")).format(_fmt_num(value))
    if key == "necrosis":
        return rng.choice(("{}% necrosis", "necrosis of {}%", "{}% tumor necrosis")).format(_fmt_num(value))
    if key == "time_to_relapse":
        return rng.choice(("{} months after diagnosis", "{} months from diagnosis")).format(_fmt_num(value))
    return rng.choice(SURFACE[(key, value)])


@lru_cache(maxsize=1)
def note_wordings() -> dict[tuple[str, str], tuple[str, ...]]:
    """Clinicians' wordings of each categorical fact: the clinical lexicon's phrases, its negated concepts
    ("no comorbs"), the course-so-far wordings of the templates and the vocabulary's own surface forms."""
    from dkg.lexicon.clinical import load_clinical_lexicon
    lexicon = load_clinical_lexicon()
    out: dict[tuple[str, str], list[str]] = {}
    for key, values in lexicon.phrases.items():
        for value, phrases in values.items():
            out.setdefault((key, value), []).extend(p.rstrip(",") for p in phrases if p.rstrip(",").strip())
    for concept in lexicon.concepts:
        if concept.negated is not None:
            out.setdefault((concept.key, concept.negated), []).extend(
                f"{neg} {term}" for term in concept.terms for neg in ("no", "denies"))
    for source in (HISTORY, SURFACE):
        for pair, wordings in source.items():
            out.setdefault(pair, []).extend(wordings)
    return {pair: tuple(dict.fromkeys(wordings)) for pair, wordings in out.items()}


_KPS = {0: (90, 100), 1: (70, 80), 2: (50, 60), 3: (30, 40), 4: (20,)}


def _note_phrase(key: str, value: Any, rng: random.Random) -> str:
    """One fact as a clinician writes it in a note."""
    if key == "performance_status":
        if rng.random() < 0.25 and float(value).is_integer():
            return f"KPS {rng.choice(_KPS[int(value)])}"
        return rng.choice(("ECOG {}", "PS {}", "ECOG {}", "ECOG PS {}")).format(_fmt_num(value))
    if key == "tumor_size":
        mm = float(value) * 10
        if rng.random() < 0.3 and mm.is_integer():
            return rng.choice(("{} mm", "{}mm mass", "{} mm lesion")).format(int(mm))
        return rng.choice(("{} cm", "{}cm mass", "{} cm tumour", "mass {} cm")).format(_fmt_num(value))
    if key == "necrosis":
        return rng.choice(("{}% necrosis", "necrosis {}%", "{}% necrosis at resection")).format(_fmt_num(value))
    if key == "time_to_relapse":
        return rng.choice(("{} mo from dx", "{} months from diagnosis", "{} months after dx")
                          ).format(_fmt_num(value))
    wordings = note_wordings().get((key, str(value)))
    return rng.choice(wordings) if wordings else rng.choice(SURFACE[(key, value)])


def render_note(guideline: str, facts: Facts, bands: dict[str, tuple[int, int]], rng: random.Random
                ) -> tuple[str, str]:
    """(clinician's note, inline description): '22F, Ph+ B-ALL, ECOG 1, no comorbs.'"""
    who = age_sex_shorthand(rng, float(facts["age"]), bands.get("age")) if "age" in facts else \
        rng.choice(("pt", "patient", "adult pt"))
    phrases = [_note_phrase(k, v, rng) for k, v in facts.items() if k != "age"]
    rng.shuffle(phrases)
    disease = topic_name(guideline, facts, rng)
    sep = rng.choice((", ", ", ", "; ", ". "))
    head = rng.choice((f"{who}, {disease}", f"{who} w/ {disease}", f"{who} with {disease}"))
    inline = f"{head}, {', '.join(phrases)}" if phrases else head
    note = sep.join([head, *phrases]) + "."
    if rng.random() < 0.3:
        note += " " + rng.choice(NOTE_DISTRACTORS)
    return note[0].upper() + note[1:], inline


def _join(parts: list[str]) -> str:
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def render_patient(guideline: str, facts: Facts, bands: dict[str, tuple[int, int]], rng: random.Random
                   ) -> tuple[str, str]:
    """(sentence vignette, inline description) of a patient with these facts."""
    subject = rng.choice(SUBJECTS)
    who = age_phrase(rng, float(facts["age"]), bands.get("age"), subject) if "age" in facts else f"a {subject}"
    phrases = [_fact_phrase(k, v, rng) for k, v in facts.items() if k != "age"]
    rng.shuffle(phrases)
    disease = topic_name(guideline, facts, rng)
    inline = f"{who} with {disease}" + (f", {_join(phrases)}" if phrases else "")
    style = rng.random()
    if style < 0.4 or not phrases:
        sentence = f"{who[0].upper()}{who[1:]} presents with {disease}" + (f": {_join(phrases)}." if phrases else ".")
    elif style < 0.7:
        half = max(1, len(phrases) // 2)
        first, rest = phrases[:half], phrases[half:]
        sentence = f"{who[0].upper()}{who[1:]} has {disease}, {_join(first)}."
        if rest:
            sentence += f" Findings: {_join(rest)}."
    else:
        sentence = f"Patient: {who.removeprefix('a ').removeprefix('an ')}. Diagnosis: {disease}. " \
                   f"Details: {_join(phrases)}."
    if rng.random() < 0.35:
        sentence += " " + rng.choice(DISTRACTORS)
    if rng.random() < 0.15:
        sentence = rng.choice(DISTRACTORS) + " " + sentence
    return sentence, inline


def render_question(qtype: QuestionType, frame_id: str, guideline: str, rng: random.Random, *,
                    facts: Facts | None = None, bands: dict[str, tuple[int, int]] | None = None,
                    treatment: str | None = None) -> str:
    frame = FRAMES[qtype.value][frame_id]
    if rng.random() < 0.12:
        frame = typo(rng, frame)
    values: dict[str, str] = {"disease": topic_name(guideline, facts or {}, rng), "treatment": treatment or ""}
    if facts is not None:
        if "{note" in frame:
            values["note"], values["note_inline"] = render_note(guideline, facts, bands or {}, rng)
        else:
            values["patient"], values["patient_inline"] = render_patient(guideline, facts, bands or {}, rng)
    text = frame.format(**values)
    if clinicians_register(frame_id):
        if rng.random() < 0.15:
            # anywhere in the note; an item whose facts it breaks is dropped by the round-trip check
            text = typo(rng, text, keep=treatment or "")
        return note_ending(rng, text)
    return text[0].upper() + text[1:]


def _scenario_split(scenario_id: str) -> str:
    bucket = int(hashlib.sha1(scenario_id.encode()).hexdigest()[:8], 16) % 100
    return "train" if bucket < 70 else "dev" if bucket < 85 else "test"


def _frames(qtype: QuestionType, unseen: bool, register: bool = False) -> list[str]:
    return sorted(f for f in FRAMES[qtype.value]
                  if (f in UNSEEN) == unseen and (register or not clinicians_register(f)))


def _treatment_phrases(options: list[str]) -> list[str]:
    """Options short and plain enough to be a query's treatment literal (a box read from a PDF may not be)."""
    return [o.casefold() for o in options if 1 <= len(o.split()) <= 6 and ":" not in o and "'" not in o
            and TREATMENT_LITERAL.match(o.casefold())]


class DatasetBuilder:
    """Generates and verifies the items of one or more guideline versions."""

    def __init__(self, graph: Graph, config: GenConfig | None = None,
                 on_progress: Callable[[str], None] | None = None) -> None:
        self.graph = graph
        self.config = config or GenConfig()
        self.on_progress = on_progress or (lambda _m: None)
        self._cache: dict[str, list[dict[str, Any]]] = {}
        self.stats: dict[str, int] = {"generated": 0, "kept": 0, "rejected_mismatch": 0,
                                      "rejected_roundtrip": 0, "queries_run": 0}

    def _run(self, sketch: QuerySketch, facts: Facts, version: str) -> list[dict[str, Any]]:
        params = sketch.params(facts, version)
        key = json.dumps([sketch.cypher(), params], sort_keys=True, default=str)
        if key not in self._cache:
            self.stats["queries_run"] += 1
            self._cache[key] = self.graph.read(sketch.cypher(), params, timeout_s=30, limit=50)
        return self._cache[key]

    def _item(self, qtype: QuestionType, guideline: str, version: str, question: str, sketch: QuerySketch,
              facts: Facts, expected: str, rows: list[dict[str, Any]], scenario: str, frame: str, split: str,
              treatment: str | None) -> QAItem:
        return QAItem.model_validate({
            "id": 0,  # numbered in build()
            "QUESTION": question, "ANSWER": answer_text(qtype, rows, treatment), "QUERY": sketch.cypher(),
            "PARAMS": sketch.params(facts, version), "Expected_Node": expected,
            "DKG_response": [r["uid"] for r in rows], "guideline": guideline, "version": version,
            "question_type": qtype.value, "scenario_id": scenario, "template_id": frame, "split": split,
            "target": model_target(sketch),
        })

    def _roundtrip_ok(self, question: str, guideline: str, facts: Facts) -> bool:
        found = detect_guidelines(question)
        return self.read_facts(question) == facts and bool(found) and found[0] == guideline

    # ---- the wording of facts: the clinical lexicon's (a subclass words an onboarded guideline's keys) ----
    def sample_facts(self, reqs: dict[str, _Requirement], rng: random.Random
                     ) -> tuple[Facts, dict[str, tuple[int, int]]] | None:
        """Facts satisfying the requirements of a path (and the age bands used), or None."""
        return _sample_facts(reqs, rng)

    def render(self, qtype: QuestionType, frame_id: str, guideline: str, rng: random.Random, *,
               facts: Facts | None = None, bands: dict[str, tuple[int, int]] | None = None,
               treatment: str | None = None) -> str:
        """The question of one frame."""
        return render_question(qtype, frame_id, guideline, rng, facts=facts, bands=bands, treatment=treatment)

    def read_facts(self, question: str) -> Facts:
        """The facts the rule layer reads in a question (a kept item must read back to its own)."""
        return extract_facts(question)

    single_root = True

    def build(self) -> list[QAItem]:
        """All verified items (deterministic for a given config and graph)."""
        items: list[QAItem] = []
        for guideline, version in self.config.versions:
            view = GraphView.load(self.graph, guideline, version, single_root=self.single_root)
            self.on_progress(f"{guideline} {version}: {len(view.nodes)} nodes")
            items += self._patient_items(view)
            items += self._conditions_items(view)
        self.stats["kept"] = len(items)
        return [item.model_copy(update={"id": i}) for i, item in enumerate(items)]

    def _patient_items(self, view: GraphView) -> list[QAItem]:
        rng = random.Random(f"{self.config.seed}|{view.guideline}|patients")
        items: list[QAItem] = []
        seen: set[str] = set()
        all_phrases = sorted({p for n in view.nodes.values() if not n["decision"]
                              for p in _treatment_phrases(n["options"] or [])})
        steps = _conditional_steps(view)
        for si, step in enumerate(steps):
            if si % 20 == 0:
                self.on_progress(f"{view.guideline}: step {si}/{len(steps)}, {len(items)} items")
            target = view.nodes[step["tail"]]
            for _ in range(self.config.paths_per_step):
                path = _random_path(view, step["head"], rng)
                if path is None:
                    continue
                constraints: list[str] = []
                for e in path + [step]:
                    constraints += list(e["constraints"] or []) + view.node_constraints(e["head"])
                reqs = _requirements(constraints)
                if reqs is None or not reqs:
                    continue
                for _ in range(self.config.facts_per_path):
                    sampled = self.sample_facts(reqs, rng)
                    if sampled is None:
                        continue
                    facts, bands = sampled
                    scenario = hashlib.sha1(json.dumps([view.guideline, view.version, facts], sort_keys=True)
                                            .encode()).hexdigest()[:12]
                    if scenario in seen:
                        continue
                    seen.add(scenario)
                    items += self._scenario_items(view, scenario, facts, bands, target, all_phrases, rng)
        return items

    def _scenario_items(self, view: GraphView, scenario: str, facts: Facts, bands: dict[str, tuple[int, int]],
                        target: dict[str, Any], all_phrases: list[str], rng: random.Random) -> list[QAItem]:
        split = _scenario_split(scenario)
        keys = tuple(sorted(facts))
        out: list[QAItem] = []
        sketch = QuerySketch(QuestionType.NEXT_STEP, view.guideline, keys)
        rows = self._run(sketch, facts, view.version)
        if [r["uid"] for r in rows] != [target["uid"]]:
            self.stats["rejected_mismatch"] += 1
            return out
        own = _treatment_phrases(target["options"] or [])
        # a phrase the target's footnotes list ("irinotecan with temozolomide") is advisable there too
        named = (target["options"] or []) + (target.get("option_details") or [])
        others = [p for p in all_phrases if not any(p in o.casefold() for o in named)]
        jobs: list[tuple[QuestionType, str, str | None]] = []
        n_q = self.config.questions_per_scenario
        register = self.config.clinicians_register
        frames_seen = {t: _frames(t, False, register) for t in QuestionType}
        for _ in range(n_q):
            jobs.append((QuestionType.NEXT_STEP, rng.choice(frames_seen[QuestionType.NEXT_STEP]), None))
        pool = ([(p, True) for p in own] + [(p, False) for p in others])
        for choices in (own, others):  # one advisable and one not-advisable treatment when both exist
            if choices:
                jobs.append((QuestionType.ADVISE, rng.choice(frames_seen[QuestionType.ADVISE]), rng.choice(choices)))
        if split == "test":
            for _ in range(self.config.unseen_per_scenario):
                jobs.append((QuestionType.NEXT_STEP, rng.choice(_frames(QuestionType.NEXT_STEP, True, register)),
                             None))
                if pool:
                    jobs.append((QuestionType.ADVISE, rng.choice(_frames(QuestionType.ADVISE, True, register)),
                                 rng.choice(pool)[0]))
        for qtype, frame, treat in jobs:
            self.stats["generated"] += 1
            question = self.render(qtype, frame, view.guideline, rng, facts=facts, bands=bands, treatment=treat)
            if not self._roundtrip_ok(question, view.guideline, facts):
                self.stats["rejected_roundtrip"] += 1
                continue
            s = sketch if qtype is QuestionType.NEXT_STEP else QuerySketch(qtype, view.guideline, keys, treat)
            got = self._run(s, facts, view.version)
            if [r["uid"] for r in got] != [target["uid"]]:
                self.stats["rejected_mismatch"] += 1
                continue
            item_split = "test_unseen" if frame in UNSEEN else split
            out.append(self._item(qtype, view.guideline, view.version, question, s, facts, target["uid"], got,
                                  scenario, frame, item_split, treat))
        return out

    def _conditions_items(self, view: GraphView) -> list[QAItem]:
        rng = random.Random(f"{self.config.seed}|{view.guideline}|conditions")
        items: list[QAItem] = []
        phrases = sorted({p for n in view.nodes.values() if not n["decision"]
                          for p in _treatment_phrases(n["options"] or [])})
        for phrase in phrases:
            sketch = QuerySketch(QuestionType.CONDITIONS, view.guideline, (), phrase)
            rows = self._run(sketch, {}, view.version)
            if len(rows) != 1:
                continue
            scenario = hashlib.sha1(f"{view.guideline}|{view.version}|{phrase}".encode()).hexdigest()[:12]
            split = _scenario_split(scenario)
            register = self.config.clinicians_register
            frames = [rng.choice(_frames(QuestionType.CONDITIONS, False, register))
                      for _ in range(self.config.conditions_questions)]
            if split == "test":
                frames += [rng.choice(_frames(QuestionType.CONDITIONS, True, register))
                           for _ in range(max(1, self.config.conditions_questions // 3))]
            for frame in frames:
                self.stats["generated"] += 1
                question = self.render(QuestionType.CONDITIONS, frame, view.guideline, rng, treatment=phrase)
                if not self._roundtrip_ok(question, view.guideline, {}) and self.read_facts(question):
                    self.stats["rejected_roundtrip"] += 1
                    continue
                if not detect_guidelines(question) or detect_guidelines(question)[0] != view.guideline:
                    self.stats["rejected_roundtrip"] += 1
                    continue
                item_split = "test_unseen" if frame in UNSEEN else split
                items.append(self._item(QuestionType.CONDITIONS, view.guideline, view.version, question, sketch, {},
                                        rows[0]["uid"], rows, scenario, frame, item_split, phrase))
        return items


def _canonical_json(items: Sequence[QAItem]) -> str:
    return json.dumps([item.record() for item in items], ensure_ascii=False, sort_keys=True, indent=0)


def save_dataset(items: Sequence[QAItem], path: Path = DATASET_PATH) -> str:
    """Write the items as gzip JSON (deterministic bytes); returns the sha256 of the JSON text."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = _canonical_json(items)
    with gzip.GzipFile(path, "wb", mtime=0) as fh:
        fh.write(text.encode())
    return hashlib.sha256(text.encode()).hexdigest()


def parse_items(records: object, source: str) -> list[QAItem]:
    """The records of a saved dataset as items; a :class:`DatasetError` names the first bad item and fields."""
    if not isinstance(records, list):
        raise DatasetError(f"{source}: expected a JSON list of items, found {type(records).__name__}; "
                           "regenerate it with `dkg dataset build --force`")
    items = []
    for n, record in enumerate(records):
        try:
            items.append(QAItem.model_validate(record))
        except ValidationError as exc:
            ident = f" (id {record['id']!r})" if isinstance(record, dict) and "id" in record else ""
            problems = "; ".join(f"field {'.'.join(str(p) for p in e['loc']) or '(item)'!r}: {e['msg']}"
                                 for e in exc.errors())
            raise DatasetError(f"{source}: item {n}{ident} is invalid: {problems}; regenerate the file with "
                               "`dkg dataset build --force`") from exc
    return items


def load_dataset(path: Path = DATASET_PATH) -> list[QAItem]:
    """The items of a saved dataset, each validated."""
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        records = json.load(fh)
    return parse_items(records, str(path))


def dataset_hash(items: Sequence[QAItem]) -> str:
    """sha256 of the items' canonical JSON (the training-data hash)."""
    return hashlib.sha256(_canonical_json(items).encode()).hexdigest()
