"""`echo` prints its text verbatim: JSON it prints (`dkg review list --json`) parses on a narrow terminal."""

from __future__ import annotations

import io
import json

from rich.console import Console

from dkg.cli import common


def test_a_long_json_line_is_not_broken_at_the_terminal_width(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    out = io.StringIO()
    monkeypatch.setattr(common, "console", Console(file=out, width=40))
    items = [{"item": "n1", "content": "Patient has a baseline period of stability on the ventilator " * 3}]
    common.echo(json.dumps(items, indent=2))
    assert json.loads(out.getvalue()) == items
