"""Shared fixtures: the small fixture guideline and cached renders (rendering once per session)."""

from __future__ import annotations

import copy
import io
from pathlib import Path
from typing import Any

import pdfplumber
import pytest
import yaml

from dkg.corpus.layout import PageLayout
from dkg.corpus.model import Guideline, load_guideline
from dkg.corpus.render import render_pdf

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "guidelines"
FIXTURE_SOURCE = FIXTURES / "FIX" / "1.2026.yaml"


@pytest.fixture(scope="session")
def fixture_raw() -> dict[str, Any]:
    return yaml.safe_load(FIXTURE_SOURCE.read_text(encoding="utf-8"))


@pytest.fixture
def raw(fixture_raw: dict[str, Any]) -> dict[str, Any]:
    """A fresh, mutable copy of the fixture source for building broken inputs."""
    return copy.deepcopy(fixture_raw)


@pytest.fixture(scope="session")
def fixture_guideline() -> Guideline:
    return load_guideline(FIXTURE_SOURCE)


class Rendered:
    def __init__(self, guideline: Guideline) -> None:
        self.guideline = guideline
        self.pdf, self.layouts = render_pdf(guideline)
        with pdfplumber.open(io.BytesIO(self.pdf)) as pdf:
            self.chars = [list(page.chars) for page in pdf.pages]
            self.sizes = [(float(page.width), float(page.height)) for page in pdf.pages]
            self.text = [page.extract_text() or "" for page in pdf.pages]
            self.annots = [list(page.annots) for page in pdf.pages]
        self.layouts_list: list[PageLayout] = self.layouts


@pytest.fixture(scope="session")
def rendered_fixture(fixture_guideline: Guideline) -> Rendered:
    return Rendered(fixture_guideline)
