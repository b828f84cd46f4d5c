"""Objects shared by the CLI modules: the root app, sub-groups, console and error handling."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

import typer
from rich.console import Console
from rich.markup import escape
from rich.text import Text

from dkg import MEDICAL_DISCLAIMER
from dkg.errors import DKGError

console = Console()
err_console = Console(stderr=True)

app = typer.Typer(
    name="dkg",
    help=f"Decision Knowledge Graph platform for clinical practice guidelines.\n\n{MEDICAL_DISCLAIMER}",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
eval_app = typer.Typer(help="Evaluate a stage against gold data (parser, constraints, QA, retrieval).",
                       no_args_is_help=True)
app.add_typer(eval_app, name="eval")

F = TypeVar("F", bound=Callable[..., Any])


def friendly_errors(func: F) -> F:
    """Turn the platform's own errors into a one-line message and exit code 1 (no traceback)."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except DKGError as exc:
            err_console.print(f"[bold red]error:[/] {escape(str(exc))}", highlight=False, soft_wrap=True)
            raise typer.Exit(code=1) from None

    return wrapper  # type: ignore[return-value]


def cell(value: object) -> Text:
    """A table cell that shows ``value`` verbatim: user, graph and query text is never read as rich markup."""
    return Text(str(value))


def echo(message: str) -> None:
    """Print a progress or status line verbatim (no rich markup, no highlighting, no line breaks added: JSON
    printed with it stays JSON on a narrow terminal)."""
    console.print(message, markup=False, highlight=False, soft_wrap=True)
