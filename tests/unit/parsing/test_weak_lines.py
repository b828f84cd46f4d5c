"""A box line tesseract reads with little confidence is read again from the crop divided by its background."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from dkg.parsing.scan import text
from dkg.parsing.scan.settings import ScanSettings

COLUMNS = ("text", "conf", "left", "top", "width", "height", "block_num", "par_num", "line_num")


def _data(*words: tuple[Any, ...]) -> dict[str, list[Any]]:
    return {column: [w[k] for w in words] for k, column in enumerate(COLUMNS)}


def test_a_weak_line_is_replaced_by_the_line_read_with_more_confidence_at_its_height() -> None:
    first = _data(("Atropine", 95, 0, 0, 40, 10, 1, 1, 1), ("DMA", 30, 0, 20, 20, 10, 1, 1, 2),
                  ("Deng)", 34, 25, 20, 20, 10, 1, 1, 2))
    second = _data(("Atropine", 96, 0, 0, 40, 10, 1, 1, 1), ("(MAX", 93, 0, 21, 20, 9, 1, 1, 2),
                   ("3mg)", 91, 24, 21, 20, 9, 1, 1, 2))
    out = text._replaced_weak_lines(first, second, 60.0)
    assert out["text"] == ["Atropine", "(MAX", "3mg)"]
    assert out["line_num"] == [1, 2, 2] and out["top"] == [0, 21, 21]


def test_a_second_reading_no_more_confident_or_of_two_lines_there_changes_nothing() -> None:
    first = _data(("Atropine", 95, 0, 0, 40, 10, 1, 1, 1), ("DMA", 30, 0, 20, 20, 10, 1, 1, 2))
    worse = _data(("DNA", 20, 0, 20, 20, 10, 1, 1, 1))
    assert text._replaced_weak_lines(first, worse, 60.0) == first
    # two lines of the second reading have their middles inside the weak line: no telling which it is
    two = _data(("(MAX", 93, 0, 20, 20, 4, 1, 1, 1), ("3mg)", 91, 0, 25, 20, 4, 1, 1, 2))
    assert text._replaced_weak_lines(first, two, 60.0) == first
    # a confident line is never read again
    sure = _data(("Atropine", 95, 0, 0, 40, 10, 1, 1, 1))
    assert text._replaced_weak_lines(sure, _data(("Atrapine", 99, 0, 0, 40, 10, 1, 1, 1)), 60.0) == sure


def test_only_crops_with_a_weak_line_are_read_again(monkeypatch: pytest.MonkeyPatch) -> None:
    crops = [np.full((20, 20), 200, np.uint8), np.full((20, 20), 150, np.uint8)]
    read = [_data(("Atropine", 95, 0, 0, 40, 10, 1, 1, 1)), _data(("DMA", 30, 0, 0, 20, 10, 1, 1, 1))]
    seen: list[int] = []

    def second_reading(images: list[np.ndarray], psm: int, timeout_s: float) -> list[dict[str, list[Any]]]:
        seen.append(len(images))
        assert int(images[0].min()) == 255  # the flat grey crop divided by its background is paper white
        return [_data(("(MAX", 93, 0, 1, 20, 9, 1, 1, 1))]

    monkeypatch.setattr(text, "_images_to_data", second_reading)
    out = text.with_weak_lines_reread(crops, read, ScanSettings(), 9)
    assert seen == [1] and out[0] == read[0] and out[1]["text"] == ["(MAX"]
    assert text.with_weak_lines_reread(crops, read, ScanSettings(weak_line_conf=0), 9) == read
