"""The GRAG retriever: vector-index seeds, their h-hop neighbourhoods, and the score

    score(i) = α·(q·v_i) + (1−α)·λ^hop(i,s)·(q·g_s)

where v_i is node i's embedding, g_s the pooled, normalised neighbourhood vector of the seed s it was
reached from (computed by ``dkg index``) and hop(i,s) its hop distance from s (0 for the seed itself).
A node reached from several seeds keeps its best score. Also offers the baselines the benchmark
compares: vector-only (index or exact brute force), BM25 and a BM25+GRAG reciprocal-rank-fusion hybrid.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np

from dkg.answers import Answer, Evidence
from dkg.graph.db import Graph, named_queries
from dkg.lexicon import DiseaseResolver, load_lexicon
from dkg.retrieval.embedding import TRAINED_EMBEDDERS, Embedder, minilm
from dkg.retrieval.errors import BadQueryError, IndexMissingError, IndexStaleError
from dkg.retrieval.explain import field_contributions
from dkg.retrieval.index import META_NAME, fingerprint, trained_model_path
from dkg.retrieval.intent import query_intent, rerank_by_intent
from dkg.retrieval.lexical import BM25Index, reciprocal_rank_fusion
from dkg.retrieval.serialize import parse_fields
from dkg.retrieval.settings import RetrievalSettings, load_retrieval_settings
from dkg.retrieval.subqueries import rank_understood
from dkg.retrieval.types import Hit
from dkg.retrieval.understanding import QueryAnalysis, understand

Method = Literal["grag", "grag_nointent", "vector", "vector_exact", "bm25", "hybrid"]
METHODS: tuple[str, ...] = ("bm25", "vector", "grag_nointent", "grag", "hybrid")
# Property and index names per embedding model: the only values ever placed into the Cypher templates.
MODEL_TABLE = {
    "minilm": {"emb": "emb_minilm", "nbr": "nbr_minilm", "index": "retrieval_minilm"},
    "lsa": {"emb": "emb_lsa", "nbr": "nbr_lsa", "index": "retrieval_lsa"},
    "fasttext": {"emb": "emb_fasttext", "nbr": "nbr_fasttext", "index": "retrieval_fasttext"},
}
EXPAND_LIMIT = 5000
HYBRID_DEPTH = 50
INTENT_DEPTH = 50  # GRAG candidates the intent term re-ranks


def grag_score(cos_node: float, cos_graph: float, hop: int, alpha: float, lam: float) -> float:
    """α·(q·v_i) + (1−α)·λ^hop·(q·g_s).

    >>> round(grag_score(0.8, 0.5, 0, 0.6, 0.75), 4)
    0.68
    >>> round(grag_score(0.8, 0.5, 2, 0.6, 0.75), 4)
    0.5925
    """
    return alpha * cos_node + (1.0 - alpha) * (lam ** hop) * cos_graph


def rank_grag(seeds: Sequence[tuple[str, float, float]], expansions: Sequence[dict[str, Any]], *,
              alpha: float, lam: float, k: int) -> list[Hit]:
    """Score seeds (rid, q·v_s, q·g_s) and their neighbours (seed, rid, hop, via, cos); keep each node's best.

    >>> hits = rank_grag([("s", 0.9, 0.5), ("t", 0.2, 0.9)],
    ...                  [{"seed": "s", "rid": "n", "hop": 1, "via": ["s", "n"], "cos": 0.7}],
    ...                  alpha=0.6, lam=0.75, k=3)
    >>> [(h.rid, round(h.score, 3), h.seed, h.hop) for h in hits]
    [('s', 0.74, 's', 0), ('n', 0.57, 's', 1), ('t', 0.48, 't', 0)]
    """
    graph_cos = {rid: gcos for rid, _, gcos in seeds}
    best: dict[str, Hit] = {}

    def offer(hit: Hit) -> None:
        current = best.get(hit.rid)
        if current is None or (hit.score, -hit.hop) > (current.score, -current.hop):
            best[hit.rid] = hit

    for rid, cos, gcos in seeds:
        term = (1.0 - alpha) * gcos
        offer(Hit(rid, grag_score(cos, gcos, 0, alpha, lam), cos, term, rid, 0, (rid,)))
    for row in expansions:
        gcos = graph_cos[row["seed"]]
        hop = int(row["hop"])
        offer(Hit(row["rid"], grag_score(row["cos"], gcos, hop, alpha, lam), row["cos"],
                  (1.0 - alpha) * lam ** hop * gcos, row["seed"], hop, tuple(row["via"])))
    return sorted(best.values(), key=lambda h: (-h.score, h.hop, h.rid))[:k]


def _template(query: str, model: str, hops: int | None = None) -> str:
    names = MODEL_TABLE[model]
    out = query.replace("{emb}", names["emb"]).replace("{nbr}", names["nbr"]).replace("{index}", names["index"])
    if hops is not None:
        if not isinstance(hops, int) or not 1 <= hops <= 3:
            raise ValueError(f"hops must be an integer 1..3, got {hops!r}")
        out = out.replace("{hops}", str(hops))
    return out


def validate_query(query: str, max_chars: int) -> str:
    """The stripped query, or a :class:`BadQueryError` for an empty or over-long one."""
    text = (query or "").strip()
    if not text:
        raise BadQueryError("the question is empty; ask something, e.g. \"what is blinatumomab used for in ALL?\"")
    if len(text) > max_chars:
        raise BadQueryError(f"the question has {len(text)} characters; the limit is {max_chars} "
                            "(shorten it, or raise DKG_RETRIEVAL_MAX_QUERY_CHARS)")
    return text


@dataclass
class Retriever:
    """Retrieval over one graph. Construction checks the index exists and matches the graph."""

    graph: Graph
    settings: RetrievalSettings = field(default_factory=load_retrieval_settings)
    model: str | None = None
    embedder: Embedder | None = None
    check: bool = True
    _bm25: BM25Index | None = field(default=None, init=False, repr=False)
    _node_types: dict[str, str] | None = field(default=None, init=False, repr=False)
    _node_diseases: dict[str, frozenset[str]] | None = field(default=None, init=False, repr=False)
    _resolver: DiseaseResolver | None = field(default=None, init=False, repr=False)
    _queries: dict[str, str] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        self.model = self.model or self.settings.model
        if self.model not in MODEL_TABLE:
            raise ValueError(f"unknown embedding model {self.model!r}; choose from {', '.join(MODEL_TABLE)}")
        self._queries = named_queries("retrieval")
        if self.check:
            self.check_index()
        if self.embedder is None:
            trained = TRAINED_EMBEDDERS.get(self.model)
            self.embedder = minilm() if trained is None else trained.load(
                trained_model_path(Path(self.graph.settings.home), self.model))

    # ---- index state ----------------------------------------------------------------------------
    def check_index(self) -> None:
        """Raise :class:`IndexMissingError` / :class:`IndexStaleError` (both say to run `dkg index`)."""
        q = named_queries("retrieval_index")
        meta = self.graph.read(q["read_meta"], {"name": META_NAME})
        index_name = MODEL_TABLE[str(self.model)]["index"]
        command = "dkg index" + (f" --model {self.model}" if self.model != "minilm" else "")
        if not meta or self.model not in (meta[0]["models"] or []):
            raise IndexMissingError(f"the graph has no {self.model} retrieval index yet; run `{command}`.")
        state = self.graph.read(self._queries["index_state"], {"names": [index_name]})
        if not state:
            raise IndexMissingError(f"the vector index {index_name} does not exist; run `{command}`.")
        if state[0]["state"] != "ONLINE":
            raise IndexMissingError(f"the vector index {index_name} is {state[0]['state']} "
                                    f"({state[0]['populationPercent']:.0f}% populated); retry shortly.")
        if fingerprint(self.graph) != meta[0]["fingerprint"]:
            raise IndexStaleError(f"the graph changed since the retrieval index was built "
                                  f"({meta[0]['indexed_at']}); run `dkg index` to refresh it.")

    # ---- search ---------------------------------------------------------------------------------
    def embed(self, query: str) -> list[float]:
        assert self.embedder is not None
        return self.embedder.encode([query])[0].astype(float).tolist()

    def seeds(self, qvec: list[float], m: int, *, exact: bool = False) -> list[tuple[str, float, float]]:
        """Top-``m`` (rid, q·v, q·g) by the vector index, or by exact brute force over every node."""
        name = "brute_force" if exact else "seeds"
        rows = self.graph.read(_template(self._queries[name], str(self.model)), {"q": qvec, "m": m})
        return [(r["rid"], float(r["cos"]), float(r["gcos"])) for r in rows]

    def grag(self, qvec: list[float], k: int, *, alpha: float | None = None, lam: float | None = None,
             hops: int | None = None, seeds: int | None = None) -> list[Hit]:
        s = self.settings
        alpha = s.alpha if alpha is None else alpha
        lam = s.lam if lam is None else lam
        hops = s.hops if hops is None else hops
        seed_rows = self.seeds(qvec, seeds or s.seeds)
        expansions: list[dict[str, Any]] = []
        if hops > 0 and seed_rows:
            expansions = self.graph.read(_template(self._queries["expand"], str(self.model), hops),
                                         {"seeds": [r for r, _, _ in seed_rows], "q": qvec, "limit": EXPAND_LIMIT})
            expansions = [e for e in expansions if e["cos"] is not None]
        return rank_grag(seed_rows, expansions, alpha=alpha, lam=lam, k=k)

    def bm25(self) -> BM25Index:
        if self._bm25 is None:
            rows = self.graph.read(self._queries["all_serialisations"])
            self._bm25 = BM25Index([(r["rid"], (r["ser_text"] or "").partition("\n")[2]) for r in rows])
        return self._bm25

    def node_types(self) -> dict[str, str]:
        """rid → intent type of every retrievable node (section qtype, ``treatment``, ``recommendation``).

        Read once per retriever; like the BM25 index it reflects the graph checked at construction.
        """
        if self._node_types is None:
            self._node_types = {r["rid"]: r["qtype"] for r in self.graph.read(self._queries["node_types"])
                                if r["qtype"]}
        return self._node_types

    def with_intent(self, query: str, hits: Sequence[Hit], k: int, weight: float | None = None) -> list[Hit]:
        """``hits`` re-ranked by the query-intent term (β = ``weight`` or the configured intent weight)."""
        weight = self.settings.intent_weight if weight is None else weight
        if weight <= 0:
            return list(hits)[:k]
        return rerank_by_intent(hits, query_intent(query), self.node_types(), weight, k)

    # ---- query understanding --------------------------------------------------------------------
    def resolver(self) -> DiseaseResolver:
        """Disease-name resolution onto this graph's :Disease nodes (read once per retriever)."""
        if self._resolver is None:
            names = [r["name"] for r in self.graph.read(self._queries["disease_names"]) if r["name"]]
            self._resolver = load_lexicon().resolver(names)
        return self._resolver

    def node_diseases(self) -> dict[str, frozenset[str]]:
        """rid → the diseases a retrievable node belongs to (read once per retriever)."""
        if self._node_diseases is None:
            self._node_diseases = {r["rid"]: frozenset(r["diseases"])
                                   for r in self.graph.read(self._queries["node_diseases"])}
        return self._node_diseases

    def analyse(self, query: str) -> QueryAnalysis:
        """How the retriever reads ``query`` (the plain question when understanding is switched off)."""
        text = validate_query(query, self.settings.max_query_chars)
        if not self.settings.understanding:
            return QueryAnalysis(text, text, intent=query_intent(text))
        return understand(text, load_lexicon(), self.resolver())

    def prepare(self, queries: Sequence[str]) -> list[tuple[QueryAnalysis, list[float]]]:
        """Each query's analysis and the embedding of its searched text (embedded in one batch)."""
        analyses = [self.analyse(q) for q in queries]
        assert self.embedder is not None
        if not analyses:
            return []
        vectors = self.embedder.encode([a.text for a in analyses])
        return [(a, v.astype(float).tolist()) for a, v in zip(analyses, vectors, strict=True)]

    def disease_sections(self, diseases: Sequence[str], qvec: list[float]) -> list[tuple[str, float, float]]:
        """(rid, q·v, q·g) of every section of ``diseases``."""
        rows = self.graph.read(_template(self._queries["disease_sections"], str(self.model)),
                               {"names": list(diseases), "q": qvec})
        return [(r["rid"], float(r["cos"]), float(r["gcos"])) for r in rows]

    def understood(self, analysis: QueryAnalysis, qvec: list[float], k: int, **grag_args: Any) -> list[Hit]:
        """GRAG read through the query's understanding: the GRAG candidates plus the sections of the diseases
        it names, ranked per sub-query (disease boost and intent term) and interleaved."""
        if not self.settings.understanding:
            return self.with_intent(analysis.original, self.grag(qvec, max(k, INTENT_DEPTH), **grag_args), k)
        candidates = {h.rid: h for h in self.grag(qvec, max(k, INTENT_DEPTH), **grag_args)}
        if analysis.disease_weights:
            alpha = self.settings.alpha if grag_args.get("alpha") is None else grag_args["alpha"]
            lam = self.settings.lam if grag_args.get("lam") is None else grag_args["lam"]
            for rid, cos, gcos in self.disease_sections(list(analysis.disease_weights), qvec):
                hit = Hit(rid, grag_score(cos, gcos, 0, alpha, lam), cos, (1.0 - alpha) * gcos, rid, 0, (rid,))
                if rid not in candidates or candidates[rid].score < hit.score:
                    candidates[rid] = hit
        return rank_understood(list(candidates.values()), analysis, self.node_types(), self.node_diseases(),
                               intent_weight=self.settings.intent_weight,
                               disease_weight=self.settings.disease_weight, k=k)

    def rank_methods(self, analysis: QueryAnalysis, qvec: list[float], methods: Sequence[str],
                     k: int) -> dict[str, list[Hit]]:
        """The top-``k`` hits of each method for one analysed query (shared work done once)."""
        out: dict[str, list[Hit]] = {}
        lexical = self.bm25().search(analysis.text, k) if {"bm25", "hybrid"} & set(methods) else []
        understood = self.understood(analysis, qvec, k) if {"grag", "hybrid"} & set(methods) else []
        for m in methods:
            if m == "bm25":
                out[m] = [Hit(rid, score, 0.0) for rid, score in lexical]
            elif m in ("vector", "vector_exact"):
                rows = self.seeds(qvec, k, exact=m == "vector_exact")
                out[m] = [Hit(rid, cos, cos, seed=rid) for rid, cos, _ in rows]
            elif m == "grag_nointent":
                out[m] = self.grag(qvec, k)
            elif m == "grag":
                out[m] = understood
            elif m == "hybrid":
                out[m] = self.fuse(understood, lexical, k)
            else:
                raise ValueError(f"unknown method {m!r}; choose from grag, grag_nointent, vector, vector_exact, "
                                 "bm25, hybrid")
        return out

    def search(self, query: str, method: Method = "grag", k: int | None = None, *, qvec: list[float] | None = None,
               **grag_args: Any) -> list[Hit]:
        """The top-``k`` hits of one method (``qvec``: the embedding of the query's searched text, when
        already computed)."""
        analysis = self.analyse(query)
        k = k or self.settings.top_k
        if method == "bm25":
            return [Hit(rid, score, 0.0) for rid, score in self.bm25().search(analysis.text, k)]
        if qvec is None:
            qvec = self.embed(analysis.text)
        if not np.any(qvec):
            raise BadQueryError(f"none of the question's words are known to the {self.model} embedding; "
                                "rephrase it with medical terms")
        if method in ("vector", "vector_exact"):
            return [Hit(rid, cos, cos, seed=rid) for rid, cos, _ in self.seeds(qvec, k, exact=method == "vector_exact")]
        if method == "grag_nointent":
            return self.grag(qvec, k, **grag_args)
        if method == "grag":
            return self.understood(analysis, qvec, k, **grag_args)
        if method == "hybrid":
            depth = max(k, HYBRID_DEPTH)
            return self.fuse(self.understood(analysis, qvec, depth, **grag_args),
                             self.bm25().search(analysis.text, depth), k)
        raise ValueError(f"unknown method {method!r}; choose from grag, grag_nointent, vector, vector_exact, bm25, "
                         "hybrid")

    def fuse(self, grag_hits: Sequence[Hit], lexical: Sequence[tuple[str, float]], k: int) -> list[Hit]:
        """The hybrid ranking: reciprocal-rank fusion of GRAG and BM25, BM25 weighted by
        ``DKG_RETRIEVAL_HYBRID_LEXICAL_WEIGHT`` (provenance kept from GRAG)."""
        by_rid = {h.rid: h for h in grag_hits}
        fused = reciprocal_rank_fusion([[h.rid for h in grag_hits], [rid for rid, _ in lexical]], k,
                                       weights=[1.0, self.settings.hybrid_lexical_weight])
        return [Hit(rid, score, by_rid[rid].cos, seed=by_rid[rid].seed, hop=by_rid[rid].hop, via=by_rid[rid].via,
                    reason=by_rid[rid].reason) if rid in by_rid else Hit(rid, score, 0.0) for rid, score in fused]

    # ---- evidence -------------------------------------------------------------------------------
    def evidence(self, query: str, hits: Sequence[Hit]) -> list[Evidence]:
        """Evidence records (source grounding, provenance, per-field contributions) for ``hits``."""
        rows = {r["rid"]: r for r in self.graph.read(self._queries["details"], {"rids": [h.rid for h in hits]})}
        out = []
        for hit in hits:
            row = rows.get(hit.rid)
            if row is None:
                continue
            body = (row["ser_text"] or "").partition("\n")[2]
            fields = parse_fields(body)
            fields.pop("type", None)
            kind = row["kind"] or "Node"
            if kind == "Section":
                content = f"{row['focus']} — {row['qtype']}: {row['text'] or ''}"
            elif kind == "Treatment":
                content = row["name"] or hit.rid
                if fields.get("context"):
                    content += f" (offered after: {fields['context']})"
                if fields.get("guidelines"):
                    content += f" [guidelines: {fields['guidelines']}]"
            elif kind == "Disease":
                content = row["name"] or hit.rid
            else:
                content = row["content"] or hit.rid
            out.append(Evidence(
                node_uid=hit.rid, content=content, kind=kind, guideline=row["guideline"], version=row["version"],
                pages=list(row["pages"] or []), source_url=row["url"], score=round(hit.score, 4),
                seed_uid=hit.seed, hop=hit.hop, path=list(row["path"] or [hit.rid]),
                field_contributions=field_contributions(query, fields), reason=hit.reason))
        return out

    def answer(self, question: str, k: int | None = None, method: Method = "grag") -> Answer:
        """An :class:`Answer` on the GRAG route: the retrieved nodes and their evidence."""
        start = time.perf_counter()
        hits = self.search(question, method, k)
        searched = time.perf_counter()
        evidence = self.evidence(question, hits)
        timings = {"search": (searched - start) * 1000, "evidence": (time.perf_counter() - searched) * 1000}
        if not evidence:
            return Answer(question=question, route="grag", answer="", no_answer_reason="nothing was retrieved",
                          timings_ms=timings)
        best = evidence[0].score
        if best is not None and best < self.settings.min_answer_score:
            return Answer(question=question, route="grag", answer="", timings_ms=timings,
                          no_answer_reason=f"nothing in the guidelines or the PDQ knowledge layer matches the "
                                           f"question well enough (best score {best:.2f} < "
                                           f"{self.settings.min_answer_score}); it looks out of scope")
        return Answer(question=question, route="grag", answer=summarise(evidence),
                      matched_nodes=[e.node_uid for e in evidence], evidence=evidence, timings_ms=timings)


def source_of(e: Evidence) -> str:
    """Where an evidence item comes from, for people: guideline, version and pages, or the PDQ URL."""
    if e.guideline:
        titles = e.page_titles if len(e.page_titles) == len(e.pages) else [""] * len(e.pages)
        pages = ", ".join(f"{p} ({t})" if t else p for p, t in zip(e.pages, titles, strict=True))
        return f"{e.guideline} {e.version}" + (f" p. {pages}" if pages else "")
    if e.source_url:
        return e.source_url
    return e.kind


def summarise(evidence: Sequence[Evidence], n: int = 3, chars: int = 320) -> str:
    """A short extractive answer: the best few evidence texts with their sources."""
    parts = []
    for e in evidence[:n]:
        text = " ".join(e.content.split())
        text = text if len(text) <= chars else text[:chars].rsplit(" ", 1)[0] + " …"
        parts.append(f"[{e.kind}, {source_of(e)}] {text}")
    return "\n".join(parts)


def open_retriever(graph: Graph, **kwargs: Any) -> Retriever:
    """A checked retriever over ``graph`` (raises when the index is missing or stale)."""
    return Retriever(graph, **kwargs)

