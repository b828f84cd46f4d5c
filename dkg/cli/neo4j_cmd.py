"""`dkg neo4j …`: manage the local Neo4j server (the embedded default)."""

from __future__ import annotations

import json

import typer

from dkg.cli.common import app, console, echo, friendly_errors
from dkg.config import get_settings
from dkg.errors import GraphUnavailableError
from dkg.graph.db import open_graph
from dkg.services.neo4j_server import LocalNeo4jServer

neo4j_app = typer.Typer(help="Manage the local Neo4j server (not used when DKG_NEO4J_URI is set).",
                        no_args_is_help=True)
app.add_typer(neo4j_app, name="neo4j")


def _external_notice() -> bool:
    settings = get_settings()
    if settings.uses_local_neo4j:
        return False
    echo(f"DKG_NEO4J_URI is set ({settings.neo4j_uri}): the platform uses that server and never starts "
         "or stops its own.")
    return True


@neo4j_app.command()
@friendly_errors
def start() -> None:
    """Start the local server (download Neo4j once), wait until Bolt answers. Harmless when already running."""
    if _external_notice():
        return
    status = LocalNeo4jServer(get_settings()).start()
    console.print(status.detail, style="green", markup=False, highlight=False)


@neo4j_app.command()
@friendly_errors
def stop() -> None:
    """Stop the local server gracefully (data is kept)."""
    if _external_notice():
        return
    echo(LocalNeo4jServer(get_settings()).stop())


@neo4j_app.command()
@friendly_errors
def status(as_json: bool = typer.Option(False, "--json", help="Print machine-readable status.")) -> None:
    """Tell whether the server runs and answers on Bolt (exit code 0 when it does, 3 when it does not)."""
    settings = get_settings()
    if not settings.uses_local_neo4j:
        try:
            with open_graph(settings):
                pass
            detail, ok = f"external server {settings.neo4j_uri} answers", True
        except GraphUnavailableError as exc:
            detail, ok = str(exc), False
        echo(json.dumps({"running": ok, "detail": detail}) if as_json else detail)
        raise typer.Exit(0 if ok else 3)
    current = LocalNeo4jServer(settings).status()
    echo(json.dumps(current.as_dict()) if as_json else current.detail)
    raise typer.Exit(0 if current.running and current.bolt_answers else 3)


@neo4j_app.command()
@friendly_errors
def logs(lines: int = typer.Option(50, "--lines", "-n", min=1, help="How many lines to show.")) -> None:
    """Show the end of the local server's log."""
    server = LocalNeo4jServer(get_settings())
    text = server.logs(lines)
    console.print(text if text else f"no log yet at {server.log_file}", markup=False, highlight=False)


@neo4j_app.command()
@friendly_errors
def install() -> None:
    """Download Neo4j from Maven Central into the cache and compile the launcher (no server start)."""
    server = LocalNeo4jServer(get_settings())
    server.install()
    echo(f"Neo4j {server.settings.neo4j_version} is installed in {server.install_dir}")


@neo4j_app.command()
@friendly_errors
def schema() -> None:
    """Apply the schema in cypher/schema*.cypher (idempotent)."""
    with open_graph() as graph:
        count = graph.apply_schema()
    console.print(f"schema applied ({count} statements)")


@app.command("install")
@friendly_errors
def install_all() -> None:
    """Download (once) every Java component from Maven Central: Neo4j and Stanford CoreNLP."""
    from dkg.services.corenlp import ensure_jars

    settings = get_settings()
    server = LocalNeo4jServer(settings)
    server.install()
    echo(f"Neo4j {settings.neo4j_version}: {server.install_dir}")
    echo(f"Stanford CoreNLP {settings.corenlp_version}: {ensure_jars(settings)}")
