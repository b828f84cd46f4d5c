"""The gate a model update must pass before it is served (issue #19 item 4).

The served model and the candidate answer the same two dev sets through the QA service (beams, grounding, plan
check, the rule layer's repair): a seeded sample of CPG-QA's dev split (the old guidelines; drawn from the dev
questions the update did not early-stop on) and every dev question generated for the new guidelines. The
candidate is installed only when its CPG-QA answered accuracy does not drop (by more than
``GateSettings.max_old_drop``, 0 by default) and the new guidelines' generated dev improves: a higher answered
accuracy, or the same answered accuracy and higher accuracy of the model's own beams (the repair answers many
questions the beams miss, so answered accuracy alone often ties). Otherwise the served model stays and the
reason names the figures.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from dkg.config import Settings
from dkg.graph.db import Graph
from dkg.qa.dataset import QAItem

Progress = Callable[[str], None]


@dataclass(frozen=True)
class GateSettings:
    """What the gate scores and how much the old guidelines may lose."""

    old_dev_sample: int = 300      # CPG-QA dev questions scored (seeded sample; 0 = all 1,658)
    old_dev_skip: int = 300        # the first dev questions are the update's early-stopping set: not gated on
    max_old_drop: float = 0.0      # CPG-QA dev answered accuracy may not drop more than this
    # False: a curator who serves a candidate that only keeps the new guidelines' figures (a model trained
    # elsewhere, or a test's tiny one); the old guidelines' check still applies
    require_new_gain: bool = True
    seed: int = 29

    def __post_init__(self) -> None:
        if self.old_dev_sample < 0 or self.old_dev_skip < 0 or not 0.0 <= self.max_old_drop < 1.0:
            raise ValueError(f"invalid gate settings {self}: counts >= 0, max_old_drop in [0, 1)")


class DevScore(BaseModel):
    """One model's figures on one dev set."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    accuracy: float = Field(ge=0.0, le=1.0, description="answered correctly by the service")
    beams: float = Field(ge=0.0, le=1.0, description="answered correctly from the model's own beams")
    n: int = Field(ge=0)


class GateScores(BaseModel):
    """A model's figures on the gate's two dev sets."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    old_dev: DevScore
    new_dev: DevScore


class GateDecision(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    install: bool
    reason: str
    served: GateScores
    candidate: GateScores

    def scores(self) -> dict[str, Any]:
        return {"served": self.served.model_dump(), "candidate": self.candidate.model_dump()}


def _figure(score: DevScore) -> str:
    return f"{score.accuracy:.3f} (beams {score.beams:.3f}, n {score.n})"


def decide(served: GateScores, candidate: GateScores, config: GateSettings | None = None) -> GateDecision:
    """Install the candidate only if the old guidelines do not drop and the new ones improve."""
    config = config or GateSettings()
    old_s, old_c, new_s, new_c = served.old_dev, candidate.old_dev, served.new_dev, candidate.new_dev
    figures = (f"CPG-QA dev {_figure(old_s)} -> {_figure(old_c)}; generated dev {_figure(new_s)} -> "
               f"{_figure(new_c)}")
    if new_c.n == 0:
        return GateDecision(install=False, served=served, candidate=candidate,
                            reason=f"kept the served model: no generated dev questions to show an improvement "
                                   f"({figures})")
    if old_c.accuracy < old_s.accuracy - config.max_old_drop - 1e-9:
        return GateDecision(install=False, served=served, candidate=candidate,
                            reason=f"kept the served model: the candidate drops the old guidelines ({figures})")
    improves = new_c.accuracy > new_s.accuracy + 1e-9 or (
        abs(new_c.accuracy - new_s.accuracy) <= 1e-9 and new_c.beams > new_s.beams + 1e-9)
    if not improves and config.require_new_gain:
        return GateDecision(install=False, served=served, candidate=candidate,
                            reason=f"kept the served model: the candidate does not improve the new guidelines "
                                   f"({figures})")
    gain = "the new ones improve" if improves else "the new ones are not required to improve"
    return GateDecision(install=True, served=served, candidate=candidate,
                        reason=f"installed: the old guidelines hold and {gain} ({figures})")


def gate_sets(old: Sequence[QAItem], new: Sequence[QAItem], config: GateSettings | None = None
              ) -> tuple[list[QAItem], list[QAItem]]:
    """(CPG-QA dev sample, generated dev questions) the gate scores."""
    config = config or GateSettings()
    old_dev = [i for i in old if i.split == "dev"][config.old_dev_skip:]
    if config.old_dev_sample and config.old_dev_sample < len(old_dev):
        old_dev = random.Random(config.seed).sample(old_dev, config.old_dev_sample)
    return old_dev, [i for i in new if i.split == "dev"]


def score_model(settings: Settings, model_dir: Path, items: Sequence[QAItem], versions: dict[str, str],
                on_progress: Progress | None = None, graph: Graph | None = None) -> DevScore:
    """A model's answered and beams-only accuracy on ``items`` through the QA service."""
    from dkg.qa.evaluate import run_with_dkg, summarise
    from dkg.qa.service import TextToCypherService

    if not items:
        return DevScore(accuracy=0.0, beams=0.0, n=0)
    with TextToCypherService(settings, graph=graph, model_dir=model_dir, versions=versions) as service:
        rows = run_with_dkg(service, list(items), on_progress or (lambda _m: None))
    got = summarise(rows)
    return DevScore(accuracy=round(got["accuracy"], 4), beams=round(got["accuracy_beams_only"], 4), n=len(rows))


def evaluate_gate(settings: Settings, served: Path, candidate: Path, old: Sequence[QAItem], new: Sequence[QAItem],
                  versions: dict[str, str], config: GateSettings | None = None,
                  on_progress: Progress | None = None, graph: Graph | None = None) -> GateDecision:
    """Score both models on the gate's dev sets and decide."""
    say = on_progress or (lambda _m: None)
    old_dev, new_dev = gate_sets(old, new, config)
    scores = {}
    for label, folder in (("served", served), ("candidate", candidate)):
        say(f"gate: scoring the {label} model {folder} on {len(old_dev)} CPG-QA and {len(new_dev)} generated dev "
            "questions")
        scores[label] = GateScores(old_dev=score_model(settings, folder, old_dev, versions, say, graph),
                                   new_dev=score_model(settings, folder, new_dev, versions, say, graph))
    return decide(scores["served"], scores["candidate"], config)
