"""Stage 1: guideline flowchart PDFs (born-digital or scanned) → head–tail edges."""

from dkg.parsing.document import parse_page_range, parse_pdf
from dkg.parsing.models import (
    Box,
    Connector,
    HeadTailEdge,
    OCRMode,
    PageIssue,
    ParsedPage,
    ParseResult,
    UnreadablePDFError,
)

__all__ = [
    "Box", "Connector", "HeadTailEdge", "OCRMode", "PageIssue", "ParseResult", "ParsedPage",
    "UnreadablePDFError", "parse_page_range", "parse_pdf",
]
