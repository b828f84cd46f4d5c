"""`dkg build`, `dkg counts`, `dkg constraint …`, `dkg history`, `dkg rollback`, `dkg diff`, `dkg apply`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.markup import escape
from rich.table import Table

from dkg.cli.common import app, cell, console, echo, friendly_errors
from dkg.errors import BuildError, CurationError

if TYPE_CHECKING:
    from dkg.graph.curation import ChangeRecord

constraint_app = typer.Typer(help="Curate the constraints of decision nodes (audited, versioned, reversible).",
                             no_args_is_help=True)
app.add_typer(constraint_app, name="constraint")


def _print_reports(reports) -> None:  # type: ignore[no-untyped-def]
    table = Table("guideline", "version", "nodes", "decision", "relations", "status")
    for r in reports:
        status = "up to date (unchanged input, nothing written)" if r.skipped else f"built in {r.seconds:.2f} s"
        table.add_row(cell(r.guideline), cell(r.version), str(r.nodes), str(r.decision), str(r.relations),
                      cell(status))
    console.print(table)


@app.command("build")
@friendly_errors
def build_command(
    targets: list[Path] = typer.Argument(None, help="Pipeline files (pipelines/*.yaml: PDF → parse → extract → "
                                                    "load), or ONE constrained CSV / JSON from `dkg extract`."),
    source: list[str] = typer.Option([], "--source", help="Build straight from a guideline source, as "
                                                          "GUIDELINE@VERSION (e.g. ALL@1.2026); repeatable."),
    guideline: str | None = typer.Option(None, help="Guideline code (with a CSV/JSON target)."),
    version: str | None = typer.Option(None, help="Guideline version (with a CSV/JSON target)."),
    title: str = typer.Option("", help="Guideline title (with a CSV/JSON target)."),
    edges: Path | None = typer.Option(None, help="With a CSV target: the parser's head–tail CSV of the same rows "
                                                 "(adds labels, pages and box ids)."),
    force: bool = typer.Option(False, help="Rewrite even when the input is unchanged."),
    load_csv: bool = typer.Option(False, "--load-csv", help="With a CSV target: let the local server read it "
                                                            "with LOAD CSV (the paper's route) instead of "
                                                            "parameterized UNWIND writes."),
) -> None:
    """Load guideline versions into Neo4j (one transaction per version: all or nothing); idempotent."""
    from dkg.graph.build_input import BuildInput, read_constrained_csv, read_constrained_json
    from dkg.graph.builder import build
    from dkg.graph.db import open_graph
    from dkg.graph.sources import input_from_source

    targets = list(targets or [])
    pipelines = [t for t in targets if t.suffix in (".yaml", ".yml")]
    files = [t for t in targets if t.suffix not in (".yaml", ".yml")]
    if pipelines:
        from dkg.pipeline import load_pipeline, run_pipelines

        _print_reports(run_pipelines([load_pipeline(p) for p in pipelines], force=force, echo=echo))
    inputs: list[BuildInput] = []
    for item in source:
        if "@" not in item:
            raise BuildError(f"--source {item!r}: write GUIDELINE@VERSION, e.g. ALL@1.2026")
        code, ver = item.split("@", 1)
        inputs.append(input_from_source(code, ver))
    if len(files) > 1:
        raise BuildError("give one CSV/JSON file per call (with --guideline and --version)")
    for path in files:
        if not guideline or not version:
            raise BuildError(f"building from {path} needs --guideline and --version")
        if path.suffix == ".json":
            inputs.append(read_constrained_json(path, guideline, version, title))
        else:
            inputs.append(read_constrained_csv(path, guideline, version, title, edges))
    if not inputs and not pipelines:
        raise BuildError("nothing to build: give pipeline files, a CSV/JSON, or --source GUIDELINE@VERSION")
    if load_csv:
        if len(files) != 1 or files[0].suffix != ".csv" or source:
            raise BuildError("--load-csv loads ONE constrained CSV (with --guideline and --version)")
        from dkg.config import get_settings
        from dkg.graph.load_csv import build_via_load_csv

        with open_graph() as graph:
            _print_reports([build_via_load_csv(graph, inputs[0], get_settings(), force=force,
                                               on_progress=echo)])
        return
    if inputs:
        with open_graph() as graph:
            reports = []
            for build_input in inputs:  # one transaction per guideline version
                reports += build(graph, [build_input], force=force, on_progress=echo)
        _print_reports(reports)


@app.command("counts")
@friendly_errors
def counts_command() -> None:
    """Node / decision-node / relation counts of every guideline version in the graph."""
    from dkg.graph.builder import graph_counts
    from dkg.graph.db import named_queries, open_graph

    with open_graph() as graph:
        versions = graph.read(named_queries("cli")["loaded_versions"])
        table = Table("guideline", "version", "nodes", "decision", "relations", "revision applied")
        for row in versions:
            c = graph_counts(graph, row["g"], row["v"])
            table.add_row(cell(row["g"]), cell(row["v"]), str(c["nodes"]), str(c["decision"]),
                          str(c["relations"]), cell(row["r"] or ""))
    console.print(table)


def _curator(who: str | None):  # type: ignore[no-untyped-def]
    from dkg.graph.curation import Curator
    from dkg.graph.db import open_graph

    graph = open_graph()
    return graph, Curator(graph, who)


def _show_change(record: ChangeRecord) -> None:
    from dkg.graph.curation import UNCHANGED

    if record.op == UNCHANGED:
        console.print(f"[yellow]unchanged[/]: {escape(record.node_uid)} already has "
                      f"{escape(', '.join(record.after) or 'no constraints')} (revision {record.rev_after}); "
                      "nothing written", highlight=False)
        return
    console.print(f"[green]change {escape(record.id)}[/] on {escape(record.node_uid)}: revision "
                  f"{record.rev_before} → {record.rev_after}", highlight=False)
    echo(f"  before: {', '.join(record.before) or 'NULL'}")
    echo(f"  after:  {', '.join(record.after) or 'NULL'}")
    if record.after_content != record.before_content:
        echo(f"  wording: {record.before_content!r} → {record.after_content!r}")


def _curate(node: str, who: str | None, guideline: str | None, version: str | None, page: str | None,
            change) -> None:  # type: ignore[no-untyped-def]
    """Resolve the node, apply ``change(curator, uid)`` and print the audited change."""
    graph, curator = _curator(who)
    with graph:
        _show_change(change(curator, curator.resolve(node, guideline, version, page).uid))


NODE_HELP = "Node id (guideline|version|key) or text contained in its content (must match one node)."
WHO = typer.Option(None, "--who", help="Curator name for the audit trail (default: $DKG_USER or the login).")
REASON = typer.Option(..., "--reason", "-r", help="Why: goes into the audit trail.")
EXPECT = typer.Option(None, "--expect-rev", help="The node revision you based the change on; refused if stale.")
CONTENT = typer.Option(None, "--content", help="New wording of the box (when the constraint change rewords it).")
PAGE = typer.Option(None, "--page", help="Restrict a text match to one page code (e.g. ALL-3).")
GUIDELINE = typer.Option(None, "--guideline", "-g", help="Restrict a text match to one guideline.")
VERSION = typer.Option(None, "--version", "-v", help="Restrict a text match to one version.")


@constraint_app.command("find")
@friendly_errors
def find_command(text: str = typer.Argument(..., help="Text contained in the node's content."),
                 guideline: str | None = GUIDELINE, version: str | None = VERSION, page: str | None = PAGE) -> None:
    """List nodes whose content contains TEXT, with their ids, revisions and constraints."""
    graph, curator = _curator(None)
    with graph:
        nodes = curator.find(text, guideline, version, page)
    table = Table("id", "rev", "pages", "content", "constraints")
    for n in nodes:
        table.add_row(cell(n.uid), str(n.rev), cell(",".join(n.pages)), cell(n.content[:70]),
                      cell(", ".join(n.constraints) or "NULL"))
    if nodes:
        console.print(table)
    else:
        echo(f"no node contains {text!r}")


@constraint_app.command("show")
@friendly_errors
def show_command(node: str = typer.Argument(..., help=NODE_HELP), guideline: str | None = GUIDELINE,
                 version: str | None = VERSION, page: str | None = PAGE) -> None:
    """Show one node: content, revision and constraints."""
    graph, curator = _curator(None)
    with graph:
        n = curator.resolve(node, guideline, version, page)
    console.print_json(json.dumps(n.__dict__))


@constraint_app.command("set")
@friendly_errors
def set_command(node: str = typer.Argument(..., help=NODE_HELP),
                constraints: list[str] = typer.Argument(..., help="Constraints such as 'age<65' 'ph=+'; each "
                                                                  "replaces the node's constraints on its key."),
                reason: str = REASON, expect_rev: int | None = EXPECT, content: str | None = CONTENT,
                who: str | None = WHO, guideline: str | None = GUIDELINE, version: str | None = VERSION,
                page: str | None = PAGE) -> None:
    """Add or replace constraints of a node (one audited transaction)."""
    _curate(node, who, guideline, version, page, lambda c, uid: c.set(uid, constraints, reason, expect_rev, content))


@constraint_app.command("remove")
@friendly_errors
def remove_command(node: str = typer.Argument(..., help=NODE_HELP),
                   targets: list[str] = typer.Argument(..., help="Keys (remove all their constraints) or exact "
                                                                 "constraints (e.g. 'comorbidity!=diabetes')."),
                   reason: str = REASON, expect_rev: int | None = EXPECT, content: str | None = CONTENT,
                   who: str | None = WHO, guideline: str | None = GUIDELINE, version: str | None = VERSION,
                   page: str | None = PAGE) -> None:
    """Remove constraints from a node (one audited transaction)."""
    _curate(node, who, guideline, version, page, lambda c, uid: c.remove(uid, targets, reason, expect_rev, content))


@constraint_app.command("update")
@friendly_errors
def update_command(node: str = typer.Argument(..., help=NODE_HELP),
                   old: str = typer.Argument(..., help="The existing constraint, e.g. 'age<65'."),
                   new: str = typer.Argument(..., help="Its replacement, e.g. 'age<60'."),
                   reason: str = REASON, expect_rev: int | None = EXPECT, content: str | None = CONTENT,
                   who: str | None = WHO, guideline: str | None = GUIDELINE, version: str | None = VERSION,
                   page: str | None = PAGE) -> None:
    """Replace one constraint of a node by another (one audited transaction)."""
    _curate(node, who, guideline, version, page, lambda c, uid: c.update(uid, old, new, reason, expect_rev, content))


@app.command("history")
@friendly_errors
def history_command(node: str = typer.Argument(..., help=NODE_HELP), guideline: str | None = GUIDELINE,
                    version: str | None = VERSION, page: str | None = PAGE) -> None:
    """The audit trail of a node's constraints, oldest first."""
    graph, curator = _curator(None)
    with graph:
        uid = curator.resolve(node, guideline, version, page).uid
        records = curator.history(uid)
    table = Table("change", "when", "who", "op", "rev", "before", "after", "reason")
    for r in records:
        table.add_row(cell(r.id), cell(r.at[:19]), cell(r.who),
                      cell(r.op + (f" of {r.rolls_back[:8]}" if r.rolls_back else "")),
                      f"{r.rev_before}→{r.rev_after}", cell(", ".join(r.before) or "NULL"),
                      cell(", ".join(r.after) or "NULL"), cell(r.reason))
    if records:
        console.print(table)
    else:
        echo(f"{uid}: no changes since it was built")


@app.command("rollback")
@friendly_errors
def rollback_command(change: str = typer.Argument(..., help="Change id (from `dkg history`)."),
                     reason: str = typer.Option("", "--reason", "-r", help="Why (default: 'rollback of <id>')."),
                     who: str | None = WHO) -> None:
    """Restore exactly the constraints a change replaced (refused if the node changed since)."""
    graph, curator = _curator(who)
    with graph:
        _show_change(curator.rollback(change, reason))


def _snapshot(ref: str, graph_factory):  # type: ignore[no-untyped-def]
    from dkg.corpus.model import load_guideline
    from dkg.graph.revision import Snapshot
    from dkg.graph.sources import input_from_guideline

    path = Path(ref)
    if path.suffix in (".yaml", ".yml"):
        if not path.is_file():
            raise CurationError(f"no guideline source at {path}")
        return Snapshot.from_input(input_from_guideline(load_guideline(path)))
    if "@" not in ref:
        raise CurationError(f"{ref!r} is neither a guideline source (.yaml) nor a built graph (GUIDELINE@VERSION)")
    code, ver = ref.split("@", 1)
    return Snapshot.from_graph(graph_factory(), code, ver)


@app.command("diff")
@friendly_errors
def diff_command(old: str = typer.Argument(..., help="Old version: a source .yaml or a built graph G@V."),
                 new: str = typer.Argument(..., help="New version: a source .yaml or a built graph G@V."),
                 json_out: Path | None = typer.Option(None, "--json-out", "-o", help="Write the operations "
                                                                                      "for `dkg apply`.")) -> None:
    """The minimal constraint SET/REMOVE operations from OLD to NEW; structural changes flagged apart."""
    from dkg.graph.db import Graph, open_graph
    from dkg.graph.revision import diff

    opened: list[Graph] = []

    def graph_factory():  # type: ignore[no-untyped-def]
        if not opened:
            opened.append(open_graph())
        return opened[0]

    try:
        revision = diff(_snapshot(old, graph_factory), _snapshot(new, graph_factory))
    finally:
        for g in opened:
            g.close()
    table = Table("op", "node", "value", "box (old wording)")
    for op in revision.ops:
        table.add_row(op.op.upper(), cell(op.node), cell(op.value), cell(op.content[:60]))
    console.print(table)
    console.print(f"{len(revision.ops)} operation(s) on {len({o.node for o in revision.ops})} node(s)")
    if revision.structural:
        console.print(f"[bold yellow]{len(revision.structural)} structural difference(s) (not constraint "
                      "updates; rebuild to take them):[/]")
        for line in revision.structural:
            console.print(f"  - {line}", markup=False)
    else:
        console.print("no structural change")
    if json_out:
        json_out.write_text(revision.to_json(), encoding="utf-8")
        echo(f"wrote {json_out}")


@app.command("apply")
@friendly_errors
def apply_command(ops: Path = typer.Argument(..., help="Operations written by `dkg diff --json-out`."),
                  reason: str = typer.Option("", "--reason", "-r", help="Audit reason (default: the revision)."),
                  ignore_structural: bool = typer.Option(False, "--ignore-structural",
                                                         help="Apply the constraint operations even if the "
                                                              "revision also lists structural changes."),
                  who: str | None = WHO) -> None:
    """Apply a revision's constraint operations to the graph in ONE transaction (each change audited)."""
    from dkg.graph.revision import apply_revision, load_revision

    revision = load_revision(ops)
    graph, curator = _curator(who)
    with graph:
        records = apply_revision(curator, revision, reason or None, allow_structural=ignore_structural)
    echo(f"applied {len(revision.ops)} operation(s) as {len(records)} audited change(s) on "
         f"{revision.guideline} {revision.old_version} (now at revision {revision.new_version})")
