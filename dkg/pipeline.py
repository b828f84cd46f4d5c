"""Declarative builds: a pipeline file names a guideline version's PDF; running it parses the PDF,
extracts the constraints and loads the graph (one transaction per guideline version).

Intermediate files (head–tail CSV + sidecar, constrained CSV + JSON) and the parser's review pictures (one PNG
per parsed page, ``overlay/``) are kept under ``$DKG_HOME/pipelines/<guideline>-<version>/`` for inspection; the
web app's curator page shows the pictures of each built version.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from dkg.config import PROJECT_ROOT, Settings, get_settings
from dkg.errors import BuildError
from dkg.types import EffectivePeriod, GuidelineName, InvalidNameError, VersionName, path_under

PIPELINES_DIR = PROJECT_ROOT / "pipelines"
OVERLAY_FOLDER = "overlay"


class PipelineSpec(BaseModel):
    """One guideline version to build from its PDF."""

    model_config = ConfigDict(extra="forbid")

    guideline: GuidelineName
    version: VersionName
    title: str = ""
    pdf: Path
    pages: str | None = Field(default=None, description="e.g. '1-7'; all pages when absent")
    ocr: str = Field(default="auto", pattern="^(auto|always|never)$")
    effective: EffectivePeriod | None = Field(default=None, description="dates the version is in force")

    def pdf_path(self) -> Path:
        return self.pdf if self.pdf.is_absolute() else PROJECT_ROOT / self.pdf

    def work_dir(self, settings: Settings) -> Path:
        """The folder of this version's intermediate files, always inside ``$DKG_HOME/pipelines``."""
        try:
            return work_dir(settings, self.guideline, self.version)
        except InvalidNameError as exc:
            raise BuildError(f"{self.guideline} {self.version}: {exc}") from exc


def work_dir(settings: Settings, guideline: str, version: str) -> Path:
    """``$DKG_HOME/pipelines/<guideline>-<version>``; :class:`InvalidNameError` for a name leading elsewhere."""
    return path_under(settings.home / "pipelines", f"{guideline}-{version}")


def overlay_dir(settings: Settings, guideline: str, version: str) -> Path:
    """Where building ``guideline`` ``version`` from its pipeline file leaves the parser's review pictures."""
    return work_dir(settings, guideline, version) / OVERLAY_FOLDER


def load_pipeline(path: Path) -> PipelineSpec:
    """Read and validate a pipeline file."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise BuildError(f"cannot read pipeline {path}: {exc}") from exc
    except UnicodeDecodeError as exc:
        raise BuildError(f"{path} is not UTF-8 text (byte {exc.start}): save the pipeline as UTF-8 YAML") from exc
    except yaml.YAMLError as exc:
        raise BuildError(f"{path} is not valid YAML: {exc}") from exc
    if not isinstance(data, dict):
        raise BuildError(f"{path}: a pipeline is a mapping with guideline, version, pdf")
    try:
        return PipelineSpec(**data)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise BuildError(f"{path}: {problems}") from exc


def shipped_pipelines() -> list[Path]:
    return sorted(PIPELINES_DIR.glob("*.yaml"))


@dataclass(frozen=True)
class StageFiles:
    edges_csv: Path
    constrained_csv: Path
    constrained_json: Path
    overlay_dir: Path


def run_pipelines(specs: Sequence[PipelineSpec], *, force: bool = False,
                  echo: Callable[[str], None] = print, settings: Settings | None = None):  # type: ignore[no-untyped-def]
    """Parse every PDF, extract constraints (one CoreNLP server for all), build each version.

    Returns the builder's reports, one per guideline version.
    """
    from dkg.constraints.run import extract_file, open_extractor
    from dkg.graph.build_input import read_constrained_json
    from dkg.graph.builder import build
    from dkg.graph.db import open_graph
    from dkg.parsing import OCRMode, parse_pdf
    from dkg.parsing.output import write_csv, write_sidecar
    from dkg.parsing.overlay import write_overlays

    settings = settings or get_settings()
    files: list[StageFiles] = []
    for spec in specs:
        pdf = spec.pdf_path()
        if not pdf.is_file():
            raise BuildError(f"{spec.guideline} {spec.version}: no PDF at {pdf}; render the corpus first "
                             "(`dkg corpus render`) or fix `pdf:` in the pipeline file")
        work = spec.work_dir(settings)
        work.mkdir(parents=True, exist_ok=True)
        stage = StageFiles(work / "edges.csv", work / "constrained.csv", work / "constrained.json",
                           work / OVERLAY_FOLDER)
        echo(f"[{spec.guideline} {spec.version}] parsing {pdf.name}")
        result = parse_pdf(pdf, pages=spec.pages, ocr=OCRMode(spec.ocr))
        rows = write_csv(result, stage.edges_csv)
        write_sidecar(result, stage.edges_csv.with_suffix(".json"))
        echo(f"  {rows} edges from {len(result.pages)} page(s)"
             + (f"; {len(result.issues)} warning(s), e.g. side boxes without arrows (details in "
                f"{stage.edges_csv.with_suffix('.json')})" if result.issues else ""))
        if rows == 0:
            raise BuildError(f"{spec.guideline} {spec.version}: the parser found no arrows in {pdf}")
        pictures = write_overlays(result, stage.overlay_dir, prune=True)
        echo(f"  {len(pictures)} review picture(s) in {stage.overlay_dir}")
        files.append(stage)
    echo("extracting constraints (Stanford CoreNLP)")
    with open_extractor(settings) as extractor:
        for spec, stage in zip(specs, files, strict=True):
            extracted = extract_file(extractor, stage.edges_csv, stage.constrained_csv, stage.constrained_json)
            cells = sum(1 for r in extracted for c in (r.head_constraints, r.tail_constraints) if c)
            echo(f"  [{spec.guideline} {spec.version}] {cells} head/tail cells with constraints")
    reports = []
    with open_graph(settings) as graph:
        for spec, stage in zip(specs, files, strict=True):
            build_input = read_constrained_json(stage.constrained_json, spec.guideline, spec.version, spec.title,
                                                spec.effective)
            reports += build(graph, [build_input], force=force)
    return reports

