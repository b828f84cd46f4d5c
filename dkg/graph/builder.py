"""Write guideline versions into Neo4j: batched, parameterized UNWIND writes in one transaction.

A build either commits completely or leaves the graph as it was (one managed write transaction per
:func:`build` call). Re-building an unchanged input changes nothing: the input's hash is stored on
the ``:GuidelineVersion`` node and an up-to-date version is skipped; a changed input is merged in
and stale nodes and relations of that version are removed.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from neo4j import ManagedTransaction

from dkg.graph.build_input import BuildInput
from dkg.graph.db import Graph, named_queries
from dkg.graph.model import constraint_property_names

BATCH_SIZE = 5000


@dataclass(frozen=True)
class BuildReport:
    guideline: str
    version: str
    nodes: int
    decision: int
    relations: int
    skipped: bool
    seconds: float

    @property
    def items(self) -> int:
        return self.nodes + self.relations


def _batches(rows: list[dict[str, object]], size: int = BATCH_SIZE) -> list[list[dict[str, object]]]:
    return [rows[i:i + size] for i in range(0, len(rows), size)] or [[]]


def _clear_map() -> dict[str, None]:
    return dict.fromkeys(constraint_property_names())


def write_version(tx: ManagedTransaction, build: BuildInput, source_sha: str) -> None:
    """All writes for one guideline version, inside the caller's transaction."""
    q = named_queries("build")
    counts = build.counts()
    clear = _clear_map()
    node_rows = build.node_rows(clear)
    uids = [row["uid"] for row in node_rows]
    tx.run(q["upsert_version"], gv={
        "uid": build.uid, "guideline": build.guideline, "version": build.version, "title": build.title,
        "source_sha": source_sha, "node_count": counts["nodes"], "relation_count": counts["relations"],
        "decision_count": counts["decision"],
    }).consume()
    tx.run(q["delete_stale_nodes"], gv_uid=build.uid, uids=uids).consume()
    for batch in _batches(node_rows):
        tx.run(q["upsert_nodes"], rows=batch, gv_uid=build.uid).consume()
    decisions = [r["uid"] for r, n in zip(node_rows, build.nodes.values(), strict=True) if n.is_decision]
    actions = [r["uid"] for r, n in zip(node_rows, build.nodes.values(), strict=True) if not n.is_decision]
    tx.run(q["label_decisions"], uids=decisions).consume()
    tx.run(q["label_actions"], uids=actions).consume()
    relation_rows = build.relation_rows(clear)
    tx.run(q["delete_stale_relations"], guideline=build.guideline, version=build.version,
           keys=[r["key"] for r in relation_rows]).consume()
    for batch in _batches(relation_rows):
        tx.run(q["upsert_relations"], rows=batch).consume()
    offer_rows = [
        {"uid": row["uid"], "name": option.casefold(), "display": option}
        for row in node_rows
        for option in row["props"]["options"]  # type: ignore[index,union-attr]
    ]
    tx.run(q["delete_stale_offers"], guideline=build.guideline, version=build.version,
           keys=[f"{r['uid']}|{r['name']}" for r in offer_rows]).consume()
    for batch in _batches(offer_rows):
        tx.run(q["upsert_offers"], rows=batch).consume()
    tx.run(q["delete_orphan_treatments"]).consume()


def build(graph: Graph, inputs: Sequence[BuildInput], *, force: bool = False,
          on_progress: Callable[[str], None] | None = None) -> list[BuildReport]:
    """Write the given guideline versions in ONE transaction (all or nothing). Returns one report each."""
    graph.apply_schema()
    shas = {b.uid: b.source_sha() for b in inputs}
    current = {
        row["uid"]: row["sha"]
        for row in graph.read("MATCH (g:GuidelineVersion) WHERE g.uid IN $uids RETURN g.uid AS uid, "
                              "g.source_sha AS sha", {"uids": list(shas)})
    }
    todo = [b for b in inputs if force or current.get(b.uid) != shas[b.uid]]
    start = time.perf_counter()

    def work(tx: ManagedTransaction) -> None:
        for b in todo:
            if on_progress:
                on_progress(f"writing {b.uid}")
            write_version(tx, b, shas[b.uid])

    if todo:
        graph.execute_write(work)
    seconds = time.perf_counter() - start
    reports = []
    for b in inputs:
        c = b.counts()
        reports.append(BuildReport(b.guideline, b.version, c["nodes"], c["decision"], c["relations"],
                                   skipped=b not in todo, seconds=seconds if b in todo else 0.0))
    return reports


def graph_counts(graph: Graph, guideline: str, version: str) -> dict[str, int]:
    """Node, decision-node and relation counts of a built guideline version, read from the graph."""
    rows = graph.read(
        "MATCH (n:Node {guideline: $g, version: $v}) "
        "OPTIONAL MATCH (n)-[r:NEXT_STEP]->(:Node) "
        "WITH n, count(DISTINCT r) AS out, collect(DISTINCT endNode(r)) AS tails "
        "RETURN count(n) AS nodes, sum(CASE WHEN n:Decision THEN 1 ELSE 0 END) AS decision, "
        "sum(size(tails)) AS relations",
        {"g": guideline, "v": version},
    )
    return {k: int(rows[0][k] or 0) for k in ("nodes", "decision", "relations")}
