"""Text read by OCR over a born-digital page's vector drawing: for a page whose text layer has no characters
(fonts embedded without a Unicode map), the boxes, lines and arrowheads stay the vector ones and the words come
from tesseract reading the rendered page (its own layout analysis, ``TextLayerSettings.ocr_psm``)."""

from __future__ import annotations

from typing import Any

from dkg.parsing.models import Token
from dkg.parsing.scan.settings import DEFAULT_SETTINGS as SCAN_SETTINGS
from dkg.parsing.scan.text import _image_to_data, words_to_tokens
from dkg.parsing.settings import DEFAULT_TEXT_LAYER_SETTINGS, TextLayerSettings


def ocr_text_tokens(gray: Any, width_pt: float, settings: TextLayerSettings = DEFAULT_TEXT_LAYER_SETTINGS
                    ) -> list[Token]:
    """The words of the rendered page ``gray`` (greyscale, ``width_pt`` points wide) as tokens in points, with
    the scan route's word cleaning and misread repairs (:func:`dkg.parsing.scan.text.words_to_tokens`).

    Raises :class:`~dkg.errors.ServiceError` when tesseract fails, and
    :class:`~dkg.services.tesseract.TesseractNotFoundError` when it is not installed."""
    scale = gray.shape[1] / width_pt
    data = _image_to_data(gray, settings.ocr_psm, SCAN_SETTINGS.ocr_timeout_s)
    return words_to_tokens(data, (0, 0), scale, SCAN_SETTINGS.min_box_conf, SCAN_SETTINGS, inner_bar_is_i=True)
