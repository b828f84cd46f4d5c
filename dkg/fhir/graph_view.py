"""One guideline version read from the graph for the FHIR export: nodes with their typed constraint properties
and treatments, arrows with theirs (queries in cypher/fhir.cypher)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, model_validator

from dkg.fhir.errors import UnknownGuidelineVersionError
from dkg.graph.db import Graph, named_queries
from dkg.graph.model import constraint_property_names
from dkg.types import EffectivePeriod

_TYPED = frozenset(constraint_property_names())


def _typed(props: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in props.items() if k in _TYPED and v is not None}


class VersionInfo(BaseModel):
    model_config = ConfigDict(frozen=True)

    guideline: str
    version: str
    title: str
    source_sha: str | None = None
    effective: EffectivePeriod | None = None

    @model_validator(mode="before")
    @classmethod
    def _period_from_row(cls, data: Any) -> Any:
        """A graph row carries the period as ``effective_start`` / ``effective_end`` (ISO dates or null)."""
        if isinstance(data, dict) and "effective_start" in data:
            data = dict(data)
            data["effective"] = EffectivePeriod.of_row(data.pop("effective_start"), data.pop("effective_end", None))
        return data


class Treatment(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    display: str


class NodeRecord(BaseModel):
    model_config = ConfigDict(frozen=True)

    uid: str
    key: str
    content: str
    pages: list[str]
    constraints: list[str]
    decision: bool
    options: list[str]
    treatments: list[Treatment]
    typed: dict[str, Any]
    # a question box's keys that boxes beside it differ on and its arrows do not branch: checked on the box itself
    contrast_keys: list[str] = []

    @property
    def question(self) -> bool:
        """A question box states the condition of its YES arrow; its arrows carry the branch conditions."""
        return self.content.endswith("?")


class EdgeRecord(BaseModel):
    model_config = ConfigDict(frozen=True)

    head: str
    tail: str
    label: str
    constraints: list[str]
    typed: dict[str, Any]


class VersionView(BaseModel):
    model_config = ConfigDict(frozen=True)

    info: VersionInfo
    nodes: list[NodeRecord]
    edges: list[EdgeRecord]


def loaded_versions(graph: Graph) -> list[VersionInfo]:
    """Every guideline version loaded in the graph, by guideline then version."""
    return [VersionInfo.model_validate(r) for r in graph.read(named_queries("fhir")["versions"])]


def read_version(graph: Graph, guideline: str, version: str) -> VersionView:
    """The nodes and arrows of one version; :class:`UnknownGuidelineVersionError` names the loaded versions."""
    q = named_queries("fhir")
    params = {"guideline": guideline, "version": version}
    rows = graph.read(q["version"], params)
    if not rows:
        known = ", ".join(f"{v.guideline} {v.version}" for v in loaded_versions(graph)) or "none"
        raise UnknownGuidelineVersionError(f"guideline {guideline!r} version {version!r} is not loaded in the graph "
                                           f"(loaded: {known}); build it first with `dkg build`")
    nodes = [NodeRecord.model_validate({**r, "contrast_keys": list(r["props"].get("contrast_keys") or []),
                                        "typed": _typed(r.pop("props"))}) for r in graph.read(q["nodes"], params)]
    edges = [EdgeRecord.model_validate({**r, "typed": _typed(r.pop("props"))}) for r in graph.read(q["edges"], params)]
    return VersionView(info=VersionInfo.model_validate(rows[0]), nodes=nodes, edges=edges)
