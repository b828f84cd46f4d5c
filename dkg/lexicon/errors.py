"""Errors of the clinical-language lexicon."""

from __future__ import annotations

from dkg.errors import DKGError


class LexiconError(DKGError):
    """A lexicon data file is missing or invalid (the message names the file, the entry and what is allowed)."""
