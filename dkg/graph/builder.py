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
from typing import Any

from neo4j import ManagedTransaction

from dkg.graph.build_input import BuildInput, offer_rows
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


def _batches(rows: list[dict[str, Any]], size: int = BATCH_SIZE) -> list[list[dict[str, Any]]]:
    return [rows[i:i + size] for i in range(0, len(rows), size)]


def write_versions(tx: ManagedTransaction, builds: Sequence[BuildInput], shas: dict[str, str],
                   on_progress: Callable[[str], None] | None = None, fresh: frozenset[str] = frozenset()) -> None:
    """All writes for the given guideline versions, inside the caller's transaction.

    Statements are batched across versions (UNWIND over all rows), so their number does not grow
    with the number of versions written together. Versions named in ``fresh`` are not in the graph
    yet and are created by one statement; the others are merged and their stale parts removed.
    """
    q = named_queries("build")

    def run(name: str, **params: Any) -> None:
        tx.run(q[name], **params).consume()
        if on_progress:
            on_progress(f"{name} done")

    clear: dict[str, None] = dict.fromkeys(constraint_property_names())
    new_versions: list[dict[str, Any]] = []
    existing: list[dict[str, Any]] = []
    rows_by_path: dict[str, list[dict[str, Any]]] = {k: [] for k in (
        "upsert_nodes", "label_decisions", "label_actions", "upsert_relations", "upsert_offers")}
    for b in builds:
        rows = b.node_rows({})
        rels = b.relation_rows({})
        offers = offer_rows(rows)
        gv = b.version_row(shas[b.uid])
        if b.uid in fresh:
            position = {row["uid"]: i for i, row in enumerate(rows)}
            new_versions.append({
                **gv,
                "nodes": rows,
                "relations": [{"head_index": position[r["head"]], "tail_index": position[r["tail"]],
                               "key": r["key"], "props": r["props"]} for r in rels],
                "offers": offers,
            })
            continue
        for row in rows:
            rows_by_path["upsert_nodes"].append({**row, "gv": b.uid})
            rows_by_path["label_decisions" if row["decision"] else "label_actions"].append({"uid": row["uid"]})
        rows_by_path["upsert_relations"] += rels
        rows_by_path["upsert_offers"] += offers
        existing.append({
            **gv, "uids": [r["uid"] for r in rows], "relation_keys": [r["key"] for r in rels],
            "offer_keys": [f"{o['uid']}|{o['name']}" for o in offers],
        })
    if new_versions:
        run("create_versions", gvs=new_versions)
    if not existing:
        return
    run("upsert_versions", gvs=existing)
    run("delete_stale_nodes", gvs=existing)
    for batch in _batches(rows_by_path["upsert_nodes"]):
        run("upsert_nodes", rows=batch, clear=clear)
    for name in ("label_decisions", "label_actions"):
        for batch in _batches(rows_by_path[name]):
            run(name, uids=[r["uid"] for r in batch])
    run("delete_stale_relations", gvs=existing)
    for batch in _batches(rows_by_path["upsert_relations"]):
        run("upsert_relations", rows=batch, clear=clear)
    run("delete_stale_offers", gvs=existing)
    for batch in _batches(rows_by_path["upsert_offers"]):
        run("upsert_offers", rows=batch)
    run("delete_orphan_treatments")


def build(graph: Graph, inputs: Sequence[BuildInput], *, force: bool = False,
          on_progress: Callable[[str], None] | None = None) -> list[BuildReport]:
    """Write the given guideline versions in ONE transaction (all or nothing). Returns one report each."""
    graph.ensure_schema()
    shas = {b.uid: b.source_sha() for b in inputs}
    current = {
        row["uid"]: row["sha"]
        for row in graph.read(named_queries("build")["version_source_shas"], {"uids": list(shas)})
    }
    todo = [b for b in inputs if force or current.get(b.uid) != shas[b.uid]]
    start = time.perf_counter()

    def work(tx: ManagedTransaction) -> None:
        if on_progress:
            on_progress(f"writing {len(todo)} guideline version(s): {', '.join(b.uid for b in todo[:3])}"
                        + (" …" if len(todo) > 3 else ""))
        write_versions(tx, todo, shas, on_progress, fresh=frozenset(b.uid for b in todo if b.uid not in current))

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
    rows = graph.read(named_queries("build")["version_counts"], {"g": guideline, "v": version})
    return {k: int(rows[0][k] or 0) for k in ("nodes", "decision", "relations")}
