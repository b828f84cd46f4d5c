"""Regressions of the rule-based scan reader (``dkg.parsing.raster``) found on the real scans."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from dkg.parsing.raster import _bold_heads

DATA = Path(__file__).parent / "data"


def test_bold_connector_heads_do_not_index_past_the_padding() -> None:
    # the opened ink of a bold connector on the 150 dpi scan of real page smog-41: the even-sized opening of
    # _bold_heads reached past the padded mask and raised ``IndexError: index 503 is out of bounds``
    blob = np.load(DATA / "scan_bold_connector_blob.npz")["blob"]
    heads = _bold_heads(blob, 1878, 1521, 0.24, 0.24)
    for head in heads:
        assert head.filled
        assert 1878 * 0.24 - 10 <= head.bbox.x0 <= head.bbox.x1 <= (1878 + blob.shape[1]) * 0.24 + 10
