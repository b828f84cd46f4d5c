"""Questions generated for a published guideline version from its own graph (issue #19, item 4).

The CPG-QA generator (:mod:`dkg.qa.dataset`) samples patients along the decision paths of a guideline and keeps a
question only when its gold query, run on Neo4j, returns the expected step and the rule layer reads the question
back to the sampled facts. It words facts with the clinical lexicon, which knows the shipped guidelines' keys
only. :class:`VocabularyDatasetBuilder` is the same generator with the facts of an onboarded guideline's keys
worded from its ``vocabulary.yaml`` (a boolean key's ``yes`` / ``no`` wordings, a categorical key's value
wordings, a numeric key's synonym, a number and its unit) and read back with :mod:`dkg.qa.vocabulary_facts`, as
the service reads them; the question frames, query sketches, verification and the per-scenario split are the
generator's own. Keys of the base vocabulary (``age``) keep the lexicon's wordings.

:func:`generate_for_version` writes ``$DKG_HOME/qa/generated/<guideline>-<version>.json.gz`` (items in the
CPG-QA format, ``split`` train / dev / test per scenario) and a meta file beside it; ``dkg publish`` runs it.
"""

from __future__ import annotations

import json
import math
import random
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from dkg.config import Settings
from dkg.errors import QAError
from dkg.graph.db import Graph
from dkg.lexicon.clinical import implied_facts
from dkg.qa.dataset import (
    DatasetBuilder,
    GenConfig,
    QAItem,
    _draw_number,
    _fact_phrase,
    _Requirement,
    dataset_hash,
    load_dataset,
    save_dataset,
)
from dkg.qa.facts import GUIDELINE_NAMES, Facts, extract_facts
from dkg.qa.queries import QuestionType
from dkg.qa.templates import DISTRACTORS, FRAMES, SUBJECTS, age_phrase, clinicians_register, note_ending, typo
from dkg.qa.vocabulary_facts import vocabulary_facts
from dkg.vocabulary import VOCABULARY, KeyKind, KeySpec

GENERATED_SUBDIR = ("qa", "generated")
# how a number is written after the key's synonym, by the key's unit (read back by dkg.qa.vocabulary_facts)
_UNIT_SUFFIXES = {"1/min": ("", " bpm", "/min"), "mmHg": ("", " mmHg"), "second": ("", " s"),
                  "millisecond": ("", " ms"), "mg/dL": ("", " mg/dL"), "percent": ("", "%")}


def generated_path(settings: Settings, guideline: str, version: str) -> Path:
    """Where the generated questions of one version are kept (under the data folder)."""
    return settings.home.joinpath(*GENERATED_SUBDIR, f"{guideline}-{version}.json.gz")


def _meta_path(path: Path) -> Path:
    return path.with_name(path.name.replace(".json.gz", ".meta.json"))


def forget_generated(settings: Settings, guideline: str, version: str) -> bool:
    """Remove a version's generated questions (on unpublishing: a model update must not train on a guideline
    clinicians no longer see; publishing again generates them anew). Whether there were any."""
    path = generated_path(settings, guideline, version)
    existed = path.is_file()
    path.unlink(missing_ok=True)
    _meta_path(path).unlink(missing_ok=True)
    return existed


def _own(key: str) -> KeySpec | None:
    """The key's entry when a guideline's vocabulary file (not the base, not the lexicon) defines it."""
    spec = VOCABULARY.get(key)
    return spec if spec is not None and spec.source != "base" else None


def _number_grid(spec: KeySpec, r: _Requirement) -> list[float]:
    """Plausible values of a numeric key around the path's thresholds, within the key's range."""
    marks = [v for v in (r.lo, r.hi, *r.ne) if v is not None]
    if not marks:
        return []
    top = max(abs(v) for v in marks) or 1.0
    step = 1.0 if all(float(v).is_integer() for v in marks) and top >= 5 else 10.0 ** (math.floor(math.log10(top)) - 1)
    lo = r.lo - max(step, 0.5 * abs(r.lo)) if r.lo is not None else max(0.0, min(marks) * 0.4)
    hi = r.hi + max(step, 0.5 * abs(r.hi)) if r.hi is not None else max(marks) * 1.6 + step
    if spec.minimum is not None:
        lo = max(lo, spec.minimum)
    if spec.maximum is not None:
        hi = min(hi, spec.maximum)
    count = min(400, int((hi - lo) / step) + 1)
    grid = [round(lo + i * step, 6) for i in range(count)]
    return [v for v in grid if (r.lo is None or v > r.lo or (v == r.lo and not r.lo_strict)) and (
        r.hi is None or v < r.hi or (v == r.hi and not r.hi_strict)) and v not in r.ne]


def _fmt(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _wordings(spec: KeySpec, value: str) -> list[str]:
    """How a categorical (or boolean) value of an onboarded key is written."""
    words = list(spec.values.get(value, ()))
    if spec.boolean and value == "no" and not words:
        words = [f"no {w}" for w in (*spec.values.get("yes", ()), *spec.synonyms)]
    if not spec.boolean and not words:
        words = [value.replace("_", " ")]
    return words


class VocabularyDatasetBuilder(DatasetBuilder):
    """The CPG-QA generator for guidelines whose keys are worded by their vocabulary file."""

    single_root = False  # an onboarded guideline has one entry box per page

    def sample_facts(self, reqs: dict[str, _Requirement], rng: random.Random
                     ) -> tuple[Facts, dict[str, tuple[int, int]]] | None:
        facts: Facts = {}
        bands: dict[str, tuple[int, int]] = {}
        for key, r in sorted(reqs.items()):
            spec = _own(key)
            if spec is None:  # a base key: the lexicon's sampling
                if VOCABULARY[key].kind is KeyKind.NUMERIC and _draw_number(key, r, rng, facts, bands):
                    continue
                return None
            if spec.kind is KeyKind.NUMERIC:
                grid = _number_grid(spec, r)
                if not grid:
                    return None
                value = rng.choice(grid)
                if rng.random() < 0.15:  # boundaries exercise strict and non-strict bounds
                    value = rng.choice([grid[0], grid[-1]])
                facts[key] = value
                continue
            allowed = r.allowed if r.allowed is not None else set(spec.values)
            pool = sorted(v for v in allowed - r.excluded if v in spec.values and _wordings(spec, v))
            if not pool:
                return None
            facts[key] = rng.choice(pool)
        return facts, bands

    def _phrase(self, key: str, value: float | str, rng: random.Random) -> str:
        spec = _own(key)
        if spec is None:
            return _fact_phrase(key, value, rng)
        if spec.kind is KeyKind.NUMERIC:
            synonym = rng.choice(spec.synonyms or (spec.name.replace("_", " "),))
            suffix = rng.choice(_UNIT_SUFFIXES.get(spec.unit or "", ("",)))
            return f"{synonym} {_fmt(float(value))}{suffix}"
        return rng.choice(_wordings(spec, str(value)))

    def render(self, qtype: QuestionType, frame_id: str, guideline: str, rng: random.Random, *,
               facts: Facts | None = None, bands: dict[str, tuple[int, int]] | None = None,
               treatment: str | None = None) -> str:
        frame = FRAMES[qtype.value][frame_id]
        if rng.random() < 0.12:
            frame = typo(rng, frame)
        names = GUIDELINE_NAMES[guideline] or (guideline.replace("-", " "),)
        disease = rng.choice(names)
        values: dict[str, str] = {"disease": disease, "treatment": treatment or ""}
        if facts is not None:
            phrases = [self._phrase(k, v, rng) for k, v in facts.items() if k != "age"]
            rng.shuffle(phrases)
            subject = rng.choice(SUBJECTS)
            who = age_phrase(rng, float(facts["age"]), (bands or {}).get("age"), subject) if "age" in facts \
                else f"a {subject}"
            inline = f"{who} with {disease}" + (f", {', '.join(phrases)}" if phrases else "")
            sentence = f"{who[0].upper()}{who[1:]} with {disease}" + (f": {', '.join(phrases)}." if phrases else ".")
            if rng.random() < 0.3:
                sentence += " " + rng.choice(DISTRACTORS)
            note = f"{who.removeprefix('a ').removeprefix('an ')}, {disease}, " + ", ".join(phrases) + "."
            values.update({"patient": sentence, "patient_inline": inline, "note": note[0].upper() + note[1:],
                           "note_inline": inline})
        text = frame.format(**values)
        if clinicians_register(frame_id):
            return note_ending(rng, text)
        return text[0].upper() + text[1:]

    def read_facts(self, question: str) -> Facts:
        """What the service reads: the onboarded keys from the vocabulary, the rest from the lexicon."""
        from dkg.qa.facts import detect_guidelines
        return {**vocabulary_facts(question, detect_guidelines(question)), **implied_facts(extract_facts(question))}


@dataclass(frozen=True)
class GeneratedSet:
    """The generated questions of one version, where they are kept and how they were made."""

    guideline: str
    version: str
    items: list[QAItem]
    path: Path
    stats: dict[str, int]
    seconds: float

    def split_counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for item in self.items:
            out[item.split] = out.get(item.split, 0) + 1
        return out


def generation_config(guideline: str, version: str) -> GenConfig:
    """The CPG-QA generator's settings for one version (a third of the conditions questions: small graphs)."""
    return replace(GenConfig(), versions=((guideline, version),), conditions_questions=4)


def generate_for_version(graph: Graph, settings: Settings, guideline: str, version: str, *,
                         on_progress: Any = None) -> GeneratedSet:
    """Generate, verify and save the questions of a published version; :class:`QAError` when none survive."""
    from dkg.graph.db import named_queries

    loaded = {r["v"] for r in graph.read(named_queries("qa_graph")["loaded_versions_of"], {"g": guideline})}
    if version not in loaded:
        raise QAError(f"{guideline} {version} is not published (loaded: {', '.join(sorted(loaded)) or 'none'}); "
                      f"publish it first: dkg publish {guideline} {version}")
    start = time.perf_counter()
    config = generation_config(guideline, version)
    builder = VocabularyDatasetBuilder(graph, config, on_progress)
    items = builder.build()
    if not items:
        raise QAError(f"{guideline} {version}: no question could be generated and verified from its graph "
                      f"({builder.stats}); check that its arrows carry constraints on the guideline's keys")
    path = generated_path(settings, guideline, version)
    data_hash = save_dataset(items, path)
    seconds = round(time.perf_counter() - start, 1)
    generated = GeneratedSet(guideline, version, items, path, dict(builder.stats), seconds)
    meta = {"guideline": guideline, "version": version, "data_hash": data_hash, "items": len(items),
            "splits": generated.split_counts(), "stats": builder.stats, "seconds": seconds,
            "config": asdict(config)}
    _meta_path(path).write_text(json.dumps(meta, indent=2, sort_keys=True), encoding="utf-8")
    return generated


def load_generated(settings: Settings, guideline: str, version: str) -> list[QAItem]:
    """The saved generated questions of a version; :class:`QAError` says how to make them when absent."""
    path = generated_path(settings, guideline, version)
    if not path.is_file():
        raise QAError(f"no generated questions for {guideline} {version} in {path.parent}; run "
                      f"`dkg publish {guideline} {version}` or `dkg qa generate {guideline} {version}`")
    items = load_dataset(path)
    meta = _meta_path(path)
    if meta.is_file() and json.loads(meta.read_text(encoding="utf-8")).get("data_hash") != dataset_hash(items):
        raise QAError(f"{path} does not match its meta file; regenerate it with `dkg qa generate {guideline} "
                      f"{version}`")
    return items


def all_generated(settings: Settings) -> list[QAItem]:
    """Every saved generated question under the data folder (every published version that has some)."""
    folder = settings.home.joinpath(*GENERATED_SUBDIR)
    out: list[QAItem] = []
    for path in sorted(folder.glob("*.json.gz")) if folder.is_dir() else []:
        out += load_dataset(path)
    return out
