"""Every command and group answers --help."""

from __future__ import annotations

from typing import Any

import typer
from typer.testing import CliRunner

from dkg.cli.main import app


def _command_paths(command: Any, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    paths = [prefix]
    if hasattr(command, "commands"):
        for name, sub in command.commands.items():
            paths.extend(_command_paths(sub, (*prefix, name)))
    return paths


def test_every_command_has_help() -> None:
    root = typer.main.get_command(app)
    runner = CliRunner()
    paths = _command_paths(root)
    assert ("neo4j", "start") in paths
    for path in paths:
        result = runner.invoke(app, [*path, "--help"])
        assert result.exit_code == 0, (path, result.output)
        assert "Usage" in result.output
