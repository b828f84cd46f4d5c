"""The parsing modules' docstring examples run as tests (pure logic: no tesseract, no PDF)."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["doc_notes", "document", "evaluate", "geometry", "glyphs", "ocr_text", "raster", "strokes"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(f"dkg.parsing.{name}"))
    assert result.attempted > 0 and result.failed == 0, result
