"""Wordings clinicians share across guidelines (``data/wording_groups.yaml``), joined to onboarded keys.

A guideline onboarded from a PDF brings keys worded as its boxes word them: ``pulse_present`` reads "pulse
present" and nothing else, until a curator lists how clinicians say it. Much of that list is the same for every
guideline ("pulseless", "no pulse", "lost the pulse"), so it is kept once, as groups of wordings, and a key that
writes one of a group's wordings reads the whole group in questions (:func:`widened`). A yes / no key also joins
through its name ("svt_criteria": "svt criteria"), a categorical value through its name followed by the key's
("high grade" of ``av_block``: "high grade av block"), and a value ``none`` or ``absent`` reads "no <key>" and
"without <key>". The key's own wordings win: a wording it already gives another answer or value is not added.
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import cached_property, lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from dkg.lexicon.loader import validated_file
from dkg.vocabulary import KeyKind, KeySpec

WORDING_GROUPS_PATH = Path(__file__).resolve().parent / "data" / "wording_groups.yaml"
_PUNCTUATION = re.compile(r"[^\w\s]+")
_SPACES = re.compile(r"[\s_-]+")
# a wording that lists findings as alternatives ("chest pain / SOB / dizziness", "chest pain, SOB or dizziness")
_ALTERNATIVES = re.compile(r"\s*/\s*|\s+or\s+")
_LIST_SEPARATOR = re.compile(r"\s*(?:[/,;]|\bor\b)\s*")
# values of a categorical key that say its finding is absent
_NO_FINDING_VALUES = frozenset({"none", "absent"})


def normalised(wording: str) -> str:
    """``wording`` as groups compare it: case, hyphens, slashes and punctuation aside.

    >>> normalised("Pulse present?"), normalised("A-Fib"), normalised("Return of Spontaneous Circulation (ROSC)")
    ('pulse present', 'a fib', 'return of spontaneous circulation rosc')
    """
    return _SPACES.sub(" ", _PUNCTUATION.sub(" ", wording.casefold())).strip()


Wordings = list[str]


class WordingGroup(BaseModel):
    """One finding or quantity and how it is written; see the data file's header for each field."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1)
    same: Wordings = Field(min_length=1)
    signs: Wordings = Field(default_factory=list)
    opposite: Wordings = Field(default_factory=list)
    opposite_signs: Wordings = Field(default_factory=list)
    quantity: bool = False
    """A measured quantity: joins numeric keys only (a yes / no key written "pulse" is no heart rate)."""

    @field_validator("same", "signs", "opposite", "opposite_signs")
    @classmethod
    def _worded(cls, words: Wordings) -> Wordings:
        for word in words:
            if not normalised(word):
                raise ValueError(f"wording {word!r} has no letter or digit")
        repeated = sorted({w for w in words if [normalised(x) for x in words].count(normalised(w)) > 1})
        if repeated:
            raise ValueError(f"wordings {repeated} are listed twice; list each once")
        return words

    @model_validator(mode="after")
    def _sides_apart(self) -> WordingGroup:
        if self.quantity and (self.signs or self.opposite or self.opposite_signs):
            raise ValueError(f"group {self.name!r} is a quantity: list its wordings under `same` only")
        both = {normalised(w) for w in (*self.same, *self.signs)} & {
            normalised(w) for w in (*self.opposite, *self.opposite_signs)}
        if both:
            raise ValueError(f"group {self.name!r} lists {sorted(both)} on both sides; a wording states one answer")
        return self

    def side_of(self, wording: str) -> bool | None:
        """True when ``wording`` is one of the group's ``same`` wordings, False when one of its ``opposite``
        wordings, None otherwise (signs never join a key to a group)."""
        word = normalised(wording)
        same, opposite = self._normalised_sides
        if word in same:
            return True
        if word in opposite:
            return False
        return None

    @cached_property
    def _normalised_sides(self) -> tuple[frozenset[str], frozenset[str]]:
        """The ``same`` and ``opposite`` wordings normalised, computed once per (frozen) group."""
        return frozenset(map(normalised, self.same)), frozenset(map(normalised, self.opposite))

    def stating(self, side: bool) -> tuple[str, ...]:
        """The wordings that state the group (``side`` True) or its opposite (False)."""
        return (*self.same, *self.signs) if side else (*self.opposite, *self.opposite_signs)


class WordingGroups(BaseModel):
    model_config = ConfigDict(extra="forbid")

    groups: list[WordingGroup]


def load_wording_groups(path: Path = WORDING_GROUPS_PATH) -> tuple[WordingGroup, ...]:
    """The groups of ``path``, validated; :class:`LexiconError` names the file, the group and the problem."""
    return tuple(validated_file(path, WordingGroups).groups)


@lru_cache(maxsize=1)
def wording_groups() -> tuple[WordingGroup, ...]:
    """The shipped groups, read once per process."""
    return load_wording_groups()


def _added(own: tuple[str, ...], new: tuple[str, ...], taken: set[str]) -> tuple[str, ...]:
    """``own`` followed by the wordings of ``new`` it lacks and no other answer or value of the key holds."""
    seen = {normalised(w) for w in own} | taken
    out = list(own)
    for word in new:
        if normalised(word) not in seen:
            seen.add(normalised(word))
            out.append(word)
    return tuple(out)


def listed(wording: str) -> tuple[str, ...]:
    """The findings ``wording`` lists as alternatives, or nothing when it names one (commas separate alternatives
    only in a list that also has "or" or a slash: "narrow, regular" is one finding).

    >>> listed("chest pain / sob / dizziness"), listed("chest pain, SOB or dizziness"), listed("narrow, regular")
    (('chest pain', 'sob', 'dizziness'), ('chest pain', 'SOB', 'dizziness'), ())
    """
    if not _ALTERNATIVES.search(wording):
        return ()
    parts = tuple(p for p in (piece.strip() for piece in _LIST_SEPARATOR.split(wording)) if normalised(p))
    return parts if len(parts) > 1 else ()


def _held_by_others(values: dict[str, tuple[str, ...]], value: str) -> set[str]:
    """The normalised wordings of a categorical key's values other than ``value``."""
    return {normalised(w) for other, words in values.items() if other != value for w in words}


def _sides(group: WordingGroup, yes: tuple[str, ...], no: tuple[str, ...]) -> set[bool]:
    """The sides of ``group`` a boolean key's answer yes stands on, by its ``yes`` and ``no`` wordings."""
    sides = set()
    for words, answer in ((yes, True), (no, False)):
        for word in words:
            side = group.side_of(word)
            if side is not None:
                sides.add(side == answer)
    return sides


def widened(spec: KeySpec, groups: tuple[WordingGroup, ...] | None = None) -> KeySpec:
    """``spec`` with the wordings of the groups it joins (see the module docstring).

    >>> from dkg.vocabulary import KeyKind, KeySpec
    >>> pulse = KeySpec("pulse_present", KeyKind.CATEGORICAL, "Pulse present", boolean=True,
    ...                 values={"yes": ("pulse present",), "no": ()}, synonyms=("pulse present",))
    >>> "lost the pulse" in widened(pulse).values["no"], "has a pulse" in widened(pulse).values["yes"]
    (True, True)
    >>> sbp = KeySpec("sbp", KeyKind.NUMERIC, "SBP", unit="mmHg", synonyms=("sbp",))
    >>> "blood pressure" in widened(sbp).synonyms
    True
    """
    groups = wording_groups() if groups is None else groups
    quantities = tuple(g for g in groups if g.quantity)
    groups = tuple(g for g in groups if not g.quantity)
    if spec.kind is KeyKind.NUMERIC:
        extra = tuple(w for g in quantities if any(g.side_of(s) for s in spec.synonyms) for w in g.same)
        return replace(spec, synonyms=_added(spec.synonyms, extra, set())) if extra else spec
    values = dict(spec.values)
    if spec.boolean:
        yes, no = (*spec.synonyms, *values.get("yes", ())), values.get("no", ())
        joins = (*yes, spec.name.replace("_", " "))  # the key's name joins too ("svt_criteria": "svt criteria")
        # a key that lists findings as alternatives is stated by each of them, and by each one's group; denying
        # one of them does not deny the others, so their groups' opposites say nothing of the key
        findings = tuple(part for word in yes for part in listed(word))
        for part in findings:
            stated = [part]
            for group in groups:
                side = group.side_of(part)
                if side is not None:
                    stated += group.stating(side)
            values["yes"] = _added(values.get("yes", ()), tuple(stated), {normalised(w) for w in no})
        for group in groups:
            sides = _sides(group, joins, no)
            if len(sides) != 1:  # joins no group, or the key's wordings sit on both of its sides
                continue
            side = sides.pop()
            values["yes"] = _added(values.get("yes", ()), group.stating(side),
                                   {normalised(w) for w in values.get("no", ())})
            values["no"] = _added(values.get("no", ()), group.stating(not side),
                                  {normalised(w) for w in values["yes"]})
    else:
        subject = spec.name.replace("_", " ")
        for value, words in spec.values.items():
            own = (*words, value.replace("_", " "), f"{value.replace('_', ' ')} {subject}")
            if value in _NO_FINDING_VALUES:  # "none" of a key named "av block" is written "no av block"
                values[value] = _added(values[value], (f"no {subject}", f"without {subject}"),
                                       _held_by_others(values, value))
            for group in groups:
                if any(group.side_of(w) for w in own):
                    values[value] = _added(values[value], group.stating(True), _held_by_others(values, value))
    return replace(spec, values=values) if values != spec.values else spec


__all__ = ["WORDING_GROUPS_PATH", "WordingGroup", "load_wording_groups", "normalised", "widened",
           "wording_groups"]
