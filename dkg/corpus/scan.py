"""Scanned variants: each PDF page rasterised, skewed, blurred and noised, saved as an image-only PDF."""

from __future__ import annotations

import hashlib
import io
from pathlib import Path

import numpy as np
from PIL import Image, ImageFilter

from dkg.errors import CorpusError

DEFAULT_DPI = 200
MAX_SKEW_DEGREES = 1.5


def _seed(name: str, page: int) -> int:
    return int.from_bytes(hashlib.sha256(f"{name}:{page}".encode()).digest()[:8], "big")


def degrade(image: Image.Image, seed: int) -> Image.Image:
    """Mild skew (≤1.5°), slight blur and noise, all drawn from ``seed`` (same seed, same pixels)."""
    rng = np.random.default_rng(seed)
    angle = float(rng.uniform(0.3, MAX_SKEW_DEGREES)) * (1 if rng.random() < 0.5 else -1)
    gray = image.convert("L")
    rotated = gray.rotate(angle, resample=Image.Resampling.BICUBIC, expand=False, fillcolor=255)
    blurred = rotated.filter(ImageFilter.GaussianBlur(radius=float(rng.uniform(0.5, 0.9))))
    pixels = np.asarray(blurred, dtype=np.float32)
    noisy = pixels + rng.normal(0.0, 6.0, size=pixels.shape).astype(np.float32)
    # A faint uneven "paper" tone, as flatbed scans have.
    tone = np.linspace(0.0, float(rng.uniform(4.0, 12.0)), pixels.shape[1], dtype=np.float32)
    noisy -= tone[np.newaxis, :]
    return Image.fromarray(np.clip(noisy, 0, 255).astype(np.uint8), mode="L")


def scan_pdf(pdf_bytes: bytes, name: str, dpi: int = DEFAULT_DPI) -> bytes:
    """An image-only PDF of every page of ``pdf_bytes`` rendered at ``dpi`` and degraded like a scan."""
    if not 150 <= dpi <= 400:
        raise CorpusError(f"scan dpi {dpi} is outside 150–400; use 200–300 for realistic scans")
    import pypdfium2 as pdfium  # heavy; only needed here

    document = pdfium.PdfDocument(pdf_bytes)
    try:
        pages: list[Image.Image] = []
        for index in range(len(document)):
            page = document[index]
            try:
                bitmap = page.render(scale=dpi / 72.0, grayscale=True)
                pages.append(degrade(bitmap.to_pil(), _seed(name, index)))
            finally:
                page.close()
    finally:
        document.close()
    if not pages:
        raise CorpusError(f"{name}: the PDF has no pages to scan")
    out = io.BytesIO()
    pages[0].save(out, format="PDF", resolution=float(dpi), save_all=True, append_images=pages[1:],
                  quality=80, title=f"{name} (scanned)", producer="dkg corpus scan",
                  creationDate=None, modDate=None)
    return out.getvalue()


def write_scanned(pdf_path: Path, out_path: Path, dpi: int = DEFAULT_DPI) -> None:
    """Write the scanned variant of ``pdf_path`` to ``out_path`` (atomically)."""
    data = scan_pdf(pdf_path.read_bytes(), pdf_path.stem, dpi)
    tmp = out_path.with_suffix(".pdf.tmp")
    tmp.write_bytes(data)
    tmp.replace(out_path)
