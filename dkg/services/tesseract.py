"""The tesseract OCR binary: located with ``shutil.which``, run through pytesseract with a deadline."""

from __future__ import annotations

import os
import shutil
from functools import lru_cache
from types import ModuleType
from typing import Any

from dkg.config import get_settings
from dkg.errors import ServiceError

INSTALL_HINT = "install it with `apt-get install tesseract-ocr tesseract-ocr-eng` (Debian/Ubuntu)"


class TesseractNotFoundError(ServiceError):
    """The tesseract binary is not installed or not on PATH."""


@lru_cache(maxsize=1)
def tesseract_path() -> str:
    """Absolute path of the tesseract binary named by ``DKG_TESSERACT_CMD`` (default ``tesseract``)."""
    command = get_settings().tesseract_cmd
    found = shutil.which(command)
    if found is None:
        raise TesseractNotFoundError(f"tesseract binary {command!r} not found on PATH; {INSTALL_HINT}")
    return found


def configured_pytesseract() -> ModuleType:
    """pytesseract running this project's tesseract binary, each process limited to ``tesseract_threads``
    OpenMP threads. pytesseract has no option for its processes' environment; it passes its module's
    ``environ`` to every process it starts, so that is replaced by a copy of ours with ``OMP_THREAD_LIMIT`` set
    (tesseract's own advice when several run at once; measured in bench/results/parser.json)."""
    import pytesseract

    pytesseract.pytesseract.tesseract_cmd = tesseract_path()
    threads = get_settings().tesseract_threads
    environment = dict(os.environ)
    if threads > 0:
        environment["OMP_THREAD_LIMIT"] = str(threads)
    pytesseract.pytesseract.environ = environment
    return pytesseract


def ocr_hocr(image: Any, psm: int = 11, timeout_s: float = 120.0, lang: str = "eng",
             whitelist: str | None = None) -> str:
    """Run tesseract on a greyscale/RGB numpy image; return hOCR with per-character boxes.

    Raises :class:`ServiceError` when tesseract is missing, fails, or exceeds ``timeout_s``.
    """
    from PIL import Image

    pytesseract = configured_pytesseract()
    picture = Image.fromarray(image)
    config = f"--psm {psm} -c hocr_char_boxes=1"
    if whitelist:
        config += f" -c tessedit_char_whitelist={whitelist}"
    try:
        data = pytesseract.image_to_pdf_or_hocr(picture, lang=lang, extension="hocr", config=config,
                                               timeout=timeout_s)
    except pytesseract.TesseractError as exc:  # a RuntimeError too: caught before the timeout below
        raise ServiceError(f"tesseract failed (status {exc.status}): {exc.message}; is the "
                           f"'{lang}' language pack installed? {INSTALL_HINT}") from exc
    except RuntimeError as exc:  # pytesseract signals its timeout as a bare RuntimeError
        raise ServiceError(f"tesseract did not finish within {timeout_s:.0f} s; try a lower --dpi") from exc
    return data.decode("utf-8", errors="replace") if isinstance(data, bytes) else str(data)
