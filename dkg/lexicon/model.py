"""Typed entries of the clinical-language lexicon, validated when the data files are loaded.

Three kinds of entry, each in its own data file (``dkg/lexicon/data/``):

* :class:`TermEntry` (``abbreviations.yaml``): abbreviations, clinicians' shorthand and lay words with the
  words they stand for ("Tx" → treatment, "s/p" → after, "SLNB" → sentinel lymph node biopsy, "voice box" →
  larynx).
* :class:`SpellingEntry` (``spelling.yaml``): British spellings and their American forms, matched at the
  start of a word (tumour → tumor, haem → hem), since the knowledge layer is written in American English.
* :class:`DiseaseEntry` (``disease_aliases.yaml``): curated aliases of a knowledge-layer disease, named as its
  ``:Disease`` node is (NSCLC → Non-Small Cell Lung Cancer), kept apart from the extracted content.

and the population cues (``populations.yaml``, :class:`PopulationCues`): words and age forms that say
whether a question is about adults or children.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

Population = Literal["adult", "childhood"]
TermKind = Literal["abbreviation", "shorthand", "lay"]


class _Entry(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=True)


def _has_word(value: str, what: str) -> str:
    if not re.search(r"[A-Za-z0-9]", value):
        raise ValueError(f"{what} {value!r} has no letter or digit")
    return value


class TermEntry(_Entry):
    """An abbreviation, shorthand or lay word and what it stands for.

    ``mode``: ``replace`` puts the expansion in place of the term (the term itself is noise for search:
    "Tx", "s/p"); ``append`` keeps the term and adds the expansion in brackets (the term also occurs in
    the texts, as "CNS", "CR" or "PSA" do in guideline boxes, or it is a lay word worth keeping). Unset:
    ``replace`` for shorthand, ``append`` for abbreviations and lay words.
    """

    term: str = Field(min_length=1, max_length=60)
    expansion: str = Field(min_length=1, max_length=120)
    kind: TermKind
    case_sensitive: bool = Field(default=False, description="match only as written (ALL, ET, Ca)")
    mode: Literal["replace", "append"] | None = None
    note: str | None = None

    @property
    def appends(self) -> bool:
        """Whether the term is kept and the expansion added (see ``mode``)."""
        return self.mode == "append" if self.mode is not None else self.kind != "shorthand"

    @field_validator("term", "expansion")
    @classmethod
    def _words(cls, value: str) -> str:
        return _has_word(value, "text")


class SpellingEntry(_Entry):
    """A British spelling and its American form, matched at the start of a word, or anywhere in a word
    with ``within_words`` (aemia → emia: leukaemia, polycythaemia, hypercalcaemia)."""

    british: str = Field(min_length=2, max_length=30, pattern=r"^[a-z]+$")
    american: str = Field(min_length=2, max_length=30, pattern=r"^[a-z]+$")
    within_words: bool = False


class Alias(_Entry):
    """One alias of a disease; ``case_sensitive`` for short capitals that are also ordinary words (ALL)."""

    alias: str = Field(min_length=1, max_length=120)
    case_sensitive: bool = False

    @field_validator("alias")
    @classmethod
    def _words(cls, value: str) -> str:
        return _has_word(value, "alias")


class DiseaseEntry(_Entry):
    """Curated aliases of one knowledge-layer disease (``disease`` = the :Disease node's name)."""

    disease: str = Field(min_length=2, max_length=200)
    population: Population | None = Field(
        default=None, description="adult / childhood when the name does not say it (Neuroblastoma: childhood)")
    aliases: tuple[Alias, ...] = Field(default=())
    sites: tuple[str, ...] = Field(default=(), description="body sites that point to this disease when a "
                                                            "question speaks of a cancer but names none")
    part_of: tuple[str, ...] = Field(default=(), description="broader diseases whose summaries also cover this "
                                                              "one (CMML: Myelodysplastic/ Myeloproliferative "
                                                              "Neoplasms)")

    @field_validator("aliases", mode="before")
    @classmethod
    def _plain_strings(cls, value: object) -> object:
        if isinstance(value, list | tuple):
            return [{"alias": v} if isinstance(v, str) else v for v in value]
        return value

    @model_validator(mode="after")
    def _unique(self) -> DiseaseEntry:
        seen: set[str] = set()
        for a in self.aliases:
            key = a.alias if a.case_sensitive else a.alias.casefold()
            if key in seen:
                raise ValueError(f"alias {a.alias!r} is listed twice for {self.disease!r}")
            seen.add(key)
        return self


class AgePattern(_Entry):
    """A regular expression whose first group is an age, in ``unit``."""

    pattern: str
    unit: Literal["years", "months"] = "years"
    ignore_case: bool = True

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, value: str) -> str:
        try:
            compiled = re.compile(value)
        except re.error as exc:
            raise ValueError(f"pattern {value!r} is not a valid regular expression: {exc}") from exc
        if compiled.groups < 1:
            raise ValueError(f"pattern {value!r} needs a group holding the age")
        return value


class PopulationCues(_Entry):
    """Words and age forms telling whether a question is about adults or children."""

    childhood_age_below: int = Field(ge=1, le=30, description="ages below this are childhood")
    childhood: tuple[str, ...] = Field(min_length=1)
    adult: tuple[str, ...] = Field(min_length=1)
    age_patterns: tuple[AgePattern, ...] = ()

    @model_validator(mode="after")
    def _disjoint(self) -> PopulationCues:
        both = {w.casefold() for w in self.childhood} & {w.casefold() for w in self.adult}
        if both:
            raise ValueError(f"cue words listed both as childhood and adult: {sorted(both)}")
        return self


class LexiconData(_Entry):
    """Everything the data files hold, validated together."""

    terms: tuple[TermEntry, ...]
    spellings: tuple[SpellingEntry, ...]
    diseases: tuple[DiseaseEntry, ...]
    cancer_words: tuple[str, ...] = Field(min_length=1)
    populations: PopulationCues

    @model_validator(mode="after")
    def _no_duplicates(self) -> LexiconData:
        terms: dict[str, str] = {}
        for t in self.terms:
            key = t.term if t.case_sensitive else t.term.casefold()
            if key in terms and terms[key] != t.expansion:
                raise ValueError(f"term {t.term!r} is listed twice with different expansions "
                                 f"({terms[key]!r}, {t.expansion!r})")
            terms[key] = t.expansion
        names = [d.disease for d in self.diseases]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(f"diseases listed twice: {twice} (merge their aliases into one entry)")
        unknown = sorted({b for d in self.diseases for b in d.part_of} - set(names))
        if unknown:
            raise ValueError(f"part_of names diseases without an entry: {unknown} (add an entry, or fix the name)")
        return self
