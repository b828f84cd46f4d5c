"""What one running API process holds: settings, principals, ONE graph connection, the answering engine
(text-to-Cypher model and retriever loaded once), and where annotation qrels go."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from dkg.api.annotation import QRELS_DIR
from dkg.api.breaker import GuardedGraph
from dkg.api.engine import Engine
from dkg.api.settings import ApiSettings, Principal
from dkg.config import Settings
from dkg.errors import DKGError

log = logging.getLogger("dkg.api")


@dataclass
class AppState:
    settings: Settings
    api_settings: ApiSettings
    principals: dict[str, Principal]
    graph: GuardedGraph
    engine: Engine
    qrels_dir: Path

    @classmethod
    def open(cls, settings: Settings, api_settings: ApiSettings) -> AppState:
        """Connect to the graph and load the retriever and the text-to-Cypher model (each optional: what
        cannot be loaded is reported by ``/api/health`` and its route falls back or answers 503)."""
        graph = GuardedGraph(settings, probe_interval_s=api_settings.graph_probe_interval_s)
        try:
            graph.verify()
            retriever, retriever_problem = None, None
            try:
                from dkg.retrieval.errors import IndexStaleError
                from dkg.retrieval.grag import Retriever
                try:
                    retriever = Retriever(graph)
                except IndexStaleError as exc:
                    # curation changed some nodes since `dkg index`: their old embeddings still serve
                    retriever = Retriever(graph, check=False)
                    retriever_problem = f"index stale, serving anyway: {exc}"
                    log.warning("%s", retriever_problem)
            except (DKGError, ImportError, OSError, ValueError) as exc:
                retriever_problem = str(exc)
                log.warning("retriever not loaded: %s", exc)
            service, service_problem = None, None
            if not api_settings.load_qa_model:
                service_problem = "text-to-Cypher is switched off (DKG_API_LOAD_QA_MODEL=false)"
            else:
                try:
                    from dkg.qa.service import TextToCypherService
                    service = TextToCypherService(settings, graph=graph, model_dir=api_settings.qa_model_dir)
                except (DKGError, ImportError, OSError, ValueError, RuntimeError) as exc:
                    service_problem = f"text-to-Cypher is not ready: {exc}"
                    log.warning("%s", service_problem)
            engine = Engine(graph, retriever, retriever_problem, service, service_problem,
                            workers=api_settings.workers, cache_size=api_settings.cache_size,
                            snapshot_ttl_s=api_settings.snapshot_ttl_s)
        except BaseException:
            graph.close()
            raise
        graph.breaker.start()
        return cls(settings, api_settings, api_settings.principals(), graph, engine,
                   api_settings.qrels_dir or QRELS_DIR)

    def close(self) -> None:
        self.engine.close()
        self.graph.close()
