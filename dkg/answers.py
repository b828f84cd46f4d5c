"""The one result type every answering route returns (text-to-Cypher, GRAG, hybrid), so the CLI,
the API and the evaluation treat them alike."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from dkg import MEDICAL_DISCLAIMER

Route = Literal["text2cypher", "grag", "hybrid", "none"]


class Evidence(BaseModel):
    """One graph node (or knowledge section) that supports an answer, with where it comes from."""

    node_uid: str
    content: str
    kind: str = Field(description="Decision, Action, Treatment, Section, ...")
    guideline: str | None = None
    version: str | None = None
    pages: list[str] = Field(default_factory=list)
    page_titles: list[str] = Field(default_factory=list, description="the flowchart title printed on each of "
                                   "``pages`` ('' where none was read; onboarded guidelines)")
    source_url: str | None = None
    score: float | None = None
    seed_uid: str | None = Field(default=None, description="GRAG: the seed node this result was reached from")
    hop: int | None = Field(default=None, description="GRAG: hops from the seed")
    path: list[str] = Field(default_factory=list, description="node uids from the guideline root to this node")
    field_contributions: dict[str, float] = Field(default_factory=dict)
    reason: str | None = Field(default=None, description="GRAG: why the question's understanding ranked it "
                                                          "(the disease or the sub-query it answers)")


class MissingFact(BaseModel):
    """A patient fact the next decision needs and the question does not state, with the values it can take."""

    key: str
    description: str
    allowed: list[str] = Field(description="the values or ranges the next decision distinguishes")


class Answer(BaseModel):
    """An answer (or a reasoned refusal) with its route, query and evidence."""

    question: str
    route: Route
    answer: str = Field(description="Human-readable answer; empty when no_answer_reason is set")
    no_answer_reason: str | None = None
    cypher: str | None = None
    cypher_params: dict[str, Any] = Field(default_factory=dict)
    rows: list[dict[str, Any]] = Field(default_factory=list)
    matched_nodes: list[str] = Field(default_factory=list, description="uids of the answer node(s)")
    evidence: list[Evidence] = Field(default_factory=list)
    timings_ms: dict[str, float] = Field(default_factory=dict)
    missing_facts: list[MissingFact] = Field(
        default_factory=list, description="facts the next decision needs that the question does not state")
    disclaimer: str = MEDICAL_DISCLAIMER

    @property
    def answered(self) -> bool:
        return self.no_answer_reason is None
