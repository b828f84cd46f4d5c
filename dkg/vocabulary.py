"""The constraint vocabulary shared by the corpus, the extractor, the graph and QA — loaded from data.

The vocabulary is one base file (``datasets/vocabulary/base.yaml``) plus one file per guideline
(``datasets/guidelines/<name>/vocabulary.yaml``), validated on load (pydantic; units with pint). Each key is
numeric with a unit (compared with <, <=, >, >=, =, !=, or ``in [lo,hi]``), categorical (=, != or
``in {a,b}``) or boolean (a categorical key with the values ``yes`` / ``no``). Categorical values are
canonical lower-case tokens (stage uses Roman numerals); ``synonyms`` lists surface forms the extractor maps
onto a key or value. An ``open`` categorical key accepts any token matching ``[a-z0-9_]+`` beyond the listed
ones. A key is defined once: a guideline file may not redefine a base key or another guideline's key.

Base keys may belong to a *domain* (``domain: oncology``; the base file's ``domains:`` defines each domain with
the cue words that show a document is of it). A guideline file declares the domains it reads
(``uses_domains: [oncology]``); its own keys belong to those domains. :func:`keys_in_scope` gives the keys an
onboarded guideline may be read with — general base keys, those of its domains and its own — so a cardiac page's
"heart failure" is not read as an oncology comorbidity; :func:`detect_domains` proposes the domains of a new
document from its text.

:data:`VOCABULARY` is the merged result (base keys first, then each guideline's in folder order); it is
updated in place by :func:`reload_vocabulary` (after a curator accepts a proposed key, for example), so
modules that imported it see the change.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
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


class ValueWordings(Mapping[str, tuple[str, ...]]):
    """A categorical key's values and the wordings of each: read like a dict, never changed in place, hashable
    (so a :class:`KeySpec` is, and caches keyed by a key see a changed wording as a new key).

    >>> ValueWordings({"yes": ("pulse present",)}) == {"yes": ("pulse present",)}
    True
    """

    __slots__ = ("_hash", "_wordings")

    def __init__(self, wordings: Mapping[str, Iterable[str]] | None = None) -> None:
        self._wordings = {value: tuple(words) for value, words in (wordings or {}).items()}
        # hashed on every question (the readers' caches are keyed by the keys): computed once, as nothing changes
        self._hash = hash(tuple(self._wordings.items()))

    def __getitem__(self, value: str) -> tuple[str, ...]:
        return self._wordings[value]

    def __iter__(self) -> Iterator[str]:
        return iter(self._wordings)

    def __len__(self) -> int:
        return len(self._wordings)

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(self) -> tuple[type[ValueWordings], tuple[dict[str, tuple[str, ...]]]]:
        # rebuilt, not restored: a string's hash differs between processes, so the cached one must not travel
        return ValueWordings, (self._wordings,)

    def __repr__(self) -> str:
        return f"ValueWordings({self._wordings!r})"


@dataclass(frozen=True)
class KeySpec:
    name: str
    kind: KeyKind
    description: str
    unit: str | None = None
    minimum: float | None = None
    maximum: float | None = None
    values: Mapping[str, tuple[str, ...]] = field(default_factory=ValueWordings)
    """Held as :class:`ValueWordings` whatever mapping is given."""
    synonyms: tuple[str, ...] = ()
    open: bool = False
    boolean: bool = False
    source: str = "base"
    """``base`` or the name of the guideline whose vocabulary file defines the key."""
    domains: tuple[str, ...] = ()
    """A base key's domain (empty: a general key), or the domains its guideline's file declares."""

    def __post_init__(self) -> None:
        if not isinstance(self.values, ValueWordings):
            object.__setattr__(self, "values", ValueWordings(self.values))


Words = list[Annotated[StrictStr, Field(min_length=1)]]


class _KeyEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    description: StrictStr = ""
    synonyms: Words = []
    domain: Annotated[str, Field(pattern=KEY_PATTERN)] | None = None
    """Base keys only: the domain whose documents use the key (absent: every document may)."""


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


class DomainEntry(BaseModel):
    """A domain of base keys (base file only): what it covers and the words that show a document is of it."""

    model_config = ConfigDict(extra="forbid")

    description: StrictStr = ""
    cues: Annotated[Words, Field(min_length=1)]
    min_cues: Annotated[int, Field(ge=1)] = 2
    """Cue words a document must hold (counting repeats) to be proposed as of this domain."""


class VocabularyFile(BaseModel):
    """One vocabulary file: unit definitions, domains and proposal hints (base file only) and keys."""

    model_config = ConfigDict(extra="forbid")

    units: dict[StrictStr, StrictStr] = {}
    domains: dict[Annotated[str, Field(pattern=KEY_PATTERN)], DomainEntry] = {}
    uses_domains: list[StrictStr] = []
    """Guideline files only: the domains whose base keys the guideline reads (its own keys join them)."""
    uses_keys: list[Annotated[str, Field(pattern=KEY_PATTERN)]] = []
    """Guideline files only: keys another guideline's file defines that this guideline's constraints use (a
    second bradycardia algorithm testing the cardiac charts' ``heart_rate``); written on publishing."""
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
    import tokenize

    import pint

    try:
        _registry(tuple(sorted(definitions.items()))).parse_units(unit)
    # pint reads a unit with Python's tokenizer: an unclosed bracket ("min (") raises tokenize.TokenError
    except (pint.errors.PintError, tokenize.TokenError, AttributeError, ValueError, TypeError, SyntaxError) as exc:
        raise VocabularyError(
            f"{where}: key {key!r} has an unknown unit {unit!r} ({exc}); write a pint unit such as mg/dL, "
            "mmol/L, 1/min, mmHg, cm, year or percent, or declare a score under `units:` in the base vocabulary"
        ) from exc


def to_spec(name: str, entry: NumericEntry | CategoricalEntry | BooleanEntry, source: str,
            domains: tuple[str, ...] = ()) -> KeySpec:
    """The :class:`KeySpec` of one validated file entry (``domains``: its guideline file's; a base key's own)."""
    synonyms = tuple(entry.synonyms)
    domains = (entry.domain,) if entry.domain else domains
    if isinstance(entry, NumericEntry):
        return KeySpec(name, KeyKind.NUMERIC, entry.description, unit=entry.unit, minimum=entry.range[0],
                       maximum=entry.range[1], synonyms=synonyms, source=source, domains=domains)
    if isinstance(entry, BooleanEntry):
        values = {"yes": tuple(entry.yes), "no": tuple(entry.no)}
        return KeySpec(name, KeyKind.CATEGORICAL, entry.description, values=values, synonyms=synonyms,
                       boolean=True, source=source, domains=domains)
    return KeySpec(name, KeyKind.CATEGORICAL, entry.description,
                   values={v: tuple(words) for v, words in entry.values.items()}, synonyms=synonyms,
                   open=entry.open, source=source, domains=domains)


def merge(base: VocabularyFile, guidelines: Iterable[tuple[str, VocabularyFile]],
          base_where: str = "base vocabulary") -> dict[str, KeySpec]:
    """Base keys, then each guideline's; a key defined twice (or a unit pint cannot read) is an error."""
    merged: dict[str, KeySpec] = {}
    if base.uses_domains:
        raise VocabularyError(f"{base_where}: `uses_domains:` belongs in a guideline's vocabulary file; the base "
                              "file defines domains under `domains:` and gives a key its `domain:`")
    for name, entry in base.keys.items():
        if isinstance(entry, NumericEntry):
            check_unit(entry.unit, name, base_where, base.units)
        if entry.domain is not None and entry.domain not in base.domains:
            raise VocabularyError(f"{base_where}: key {name!r} has an unknown domain {entry.domain!r}; define it "
                                  f"under `domains:` (defined: {', '.join(sorted(base.domains)) or 'none'})")
        merged[name] = to_spec(name, entry, "base")
    for phrase, unit in base.proposal_units.items():
        check_unit(unit, f"proposal_units.{phrase}", base_where, base.units)
    for guideline, file in guidelines:
        where = f"vocabulary of guideline {guideline!r}"
        if file.units or file.proposal_units or file.domains:
            raise VocabularyError(f"{where}: `units:`, `domains:` and `proposal_units:` belong in the base "
                                  f"vocabulary ({BASE_FILE.name}), where every guideline can use them")
        unknown = sorted(set(file.uses_domains) - set(base.domains))
        if unknown:
            raise VocabularyError(f"{where}: unknown domain(s) {', '.join(map(repr, unknown))} under "
                                  f"`uses_domains:`; the base vocabulary defines: "
                                  f"{', '.join(sorted(base.domains)) or 'none'}")
        domains = tuple(dict.fromkeys(file.uses_domains))
        for name, entry in file.keys.items():
            if entry.domain is not None:
                raise VocabularyError(f"{where}: key {name!r} names a `domain:`; a guideline's keys take the "
                                      "domains its file lists under `uses_domains:`")
            if name in merged:
                owner = merged[name].source
                raise VocabularyError(
                    f"{where}: key {name!r} clashes with the {'base vocabulary' if owner == 'base' else repr(owner)}"
                    f"{'' if owner == 'base' else ' vocabulary'}, which already defines it; use that key as it "
                    "is, or give this one another name"
                )
            if isinstance(entry, NumericEntry):
                check_unit(entry.unit, name, where, base.units)
            merged[name] = to_spec(name, entry, guideline, domains)
    for guideline, file in guidelines:
        unknown = sorted(k for k in file.uses_keys if k not in merged or merged[k].source in ("base", guideline))
        if unknown:
            raise VocabularyError(
                f"vocabulary of guideline {guideline!r}: `uses_keys:` lists {', '.join(map(repr, unknown))}, which no "
                "other guideline's vocabulary file defines; list only keys of other guidelines (its own go under "
                "`keys:`, base keys come with `uses_domains:`)")
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
    base_domains.cache_clear()
    _uses_by_guideline.cache_clear()
    return VOCABULARY


@cache
def base_units(base_file: Path = BASE_FILE) -> dict[str, str]:
    """The unit definitions of the base vocabulary (name → pint expression)."""
    return dict(read_file(base_file).units)


@cache
def proposal_units(base_file: Path = BASE_FILE) -> dict[str, str]:
    """The base vocabulary's unit hints for proposed numeric keys (phrase → pint unit)."""
    return dict(read_file(base_file).proposal_units)


@cache
def base_domains(base_file: Path = BASE_FILE) -> dict[str, DomainEntry]:
    """The domains the base vocabulary defines (name → description, cue words, threshold)."""
    return dict(read_file(base_file).domains)


def used_keys(guideline: str, root: Path = GUIDELINES_ROOT) -> tuple[str, ...]:
    """The ``uses_keys`` of a guideline's vocabulary file: other guidelines' keys its constraints use (none
    without a file)."""
    return _uses_by_guideline(root).get(guideline, ())


@cache
def _uses_by_guideline(root: Path = GUIDELINES_ROOT) -> dict[str, tuple[str, ...]]:
    """Guideline → its file's ``uses_keys``, for the files that list any (read once per vocabulary reload)."""
    out = {}
    for guideline, path in guideline_files(root):
        listed = tuple(dict.fromkeys(read_file(path).uses_keys))
        if listed:
            out[guideline] = listed
    return out


def declared_domains(guideline: str, root: Path = GUIDELINES_ROOT) -> tuple[str, ...] | None:
    """The ``uses_domains`` of a guideline's vocabulary file (None: no file, or the file declares none)."""
    path = root / guideline / GUIDELINE_FILE
    if not path.is_file():
        return None
    declared = read_file(path).uses_domains
    return tuple(dict.fromkeys(declared)) or None


def check_domains(names: Iterable[str], base_file: Path = BASE_FILE) -> tuple[str, ...]:
    """``names`` as known domains, or a :class:`VocabularyError` naming the unknown ones and the known."""
    names = tuple(dict.fromkeys(names))
    known = base_domains(base_file)
    unknown = [n for n in names if n not in known]
    if unknown:
        raise VocabularyError(f"unknown domain(s) {', '.join(map(repr, unknown))}; the base vocabulary defines: "
                              f"{', '.join(sorted(known)) or 'none'}")
    return names


@dataclass(frozen=True)
class DomainEvidence:
    """The cue words of one domain found in a document's text, and whether they reach its threshold."""

    domain: str
    cues: dict[str, int]
    needed: int

    @property
    def found(self) -> int:
        return sum(self.cues.values())

    @property
    def chosen(self) -> bool:
        return self.found >= self.needed


def detect_domains(texts: Iterable[str], base_file: Path = BASE_FILE) -> list[DomainEvidence]:
    """The cue words of each base domain in ``texts`` (a cue matches as a word, plural included).

    >>> [e.cues for e in detect_domains(["Induction chemotherapy", "Relapsed leukemia after chemotherapy"])]
    [{'leukemia': 1, 'chemotherapy': 2}]
    """
    text = "\n".join(texts).lower()
    evidence: list[DomainEvidence] = []
    for name, domain in base_domains(base_file).items():
        counts: dict[str, int] = {}
        for cue in domain.cues:
            n = len(re.findall(rf"(?<![a-z0-9]){re.escape(cue.lower())}(?:s|es)?(?![a-z0-9])", text))
            if n:
                counts[cue] = n
        evidence.append(DomainEvidence(name, counts, domain.min_cues))
    return evidence


def keys_in_scope(guideline: str, domains: Iterable[str],
                  vocabulary: Mapping[str, KeySpec] | None = None) -> frozenset[str]:
    """The keys a document of ``guideline`` in ``domains`` may be read with: general base keys, the keys of
    those domains (base keys, and keys of guidelines declaring one of them) and the guideline's own keys."""
    wanted = set(domains)
    specs = (VOCABULARY if vocabulary is None else vocabulary).values()
    return frozenset(s.name for s in specs if s.source == guideline or set(s.domains) & wanted
                     or (s.source == "base" and not s.domains))


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


def onboarded_guidelines(root: Path = GUIDELINES_ROOT) -> frozenset[str]:
    """Every guideline onboarded from a PDF (its folder has a ``topic.yaml``), by name, whether or not it brought
    keys of its own (:func:`onboarded_sources` holds only those that did)."""
    return frozenset(p.parent.name for p in root.glob(f"*/{ONBOARDED_MARK}")) if root.is_dir() else frozenset()


def onboarded_sources(root: Path = GUIDELINES_ROOT) -> frozenset[str]:
    """Guidelines whose vocabulary came from onboarding a PDF (their folder has a ``topic.yaml``), by name: those
    with keys of their own, and those whose file lists other guidelines' keys under ``uses_keys``.

    Their keys are read by the question-answering rule layer from their vocabulary entries
    (:mod:`dkg.qa.vocabulary_facts`); the constraint extractor's fixed phrases leave them out, so the shipped
    guidelines' extraction does not change when a guideline is onboarded."""
    own = {s.source for s in VOCABULARY.values() if s.source != "base"}
    return frozenset(g for g in own | set(_uses_by_guideline(root)) if (root / g / ONBOARDED_MARK).is_file())
