"""How tesseract is run (dkg/services/tesseract.py, dkg/parsing/scan/text.py): its processes' OpenMP threads and
several processes at once, the images' readings kept in order. bench/scan_speed_bench.py measures the speed."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from dkg.config import get_settings
from dkg.parsing.scan import text
from dkg.services import tesseract


@pytest.fixture
def settings_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    monkeypatch.setattr(tesseract, "tesseract_path", lambda: "/usr/bin/tesseract")
    yield monkeypatch
    get_settings.cache_clear()


@pytest.mark.parametrize(("threads", "limit"), [(None, "1"), ("2", "2"), ("0", None)])
def test_tesseract_processes_get_the_openmp_thread_limit(settings_env: pytest.MonkeyPatch, threads: str | None,
                                                         limit: str | None) -> None:
    settings_env.delenv("OMP_THREAD_LIMIT", raising=False)
    if threads is None:
        settings_env.delenv("DKG_TESSERACT_THREADS", raising=False)
    else:
        settings_env.setenv("DKG_TESSERACT_THREADS", threads)
    get_settings.cache_clear()
    module = tesseract.configured_pytesseract()
    assert module.pytesseract.environ.get("OMP_THREAD_LIMIT") == limit
    assert module.pytesseract.tesseract_cmd == "/usr/bin/tesseract"
    assert "PATH" in module.pytesseract.environ  # the rest of the environment is passed on


def test_images_are_read_at_once_and_their_readings_kept_in_order(settings_env: pytest.MonkeyPatch) -> None:
    settings_env.setenv("DKG_TESSERACT_PROCESSES", "3")
    get_settings.cache_clear()
    running: list[int] = []
    most = [0]
    lock = threading.Lock()

    def read(image: np.ndarray, psm: int, timeout_s: float) -> dict[str, list[Any]]:
        with lock:
            running.append(1)
            most[0] = max(most[0], len(running))
        time.sleep(0.05 * (4 - int(image[0, 0])))  # the first image finishes last
        with lock:
            running.pop()
        return {"text": [str(int(image[0, 0]))], "psm": [psm]}

    settings_env.setattr(text, "_image_to_data", read)
    images = [np.full((2, 2), n, dtype=np.uint8) for n in range(4)]
    assert [d["text"] for d in text._images_to_data(images, 6, 5.0)] == [["0"], ["1"], ["2"], ["3"]]
    assert most[0] == 3  # never more than the setting, and more than one at a time

    settings_env.setenv("DKG_TESSERACT_PROCESSES", "1")
    get_settings.cache_clear()
    most[0] = 0
    assert [d["text"] for d in text._images_to_data(images, 6, 5.0)] == [["0"], ["1"], ["2"], ["3"]]
    assert most[0] == 1
