"""Bad files give UnreadablePDFError or page warnings, never another exception."""

from __future__ import annotations

import io
import random
from pathlib import Path

import pypdf
import pytest

from dkg.errors import ParseError
from dkg.parsing import UnreadablePDFError, parse_page_range, parse_pdf


def write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_non_pdf_and_empty_and_missing(tmp_path: Path) -> None:
    with pytest.raises(UnreadablePDFError, match="not a PDF"):
        parse_pdf(write(tmp_path, "notes.pdf", b"hello, not a pdf\n"))
    with pytest.raises(UnreadablePDFError, match="empty"):
        parse_pdf(write(tmp_path, "empty.pdf", b""))
    with pytest.raises(UnreadablePDFError, match="does not exist"):
        parse_pdf(tmp_path / "missing.pdf")


def test_encrypted_pdf_names_the_problem(tmp_path: Path) -> None:
    writer = pypdf.PdfWriter()
    writer.add_blank_page(612, 792)
    writer.encrypt("secret")
    buffer = io.BytesIO()
    writer.write(buffer)
    with pytest.raises(UnreadablePDFError, match="encrypted"):
        parse_pdf(write(tmp_path, "locked.pdf", buffer.getvalue()))


def test_zero_page_pdf(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    pypdf.PdfWriter().write(buffer)
    with pytest.raises(UnreadablePDFError, match="no pages"):
        parse_pdf(write(tmp_path, "zero.pdf", buffer.getvalue()))


def test_page_ranges() -> None:
    assert parse_page_range("3-5", 9) == [2, 3, 4]
    assert parse_page_range("1,4,6-7", 9) == [0, 3, 5, 6]
    assert parse_page_range(None, 2) == [0, 1]
    for bad in ("0", "5-3", "x", "8-12"):
        with pytest.raises(ParseError):
            parse_page_range(bad, 9)


def test_fuzzed_pdfs_never_raise_anything_else(fixtures: Path, tmp_path: Path) -> None:
    """Truncated and byte-flipped fixture PDFs: a ParseError or a (possibly empty) result, nothing else."""
    rng = random.Random(20261130)
    sources = [fixtures / "footnotes_links.pdf", fixtures / "shapes_diamond_rounded_banded.pdf"]
    outcomes = {"error": 0, "parsed": 0}
    for case in range(40):
        data = bytearray(sources[case % 2].read_bytes())
        if case % 2 == 0:
            data = data[: rng.randrange(20, len(data))]
        else:
            for _ in range(rng.randrange(1, 40)):
                data[rng.randrange(len(data))] = rng.randrange(256)
        path = write(tmp_path, f"fuzz{case}.pdf", bytes(data))
        try:
            result = parse_pdf(path, ocr="never")
        except ParseError as exc:
            assert str(exc)
            outcomes["error"] += 1
            continue
        outcomes["parsed"] += 1
        for edge in result.edges:
            assert edge.head and edge.tail
    assert outcomes["error"] > 0 and outcomes["parsed"] > 0
