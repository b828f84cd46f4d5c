"""The text-to-Cypher query language: a short head the model emits, followed by a fixed body from
``cypher/qa.cypher``. Values are never spelled in the head: patient facts are ``$key`` slots filled
from the question, the version is ``$version``; only the guideline code and a treatment phrase are
literals, and both are checked against the question and the graph before anything runs."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache
from typing import overload

from dkg.errors import QAError
from dkg.graph.db import named_queries
from dkg.lexicon.topics import known_guidelines
from dkg.vocabulary import VOCABULARY


class QuestionType(StrEnum):
    NEXT_STEP = "next_step"      # (1) next recommended treatment/step given a patient's constraints
    CONDITIONS = "conditions"    # (2) constraints a patient must satisfy for a treatment
    ADVISE = "advise"            # (3) is a treatment advisable for given constraints (yes/no + reason)




class _KnownGuidelines(Sequence[str]):
    """The guideline codes a query may name: those whose sources ship with the project (discovered on first
    use, :func:`dkg.lexicon.topics.known_guidelines`)."""

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...

    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        return known_guidelines()[index]

    def __len__(self) -> int:
        return len(known_guidelines())

    def __contains__(self, value: object) -> bool:
        return value in known_guidelines()


GUIDELINES: Sequence[str] = _KnownGuidelines()
TREATMENT_LITERAL = re.compile(r"^[a-z0-9][a-z0-9 +\-/.,()–']{1,80}$")  # what a treatment literal may hold


@lru_cache(maxsize=1)
def bodies() -> dict[str, str]:
    """The query bodies by question type."""
    return named_queries("qa")


@dataclass(frozen=True)
class QuerySketch:
    """What the model decides: question type, guideline, treatment phrase and which facts are slots."""

    qtype: QuestionType
    guideline: str
    keys: tuple[str, ...] = ()
    treatment: str | None = None
    notes: list[str] = field(default_factory=list, compare=False)
    lenient: bool = field(default=False, compare=False)

    def head(self) -> str:
        parts = [f"WITH '{self.guideline}' AS guideline"]
        if self.qtype in (QuestionType.CONDITIONS, QuestionType.ADVISE):
            parts.append(f"'{self.treatment}' AS treatment")
        if self.qtype in (QuestionType.NEXT_STEP, QuestionType.ADVISE):
            parts.append("{" + ", ".join(f"{k}: ${k}" for k in self.keys) + "} AS facts")
        return ", ".join(parts)

    def cypher(self) -> str:
        """The full, executable query text: the head with its literals turned into ``$guideline`` and
        ``$treatment`` parameters (one cached plan per query shape, and no literal reaches the query text)."""
        self.check()
        parts = ["WITH $guideline AS guideline"]
        if self.qtype in (QuestionType.CONDITIONS, QuestionType.ADVISE):
            parts.append("$treatment AS treatment")
        if self.qtype in (QuestionType.NEXT_STEP, QuestionType.ADVISE):
            parts.append("{" + ", ".join(f"{k}: ${k}" for k in self.keys) + "} AS facts")
        body = f"{self.qtype.value}_lenient" if self.lenient and self.qtype is not QuestionType.CONDITIONS \
            else self.qtype.value
        return f"{', '.join(parts)}\n{bodies()[body]}"

    def params(self, facts: dict[str, float | str], version: str) -> dict[str, object]:
        """Parameters of :meth:`cypher`: the literals, the version and the slot values (every slot filled)."""
        missing = [k for k in self.keys if k not in facts]
        if missing:
            raise QAError(f"no value in the question for slot(s) {', '.join('$' + k for k in missing)}")
        out: dict[str, object] = {"guideline": self.guideline, "version": version}
        if self.treatment is not None:
            out["treatment"] = self.treatment
        out.update({k: facts[k] for k in self.keys})
        return out

    def check(self) -> None:
        """Raise :class:`QAError` when a literal or slot is outside what the query language allows."""
        if self.guideline not in GUIDELINES:
            raise QAError(f"unknown guideline {self.guideline!r}; known: {', '.join(GUIDELINES)}")
        for key in self.keys:
            if key not in VOCABULARY:
                raise QAError(f"unknown fact slot ${key}; known: {', '.join(sorted(VOCABULARY))}")
        if self.qtype is not QuestionType.CONDITIONS and not self.keys:
            raise QAError("a patient question needs at least one fact")
        if self.qtype is not QuestionType.NEXT_STEP and (
                not self.treatment or not TREATMENT_LITERAL.match(self.treatment)):
            raise QAError(f"treatment phrase {self.treatment!r} is empty or has characters a query may not hold")


_HEAD = re.compile(
    r"^WITH '(?P<g>[A-Za-z][A-Za-z0-9_-]*)' AS guideline"
    r"(?:, '(?P<t>[^'\n]*)' AS treatment)?"
    r"(?:, \{(?P<f>[^}]*)\} AS facts)?\s*$")
_SLOT = re.compile(r"^\s*([a-z][a-z0-9_]*): \$([a-z][a-z0-9_]*)\s*$")


def model_target(sketch: QuerySketch) -> str:
    """What the model is trained to emit: the head and a marker of the body (``// next_step``)."""
    return f"{sketch.head()} // {sketch.qtype.value}"


def parse_model_output(text: str) -> QuerySketch:
    """Read the model's output back into a sketch, or raise :class:`QAError` saying what is malformed."""
    head, sep, body = text.partition("//")
    if not sep:
        raise QAError(f"model output has no query body marker: {text[:120]!r}")
    try:
        qtype = QuestionType(body.strip())
    except ValueError as exc:
        raise QAError(f"unknown query body {body.strip()!r}") from exc
    m = _HEAD.match(head.strip())
    if not m:
        raise QAError(f"malformed query head {head.strip()[:120]!r}")
    keys: list[str] = []
    if m["f"] is not None and m["f"].strip():
        for part in m["f"].split(","):
            sm = _SLOT.match(part)
            if not sm or sm[1] != sm[2]:
                raise QAError(f"malformed fact slot {part.strip()!r}")
            keys.append(sm[1])
    if (qtype is QuestionType.CONDITIONS) != (m["f"] is None):
        raise QAError(f"{qtype.value} query with a wrong head: {head.strip()[:120]!r}")
    if (qtype is QuestionType.NEXT_STEP) != (m["t"] is None):
        raise QAError(f"{qtype.value} query with a wrong head: {head.strip()[:120]!r}")
    sketch = QuerySketch(qtype, m["g"], tuple(keys), m["t"])
    sketch.check()
    return sketch
