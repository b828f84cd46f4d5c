"""Drug classes clinicians ask for by name (``data/drug_classes.yaml``): "which antiarrhythmic now?" asks for a
step that gives amiodarone or lidocaine, which no box calls an antiarrhythmic."""

from __future__ import annotations

import re
from functools import cached_property, lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, field_validator

from dkg.lexicon.loader import validated_file
from dkg.lexicon.wording_groups import normalised

DRUG_CLASSES_PATH = Path(__file__).resolve().parent / "data" / "drug_classes.yaml"


def _whole_words(words: list[str]) -> re.Pattern[str]:
    """Any of ``words`` as whole words, case aside, a space or hyphen between their words optional."""
    body = "|".join(re.escape(w.casefold()).replace(r"\ ", r"[\s-]+").replace(r"\-", r"[\s-]?")
                    for w in sorted(words, key=len, reverse=True))
    return re.compile(rf"(?<![\w-])(?:{body})(?![\w-])", re.IGNORECASE)


def _listed_once(words: list[str]) -> list[str]:
    """``words``, each with a letter or digit and listed once (case, hyphens and punctuation aside)."""
    seen = [normalised(w) for w in words]
    if not all(seen):
        raise ValueError(f"an entry of {words} has no letter or digit")
    repeated = sorted({w for w in seen if seen.count(w) > 1})
    if repeated:
        raise ValueError(f"{repeated} listed twice; list each once")
    return words


ANY_DRUG = "drug"  # the name of the class of every listed drug


class DrugClass(BaseModel):
    """One class: how questions name it and the drugs boxes name for it; see the data file's header."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1)
    wordings: list[str] = Field(min_length=1)
    members: list[str] = Field(min_length=1)

    @field_validator("wordings", "members")
    @classmethod
    def _listed_once(cls, words: list[str]) -> list[str]:
        return _listed_once(words)

    @cached_property
    def named_by(self) -> re.Pattern[str]:
        return _whole_words(self.wordings)

    @cached_property
    def given_by(self) -> re.Pattern[str]:
        return _whole_words(self.members)


class AnyDrug(BaseModel):
    """How a question asks for a drug of no class, and the drugs that stand in no class."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    wordings: list[str] = Field(min_length=1)
    other_members: list[str] = Field(default_factory=list)

    @field_validator("wordings", "other_members")
    @classmethod
    def _listed_once(cls, words: list[str]) -> list[str]:
        return _listed_once(words)


class DrugClasses(BaseModel):
    model_config = ConfigDict(extra="forbid")

    classes: list[DrugClass]
    any_drug: AnyDrug | None = None

    def any_drug_class(self) -> DrugClass | None:
        """The class of every drug the file lists (its classes' members and ``any_drug.other_members``), named by
        ``any_drug.wordings``; None when the file has no ``any_drug`` section."""
        if self.any_drug is None:
            return None
        members: dict[str, str] = {}
        for drug in [m for c in self.classes for m in c.members] + self.any_drug.other_members:
            members.setdefault(normalised(drug), drug)
        return DrugClass(name=ANY_DRUG, wordings=self.any_drug.wordings, members=list(members.values()))


def load_drug_classes(path: Path = DRUG_CLASSES_PATH) -> tuple[DrugClass, ...]:
    """The classes of ``path``, validated; :class:`LexiconError` names the file, the class and the problem."""
    return tuple(validated_file(path, DrugClasses).classes)


def load_any_drug(path: Path = DRUG_CLASSES_PATH) -> DrugClass | None:
    """The class of every drug ``path`` lists (:meth:`DrugClasses.any_drug_class`), validated like the classes."""
    return validated_file(path, DrugClasses).any_drug_class()


@lru_cache(maxsize=1)
def _shipped() -> DrugClasses:
    """The shipped file, read and validated once per process."""
    return validated_file(DRUG_CLASSES_PATH, DrugClasses)


def drug_classes() -> tuple[DrugClass, ...]:
    """The shipped classes."""
    return tuple(_shipped().classes)


@lru_cache(maxsize=1)
def any_drug() -> DrugClass | None:
    """The shipped class of every listed drug."""
    return _shipped().any_drug_class()


def classes_named(text: str, classes: tuple[DrugClass, ...] | None = None) -> tuple[DrugClass, ...]:
    """The classes ``text`` names.

    >>> [c.name for c in classes_named("Team want the anti-arrhythmic: what now?")]
    ['antiarrhythmic']
    >>> classes_named("What dose of amiodarone?")
    ()
    """
    return tuple(c for c in (drug_classes() if classes is None else classes) if c.named_by.search(text))


def gives_one_of(text: str, classes: tuple[DrugClass, ...]) -> bool:
    """Whether ``text`` (a box) names a drug of one of ``classes``.

    >>> gives_one_of("Lidocaine IV / IO 1mg/kg", classes_named("which antiarrhythmic?"))
    True
    >>> gives_one_of("Epinephrine 0.01mg/kg", classes_named("which antiarrhythmic?"))
    False
    """
    return any(c.given_by.search(text) for c in classes)


__all__ = ["ANY_DRUG", "DRUG_CLASSES_PATH", "AnyDrug", "DrugClass", "any_drug", "classes_named", "drug_classes",
           "gives_one_of", "load_any_drug", "load_drug_classes"]
