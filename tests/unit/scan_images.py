"""Drawn test pages made to look scanned: sensor noise and JPEG artefacts, reproducible by seed."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(frozen=True)
class DrawingScale:
    """Points → pixels for a test page drawn at ``dpi``, and blank pages of that scale."""

    dpi: float

    @property
    def ppt(self) -> float:
        """Pixels per PDF point."""
        return self.dpi / 72

    def px(self, points: float) -> int:
        return int(round(points * self.ppt))

    def blank(self, width_pt: float, height_pt: float, grey: int = 250) -> np.ndarray:
        """An 8-bit greyscale page of ``width_pt`` × ``height_pt`` points filled with ``grey``."""
        return np.full((self.px(height_pt), self.px(width_pt)), grey, np.uint8)


def as_scanned(img: np.ndarray, *, seed: int, noise_sd: float, jpeg_quality: int = 60) -> np.ndarray:
    """``img`` (8-bit greyscale) with Gaussian noise of ``noise_sd`` grey levels, saved and read back as JPEG."""
    rng = np.random.default_rng(seed)
    noisy = np.clip(img.astype(np.int16) + rng.normal(0, noise_sd, img.shape), 0, 255).astype(np.uint8)
    ok, data = cv2.imencode(".jpg", noisy, [cv2.IMWRITE_JPEG_QUALITY, jpeg_quality])
    assert ok, "OpenCV could not encode the test page as JPEG"
    return cv2.imdecode(data, cv2.IMREAD_GRAYSCALE)
