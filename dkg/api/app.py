"""The FastAPI application: routers, error handlers, body limit, the web app's static files, and a lifespan
that opens one graph connection and loads the models once."""

from __future__ import annotations

import gc
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.responses import FileResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles

from dkg import MEDICAL_DISCLAIMER, __version__
from dkg.api.errors import install_error_handlers
from dkg.api.limits import BodySizeLimit
from dkg.api.redaction import install_log_redaction
from dkg.api.settings import ApiSettings, load_api_settings
from dkg.config import Settings, get_settings

STATIC_DIR = Path(__file__).resolve().parent / "static"
PAGES = {"clinician": "clinician.html", "curator": "curator.html", "researcher": "researcher.html",
         "review": "review.html"}


def credentials(settings: Settings, api_settings: ApiSettings) -> list[str]:
    """Every secret the process knows and must never log: the API tokens and the Neo4j password."""
    secrets = list(api_settings.principals())
    if settings.neo4j_password is not None:
        secrets.append(settings.neo4j_password.get_secret_value())
    return secrets


def create_app(settings: Settings | None = None, api_settings: ApiSettings | None = None, *,
               state_factory: Callable[[Settings, ApiSettings], Any] | None = None) -> FastAPI:
    """The API app. ``state_factory`` builds what the lifespan holds (default: :meth:`AppState.open`)."""
    api_settings = api_settings or load_api_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        platform = settings or get_settings()
        # installed here, after uvicorn has configured its loggers, so its access log is covered too
        install_log_redaction(credentials(platform, api_settings))
        if state_factory is None:
            from dkg.api.state import AppState
            state = AppState.open(platform, api_settings)
        else:
            state = state_factory(platform, api_settings)
        app.state.dkg = state
        # the models and driver are long-lived: keep them out of the garbage collector's scans (shorter pauses)
        gc.freeze()
        try:
            yield
        finally:
            state.close()

    app = FastAPI(title="DKG API", version=__version__, lifespan=lifespan,
                  description="Decision Knowledge Graph platform: answers, retrieval, curation, benchmarks.\n\n"
                              + MEDICAL_DISCLAIMER)
    app.router.redirect_slashes = False  # an id holding an encoded '/' is a 404, not a redirect elsewhere
    install_error_handlers(app)
    from dkg.api import routes_cds, routes_curation, routes_pictures, routes_read, routes_research, routes_review
    app.include_router(routes_read.router)
    app.include_router(routes_curation.router)
    app.include_router(routes_research.router)
    app.include_router(routes_cds.router)
    app.include_router(routes_review.router)
    app.include_router(routes_pictures.router)
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")

    @app.get("/", include_in_schema=False)
    def root() -> RedirectResponse:
        return RedirectResponse("/clinician")

    def page(file: str) -> Callable[[], FileResponse]:
        def serve() -> FileResponse:
            return FileResponse(STATIC_DIR / file, media_type="text/html")
        return serve

    for name, file in PAGES.items():
        app.add_api_route(f"/{name}", page(file), methods=["GET"], include_in_schema=False)
    app.add_middleware(BodySizeLimit, limit=api_settings.max_body_bytes)
    return app
