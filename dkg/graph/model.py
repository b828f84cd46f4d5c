"""The DKG's graph model: how boxes, arrows and constraints become nodes, relations and properties.

Nodes (label ``:Node``, plus ``:Decision`` when they carry constraints, else ``:Action``)::

    uid          "<guideline>|<version>|<key>", key = sha1 of the normalised content (boxes with the same
                 text in one guideline version are one node, as in the reference DKG)
    guideline, version, key, content (static text), pages (list), box_ids (list, provenance),
    constraints  canonical constraint texts (for display and audit)
    rev          revision counter for optimistic concurrency (0 after a build)
    options      treatment options of an action node (its text split on "or")
    <typed constraint properties>, see below

Typed constraint properties, named by vocabulary key:

* numeric key K: ``K_min`` / ``K_max`` (floats) with ``K_min_strict`` / ``K_max_strict`` (booleans:
  ``>`` / ``<`` rather than ``>=`` / ``<=``); ``K = v`` sets both bounds; ``K != v`` goes to ``K_ne`` (list).
* categorical key K: ``K`` (list of allowed values) and ``K_not`` (list of excluded values).

Relations: ``(:Node)-[:NEXT_STEP {label, constraints, <typed props>}]->(:Node)`` for arrows;
``(:Node)-[:OFFERS]->(:Treatment {name})`` for each treatment option;
``(:GuidelineVersion {uid, guideline, version})-[:CONTAINS]->(:Node)``.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from functools import cache, lru_cache
from typing import Any

from dkg.errors import ConstraintError
from dkg.types import Constraint, Op
from dkg.vocabulary import VOCABULARY, KeyKind

_SPACE = re.compile(r"\s+")


def normalise_content(text: str) -> str:
    """Whitespace-collapsed text; the identity of a box's content."""
    return _SPACE.sub(" ", text).strip()


def node_key(content: str, twin: str = "") -> str:
    """Stable key of a node's content within one guideline version; ``twin`` (a box id) tells apart boxes of one
    text that are different steps.

    >>> node_key("CPR  2 min") == node_key("cpr 2 min") != node_key("CPR 2 min", twin="n12")
    True
    """
    text = normalise_content(content).casefold()
    return hashlib.sha1((f"{text}\n{twin}" if twin else text).encode()).hexdigest()[:16]


def node_uid(guideline: str, version: str, key: str) -> str:
    return f"{guideline}|{version}|{key}"


def _property_names_of(key: str) -> list[str]:
    if VOCABULARY[key].kind is KeyKind.NUMERIC:
        return [f"{key}_min", f"{key}_max", f"{key}_min_strict", f"{key}_max_strict", f"{key}_ne"]
    return [key, f"{key}_not"]


@cache
def _key_of_property_for(keys: tuple[tuple[str, str], ...]) -> dict[str, str]:
    return {name: key for key, _ in keys for name in _property_names_of(key)}


def _key_of_property() -> dict[str, str]:
    """Typed property name → its vocabulary key, for the vocabulary as it is now (it can be reloaded)."""
    return _key_of_property_for(tuple((key, spec.kind.value) for key, spec in VOCABULARY.items()))


def constraint_property_names() -> list[str]:
    """Every typed property name the vocabulary can produce (used to clear and to read them back)."""
    return list(_key_of_property())


def _number_of(c: Constraint) -> float:
    if isinstance(c.value, (int, float)) and not isinstance(c.value, bool):
        return float(c.value)
    raise ConstraintError(f"{c} needs a number")  # the Constraint model already refuses this


def constraints_to_properties(constraints: Iterable[Constraint]) -> dict[str, Any]:
    """Typed properties for a node's constraints. Contradictory bounds raise :class:`ConstraintError`."""
    constraints = list(constraints)
    props: dict[str, Any] = {}

    def tighten_min(key: str, value: float, strict: bool) -> None:
        current = props.get(f"{key}_min")
        if current is None or value > current or (value == current and strict):
            props[f"{key}_min"], props[f"{key}_min_strict"] = float(value), strict

    def tighten_max(key: str, value: float, strict: bool) -> None:
        current = props.get(f"{key}_max")
        if current is None or value < current or (value == current and strict):
            props[f"{key}_max"], props[f"{key}_max_strict"] = float(value), strict

    for c in constraints:
        spec = VOCABULARY[c.key]
        if spec.kind is KeyKind.NUMERIC:
            if isinstance(c.value, tuple):
                tighten_min(c.key, c.value[0], False)
                tighten_max(c.key, c.value[1], False)
                continue
            number = _number_of(c)
            if c.op in (Op.GT, Op.GE):
                tighten_min(c.key, number, c.op is Op.GT)
            elif c.op in (Op.LT, Op.LE):
                tighten_max(c.key, number, c.op is Op.LT)
            elif c.op is Op.EQ:
                tighten_min(c.key, number, False)
                tighten_max(c.key, number, False)
            else:
                props[f"{c.key}_ne"] = sorted({*props.get(f"{c.key}_ne", []), number})
        else:
            values = sorted(c.value) if isinstance(c.value, frozenset) else [c.value]
            if c.op is Op.NE:
                props[f"{c.key}_not"] = sorted({*props.get(f"{c.key}_not", []), *values})
            elif c.key in props:
                narrowed = sorted(set(props[c.key]) & set(values))
                if not narrowed:
                    raise ConstraintError(f"contradictory constraints on {c.key}: {props[c.key]} and {values}")
                props[c.key] = narrowed
            else:
                props[c.key] = values
    for key in {c.key for c in constraints if VOCABULARY[c.key].kind is KeyKind.NUMERIC}:
        lo, hi = props.get(f"{key}_min"), props.get(f"{key}_max")
        if lo is not None and hi is not None and lo > hi:
            raise ConstraintError(f"contradictory constraints on {key}: minimum {lo} above maximum {hi}")
    return props


def _sides(c: Constraint) -> tuple[str, ...]:
    if c.op is Op.IN or c.op is Op.EQ:
        return ("lower", "upper")
    if c.op in (Op.GT, Op.GE):
        return ("lower",)
    if c.op in (Op.LT, Op.LE):
        return ("upper",)
    return ()


def refuse_two_bounds_on_one_side(constraints: Iterable[Constraint]) -> None:
    """Raise :class:`ConstraintError` when one numeric key gets two lower (or two upper) bounds.

    :func:`constraints_to_properties` keeps the tighter of two such bounds; a curator who writes
    ``age>70, age>=80`` has made a mistake in one of them, so curation refuses it rather than guess.

    >>> refuse_two_bounds_on_one_side([Constraint.parse("age>70"), Constraint.parse("age<=80")])
    """
    seen: dict[tuple[str, str], Constraint] = {}
    for c in constraints:
        if VOCABULARY[c.key].kind is not KeyKind.NUMERIC:
            continue
        for side in _sides(c):
            other = seen.setdefault((c.key, side), c)
            if other is not c and other != c:
                raise ConstraintError(f"two {side} bounds on {c.key}: {other} and {c}; give one {side} bound "
                                      f"(a range is written {c.key} in [lo,hi])")


def properties_to_constraints(props: Mapping[str, Any]) -> list[Constraint]:
    """Canonical constraints read back from typed properties (inverse of :func:`constraints_to_properties`)."""
    out: list[Constraint] = []
    key_of_property = _key_of_property()
    present = {key_of_property[name] for name, value in props.items()
               if value is not None and name in key_of_property}
    for spec in VOCABULARY.values():
        k = spec.name
        if k not in present:
            continue
        if spec.kind is KeyKind.NUMERIC:
            lo, hi = props.get(f"{k}_min"), props.get(f"{k}_max")
            lo_strict, hi_strict = bool(props.get(f"{k}_min_strict")), bool(props.get(f"{k}_max_strict"))
            if lo is not None and hi is not None and lo == hi and not lo_strict and not hi_strict:
                out.append(Constraint(key=k, op=Op.EQ, value=float(lo)))
            elif lo is not None and hi is not None and not lo_strict and not hi_strict:
                out.append(Constraint(key=k, op=Op.IN, value=(float(lo), float(hi))))
            else:
                if lo is not None:
                    out.append(Constraint(key=k, op=Op.GT if lo_strict else Op.GE, value=float(lo)))
                if hi is not None:
                    out.append(Constraint(key=k, op=Op.LT if hi_strict else Op.LE, value=float(hi)))
            for value in props.get(f"{k}_ne") or []:
                out.append(Constraint(key=k, op=Op.NE, value=float(value)))
        else:
            allowed = props.get(k)
            if allowed:
                if len(allowed) == 1:
                    out.append(Constraint(key=k, op=Op.EQ, value=allowed[0]))
                else:
                    out.append(Constraint(key=k, op=Op.IN, value=frozenset(allowed)))
            for value in props.get(f"{k}_not") or []:
                out.append(Constraint(key=k, op=Op.NE, value=value))
    return out


def canonical_constraints(constraints: Iterable[Constraint]) -> list[str]:
    """The canonical, order-independent form of a constraint list (via the typed properties)."""
    return list(_canonical(tuple(constraints)))


@lru_cache(maxsize=65536)
def _canonical(constraints: tuple[Constraint, ...]) -> tuple[str, ...]:
    # memoised: a build asks for the same boxes' constraints several times (source hash, rows)
    return tuple(sorted(str(c) for c in properties_to_constraints(constraints_to_properties(constraints))))


_OPTION_SPLIT = re.compile(r"\s+or\s+|;\s+", re.IGNORECASE)


def _split_parentheses(content: str) -> tuple[str, list[str]]:
    """(the text outside any parenthesis, the text of each top-level parenthesis)."""
    depth = 0
    flat: list[str] = []
    inner: list[str] = []
    groups: list[str] = []
    for char in content:
        if char == "(":
            depth += 1
            if depth == 1:
                inner = []
                continue
        elif char == ")" and depth:
            depth -= 1
            if depth == 0:
                groups.append("".join(inner))
                continue
        if depth == 0:
            flat.append(char)
        else:
            inner.append(char)
    return "".join(flat), groups


def treatment_options(content: str) -> list[str]:
    """Options of an action box: its text split on top-level " or " (parenthesised footnotes removed)."""
    text = normalise_content(_split_parentheses(content)[0])
    options = [normalise_content(o).strip(" ,.;:") for o in _OPTION_SPLIT.split(text)]
    return [o for o in options if o]


# A footnote that lists what an option stands for: "(Options include irinotecan with temozolomide, …)",
# "(Donor options: matched sibling, …)", "(… products include tisagenlecleucel and …)".
_LIST_CUE = re.compile(r"\b(?:includes?|including|such as|e\.g\.,?|for example)\s+|^[^:]{0,40}\boptions?:\s*",
                       re.IGNORECASE)
# where the list ends: a clause after it ("…, followed by grafting") is not one of its items
_LIST_END = re.compile(r",?\s+(?:followed by|then|given|before|after|usually|typically)\b|[;.]\s", re.IGNORECASE)
_ITEM_SPLIT = re.compile(r",\s*(?:or\s+|and\s+)?|\s+or\s+|\s+and\s+", re.IGNORECASE)


# A list of alternatives with no cue: "IDH1 inhibitor or pazopanib", "…: imatinib, dasatinib, nilotinib or
# ponatinib." Items are short names (no article, no number standing alone); anything longer is a sentence.
_ALTERNATIVE_SPLIT = re.compile(r",\s*(?:or\s+)?|\s+or\s+", re.IGNORECASE)
_NAME_WORD = r"(?!(?:a|an|the|both|either|other|more|less)\b)[A-Za-z][\w\-/]*"
_ALTERNATIVE_ITEM = re.compile(rf"{_NAME_WORD}(?:\s+{_NAME_WORD}){{0,2}}", re.IGNORECASE)


def _alternatives(group: str) -> list[str]:
    """The items of a parenthesised list of alternatives: the whole group, or the part after a colon ("TKIs
    used with or after chemotherapy: imatinib, dasatinib or ponatinib."), joined by commas and a final "or",
    each item of one to three words; [] for anything else (a sentence, a range, "cytarabine or both")."""
    listed = group.split(":", 1)[1] if ":" in group else group
    listed = listed.strip().rstrip(".").strip()
    if not re.search(r"\sor\s", listed) or re.search(r"\s(?:and|with|plus)\s|[;+]", listed):
        return []
    items = [item.strip() for item in _ALTERNATIVE_SPLIT.split(listed)]
    if len(items) < 2 or not all(_ALTERNATIVE_ITEM.fullmatch(item) for item in items):
        return []
    return items


def option_details(content: str) -> list[str]:
    """The treatments an action box lists for its options in parentheses (its own or its footnotes'), e.g.
    "irinotecan with temozolomide" of "second-line chemotherapy (Options include irinotecan with
    temozolomide, …)" or "pazopanib" of "targeted therapy (IDH1 inhibitor or pazopanib)": each item of a
    parenthesised list introduced by "include", "such as", "e.g." or "options:", or of a short list of
    alternatives joined by "or". A question naming one of them asks about that option, though the box's own
    options do not name it."""
    details: list[str] = []
    for group in _split_parentheses(content)[1]:
        cue = _LIST_CUE.search(group)
        if cue is not None:
            listed = group[cue.end():]
            end = _LIST_END.search(listed)
            items = _ITEM_SPLIT.split(listed[:end.start()] if end else listed)
        else:
            items = _alternatives(group)
        for item in items:
            item = normalise_content(item).strip(" ,.;:")
            if item and item.casefold() not in {d.casefold() for d in details}:
                details.append(item)
    return details

