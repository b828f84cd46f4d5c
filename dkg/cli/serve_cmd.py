"""`dkg serve`: the HTTP API and web app (uvicorn)."""

from __future__ import annotations

import typer

from dkg.cli.common import app, console, echo, friendly_errors


@app.command("serve")
@friendly_errors
def serve_cmd(
    host: str = typer.Option("127.0.0.1", "--host", help="Interface to listen on (loopback by default)."),
    port: int = typer.Option(8000, "--port", min=1, max=65535, help="TCP port."),
    log_level: str = typer.Option("info", "--log-level", help="uvicorn log level: debug, info, warning, error."),
) -> None:
    """Serve the API (OpenAPI at /docs) and the web app (/clinician, /curator, /researcher).

    Curator tokens come from DKG_API_CURATOR_TOKENS (name:token,...); see docs/webapp.md.
    """
    import uvicorn

    from dkg.api.app import create_app
    from dkg.api.settings import load_api_settings
    from dkg.services.neo4j_server import port_is_free

    api_settings = load_api_settings()
    if not port_is_free(port, host if host not in ("0.0.0.0", "") else "127.0.0.1"):
        from dkg.errors import PortInUseError
        raise PortInUseError(f"port {port} on {host} is taken; choose another with --port")
    if not api_settings.principals():
        console.print("[yellow]note:[/] no DKG_API_CURATOR_TOKENS set: the API is read-only")
    echo(f"serving on http://{host}:{port}/  (API docs: /docs)")
    uvicorn.run(create_app(api_settings=api_settings), host=host, port=port, log_level=log_level, workers=1)
