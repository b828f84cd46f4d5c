"""Every `dkg ...` command line shown in README.md and docs/*.md parses with the real command-line app
(options and arguments are checked, nothing is run), so the docs cannot drift from the CLI."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dkg.cli.main import app

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_FENCE = re.compile(r"^```.*?$(.*?)^```", re.MULTILINE | re.DOTALL)
_INLINE = re.compile(r"`((?:\.venv/bin/)?dkg [^`]+)`")
_COMMAND = re.compile(r"^(?:\$\s*)?(?:[A-Z_]+=\S+\s+)*(?:\S*/)?dkg\s+(?P<args>.*)$")


def _command_lines(text: str) -> list[str]:
    """The argument parts of the `dkg` command lines in a Markdown text (code blocks and inline code)."""
    lines: list[str] = []
    for block in _FENCE.findall(text):
        joined = re.sub(r"\\\n\s*", " ", block)  # shell line continuations
        lines += [m["args"] for line in joined.splitlines() if (m := _COMMAND.match(line.strip()))]
    lines += [m["args"] for span in _INLINE.findall(text) if (m := _COMMAND.match(span.strip()))]
    return lines


def _arguments(line: str) -> list[str]:
    """Shell words of a documented command line; ``[optional]`` brackets, pipes and redirections dropped,
    and ``a|b`` alternatives reduced to the first."""
    line = re.split(r"\s(?:\||>|&&|2>)\s", line)[0]
    words = [w.strip("[]") for w in shlex.split(line, comments=True)]
    return [w.split("|")[0] if w.startswith("--") or re.fullmatch(r"[a-z]+(\|[a-z]+)+", w) else w
            for w in words if w and w != "..."]


def _parse(args: list[str]) -> str:
    """Parse ``args`` with the real app, ``--help`` appended so nothing runs: the parser still refuses unknown
    commands and options (before ``--help`` acts); returns the problem, or "" when the line parses."""
    result = CliRunner().invoke(app, [*args, "--help"])
    if result.exit_code == 0 and "Usage" in result.output:
        return ""
    return result.output.strip() or repr(result.exception)


CASES = [(doc.relative_to(ROOT).as_posix(), line) for doc in DOCS for line in _command_lines(doc.read_text())]


def test_the_docs_show_command_lines() -> None:
    assert len(CASES) > 30
    assert any(line.startswith("build ") for _, line in CASES)


@pytest.mark.parametrize(("doc", "line"), CASES, ids=[f"{d}:{line[:50]}" for d, line in CASES])
def test_documented_command_lines_parse(doc: str, line: str) -> None:
    problem = _parse(_arguments(line))
    assert not problem, f"{doc}: `dkg {line}` does not parse:\n{problem}"


def test_a_wrong_option_is_caught() -> None:
    assert "No such option" in _parse(_arguments("build FILE.csv -g G -v V --load-csv"))
    assert "No such command" in _parse(_arguments("no-such-command x"))
    assert _parse(_arguments("build FILE.csv --guideline G --version V [--load-csv]")) == ""
