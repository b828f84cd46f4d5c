"""The constraint vocabulary shared by the corpus, the extractor, the graph and QA — loaded from data.

The vocabulary is one base file (``datasets/vocabulary/base.yaml``) plus one file per guideline
(``datasets/guidelines/<name>/vocabulary.yaml``), validated on load (pydantic; units with pint). Each key is
numeric with a unit (compared with <, <=, >, >=, =, !=, or ``in [lo,hi]``), categorical (=, != or
``in {a,b}``) or boolean (a categorical key with the values ``yes`` / ``no``). Categorical values are
canonical lower-case tokens (stage uses Roman numerals); ``synonyms`` lists surface forms the extractor maps
onto a key or value. An ``open`` categorical key accepts any token matching ``[a-z0-9_]+`` beyond the listed
ones. A key is defined once: a guideline file may not redefine a base key or another guideline's key.

:data:`VOCABULARY` is the merged result (base keys first, then each guideline's in folder order); it is
updated in place by :func:`reload_vocabulary` (after a curator accepts a proposed key, for example), so
modules that imported it see the change.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, StrictStr, ValidationError, model_validator

from dkg.config import PROJECT_ROOT
from dkg.errors import ConstraintError

if TYPE_CHECKING:
    import pint

BASE_FILE = PROJECT_ROOT / "datasets" / "vocabulary" / "base.yaml"
GUIDELINES_ROOT = PROJECT_ROOT / "datasets" / "guidelines"
GUIDELINE_FILE = "vocabulary.yaml"
KEY_PATTERN = r"^[a-z][a-z0-9_]*$"
BOOLEAN_VALUES = ("yes", "no")


class VocabularyError(ConstraintError):
    """A vocabulary file is invalid (unknown unit, contradictory bounds, a key defined twice, ...)."""


class KeyKind(StrEnum):
    NUMERIC = "numeric"
    CATEGORICAL = "categorical"


@dataclass(frozen=True)
class KeySpec:
    name: str
    kind: KeyKind
    description: str
    unit: str | None = None
    minimum: float | None = None
    maximum: float | None = None
    values: dict[str, tuple[str, ...]] = field(default_factory=dict)
    synonyms: tuple[str, ...] = ()
    open: bool = False
    boolean: bool = False
    source: str = "base"
    """``base`` or the name of the guideline whose vocabulary file defines the key."""


Words = list[Annotated[StrictStr, Field(min_length=1)]]


class _KeyEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    description: StrictStr = ""
    synonyms: Words = []


class NumericEntry(_KeyEntry):
    """A numeric key: a pint unit and the range of plausible values (``range: [lo, hi]``)."""

    kind: Literal["numeric"]
    unit: StrictStr
    range: tuple[float, float]

    @model_validator(mode="after")
    def _bounds(self) -> NumericEntry:
        lo, hi = self.range
        if lo > hi:
            raise ValueError(f"contradictory bounds: range [{lo:g}, {hi:g}] has its lower bound above its upper "
                             "bound; write range: [lowest, highest]")
        return self


class CategoricalEntry(_KeyEntry):
    """A categorical key: canonical values, each with its surface forms."""

    kind: Literal["categorical"]
    values: dict[Annotated[StrictStr, Field(min_length=1)], Words]
    open: bool = False

    @model_validator(mode="after")
    def _some_values(self) -> CategoricalEntry:
        if not self.values and not self.open:
            raise ValueError("a categorical key needs values (or open: true to accept any lower_case token)")
        return self


class BooleanEntry(_KeyEntry):
    """A yes/no key (``pulse present``): ``yes`` / ``no`` list the surface forms of each answer."""

    kind: Literal["boolean"]
    yes: Words = []
    no: Words = []


Entry = Annotated[NumericEntry | CategoricalEntry | BooleanEntry, Field(discriminator="kind")]


class VocabularyFile(BaseModel):
    """One vocabulary file: unit definitions and proposal hints (base file only) and keys."""

    model_config = ConfigDict(extra="forbid")

    units: dict[StrictStr, StrictStr] = {}
    proposal_units: dict[StrictStr, StrictStr] = {}
    """Phrase in a new key's name → the unit to propose when the box states none (``glucose: mg/dL``)."""
    keys: dict[Annotated[str, Field(pattern=KEY_PATTERN)], Entry] = {}


def _problems(exc: ValidationError) -> str:
    return "; ".join(f"{'.'.join(map(str, e['loc'])) or 'file'}: {e['msg']}" for e in exc.errors())


def read_file(path: Path) -> VocabularyFile:
    """A validated vocabulary file, or a :class:`VocabularyError` naming the file and the problem."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise VocabularyError(f"cannot read vocabulary file {path}: {exc}") from exc
    except (UnicodeDecodeError, yaml.YAMLError) as exc:
        raise VocabularyError(f"{path} is not valid UTF-8 YAML: {exc}") from exc
    return parse_file(data, str(path))


def parse_file(data: Any, where: str) -> VocabularyFile:
    """Validate the parsed YAML of a vocabulary file (``where`` names it in errors)."""
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise VocabularyError(f"{where}: a vocabulary file is a mapping with `keys:` (and `units:` in the base)")
    try:
        return VocabularyFile.model_validate(data)
    except ValidationError as exc:
        raise VocabularyError(f"{where}: {_problems(exc)}") from exc


@cache
def _registry(definitions: tuple[tuple[str, str], ...]) -> pint.UnitRegistry:
    import pint

    registry: pint.UnitRegistry = pint.UnitRegistry()
    for name, expression in definitions:
        registry.define(f"{name} = {expression}")
    return registry


def check_unit(unit: str, key: str, where: str, definitions: Mapping[str, str]) -> None:
    """Refuse a unit pint cannot read (after the base file's own definitions)."""
    import pint

    try:
        _registry(tuple(sorted(definitions.items()))).parse_units(unit)
    except (pint.errors.PintError, AttributeError, ValueError, TypeError, SyntaxError) as exc:
        raise VocabularyError(
            f"{where}: key {key!r} has an unknown unit {unit!r} ({exc}); write a pint unit such as mg/dL, "
            "mmol/L, 1/min, mmHg, cm, year or percent, or declare a score under `units:` in the base vocabulary"
        ) from exc


def to_spec(name: str, entry: NumericEntry | CategoricalEntry | BooleanEntry, source: str) -> KeySpec:
    """The :class:`KeySpec` of one validated file entry."""
    synonyms = tuple(entry.synonyms)
    if isinstance(entry, NumericEntry):
        return KeySpec(name, KeyKind.NUMERIC, entry.description, unit=entry.unit, minimum=entry.range[0],
                       maximum=entry.range[1], synonyms=synonyms, source=source)
    if isinstance(entry, BooleanEntry):
        values = {"yes": tuple(entry.yes), "no": tuple(entry.no)}
        return KeySpec(name, KeyKind.CATEGORICAL, entry.description, values=values, synonyms=synonyms,
                       boolean=True, source=source)
    return KeySpec(name, KeyKind.CATEGORICAL, entry.description,
                   values={v: tuple(words) for v, words in entry.values.items()}, synonyms=synonyms,
                   open=entry.open, source=source)


def merge(base: VocabularyFile, guidelines: Iterable[tuple[str, VocabularyFile]],
          base_where: str = "base vocabulary") -> dict[str, KeySpec]:
    """Base keys, then each guideline's; a key defined twice (or a unit pint cannot read) is an error."""
    merged: dict[str, KeySpec] = {}
    for name, entry in base.keys.items():
        if isinstance(entry, NumericEntry):
            check_unit(entry.unit, name, base_where, base.units)
        merged[name] = to_spec(name, entry, "base")
    for phrase, unit in base.proposal_units.items():
        check_unit(unit, f"proposal_units.{phrase}", base_where, base.units)
    for guideline, file in guidelines:
        where = f"vocabulary of guideline {guideline!r}"
        if file.units or file.proposal_units:
            raise VocabularyError(f"{where}: `units:` and `proposal_units:` belong in the base vocabulary "
                                  f"({BASE_FILE.name}), where every guideline can use them")
        for name, entry in file.keys.items():
            if name in merged:
                owner = merged[name].source
                raise VocabularyError(
                    f"{where}: key {name!r} clashes with the {'base vocabulary' if owner == 'base' else repr(owner)}"
                    f"{'' if owner == 'base' else ' vocabulary'}, which already defines it; use that key as it "
                    "is, or give this one another name"
                )
            if isinstance(entry, NumericEntry):
                check_unit(entry.unit, name, where, base.units)
            merged[name] = to_spec(name, entry, guideline)
    return merged


def guideline_files(root: Path = GUIDELINES_ROOT) -> list[tuple[str, Path]]:
    """``(guideline, path)`` of every per-guideline vocabulary file, in folder order."""
    if not root.is_dir():
        return []
    return [(p.parent.name, p) for p in sorted(root.glob(f"*/{GUIDELINE_FILE}"))]


def load_vocabulary(base_file: Path = BASE_FILE, root: Path = GUIDELINES_ROOT) -> dict[str, KeySpec]:
    """The merged, validated vocabulary of the base file and every guideline file under ``root``."""
    return merge(read_file(base_file), [(g, read_file(p)) for g, p in guideline_files(root)], str(base_file))


def reload_vocabulary(base_file: Path = BASE_FILE, root: Path = GUIDELINES_ROOT) -> dict[str, KeySpec]:
    """Re-read the files and update :data:`VOCABULARY` in place (all or nothing); returns it."""
    fresh = load_vocabulary(base_file, root)
    VOCABULARY.clear()
    VOCABULARY.update(fresh)
    proposal_units.cache_clear()
    base_units.cache_clear()
    return VOCABULARY


@cache
def base_units(base_file: Path = BASE_FILE) -> dict[str, str]:
    """The unit definitions of the base vocabulary (name → pint expression)."""
    return dict(read_file(base_file).units)


@cache
def proposal_units(base_file: Path = BASE_FILE) -> dict[str, str]:
    """The base vocabulary's unit hints for proposed numeric keys (phrase → pint unit)."""
    return dict(read_file(base_file).proposal_units)


def entry_of(spec: KeySpec) -> dict[str, Any]:
    """The file entry (plain data, as written in a vocabulary file) of a key."""
    out: dict[str, Any] = {"kind": "boolean" if spec.boolean else spec.kind.value, "description": spec.description}
    if spec.kind is KeyKind.NUMERIC:
        out["unit"] = spec.unit
        out["range"] = [spec.minimum, spec.maximum]
    elif spec.boolean:
        out["yes"] = list(spec.values.get("yes", ()))
        out["no"] = list(spec.values.get("no", ()))
    else:
        out["values"] = {v: list(words) for v, words in spec.values.items()}
        if spec.open:
            out["open"] = True
    out["synonyms"] = list(spec.synonyms)
    return out


VOCABULARY: dict[str, KeySpec] = load_vocabulary()


ONBOARDED_MARK = "topic.yaml"
"""The file an onboarded guideline's folder holds instead of YAML sources (read by dkg/lexicon/topics.py)."""


def onboarded_sources(root: Path = GUIDELINES_ROOT) -> frozenset[str]:
    """Guidelines whose vocabulary came from onboarding a PDF (their folder has a ``topic.yaml``), by name.

    Their keys are read by the question-answering rule layer from their vocabulary entries
    (:mod:`dkg.qa.vocabulary_facts`); the constraint extractor's fixed phrases leave them out, so the shipped
    guidelines' extraction does not change when a guideline is onboarded."""
    return frozenset(s.source for s in VOCABULARY.values()
                     if s.source != "base" and (root / s.source / ONBOARDED_MARK).is_file())
