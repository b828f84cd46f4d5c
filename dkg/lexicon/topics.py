"""Which guideline a question is about, from data only: the guidelines are discovered from their sources
(``datasets/guidelines/<code>/<version>.yaml``: code, title, diseases) and the curated
wordings of ``dkg/lexicon/data/guideline_topics.yaml``. Adding a guideline adds a source folder (and, if
wanted, a topic entry); no module changes.

:func:`guideline_topics` gives one :class:`GuidelineTopic` per guideline: its names (the source's title
and diseases, curated names) and hints (curated words that imply it, drug names among them).
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from dkg.lexicon.errors import LexiconError
from dkg.vocabulary import ONBOARDED_MARK

ALIAS_MAX = 120
TOPICS_PATH = Path(__file__).resolve().parent / "data" / "guideline_topics.yaml"
_ILLUSTRATIVE = re.compile(r"\s*\((?:illustrative)[^)]*\)\s*", re.IGNORECASE)


class TopicName(BaseModel):
    """A wording that names a topic; ``case_sensitive`` for short capitals that are ordinary words too."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    alias: str = Field(min_length=2, max_length=ALIAS_MAX)
    case_sensitive: bool = False
    in_context: bool = Field(default=False, description="the wording names the topic only with the words round an "
                             "ambiguous name ('the all pathway'): read in questions, never drawn as a name of the "
                             "topic when questions are generated")
    at_a_break: bool = Field(default=False, description="the wording names the topic only where punctuation, a dash "
                             "or the end of the question follows it ('relapse of all - CSF positive', not 'relapse "
                             "of all lesions')")


class TopicEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    names: list[TopicName] = Field(default_factory=list)
    hints: list[str] = Field(default_factory=list)

    @field_validator("names", mode="before")
    @classmethod
    def _plain_strings(cls, value: object) -> object:
        if isinstance(value, list):
            return [{"alias": v} if isinstance(v, str) else v for v in value]
        return value


class TopicsData(BaseModel):
    """The validated content of ``guideline_topics.yaml``."""

    model_config = ConfigDict(extra="forbid")

    topics: dict[str, TopicEntry] = Field(default_factory=dict)
    not_hint_keys: list[str] = Field(default_factory=list)
    disease_keys: list[str] = Field(default_factory=list, description="facts that name the disease itself: when the "
                                    "stated values only one guideline tests point to several, these decide")
    other_diseases: list[str] = Field(default_factory=list)
    common_treatment_words: list[str] = Field(default_factory=list)


@dataclass(frozen=True)
class GuidelineTopic:
    """What in a question points to one guideline."""

    guideline: str
    names: tuple[TopicName, ...]
    hints: tuple[str, ...]

    def named_in(self, question: str) -> bool:
        """Whether the question names the topic (a name as whole words; case-sensitive ones as written)."""
        return any(_mentions(question, n) for n in self.names)

    def hinted_in(self, lowered: str) -> bool:
        return any(h in lowered for h in self.hints)

    def name_spans(self, question: str) -> list[tuple[int, int]]:
        """Where the question names the topic ('the bone sarcoma guideline'): (start, end) of each mention."""
        return [m.span() for n in self.names for m in _mention_regex(n).finditer(
            question if n.case_sensitive else question.lower())]


def _mention_regex(name: TopicName) -> re.Pattern[str]:
    if name.case_sensitive:
        return re.compile(rf"(?<![A-Za-z]){re.escape(name.alias)}(?![A-Za-z])")
    body = re.escape(name.alias.lower()).replace(r"\ ", r"[\s-]+").replace(r"\-", r"[\s-]+")
    after = r"(?=\s*(?:[^\w\s+]|$))" if name.at_a_break else r"(?![a-z0-9+])"
    return re.compile(rf"(?<![a-z0-9]){body}{after}")


def _mentions(text: str, name: TopicName) -> bool:
    return _mention_regex(name).search(text if name.case_sensitive else text.lower()) is not None


def load_topics_data(path: Path = TOPICS_PATH) -> TopicsData:
    """The topics file, validated; :class:`LexiconError` names the file and the bad entry."""
    if not path.is_file():
        raise LexiconError(f"lexicon file {path} is missing; it ships with the package (dkg/lexicon/data/)")
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
        return TopicsData.model_validate(raw)
    except yaml.YAMLError as exc:
        raise LexiconError(f"{path} is not valid YAML: {exc}") from exc
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise LexiconError(f"{path}: {problems}") from exc


def source_names(title: str, diseases: list[str]) -> list[str]:
    """Names a guideline source gives its topic: the title before a colon, without "(illustrative)", and
    its diseases.

    >>> source_names("Acute Stroke: thrombolysis and thrombectomy (illustrative)", ["Transient Ischaemic Attack"])
    ['Acute Stroke', 'Transient Ischaemic Attack']
    """
    head = _ILLUSTRATIVE.sub(" ", title).split(":")[0].strip()
    # a title joining a whole document's page titles is no name (the pages' titles give names of their own)
    return list(dict.fromkeys(n for n in [head, *diseases] if 3 <= len(n) <= ALIAS_MAX))


ONBOARDED_TOPIC_FILE = ONBOARDED_MARK
TOPIC_TITLE_MAX = 200


class OnboardedTopic(TopicEntry):
    """``datasets/guidelines/<name>/topic.yaml`` of an onboarded guideline (no YAML sources): its title (a name,
    as a source's title is) and curated names and hints. ``dkg publish`` writes one from the draft's title."""

    title: str = Field(min_length=2, max_length=TOPIC_TITLE_MAX)


def load_onboarded_topic(path: Path) -> OnboardedTopic:
    """An onboarded guideline's topic file, validated; :class:`LexiconError` names the file and the problem."""
    try:
        return OnboardedTopic.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise LexiconError(f"{path} is not valid YAML: {exc}") from exc
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise LexiconError(f"{path}: {problems}") from exc


_PLAIN_WORDS = re.compile(r"^[a-z0-9][a-z0-9 '-]*$")
_TOPIC_HEADER = """\
# How questions name or imply the onboarded guideline {name} (read by dkg/lexicon/topics.py).
# Written by `dkg publish` because the folder had none; edit it: it is the curator's (publish never overwrites it).
# title: the guideline's title; names: wordings that name it (a disease, an algorithm), as whole words;
# hints: words that imply it, matched inside the lower-cased question (keep them specific to this guideline).
"""


# where a flowchart's title stops naming the algorithm: "TACHYCARDIA w/ PULSE", "BRADYCARDIA with PULSE"
_TITLE_QUALIFIER = re.compile(r"\s+(?:with|w/|without|w/o|for|in|and)\b.*$|\s*[(:;,].*$")


def title_names(titles: list[str], taken: set[str]) -> list[str]:
    """Names from flowchart titles printed on the pages: each title's head, lower case, before a qualifier
    ("with pulse"), of at least 4 characters, plain words only, not already used by another topic or key.

    >>> title_names(["BRADYCARDIA with PULSE", "POST-CARDIAC ARREST CARE", "Chest Pain (adult)", "CPR"], {"chest pain"})
    ['bradycardia', 'post-cardiac arrest care']
    """
    names = []
    for title in titles:
        head = _TITLE_QUALIFIER.sub("", " ".join(title.split()).lower()).strip(" -")
        if len(head) >= 4 and _PLAIN_WORDS.match(head) and head not in taken:
            names.append(head)
    return list(dict.fromkeys(names))


def names_kept_by_others(guideline: str, titles: Iterable[str]) -> dict[str, str]:
    """The heads of ``titles`` (:func:`title_names`) that another loaded guideline's topic names, each with that
    guideline (publishing says so): a shipped guideline keeps such a name, so questions using it go there; one
    another onboarded guideline names is both's, and such questions are answered from both side by side."""
    owners = {n.alias.lower(): t.guideline for t in guideline_topics() if t.guideline != guideline for n in t.names}
    return {head: owners[head] for head in title_names(list(titles), set()) if head in owners}


def propose_onboarded_topic(guideline: str, title: str, wordings: list[str], taken: set[str],
                            page_titles: list[str] | None = None, shared: frozenset[str] = frozenset()
                            ) -> OnboardedTopic:
    """A first topic for a published guideline that has none: its title (the guideline's name when the draft had
    none), as names the heads of the flowchart titles printed on its pages (:func:`title_names`), and, as hints,
    its own keys' wordings of two words or more that no other topic or key already uses (``taken``, lower
    case): a curator completes the names and prunes the hints. A title head another onboarded guideline's topic
    names (``shared``) is a name of this one too, though a key wording uses it: the two are answered side by side.

    >>> t = propose_onboarded_topic("stroke-tia", "", ["blood glucose", "gcs", "last known well", "age"], {"age"},
    ...                             ["ACUTE STROKE with onset < 24 h"])
    >>> t.title, [n.alias for n in t.names], t.hints
    ('stroke tia', ['acute stroke'], ['blood glucose', 'last known well'])
    """
    hints = [w for w in dict.fromkeys(w.strip().lower() for w in wordings)
             if len(w.split()) >= 2 and w not in taken and _PLAIN_WORDS.match(w)]
    names = title_names(page_titles or [], taken - shared)
    name = title.strip() or guideline.replace("-", " ").replace("_", " ")
    # a draft's title joins the titles of all its pages: a whole document's can be longer than a topic title
    name = textwrap.shorten(name, width=TOPIC_TITLE_MAX, placeholder=" …")
    return OnboardedTopic(title=name if len(name) >= 2 else f"guideline {name}",
                          names=[TopicName(alias=n) for n in names], hints=hints)


def write_onboarded_topic(path: Path, topic: OnboardedTopic) -> None:
    """Write a topic file (validated on the way back in, so a curator's edit has the same form)."""
    body = yaml.safe_dump({"title": topic.title, "names": [n.alias if not n.case_sensitive else n.model_dump()
                                                           for n in topic.names], "hints": topic.hints},
                          sort_keys=False, allow_unicode=True, width=110)
    path.write_text(_TOPIC_HEADER.format(name=path.parent.name) + body, encoding="utf-8")
    load_onboarded_topic(path)


def reload_topics() -> None:
    """Forget the topics read so far (after a topic file was written or removed)."""
    guideline_topics.cache_clear()


def build_topics(data: TopicsData, root: Path | None = None) -> tuple[GuidelineTopic, ...]:
    """One topic per guideline found in the sources under ``root`` (default: the shipped corpus), then one per
    onboarded guideline folder with a ``topic.yaml`` and no sources."""
    from dkg.corpus.model import GUIDELINES_DIR, discover, load_guideline

    newest: dict[str, Path] = {}
    for code, _version, path in discover(root):
        newest[code] = path  # discover() sorts versions oldest first
    topics = []
    for code, path in newest.items():
        source = load_guideline(path)
        entry = data.topics.get(code, TopicEntry())
        names = [TopicName(alias=n) for n in source_names(source.title, source.diseases)] + list(entry.names)
        topics.append(GuidelineTopic(code, tuple(dict.fromkeys(names)), tuple(h.lower() for h in entry.hints)))
    base = root if root is not None else GUIDELINES_DIR
    for path in sorted(base.glob(f"*/{ONBOARDED_TOPIC_FILE}")) if base.is_dir() else []:
        if path.parent.name in newest:
            continue
        onboarded = load_onboarded_topic(path)
        names = [TopicName(alias=n) for n in source_names(onboarded.title, [])] + list(onboarded.names)
        topics.append(GuidelineTopic(path.parent.name, tuple(dict.fromkeys(names)),
                                     tuple(h.lower() for h in onboarded.hints)))
    return tuple(topics)


@lru_cache(maxsize=1)
def topics_data() -> TopicsData:
    return load_topics_data()


@lru_cache(maxsize=1)
def guideline_topics() -> tuple[GuidelineTopic, ...]:
    """The topics of the shipped guidelines (read once per process)."""
    return build_topics(topics_data())


def known_guidelines() -> tuple[str, ...]:
    """The codes of the known guidelines (shipped sources, then onboarded topic files), sorted."""
    return tuple(sorted(t.guideline for t in guideline_topics()))
