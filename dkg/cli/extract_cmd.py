"""CLI commands of one stage (registered on import by dkg.cli.main)."""

from __future__ import annotations
