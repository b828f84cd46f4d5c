"""Applying the lexicon to a question: spelling and abbreviation expansion, disease-name resolution against
a given set of disease names (the knowledge layer's :Disease nodes), and adult / childhood cues."""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from dkg.lexicon.loader import cached_lexicon_data
from dkg.lexicon.model import LexiconData, Population, TermEntry

_WORD = re.compile(r"[a-z0-9]+")
_POSSESSIVE = re.compile(r"['’]s\b")
_SEP = r"[\W_]+"
_ROLE_PREFIX = re.compile(r"^(adult|childhood)\s+", re.IGNORECASE)
_PARENTHESIS = re.compile(r"\s*\([^)]*\)")
_AND_OTHER = re.compile(r"\s+and\s+other\s+.*$", re.IGNORECASE)


def fold(text: str) -> str:
    """Text without diacritics (Sézary → Sezary), same characters otherwise.

    >>> fold("Sézary syndrome, Waldenström")
    'Sezary syndrome, Waldenstrom'
    """
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def _stem(token: str) -> str:
    return token[:-1] if len(token) > 3 and token.endswith("s") and not token.endswith("ss") else token


def phrase_key(text: str) -> str:
    """The form two spellings of one phrase share: folded, lower case, no plural s or possessive, one space
    between words.

    >>> phrase_key("Ewing's Sarcomas"), phrase_key("non-small-cell  lung cancer")
    ('ewing sarcoma', 'non small cell lung cancer')
    """
    return " ".join(_stem(t) for t in _WORD.findall(_POSSESSIVE.sub("", fold(text).casefold())))


def _phrase_pattern(phrase: str) -> str:
    """A regex matching ``phrase`` with any punctuation or spaces between words, plurals and possessives."""
    words = [_stem(t) for t in _WORD.findall(_POSSESSIVE.sub("", fold(phrase).casefold()))]
    return _SEP.join(re.escape(w) + r"s?(?:['’]s)?" for w in words)



def _bounded(pattern: str, literal: str) -> str:
    """``pattern`` as a whole word: no letter or digit may touch it (a term ending in "/" such as "w/" may
    run into the next word: "w/chemo")."""
    head = r"(?<![A-Za-z0-9])" if literal[:1].isalnum() else ""
    tail = "" if literal.endswith("/") else r"(?![A-Za-z0-9])"
    return f"{head}(?:{pattern}){tail}"


def _leftmost_longest(spans: Iterable[tuple[int, int, object]]) -> list[tuple[int, int, object]]:
    chosen: list[tuple[int, int, object]] = []
    end = -1
    for start, stop, item in sorted(spans, key=lambda s: (s[0], -(s[1] - s[0]))):
        if start >= end:
            chosen.append((start, stop, item))
            end = stop
    return chosen


@dataclass(frozen=True)
class Expansion:
    """One term found in the question and what it was expanded to (``start``/``end``: its place in the
    question after spelling normalisation)."""

    term: str
    expansion: str
    kind: str
    start: int
    end: int


@dataclass(frozen=True)
class ExpandedQuery:
    """The question with spellings normalised and abbreviations, shorthand and lay words expanded.

    ``text`` has the append-mode expansions in brackets at the end (the question's phrases stay intact);
    ``inline`` has each right after its term ("RT (radiation therapy)"), for reading what each clause asks.
    """

    original: str
    text: str
    expansions: tuple[Expansion, ...] = ()
    inline: str = ""


@dataclass(frozen=True)
class PopulationCue:
    """Whether the question is about adults or children (``None``: no cue, or cues for both)."""

    population: Population | None
    cues: tuple[str, ...] = ()


@dataclass(frozen=True)
class DiseaseMention:
    """A phrase of the question naming one disease, or several that share the name (``kidney cancer``)."""

    surface: str
    diseases: tuple[str, ...]
    start: int
    end: int
    via: Literal["name", "site"] = "name"
    spans: tuple[tuple[int, int], ...] = ()

    def masked(self, text: str) -> str:
        """``text`` with this mention's words blanked out (its own spans, or start..end)."""
        out = text
        for start, end in self.spans or ((self.start, self.end),):
            out = out[:start] + " " * (end - start) + out[end:]
        return out


class Lexicon:
    """The compiled lexicon. Build with :func:`load_lexicon`."""

    def __init__(self, data: LexiconData) -> None:
        self.data = data
        self._spelling = [(re.compile(("" if s.within_words else r"\b") + re.escape(s.british), re.IGNORECASE),
                           s.british, s.american) for s in data.spellings]
        by_length = sorted(data.terms, key=lambda t: -len(t.term))
        self._terms_cs = {t.term: t for t in data.terms if t.case_sensitive}
        self._terms_ci = {t.term.casefold(): t for t in data.terms if not t.case_sensitive}
        self._term_re_cs = self._alternation([t for t in by_length if t.case_sensitive], 0)
        self._term_re_ci = self._alternation([t for t in by_length if not t.case_sensitive], re.IGNORECASE)
        cues = data.populations
        self._population_words = [(p, re.compile(_bounded(_phrase_pattern(w), w), re.IGNORECASE), w)
                                  for p, words in (("childhood", cues.childhood), ("adult", cues.adult))
                                  for w in words]
        self._ages = [(re.compile(a.pattern, re.IGNORECASE if a.ignore_case else 0), a.unit)
                      for a in cues.age_patterns]

    @staticmethod
    def _alternation(terms: Sequence[TermEntry], flags: int) -> re.Pattern[str] | None:
        if not terms:
            return None
        return re.compile("|".join(_bounded(re.escape(t.term), t.term) for t in terms), flags)

    # ---- spelling and terms ---------------------------------------------------------------------
    def american_spelling(self, text: str) -> str:
        """``text`` with diacritics removed and British spellings (word starts) in their American form.

        >>> load_lexicon().american_spelling("Paediatric tumours")
        'Pediatric tumors'
        """
        out = fold(text)
        for pattern, _british, american in self._spelling:
            out = pattern.sub(functools.partial(_same_case, american=american), out)
        return out

    def _term_of(self, surface: str) -> TermEntry | None:
        return self._terms_cs.get(surface) or self._terms_ci.get(surface.casefold())

    def expand_query(self, text: str) -> ExpandedQuery:
        """The question with abbreviations, shorthand and lay words expanded (see :class:`TermEntry`):
        replace-mode terms in place, append-mode expansions in brackets at the end, so the question's own
        phrases stay intact for disease-name matching.

        >>> q = load_lexicon().expand_query("Tx options s/p WLE for melanoma?")
        >>> q.text
        'treatment options after WLE for melanoma? (wide local excision)'
        >>> [(e.term, e.kind) for e in q.expansions]
        [('Tx', 'shorthand'), ('s/p', 'shorthand'), ('WLE', 'abbreviation')]
        """
        spelled = self.american_spelling(text)
        spans: list[tuple[int, int, object]] = []
        for regex in (self._term_re_cs, self._term_re_ci):
            if regex is not None:
                spans.extend((m.start(), m.end(), m.group(0)) for m in regex.finditer(spelled))
        pieces: list[str] = []
        inline: list[str] = []
        expansions: list[Expansion] = []
        appended: list[str] = []
        last = 0
        folded = spelled.casefold()
        for start, end, surface in _leftmost_longest(spans):
            entry = self._term_of(str(surface))
            if entry is None:
                continue
            pieces.append(spelled[last:start])
            inline.append(spelled[last:start])
            if entry.appends:
                pieces.append(str(surface))
                new = entry.expansion.casefold() not in folded
                inline.append(f"{surface} ({entry.expansion})" if new else str(surface))
                if new and entry.expansion not in appended:
                    appended.append(entry.expansion)
            else:
                pieces.append(entry.expansion)
                inline.append(entry.expansion)
            expansions.append(Expansion(str(surface), entry.expansion, entry.kind, start, end))
            last = end
        pieces.append(spelled[last:])
        inline.append(spelled[last:])
        if appended:
            pieces.append(f" ({'; '.join(appended)})")
        return ExpandedQuery(text, "".join(pieces), tuple(expansions), "".join(inline))

    # ---- population -----------------------------------------------------------------------------
    def population(self, text: str) -> PopulationCue:
        """Adult / childhood from cue words and stated ages (``None`` when there is no cue, or both kinds).

        >>> lex = load_lexicon()
        >>> lex.population("How do they diagnose AML in a 5-year-old?")
        PopulationCue(population='childhood', cues=('age 5',))
        >>> lex.population("treatment of AML in adults").population, lex.population("AML").population
        ('adult', None)
        """
        spelled = self.american_spelling(text)
        found: dict[str, list[str]] = {"childhood": [], "adult": []}
        for population, regex, word in self._population_words:
            if regex.search(spelled):
                found[population].append(word)
        limit = self.data.populations.childhood_age_below
        for regex, unit in self._ages:
            for m in regex.finditer(spelled):
                try:
                    value = int(m.group(1))
                except (TypeError, ValueError):
                    continue
                years = value / 12 if unit == "months" else value
                if years > 120:
                    continue
                found["childhood" if years < limit else "adult"].append(f"age {value}" + (" months" if unit ==
                                                                                          "months" else ""))
        kinds = [p for p, cues in found.items() if cues]
        cues = tuple(dict.fromkeys(c for p in kinds for c in found[p]))
        if len(kinds) == 1:
            return PopulationCue(kinds[0], cues)  # type: ignore[arg-type]
        return PopulationCue(None, cues)

    # ---- diseases -------------------------------------------------------------------------------
    def resolver(self, disease_names: Iterable[str]) -> DiseaseResolver:
        """A resolver of disease mentions onto ``disease_names`` (the knowledge layer's :Disease names)."""
        return DiseaseResolver(self, disease_names)


def _same_case(match: re.Match[str], american: str) -> str:
    found = match.group(0)
    if found.isupper():
        return american.upper()
    if found[:1].isupper():
        return american[:1].upper() + american[1:]
    return american


def name_variants(name: str) -> list[str]:
    """Forms of a knowledge-layer disease name people also write: without brackets, a bracketed word in
    place of the word before it, without "and other ...", without the Adult/Childhood prefix, and with
    cancer ↔ carcinoma.

    >>> name_variants("Intraocular (Uveal) Melanoma")
    ['Intraocular (Uveal) Melanoma', 'Intraocular Melanoma', 'Uveal Melanoma']
    >>> name_variants("Adult Soft Tissue Sarcoma")
    ['Adult Soft Tissue Sarcoma', 'Soft Tissue Sarcoma']
    >>> name_variants("Merkel Cell Carcinoma")
    ['Merkel Cell Carcinoma', 'Merkel Cell Cancer']
    """
    forms = [name, _PARENTHESIS.sub("", name)]
    inner = re.match(r"^(.*?)(\w+)\s+\(([^)]+)\)\s+(.+)$", name)
    if inner:
        forms.append(f"{inner.group(1)}{inner.group(3)} {inner.group(4)}")
    forms += [_AND_OTHER.sub("", f) for f in forms]
    forms += [_ROLE_PREFIX.sub("", f) for f in forms]
    forms += [re.sub(r"\bcancer\b", "Carcinoma", f, flags=re.IGNORECASE) for f in forms]
    forms += [re.sub(r"\bcarcinoma\b", "Cancer", f, flags=re.IGNORECASE) for f in forms]
    return list(dict.fromkeys(f.strip() for f in forms if f.strip()))


def name_population(name: str) -> Population | None:
    """adult / childhood when the disease name says so.

    >>> name_population("Adult Hodgkin Lymphoma"), name_population("Wilms Tumor and Other Childhood Kidney Tumors")
    ('adult', 'childhood')
    """
    if re.match(r"^adult\b", name, re.IGNORECASE):
        return "adult"
    if re.search(r"\b(childhood|juvenile|pediatric)\b", name, re.IGNORECASE):
        return "childhood"
    return None


_TOKEN = re.compile(r"[A-Za-z0-9]+")


def _tokens(text: str) -> list[tuple[str, str, int, int]]:
    """(stemmed lower-case form, surface, start, end) of each word, possessive 's dropped."""
    out: list[tuple[str, str, int, int]] = []
    for m in _TOKEN.finditer(text):
        raw = m.group(0)
        if raw in ("s", "S") and m.start() > 0 and text[m.start() - 1] in "'’" and out:
            continue
        out.append((_stem(raw.casefold()), raw, m.start(), m.end()))
    return out


@dataclass
class DiseaseResolver:
    """Disease mentions → knowledge-layer disease names, from each name's own forms, the curated aliases
    and, when the question names no disease but speaks of a cancer, the curated body sites.

    Curated entries of diseases not in ``disease_names`` are left out (listed in ``unknown``)."""

    lexicon: Lexicon
    disease_names: Iterable[str]
    unknown: tuple[str, ...] = field(default=(), init=False)
    populations: dict[str, Population | None] = field(default_factory=dict, init=False)
    broader: dict[str, tuple[str, ...]] = field(default_factory=dict, init=False)
    _ci: dict[str, set[str]] = field(default_factory=dict, init=False, repr=False)
    _cs: dict[str, set[str]] = field(default_factory=dict, init=False, repr=False)
    _sites: dict[str, set[str]] = field(default_factory=dict, init=False, repr=False)
    _cancer_words: frozenset[str] = field(default=frozenset(), init=False, repr=False)
    _longest: int = field(default=1, init=False, repr=False)

    def __post_init__(self) -> None:
        names = sorted(set(self.disease_names))
        self.disease_names = names
        curated = {e.disease: e for e in self.lexicon.data.diseases}
        self.unknown = tuple(sorted(set(curated) - set(names)))
        for name in names:
            entry = curated.get(name)
            self.populations[name] = (entry.population if entry and entry.population else None) or \
                name_population(name)
            aliases = [(v, False) for v in name_variants(name)]
            aliases += [(a.alias, a.case_sensitive) for a in (entry.aliases if entry else ())]
            for alias, case_sensitive in aliases:
                if case_sensitive:
                    self._add(self._cs, " ".join(raw for _, raw, _, _ in _tokens(fold(alias))), name)
                else:
                    self._add(self._ci, phrase_key(alias), name)
            for site in entry.sites if entry else ():
                self._add(self._sites, phrase_key(site), name)
        self._cancer_words = frozenset(phrase_key(w) for w in self.lexicon.data.cancer_words)
        known = set(names)
        self.broader = {name: tuple(b for b in curated[name].part_of if b in known)
                        for name in names if name in curated and curated[name].part_of}

    def _add(self, table: dict[str, set[str]], key: str, name: str) -> None:
        if key:
            table.setdefault(key, set()).add(name)
            self._longest = max(self._longest, key.count(" ") + 1)

    def _spans(self, tokens: Sequence[tuple[str, str, int, int]],
               table: dict[str, set[str]], cased: bool) -> list[tuple[int, int, object]]:
        spans: list[tuple[int, int, object]] = []
        for i in range(len(tokens)):
            for n in range(min(self._longest, len(tokens) - i), 0, -1):
                words = tokens[i:i + n]
                key = " ".join(w[1] if cased else w[0] for w in words)
                if key in table:
                    spans.append((i, i + n, table[key]))
                    break
        return spans

    def mentions(self, text: str, population: Population | None = None) -> list[DiseaseMention]:
        """The disease mentions of ``text``, leftmost-longest, one per distinct set of diseases.

        With ``population``, a mention drops the diseases of the other population unless none would be left
        ("kidney cancer in adults": renal cell cancer, not Wilms tumour; beside a childhood form, a form
        with no population counts as the adult one). Body sites ("a growth on the
        pituitary gland") count only when no disease is named and the text speaks of a cancer; all sites
        found form one mention.
        """
        folded = fold(text)
        tokens = _tokens(folded)
        spans = self._spans(tokens, self._cs, True) + self._spans(tokens, self._ci, False)
        out = self._collect(folded, tokens, spans, population)
        if not out and any(t[0] in self._cancer_words for t in tokens):
            sites = _leftmost_longest(self._spans(tokens, self._sites, False))
            if sites:
                names: set[str] = set()
                for _, _, found in sites:
                    names |= found  # type: ignore[arg-type]
                site_spans = tuple((tokens[a][2], tokens[b - 1][3]) for a, b, _ in sites)
                out = [replace(m, via="site", spans=site_spans) for m in
                       self._collect(folded, tokens, [(sites[0][0], sites[-1][1], names)], population)]
        return out

    def _collect(self, folded: str, tokens: Sequence[tuple[str, str, int, int]],
                 spans: Iterable[tuple[int, int, object]], population: Population | None) -> list[DiseaseMention]:
        out: list[DiseaseMention] = []
        seen: set[tuple[str, ...]] = set()
        for first, stop, names in _leftmost_longest(spans):
            diseases = self._for_population(tuple(sorted(names)), population)  # type: ignore[call-overload]
            if not diseases or diseases in seen:
                continue
            seen.add(diseases)
            start, end = tokens[first][2], tokens[stop - 1][3]
            out.append(DiseaseMention(folded[start:end], diseases, start, end))
        return out

    def _for_population(self, diseases: tuple[str, ...], population: Population | None) -> tuple[str, ...]:
        if population is None:
            return diseases
        # Beside a childhood form, a form with no population is the adult one (Renal Cell Cancer beside Wilms).
        childhood = tuple(d for d in diseases if self.populations.get(d) == "childhood")
        kept = childhood if population == "childhood" else tuple(d for d in diseases if d not in childhood)
        return kept or diseases


def load_lexicon(folder: Path | None = None) -> Lexicon:
    """The lexicon compiled from the data files in ``folder`` (default: the shipped ones; read once)."""
    return _compiled(Path(folder).resolve() if folder is not None else None)


_COMPILED: dict[Path | None, Lexicon] = {}


def _compiled(folder: Path | None) -> Lexicon:
    if folder not in _COMPILED:
        _COMPILED[folder] = Lexicon(cached_lexicon_data(folder))
    return _COMPILED[folder]
