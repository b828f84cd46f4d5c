"""`dkg onboard`, `dkg review …`, `dkg publish`, `dkg unpublish`: a new guideline through a review gate."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.table import Table

from dkg.cli.common import app, cell, console, echo, friendly_errors

if TYPE_CHECKING:
    from dkg.graph.db import Graph
    from dkg.types import EffectivePeriod

review_app = typer.Typer(help="Review a draft guideline version: list, accept, edit or reject its items "
                              "(boxes n…, arrows e…, proposed keys k:…) and page titles. Every action is "
                              "audited.",
                         no_args_is_help=True)
app.add_typer(review_app, name="review")

GUIDELINE = typer.Argument(..., help="Guideline name.")
VERSION = typer.Argument(..., help="Version.")
WHO = typer.Option(None, "--who", help="Curator recorded in the audit trail (default $DKG_CURATOR or the user).")
REASON = typer.Option("", "--reason", help="Why (kept in the audit trail).")


def effective_period(start: str | None, end: str | None) -> EffectivePeriod | None:
    """The period given by ``--effective-from`` / ``--effective-to``, checked before any work."""
    from pydantic import ValidationError

    from dkg.graph.drafts import OnboardingError
    from dkg.types import EffectivePeriod

    if start is None:
        if end is not None:
            raise OnboardingError("--effective-to needs --effective-from (the first day the version is in force); "
                                  "nothing was written")
        return None
    try:
        return EffectivePeriod.model_validate({"start": start, "end": end})
    except ValidationError as exc:
        reasons = "; ".join(str(e["msg"]).removeprefix("Value error, ") for e in exc.errors())
        raise OnboardingError(f"--effective-from {start!r}"
                              + (f" --effective-to {end!r}" if end else "")
                              + f": {reasons}; give dates as YYYY-MM-DD; nothing was written") from exc


@app.command("onboard")
@friendly_errors
def onboard_command(
    pdf: Path = typer.Argument(..., help="Guideline PDF (born-digital or scanned)."),
    guideline: str = typer.Option(..., "--guideline", "-g", help="Name of the new guideline (letters, digits, -_)."),
    version: str = typer.Option(..., "--version", "-v", help="Its version, e.g. 1.2026."),
    pages: str | None = typer.Option(None, "--pages", help="Pages to read, 1-based: '3-9' or '1,4' (default all)."),
    title: str = typer.Option("", "--title", help="Title shown with the guideline."),
    ocr: str = typer.Option("auto", "--ocr", help="auto: OCR pages without a text layer; always; never."),
    overlay: bool = typer.Option(True, "--overlay/--no-overlay", help="Write review pictures of each page."),
    effective_from: str | None = typer.Option(None, "--effective-from",
                                              help="First day the version is in force (YYYY-MM-DD)."),
    effective_to: str | None = typer.Option(None, "--effective-to",
                                            help="Last day it is in force (YYYY-MM-DD; open-ended when absent)."),
    domain: list[str] | None = typer.Option(
        None, "--domain", help="Base key domain to read it in (repeatable; 'none': general keys only). Default: "
                               "the guideline's vocabulary file's, else those whose cue words the PDF holds."),
    who: str | None = WHO,
) -> None:
    """Parse, extract and load a PDF as a DRAFT (invisible to clinicians) for review; refused if it exists."""
    from dkg.graph.db import open_graph
    from dkg.graph.onboard import choose_domains, onboard

    effective = effective_period(effective_from, effective_to)
    if domain:
        choose_domains(guideline, [], domain)  # a bad --domain is refused before the database starts
    with open_graph() as graph:
        report = onboard(graph, pdf, guideline, version, pages=pages, title=title, ocr=ocr, overlays=overlay,
                         who=who, echo=echo, effective=effective, domains=domain or None)
    echo(f"draft {guideline} {version}: {report.nodes} boxes, {report.edges} arrows, {report.constraints} "
         f"constraints, {len(report.proposed_keys)} proposed key(s)"
         + (f" ({', '.join(report.proposed_keys)})" if report.proposed_keys else ""))
    if report.overlays:
        echo(f"review pictures: {report.overlays[0].parent}")
    echo(f"next: `dkg review list {guideline} {version}`, then accept / edit / reject, then "
         f"`dkg publish {guideline} {version}`")


@review_app.command("drafts")
@friendly_errors
def drafts_command() -> None:
    """Every draft with its number of items and of items still pending."""
    from dkg.graph.db import open_graph
    from dkg.graph.drafts import list_drafts

    with open_graph() as graph:
        rows = list_drafts(graph)
    table = Table("guideline", "version", "items", "pending")
    for r in rows:
        table.add_row(cell(r["guideline"]), cell(r["version"]), str(r["items"]), str(r["pending"]))
    console.print(table)


@review_app.command("list")
@friendly_errors
def list_command(guideline: str = GUIDELINE, version: str = VERSION,
                 pending_only: bool = typer.Option(False, "--pending", help="Only items not yet reviewed."),
                 as_json: bool = typer.Option(False, "--json", help="Print the items as JSON.")) -> None:
    """The items of a draft: id, kind, status, text / label / key, constraints."""
    from dkg.graph.db import open_graph
    from dkg.graph.drafts import PENDING, draft_items

    with open_graph() as graph:
        items = [i for i in draft_items(graph, guideline, version) if not pending_only or i.status == PENDING]
    if as_json:
        echo(json.dumps([i.__dict__ for i in items], indent=2))
        return
    boxes = {i.item: i.content for i in items if i.kind == "node"}
    table = Table("item", "kind", "status", "text / arrow / key", "constraints")
    for i in items:
        text = i.content
        if i.kind == "edge":
            text = f"{i.head} → {i.tail}" + (f" [{i.content}]" if i.content else "") + \
                f"  ({boxes.get(i.head, '')[:30]} → {boxes.get(i.tail, '')[:30]})"
        elif i.kind == "key":
            text = f"{i.content}: {i.entry}"
        table.add_row(cell(i.item), cell(i.kind), cell(i.status), cell(text[:110]), cell("; ".join(i.constraints)))
    console.print(table)


def _review(guideline: str, version: str, items: list[str], action: str, all_pending: bool, who: str | None,
            reason: str) -> None:
    from dkg.graph.db import open_graph
    from dkg.graph.drafts import OnboardingError, draft_items, pending, review

    with open_graph() as graph:
        if all_pending:
            items = [i.item for i in pending(draft_items(graph, guideline, version))]
        if not items:
            raise OnboardingError("name the items to review (e.g. n3 e5 k:blood_glucose) or pass --all")
        for item in items:
            review(graph, guideline, version, item, action, who=who, reason=reason)  # type: ignore[arg-type]
    echo(f"{action}ed {len(items)} item(s)" if action != "accept" else f"accepted {len(items)} item(s)")


@review_app.command("accept")
@friendly_errors
def accept_command(guideline: str = GUIDELINE, version: str = VERSION,
                   items: list[str] = typer.Argument(None, help="Item ids (n3, e5, k:blood_glucose)."),
                   all_pending: bool = typer.Option(False, "--all", help="Accept every pending item."),
                   who: str | None = WHO, reason: str = REASON) -> None:
    """Accept items as they are."""
    _review(guideline, version, list(items or []), "accept", all_pending, who, reason)


@review_app.command("reject")
@friendly_errors
def reject_command(guideline: str = GUIDELINE, version: str = VERSION,
                   items: list[str] = typer.Argument(None, help="Item ids."),
                   all_pending: bool = typer.Option(False, "--all", help="Reject every pending item."),
                   who: str | None = WHO, reason: str = REASON) -> None:
    """Reject items: a rejected box or arrow is left out on publishing; a rejected key drops its constraints."""
    _review(guideline, version, list(items or []), "reject", all_pending, who, reason)


@review_app.command("edit")
@friendly_errors
def edit_command(
    guideline: str = GUIDELINE, version: str = VERSION,
    item: str = typer.Argument(..., help="Item id."),
    text: str | None = typer.Option(None, "--text", help="New box text or arrow label."),
    constraints: str | None = typer.Option(None, "--constraints",
                                           help="New constraints, ';'-separated ('' for none): 'heart_rate<60; "
                                                "pulse_present=yes'."),
    unit: str | None = typer.Option(None, "--unit", help="Proposed key: its pint unit (mg/dL, 1/min, mmHg)."),
    value_range: str | None = typer.Option(None, "--range", help="Proposed key: plausible range 'lo,hi'."),
    description: str | None = typer.Option(None, "--description", help="Proposed key: description."),
    who: str | None = WHO, reason: str = REASON,
) -> None:
    """Edit an item (its text, constraints, or a proposed key's unit / range / description); audited."""
    from dkg.graph.db import open_graph
    from dkg.graph.drafts import OnboardingError, draft_items, review

    with open_graph() as graph:
        entry = None
        if unit is not None or value_range is not None or description is not None:
            current = {i.item: i for i in draft_items(graph, guideline, version)}.get(item)
            if current is None or current.kind != "key":
                raise OnboardingError(f"--unit/--range/--description edit a proposed key (k:…), not {item!r}")
            entry = current.key_entry
            if unit is not None:
                entry["unit"] = unit
            if description is not None:
                entry["description"] = description
            if value_range is not None:
                try:
                    lo, hi = (float(x) for x in value_range.split(","))
                except ValueError as exc:
                    raise OnboardingError(f"--range {value_range!r}: write two numbers 'lo,hi'") from exc
                entry["range"] = [lo, hi]
        parts = None if constraints is None else [c for c in constraints.split(";") if c.strip()]
        review(graph, guideline, version, item, "edit", content=text, constraints=parts, entry=entry, who=who,
               reason=reason)
    echo(f"edited {item}")


def _words_list(text: str | None) -> list[str]:
    return [w.strip() for w in (text or "").split(";") if w.strip()]


@review_app.command("add-box")
@friendly_errors
def add_box_command(
    guideline: str = GUIDELINE, version: str = VERSION,
    text: str = typer.Option(..., "--text", help="The box's text, as printed on the page."),
    page: str = typer.Option(..., "--page", help="The page it is on (as `dkg review list` names pages)."),
    constraints: str = typer.Option("", "--constraints", help="Its constraints, ';'-separated."),
    who: str | None = WHO, reason: str = REASON,
) -> None:
    """Add a box the parser missed (then join it with `add-arrow`); audited."""
    from dkg.graph.db import open_graph
    from dkg.graph.drafts import add_item

    with open_graph() as graph:
        new = add_item(graph, guideline, version, "node", text=text, page=page,
                       constraints=_words_list(constraints), who=who, reason=reason)
    echo(f"added box {new.item} on page {new.page}: {new.content}")


@review_app.command("add-arrow")
@friendly_errors
def add_arrow_command(
    guideline: str = GUIDELINE, version: str = VERSION,
    head: str = typer.Argument(..., help="The box the arrow leaves (n…)."),
    tail: str = typer.Argument(..., help="The box it reaches (n…)."),
    label: str = typer.Option("", "--label", help="Its label (YES, NO …)."),
    constraints: str = typer.Option("", "--constraints", help="Its constraints, ';'-separated."),
    who: str | None = WHO, reason: str = REASON,
) -> None:
    """Add an arrow the parser missed between two boxes of the draft; audited."""
    from dkg.graph.db import open_graph
    from dkg.graph.drafts import add_item

    with open_graph() as graph:
        new = add_item(graph, guideline, version, "edge", head=head, tail=tail, label=label,
                       constraints=_words_list(constraints), who=who, reason=reason)
    echo(f"added arrow {new.item}: {new.head} → {new.tail}" + (f" [{new.content}]" if new.content else ""))


@review_app.command("add-key")
@friendly_errors
def add_key_command(
    guideline: str = GUIDELINE, version: str = VERSION,
    name: str = typer.Argument(..., help="Key name: lower_case letters, digits and _ (blood_glucose)."),
    kind: str = typer.Option(..., "--kind", help="numeric or boolean."),
    description: str = typer.Option("", "--description", help="What the key is."),
    unit: str | None = typer.Option(None, "--unit", help="numeric: its pint unit (mg/dL, 1/min, mmHg)."),
    value_range: str | None = typer.Option(None, "--range", help="numeric: plausible range 'lo,hi'."),
    synonyms: str = typer.Option("", "--synonyms", help="How questions write it, ';'-separated."),
    yes: str = typer.Option("", "--yes", help="boolean: wordings meaning yes, ';'-separated."),
    no: str = typer.Option("", "--no", help="boolean: wordings meaning no, ';'-separated."),
    who: str | None = WHO, reason: str = REASON,
) -> None:
    """Add a vocabulary key the extractor did not propose (checked like a vocabulary file entry); audited."""
    from dkg.graph.db import open_graph
    from dkg.graph.drafts import OnboardingError, add_item

    entry: dict[str, object] = {"kind": kind, "description": description}
    if kind == "numeric":
        if value_range is None or unit is None:
            raise OnboardingError("a numeric key needs --unit and --range 'lo,hi'")
        try:
            lo, hi = (float(x) for x in value_range.split(","))
        except ValueError as exc:
            raise OnboardingError(f"--range {value_range!r}: write two numbers 'lo,hi'") from exc
        entry.update(unit=unit, range=[lo, hi], synonyms=_words_list(synonyms))
    elif kind == "boolean":
        entry.update({"yes": _words_list(yes), "no": _words_list(no)})
    else:
        raise OnboardingError(f"--kind {kind!r}: write numeric or boolean")
    with open_graph() as graph:
        new = add_item(graph, guideline, version, "key", name=name, entry=entry, who=who, reason=reason)
    echo(f"added key {new.item}")


@review_app.command("title")
@friendly_errors
def title_command(
    guideline: str = GUIDELINE, version: str = VERSION,
    page: str | None = typer.Argument(None, help="Page (as the items name it); none: list every page's title."),
    text: str | None = typer.Argument(None, help="The flowchart title printed on the page; '' removes it."),
    who: str | None = WHO, reason: str = REASON,
) -> None:
    """List the flowchart titles read on a draft's pages, or correct one; audited. Titles name a page's algorithm
    in answers and tell adult from paediatric pages apart."""
    from dkg.graph.db import open_graph
    from dkg.graph.drafts import OnboardingError, draft_page_titles, set_page_title

    with open_graph() as graph:
        if page is None:
            titles, pages = draft_page_titles(graph, guideline, version)
            table = Table("page", "title")
            for p in pages:
                table.add_row(cell(p), cell(titles.get(p, "(none read)")))
            console.print(table)
            return
        if text is None:
            raise OnboardingError(f"give the title of page {page} (or '' to remove it): "
                                  f"dkg review title {guideline} {version} {page} \"TITLE\"")
        titles = set_page_title(graph, guideline, version, page, text, who=who, reason=reason)
    echo(f"page {page}: {titles.get(page, '(no title)')}")


@review_app.command("history")
@friendly_errors
def history_command(guideline: str = GUIDELINE, version: str = VERSION) -> None:
    """The audit trail of a version's onboarding, review, publishing, unpublishing and discarding."""
    from dkg.graph.db import open_graph
    from dkg.graph.drafts import review_history

    with open_graph() as graph:
        rows = review_history(graph, guideline, version)
    table = Table("at", "who", "action", "item", "reason", "after")
    for r in rows:
        table.add_row(cell(r["at"][:19]), cell(r["who"]), cell(r["action"]), cell(r["item"]), cell(r["reason"]),
                      cell(str(r["after"])[:60]))
    console.print(table)


@review_app.command("discard")
@friendly_errors
def discard_command(guideline: str = GUIDELINE, version: str = VERSION, who: str | None = WHO,
                    reason: str = REASON) -> None:
    """Delete a draft, its items and its onboarding files in one step (audited; the audit trail stays), so the
    version can be onboarded again, e.g. with other pages. A published version is no draft: `dkg unpublish` it
    first."""
    from dkg.graph.db import open_graph
    from dkg.graph.onboard import discard_onboarding

    with open_graph() as graph:
        items = discard_onboarding(graph, guideline, version, who=who, reason=reason)
    echo(f"discarded the draft of {guideline} {version}: {items} item(s) deleted; the audit trail is kept "
         f"(`dkg review history {guideline} {version}`)")


REINDEX = typer.Option(True, "--reindex/--no-reindex",
                       help="Refresh the retrieval index afterwards (incremental; only when one exists).")


def _reindex(graph: Graph) -> None:
    """Refresh an existing retrieval index for the models it holds, so the GRAG route follows the change."""
    from dkg.config import get_settings
    from dkg.graph.db import named_queries
    from dkg.retrieval.index import META_NAME, build_index
    from dkg.retrieval.settings import load_retrieval_settings

    meta = graph.read(named_queries("retrieval_index")["read_meta"], {"name": META_NAME})
    if not meta:
        echo("no retrieval index yet: `dkg index` builds one")
        return
    models = tuple(meta[0]["models"] or ("minilm",))
    report = build_index(graph, home=Path(get_settings().home), models=models, hops=load_retrieval_settings().hops)
    echo(report.summary())


def _questions(graph: Graph, guideline: str, version: str) -> bool:
    """Generate the published version's QA questions; a failure is reported, the publication stands."""
    from dkg.config import get_settings
    from dkg.errors import DKGError
    from dkg.qa.generated import generate_for_version

    try:
        generated = generate_for_version(graph, get_settings(), guideline, version)
    except DKGError as exc:
        echo(f"no QA questions generated: {exc}")
        return False
    echo(f"{len(generated.items)} QA questions generated {generated.split_counts()} in {generated.seconds} s: "
         f"{generated.path}")
    return True


@app.command("publish")
@friendly_errors
def publish_command(guideline: str = GUIDELINE, version: str = VERSION, who: str | None = WHO,
                    reason: str = REASON, reindex: bool = REINDEX,
                    questions: bool = typer.Option(True, "--questions/--no-questions",
                                                   help="Generate QA questions from the published graph "
                                                        "($DKG_HOME/qa/generated/)."),
                    train: bool = typer.Option(False, "--train",
                                               help="Then fine-tune the text-to-Cypher model on them and serve it "
                                                    "if it passes the gate (`dkg train update`; minutes)."),
                    train_minutes: float | None = typer.Option(None, help="With --train: the training budget "
                                                                          "(default 12)."),
                    gate_sample: int = typer.Option(300, min=0, help="With --train: CPG-QA dev questions the gate "
                                                                     "scores (0: all).")) -> None:
    """Make a fully reviewed draft visible to clinicians, atomically (refused while items are pending)."""
    from dkg.graph.db import open_graph
    from dkg.graph.drafts import publish
    from dkg.lexicon.topics import names_kept_by_others
    from dkg.vocabulary import onboarded_guidelines

    with open_graph() as graph:
        build = publish(graph, guideline, version, who=who, reason=reason)
        counts = build.counts()
        echo(f"published {guideline} {version}: {counts['nodes']} nodes, {counts['decision']} decision, "
             f"{counts['relations']} relations")
        onboarded = onboarded_guidelines()
        for name, other in names_kept_by_others(guideline, build.page_titles.values()).items():
            if other in onboarded:
                echo(f"note: '{name}' (a flowchart title of its pages) names {other} too: questions naming it are "
                     f"answered from both, side by side")
                continue
            echo(f"note: '{name}' (a flowchart title of its pages) names {other} already, so this guideline's "
                 f"topic leaves it out and questions naming it are answered from {other}; other questions reach "
                 f"{guideline} by the names in datasets/guidelines/{guideline}/topic.yaml, or when the words of its "
                 f"boxes set it apart")
        if reindex:
            _reindex(graph)
        generated = (questions or train) and _questions(graph, guideline, version)
    if train and generated:
        from dkg.cli.qa_cmd import report_update
        from dkg.config import get_settings
        from dkg.qa.model_gate import GateSettings
        from dkg.qa.training_update import update_model

        report_update(update_model(get_settings(), max_minutes=train_minutes, on_progress=echo,
                                   gate=GateSettings(old_dev_sample=gate_sample), who=who))


@app.command("unpublish")
@friendly_errors
def unpublish_command(guideline: str = GUIDELINE, version: str = VERSION, who: str | None = WHO,
                      reason: str = REASON, reindex: bool = REINDEX) -> None:
    """Take a published version out of clinicians' view, back into a draft, atomically."""
    from dkg.graph.db import open_graph
    from dkg.graph.onboard import unpublish_version

    with open_graph() as graph:
        items = unpublish_version(graph, guideline, version, who=who, reason=reason)
        echo(f"unpublished {guideline} {version}: now a draft with {items} item(s)")
        if reindex:
            _reindex(graph)


@review_app.command("replay")
@friendly_errors
def replay_command(
    review_file: Path = typer.Argument(..., help="A recorded review: datasets/guidelines/<name>/review-<v>.yaml."),
    reindex: bool = REINDEX,
) -> None:
    """Onboard the review file's PDF, replay its recorded decisions (audited) and publish; a version already
    loaded is replaced. Refused before any review when the draft's items are not the ones reviewed."""
    import tempfile

    from dkg.graph.db import open_graph
    from dkg.graph.drafts_replay import onboard_reviewed

    with open_graph() as graph, tempfile.TemporaryDirectory(prefix="dkg-replay-") as work:
        report = onboard_reviewed(graph, review_file, work=Path(work), echo=echo)
        echo(f"published {report.guideline} {report.version}: {report.counts['nodes']} nodes, "
             f"{report.counts['decision']} decision, {report.counts['relations']} relations "
             f"({report.actions} review actions replayed)")
        if not report.matches_shipped:
            echo(f"note: the published vocabulary differs from datasets/guidelines/{report.guideline}/vocabulary.yaml")
        if reindex:
            _reindex(graph)
