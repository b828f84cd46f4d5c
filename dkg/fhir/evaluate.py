"""Evaluating an exported PlanDefinition on a patient's Bundle with ``fhirpathpy``: the walk the DKG's
next-step query makes (cypher/qa.cypher ``next_step``), over the plan's actions instead of the graph.

From each root, a transition is taken when every applicability condition on it and on the action it leads to
is true for the patient (a condition is true only on stated data). A path ends at a step action when its last
transition, or the decision in front of it, had a condition. Of the paths found, those assuming the fewest
unstated keys, then using the most stated ones, win; their end steps are the recommendation. When no path
ends, the keys of the conditions the patient's data does not state are the missing facts.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field

from dkg.fhir.codes import CodeMap
from dkg.fhir.errors import FhirError
from dkg.fhir.fhirpath import is_true, presence
from dkg.types import constraint_key
from dkg.vocabulary import VOCABULARY


@dataclass(frozen=True)
class Condition:
    key: str
    text: str
    expression: str | None


@dataclass(frozen=True)
class Transition:
    action_id: str
    title: str
    target: str
    conditions: tuple[Condition, ...]


@dataclass(frozen=True)
class PlanNode:
    action_id: str
    title: str
    kinds: frozenset[str]
    conditions: tuple[Condition, ...]  # what a path checks on the node (a question box: its contrast keys only)
    transitions: tuple[Transition, ...]
    treatments: tuple[str, ...]
    pages: tuple[str, ...]

    @property
    def is_step(self) -> bool:
        return "step" in self.kinds


def _conditions(action: dict[str, Any]) -> tuple[Condition, ...]:
    out = []
    for c in action.get("condition", []):
        if c.get("kind") != "applicability":
            continue
        expression = c.get("expression", {})
        text = str(expression.get("description", ""))
        out.append(Condition(constraint_key(text), text, expression.get("expression")))
    return tuple(out)


def _kinds(action: dict[str, Any]) -> frozenset[str]:
    return frozenset(c["code"] for cc in action.get("code", []) for c in cc.get("coding", []))


class PathHop(BaseModel):
    action_id: str
    title: str
    via: str = Field(description="title of the transition taken into this action ('' for the root)")
    satisfied: list[str] = Field(description="constraints checked on the way in, all true for the patient")


class StepResult(BaseModel):
    action_id: str
    title: str
    treatments: list[str]
    pages: list[str]
    path: list[PathHop]


class MissingFact(BaseModel):
    key: str
    description: str
    needed_by: list[str] = Field(description="the constraints that need it, as written in the plan")


class Evaluation(BaseModel):
    """The steps the patient's data leads to (the DKG's answer), or the facts that would lead further."""

    steps: list[StepResult]
    stated: list[str] = Field(description="constraint keys the patient's data states")
    known: int = 0
    unknown: int = 0
    missing: list[MissingFact] = Field(default_factory=list)
    paths_walked: int = 0


@dataclass
class _Walk:
    truth: Callable[[Condition], bool]
    stated: set[str]
    max_paths: int
    paths: int = 0
    ends: list[tuple[int, int, str, list[PathHop]]] = field(default_factory=list)
    blocked: dict[str, list[str]] = field(default_factory=dict)


class Plan:
    """An exported PlanDefinition ready to evaluate (FHIRPath compiled once, on first use)."""

    def __init__(self, plan: dict[str, Any], codes: CodeMap, *, max_paths: int = 200_000) -> None:
        if plan.get("resourceType") != "PlanDefinition":
            raise FhirError(f"expected a PlanDefinition, got {plan.get('resourceType')!r}")
        self.url = str(plan.get("url", ""))
        self.title = str(plan.get("title", ""))
        self.version = str(plan.get("version", ""))
        self.codes = codes
        self.max_paths = max_paths
        self.nodes: dict[str, PlanNode] = {}
        has_parent: set[str] = set()
        for action in plan.get("action", []):
            transitions, treatments = [], []
            for child in action.get("action", []):
                kinds = _kinds(child)
                if "transition" in kinds:
                    target = child["relatedAction"][0]["actionId"]
                    has_parent.add(target)
                    transitions.append(Transition(child["id"], str(child.get("title", "")), target, _conditions(child)))
                elif "treatment" in kinds:
                    treatments.append(str(child.get("title", "")))
            pages = tuple(str(d.get("label", "")) for d in action.get("documentation", []))
            text = str(action.get("textEquivalent", action.get("title", "")))
            self.nodes[action["id"]] = PlanNode(action["id"], text, _kinds(action), _conditions(action),
                                                tuple(transitions), tuple(treatments), pages)
        self.roots = [a for a in self.nodes if a not in has_parent]
        self.keys = sorted({c.key for n in self.nodes.values() for c in n.conditions}
                           | {c.key for n in self.nodes.values() for t in n.transitions for c in t.conditions})

    @classmethod
    def from_bundle(cls, bundle: dict[str, Any], codes: CodeMap, **kwargs: Any) -> Plan:
        plans = [e["resource"] for e in bundle.get("entry", [])
                 if e["resource"].get("resourceType") == "PlanDefinition"]
        if len(plans) != 1:
            raise FhirError(f"expected one PlanDefinition in the bundle, found {len(plans)}")
        return cls(plans[0], codes, **kwargs)

    def _true(self, expression: str, patient: dict[str, Any]) -> bool:
        return is_true(expression, patient)

    def stated_keys(self, patient: dict[str, Any]) -> set[str]:
        """The plan's constraint keys the patient's Bundle states."""
        out = set()
        for key in self.keys:
            entry = self.codes.key(key)
            if entry is not None and (entry.source == "birthDate" or entry.code is not None) and \
                    self._true(presence(entry), patient):
                out.add(key)
        return out

    def evaluate(self, patient: dict[str, Any]) -> Evaluation:
        """The recommendation for the patient's Bundle (Patient + Observations)."""
        if patient.get("resourceType") != "Bundle":
            raise FhirError("the patient's data must be a Bundle of Patient and Observation resources")
        memo: dict[Condition, bool] = {}

        def truth(c: Condition) -> bool:
            if c not in memo:
                memo[c] = c.expression is not None and self._true(c.expression, patient)
            return memo[c]

        walk = _Walk(truth, self.stated_keys(patient), self.max_paths)
        for root in self.roots:
            node = self.nodes[root]
            self._walk(walk, node, [c.key for c in node.conditions],
                       [PathHop(action_id=root, title=node.title, via="", satisfied=[])], set())
        stated = sorted(walk.stated)
        if not walk.ends:
            missing = [MissingFact(key=k, description=VOCABULARY[k].description if k in VOCABULARY else k,
                                   needed_by=sorted(set(texts)))
                       for k, texts in sorted(walk.blocked.items())]
            return Evaluation(steps=[], stated=stated, missing=missing, paths_walked=walk.paths)
        best = min((u, -k) for u, k, _, _ in walk.ends)
        steps: dict[str, StepResult] = {}
        for unknown, known, target, path in walk.ends:
            if (unknown, -known) == best and target not in steps:
                node = self.nodes[target]
                steps[target] = StepResult(action_id=target, title=node.title, treatments=list(node.treatments),
                                           pages=list(node.pages), path=path)
        return Evaluation(steps=list(steps.values()), stated=stated, known=-best[1], unknown=best[0],
                          paths_walked=walk.paths)

    def _walk(self, walk: _Walk, node: PlanNode, keys: list[str], path: list[PathHop], used: set[str]) -> None:
        for t in node.transitions:
            if t.action_id in used:
                continue
            target = self.nodes[t.target]
            conditions = t.conditions + target.conditions
            if not all(walk.truth(c) for c in conditions):
                unstated = [c for c in conditions if c.key not in walk.stated]
                if unstated and all(walk.truth(c) for c in conditions if c.key in walk.stated):
                    for c in unstated:
                        walk.blocked.setdefault(c.key, []).append(c.text)
                continue
            walk.paths += 1
            if walk.paths > walk.max_paths:
                raise FhirError(f"the plan has more than {walk.max_paths} paths for this patient "
                                "(DKG_FHIR_MAX_PATHS); is the pathway cyclic?")
            hop = PathHop(action_id=target.action_id, title=target.title, via=t.title,
                          satisfied=[c.text for c in conditions])
            next_keys = keys + [c.key for c in t.conditions] + [c.key for c in target.conditions]
            if target.is_step:
                last = t.conditions or node.conditions
                if last and all(c.key in walk.stated for c in last):
                    ks = set(next_keys)
                    walk.ends.append((len(ks - walk.stated), len(ks & walk.stated), target.action_id, path + [hop]))
            self._walk(walk, target, next_keys, path + [hop], used | {t.action_id})
