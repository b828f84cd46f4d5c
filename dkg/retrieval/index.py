"""`dkg index`: serialise every embeddable node, embed only those whose serialisation changed, and refresh
the pooled neighbourhood vectors GRAG needs.

Stored per embedded node (label ``:Embedded``; ``:Retrievable`` for the ones results may be)::

    rid, ser_text, ser_hash, ser_format, ser_snapshot
    emb_<model>, emb_<model>_hash   L2-normalised vector and the ser_hash it was computed from
    nbr_<model>, nbr_<model>_sig    pooled h-hop neighbourhood vector g_s and the signature of what it pooled

Models: ``minilm`` (384 dimensions, the default), ``lsa`` (256) and ``fasttext`` (128); the last two are
trained on the serialisations themselves and saved under ``<DKG_HOME>/retrieval/``. A
``:RetrievalIndex {name: 'embeddings'}`` node records a fingerprint of the graph so retrieval can tell when the
index is stale.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections import defaultdict, deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from neo4j import ManagedTransaction

from dkg.graph.db import Graph, named_queries
from dkg.retrieval.embedding import TRAINED_EMBEDDERS, Embedder, minilm
from dkg.retrieval.serialize import (
    FORMAT_VERSION,
    TOPIC_WORDS,
    NodeFields,
    Serialised,
    ancestor_paths,
    path_text,
    serialise,
    shorten,
)

META_NAME = "embeddings"
MODELS = ("minilm", "lsa", "fasttext")
WRITE_BATCH = 500


@dataclass
class IndexedNode:
    """One embeddable node as read from the graph, with its stored index state."""

    fields: NodeFields
    stored_hash: str | None
    model_hash: dict[str, str | None]
    nbr_sig: dict[str, str | None]
    path: list[str] = field(default_factory=list)


@dataclass
class GraphSnapshot:
    nodes: dict[str, IndexedNode]
    edges: list[tuple[str, str]]

    def adjacency(self) -> dict[str, set[str]]:
        adj: dict[str, set[str]] = defaultdict(set)
        for a, b in self.edges:
            if a in self.nodes and b in self.nodes:
                adj[a].add(b)
                adj[b].add(a)
        return adj


@dataclass
class IndexReport:
    nodes: int
    serialisations_changed: int
    embedded: dict[str, int] = field(default_factory=dict)
    pooled: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    knowledge: str = ""

    def summary(self) -> str:
        emb = ", ".join(f"{m}: {n} embedded, {self.pooled.get(m, 0)} neighbourhoods pooled"
                        for m, n in self.embedded.items())
        return (f"{self.nodes} nodes serialised, {self.serialisations_changed} changed; {emb} "
                f"({self.seconds:.2f} s)")


def trained_model_path(home: Path, model: str) -> Path:
    """Where `dkg index` saves a model trained on the graph's text (``lsa`` or ``fasttext``)."""
    return home / "retrieval" / f"{model}.pkl"


def _state(row: Mapping[str, Any]) -> tuple[str | None, dict[str, str | None], dict[str, str | None]]:
    return (row.get("ser_hash"), {m: row.get(f"{m}_hash") for m in MODELS},
            {m: row.get(f"{m}_sig") for m in MODELS})


def read_snapshot(graph: Graph) -> GraphSnapshot:
    """Every embeddable node's serialisation fields and the relations GRAG walks (not CONTAINS)."""
    q = named_queries("retrieval_index")
    labels = ("label_nodes", "label_sections", "label_treatments", "label_diseases", "label_versions")

    def label(tx: ManagedTransaction) -> None:
        for name in labels:
            tx.run(q[name]).consume()

    graph.execute_write(label)
    reads = ("read_nodes", "read_next_steps", "fingerprint_knowledge", "read_sections", "read_treatments",
             "read_diseases", "read_versions", "read_links")

    def read(tx: ManagedTransaction) -> dict[str, list[dict[str, Any]]]:
        return {name: [r.data() for r in tx.run(q[name])] for name in reads}

    data = graph.execute_read(read)
    nodes: dict[str, IndexedNode] = {}
    node_rows = data["read_nodes"]
    next_steps = [(r["head"], r["tail"]) for r in data["read_next_steps"]]
    parents: dict[str, list[str]] = defaultdict(list)
    for head, tail in next_steps:
        parents[tail].append(head)
    content = {r["rid"]: r["content"] or "" for r in node_rows}
    for r in node_rows:
        parents.setdefault(r["rid"], [])
    paths = ancestor_paths(parents, content)
    for r in node_rows:
        root = f"{r['guideline']} {r['version']}: {r['gtitle'] or r['guideline']}"
        kind = "Decision" if r["decision"] else "Action"
        snapshot = f"{r['guideline']}|{r['version']}@{(r['gsha'] or '')[:12]}#rev{r['rev']}"
        fields = {"path": path_text(root, [content[p] for p in paths.get(r["rid"], [])]), "type": kind,
                  "title": f"{r['guideline']} {r['version']} {' '.join(r['pages'] or [])}",
                  "content": r["content"] or "", "constraints": r["constraints"] or [],
                  "treatments": r["options"] or [], "diseases": "; ".join(r["diseases"] or [])}
        nodes[r["rid"]] = IndexedNode(NodeFields(r["rid"], kind, snapshot, fields), *_state(r),
                                      path=[*paths.get(r["rid"], []), r["rid"]])
    knowledge = data["fingerprint_knowledge"]
    ksha = (knowledge[0]["sha"] if knowledge else None) or ""
    for r in data["read_sections"]:
        fields = {"path": f"{r['focus']} > {r['qtype']}", "type": "Section", "disease": r["focus"],
                  "topic": TOPIC_WORDS.get(r["qtype"], r["qtype"]), "content": r["text"] or ""}
        nodes[r["rid"]] = IndexedNode(NodeFields(r["rid"], "Section", f"medquad@{ksha[:12]}", fields), *_state(r),
                                      path=[f"disease:{r['focus']}", r["rid"]])
    for r in data["read_treatments"]:
        fields = {"path": "treatments", "type": "Treatment", "title": r["display"],
                  "context": "; ".join(shorten(c, 12) for c in (r["contexts"] or [])[:3]),
                  "guidelines": r["guidelines"] or []}
        nodes[r["rid"]] = IndexedNode(NodeFields(r["rid"], "Treatment", "graph", fields), *_state(r))
    for r in data["read_diseases"]:
        fields = {"path": "diseases", "type": "Disease", "title": r["name"], "guidelines": r["guidelines"] or []}
        nodes[r["rid"]] = IndexedNode(NodeFields(r["rid"], "Disease", f"medquad@{ksha[:12]}", fields), *_state(r))
    for r in data["read_versions"]:
        fields = {"path": "guidelines", "type": "Guideline", "title": f"{r['title']} {r['version']}",
                  "diseases": "; ".join(r["diseases"] or [])}
        snapshot = f"{r['guideline']}|{r['version']}@{(r['gsha'] or '')[:12]}"
        nodes[r["rid"]] = IndexedNode(NodeFields(r["rid"], "Guideline", snapshot, fields), *_state(r))
    links = [(r["head"], r["tail"]) for r in data["read_links"]]
    return GraphSnapshot(nodes, next_steps + links)


def neighbourhood(adj: Mapping[str, set[str]], start: str, hops: int) -> dict[str, int]:
    """Nodes within ``hops`` undirected hops of ``start`` with their hop distance (start included at 0).

    >>> neighbourhood({"a": {"b"}, "b": {"a", "c"}, "c": {"b"}}, "a", 1)
    {'a': 0, 'b': 1}
    """
    dist = {start: 0}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        if dist[node] >= hops:
            continue
        for other in sorted(adj.get(node, ())):
            if other not in dist:
                dist[other] = dist[node] + 1
                queue.append(other)
    return dist


def pooled_vector(vectors: Iterable[np.ndarray]) -> np.ndarray:
    """Mean of the given unit vectors, re-normalised (g_s).

    >>> pooled_vector([np.array([1.0, 0.0]), np.array([0.0, 1.0])]).astype(float).round(4).tolist()
    [0.7071, 0.7071]
    """
    stacked = np.stack(list(vectors)).astype(np.float32)
    mean = stacked.mean(axis=0)
    norm = float(np.linalg.norm(mean))
    return mean / norm if norm > 0 else mean


def fingerprint(graph: Graph) -> str:
    """A cheap digest of what the index depends on (versions, knowledge layer, counts, curation revisions)."""
    q = named_queries("retrieval_index")
    counts = ("count_sections", "count_treatments", "count_diseases", "count_next_step", "count_offers",
              "count_described_in")

    def work(tx: ManagedTransaction) -> dict[str, Any]:
        knowledge = tx.run(q["fingerprint_knowledge"]).single()
        out: dict[str, Any] = {
            "versions": tx.run(q["fingerprint_versions"]).single()["versions"],  # type: ignore[index]
            "knowledge": knowledge["sha"] if knowledge else None,
            **tx.run(q["fingerprint_revs"]).single().data(),  # type: ignore[union-attr]
        }
        for name in counts:
            out[name] = tx.run(q[name]).single()["n"]  # type: ignore[index]
        return out

    parts = graph.execute_read(work)
    return hashlib.sha1(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:20]


def _write_rows(graph: Graph, query: str, rows: Sequence[dict[str, Any]]) -> None:
    for i in range(0, len(rows), WRITE_BATCH):
        graph.write(query, {"rows": list(rows[i:i + WRITE_BATCH])})


def build_index(graph: Graph, *, home: Path, models: Sequence[str] = ("minilm",), hops: int = 2,
                full: bool = False, refit: bool = False, embedder_factory: Callable[[str], Embedder] | None = None,
                on_progress: Callable[[str], None] | None = None) -> IndexReport:
    """Refresh the retrieval index incrementally; ``full`` re-embeds everything, ``refit`` retrains the
    models trained on the graph's text (which re-embeds everything for them)."""
    start = time.perf_counter()
    say = on_progress or (lambda _m: None)
    q = named_queries("retrieval_index")
    meta = graph.read(q["read_meta"], {"name": META_NAME})
    if not meta or full or not set(models) <= set(meta[0]["models"] or []):
        graph.apply_schema()  # creates the vector index of a model indexed for the first time
    old_hops = meta[0]["hops"] if meta else None
    snap = read_snapshot(graph)
    serialised: dict[str, Serialised] = {rid: serialise(n.fields) for rid, n in snap.nodes.items()}
    changed_ser = [rid for rid, s in serialised.items() if s.hash != snap.nodes[rid].stored_hash or full]
    _write_rows(graph, q["write_serialisations"], [
        {"rid": rid, "text": serialised[rid].text, "hash": serialised[rid].hash, "format": FORMAT_VERSION,
         "snapshot": snap.nodes[rid].fields.snapshot,
         "path": snap.nodes[rid].path or [rid]} for rid in changed_ser])
    report = IndexReport(nodes=len(serialised), serialisations_changed=len(changed_ser))
    adj = snap.adjacency()
    trained_ids = {m: meta[0][f"{m}_model"] if meta else None for m in TRAINED_EMBEDDERS}
    for model in models:
        if model not in MODELS:
            raise ValueError(f"unknown embedding model {model!r}; choose from {', '.join(MODELS)}")
        trained = TRAINED_EMBEDDERS.get(model)
        embed_all = full or (trained is not None and (refit or not trained_model_path(home, model).is_file()))
        todo = sorted(rid for rid, s in serialised.items()
                      if embed_all or snap.nodes[rid].model_hash[model] != s.hash)
        if todo:
            say(f"{model}: embedding {len(todo)} node(s)")
            if embedder_factory is not None:
                embedder = embedder_factory(model)
            elif trained is None:
                embedder = minilm()
            elif embed_all:
                say(f"{model}: training on {len(serialised)} serialisations")
                embedder = trained.fit([serialised[r].body for r in sorted(serialised)])
                path = trained_model_path(home, model)
                embedder.save(path)
                trained_ids[model] = hashlib.sha1(path.read_bytes()).hexdigest()[:12]
            else:
                embedder = trained.load(trained_model_path(home, model))
            vectors = embedder.encode([serialised[r].body for r in todo])
            _write_rows(graph, q[f"write_{model}"], [
                {"rid": rid, "vector": vec.astype(float).tolist(), "hash": serialised[rid].hash}
                for rid, vec in zip(todo, vectors, strict=True)])
        report.embedded[model] = len(todo)
        report.pooled[model] = _refresh_neighbourhoods(graph, snap, adj, serialised, model, hops,
                                                      force=full or embed_all or old_hops != hops)
    graph.write(q["write_meta"], {"name": META_NAME, "fingerprint": fingerprint(graph), "hops": hops,
                                  "models": sorted(set(models) | set(meta[0]["models"] or [] if meta else [])),
                                  **{f"{m}_model": trained_ids[m] for m in TRAINED_EMBEDDERS}})
    report.seconds = time.perf_counter() - start
    return report


def _refresh_neighbourhoods(graph: Graph, snap: GraphSnapshot, adj: Mapping[str, set[str]],
                            serialised: Mapping[str, Serialised], model: str, hops: int, *, force: bool) -> int:
    """Recompute g_s for every node whose h-hop neighbourhood (membership or contents) changed."""
    q = named_queries("retrieval_index")
    todo: dict[str, tuple[dict[str, int], str]] = {}
    for rid in snap.nodes:
        hood = neighbourhood(adj, rid, hops)
        sig = hashlib.sha1(json.dumps(
            [hops, sorted((r, serialised[r].hash) for r in hood)]).encode()).hexdigest()[:20]
        if force or snap.nodes[rid].nbr_sig[model] != sig:
            todo[rid] = (hood, sig)
    if not todo:
        return 0
    needed = sorted({r for hood, _ in todo.values() for r in hood})
    vectors: dict[str, np.ndarray] = {}
    for i in range(0, len(needed), 2000):
        for row in graph.read(q[f"read_{model}"], {"rids": needed[i:i + 2000]}):
            if row["vector"] is not None:
                vectors[row["rid"]] = np.asarray(row["vector"], dtype=np.float32)
    rows = []
    for rid, (hood, sig) in sorted(todo.items()):
        members = [vectors[r] for r in sorted(hood) if r in vectors]
        if members:
            rows.append({"rid": rid, "vector": pooled_vector(members).astype(float).tolist(), "sig": sig})
    _write_rows(graph, q[f"write_nbr_{model}"], rows)
    return len(rows)
