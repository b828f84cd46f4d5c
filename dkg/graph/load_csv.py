"""The paper's ``LOAD CSV`` route into Neo4j, as an option beside the default UNWIND builder.

The constrained CSV is validated in Python first (same errors as the default route), then copied into the
local server's import folder with three columns added (the node keys of head and tail, the arrow's key:
hashes of the normalised text that Cypher cannot compute). In ONE write transaction the server reads that
file with ``LOAD CSV`` and creates the version's nodes, ``CONTAINS`` and ``NEXT_STEP`` relations; the typed
constraint properties, labels and treatment links are then set by parameterized UNWIND, and the result is
checked against the input's counts before commit. A remote server cannot read this machine's files, so the
route needs the local server.
"""

from __future__ import annotations

import csv
import time
from collections.abc import Callable
from pathlib import Path

from neo4j import ManagedTransaction

from dkg.config import Settings
from dkg.errors import BuildError
from dkg.graph.build_input import BuildInput, offer_rows
from dkg.graph.builder import BuildReport
from dkg.graph.db import Graph, named_queries
from dkg.types import InvalidNameError, path_under

# the columns this route adds to the staged copy of the CSV
KEY_COLUMNS = ("head_key", "tail_key", "edge_key")


def import_dir(settings: Settings) -> Path:
    """The local server's import folder (``server.directories.import``), the only place LOAD CSV reads."""
    if not settings.uses_local_neo4j:
        raise BuildError("--load-csv needs the local Neo4j server: a remote server cannot read this machine's "
                         "files. Drop --load-csv to load through parameterized UNWIND writes.")
    return settings.neo4j_dir / "import"


def stage(build: BuildInput, folder: Path) -> Path:
    """Write the rows LOAD CSV will read: one per arrow, the box texts plus the keys the graph uses."""
    folder.mkdir(parents=True, exist_ok=True)
    try:
        path = path_under(folder, f"{build.uid.replace('|', '@')}-{build.source_sha()[:12]}.csv")
    except InvalidNameError as exc:
        raise BuildError(str(exc)) from exc
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["head", "tail", *KEY_COLUMNS])
        for edge in build.edges.values():
            writer.writerow([build.nodes[edge.head].content, build.nodes[edge.tail].content,
                             edge.head, edge.tail, edge.key])
    return path


def build_via_load_csv(graph: Graph, build: BuildInput, settings: Settings, *, force: bool = False,
                       on_progress: Callable[[str], None] | None = None) -> BuildReport:
    """Write one guideline version through LOAD CSV (replacing the version when its input changed)."""
    say = on_progress or (lambda _m: None)
    graph.ensure_schema()
    sha = build.source_sha()
    counts = build.counts()
    q = named_queries("build")
    current = graph.read(q["version_source_shas"], {"uids": [build.uid]})
    if current and current[0]["sha"] == sha and not force:
        return BuildReport(build.guideline, build.version, counts["nodes"], counts["decision"],
                           counts["relations"], skipped=True, seconds=0.0)
    staged = stage(build, import_dir(settings))
    node_rows = build.node_rows({})
    relation_rows = build.relation_rows({})
    offers = offer_rows(node_rows)
    gv = build.version_row(sha)

    def work(tx: ManagedTransaction) -> None:
        tx.run(q["delete_version"], gv=build.uid).consume()
        tx.run(q["upsert_versions"], gvs=[gv]).consume()
        tx.run(q["load_csv_structure"], url=f"file:///{staged.name}", gv=build.uid).consume()
        say(f"LOAD CSV read {staged.name}")
        tx.run(q["set_node_properties"], rows=node_rows).consume()
        tx.run(q["set_relation_properties"], rows=relation_rows).consume()
        tx.run(q["upsert_offers"], rows=offers).consume()
        shape = tx.run(q["version_shape"], gv=build.uid).single()
        wanted = (counts["nodes"], len(build.edges))
        if shape is None or (shape["nodes"], shape["relations"]) != wanted:
            got = (shape["nodes"], shape["relations"]) if shape else (0, 0)
            raise BuildError(f"LOAD CSV of {staged} gave {got[0]} nodes and {got[1]} arrows, the input has "
                             f"{wanted[0]} and {wanted[1]}; nothing was written")
        tx.run(q["delete_orphan_treatments"]).consume()

    start = time.perf_counter()
    try:
        graph.execute_write(work)
    finally:
        staged.unlink(missing_ok=True)
    return BuildReport(build.guideline, build.version, counts["nodes"], counts["decision"], counts["relations"],
                       skipped=False, seconds=time.perf_counter() - start)
