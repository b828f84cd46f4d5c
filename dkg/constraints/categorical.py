"""Keyword rules for categorical constraints, driven by :data:`dkg.vocabulary.VOCABULARY`.

Input is one phrase (lower case, words separated by spaces, mathematical words already
symbolized). Rules run in a fixed order and each blanks out the text it used, so a later, looser
rule cannot read the same words again:

1. polarity: ``Ph-negative``, ``MRD+``, ``margins negative``;
2. stage lists: ``stage II-III`` → ``stage in {II,III}``;
3. fixed phrases: every multi-word or hyphenated value synonym of the vocabulary plus a few more;
4. head words with coordinated values: ``persistent or rising MRD``, ``comorbidities of diabetes
   and liver``, ``prior TKI or chemotherapy``;
5. single-word values that need no head word (``relapsed``, ``metastatic``).

A value is negated when a negator (without, no, not, …) precedes it in the phrase, or when the
caller says the whole phrase sits inside a negated constituent.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from dkg.types import Constraint, Op
from dkg.vocabulary import VOCABULARY, KeyKind, onboarded_sources

_NEGATOR = re.compile(r"\b(?:without|no|not|non|absence\s+of|free\s+of|lack\s+of|lacking|neither|nor)\b")
_B = r"(?<![\w+-])"  # word start that is not inside a hyphenated word
_E = r"(?![\w+]|-\w)"  # word end, same

# Values of yes/no keys flip when negated instead of becoming "!=".
_BOOLEAN_FLIP = {"yes": "no", "no": "yes"}

# Extra surface forms beyond the vocabulary's synonyms (regex fragments, lower case).
_EXTRA_FIXED: dict[tuple[str, str], tuple[str, ...]] = {
    ("comorbidity", "none"): (r"(?:without|no)\s+(?:substantial|significant|major|serious|relevant|severe)"
                              r"\s+comorbidit(?:y|ies)", r"(?:medically\s+)?fit(?:\s+for\s+\w+(?:\s+\w+)?)?"),
    ("comorbidity", "substantial"): (r"(?:with\s+)?(?:substantial|significant|major|serious|relevant|severe)"
                                     r"\s+comorbidit(?:y|ies)", r"unfit(?:\s+for\s+\w+(?:\s+\w+)?)?", "frail"),
    ("metastasis", "none"): (r"(?:no|without)\s+(?:evidence\s+of\s+)?(?:distant\s+)?metastas[ie]s",
                             r"non-?\s?metastatic", r"locali[sz]ed(?:\s+disease)?", r"m0"),
    ("metastasis", "any"): (r"metastatic(?:\s+disease)?", r"distant\s+metastas[ie]s", r"m1", r"metastas[ie]s"),
    ("response", "cr"): (r"complete\s+(?:response|remission)", r"cr[12]?", r"mrd-\w+\s+cr",
                         r"(?:first|second)\s+(?:complete\s+)?remission"),
    ("response", "less_than_cr"): (r"(?:less\s+than|<)\s*(?:a\s+)?(?:cr|complete\s+(?:response|remission))",
                                   r"no\s+(?:cr|complete\s+(?:response|remission))"),
    ("response", "pr"): (r"partial\s+(?:response|remission)", r"pr"),
    ("response", "stable"): (r"stable\s+disease", r"stable"),
    ("response", "progression"): (r"progressive\s+disease", r"(?:disease\s+)?progression", r"progressing",
                                  r"progressive"),
    ("response", "good"): (r"good\s+(?:histologic(?:al)?\s+)?response",),
    ("response", "poor"): (r"poor\s+(?:histologic(?:al)?\s+)?response",),
    ("disease_status", "relapsed"): (r"relapsed?", r"relapsing"),
    ("disease_status", "refractory"): (r"refractory",),
    ("disease_status", "recurrent"): (r"recurrent", r"(?<!risk\sof\s)(?<!of\s)recurrence(?!\s+risk)", r"recurred"),
    ("disease_status", "newly_diagnosed"): (r"newly\s+diagnosed", r"new\s+diagnosis", r"de\s+novo"),
    ("resectable", "yes"): (r"resectable", r"operable", r"amenable\s+to\s+(?:surgery|resection)"),
    ("resectable", "no"): (r"unresectable", r"non-?\s?resectable", r"not\s+resectable", r"inoperable",
                           r"not\s+amenable\s+to\s+(?:surgery|resection)"),
    ("transplant_eligible", "yes"): (r"(?:transplant|hct|sct)[-\s](?:candidates?|eligible)",
                                     r"(?:candidates?|eligible)\s+for\s+(?:allogeneic\s+)?(?:hct|sct|transplant\w*)"),
    ("transplant_eligible", "no"): (r"not\s+(?:a\s+)?(?:transplant|hct|sct)\s+candidates?",
                                    r"not\s+(?:a\s+)?candidates?\s+for\s+(?:allogeneic\s+)?(?:hct|sct|transplant\w*)",
                                    r"(?:transplant|hct|sct)[-\s]ineligible",
                                    r"ineligible\s+for\s+(?:allogeneic\s+)?(?:hct|sct|transplant\w*)"),
    ("lineage", "b_cell"): (r"b-?\s?cell", r"b-all", r"b-lineage", r"precursor\s+b", r"b-precursor"),
    ("lineage", "t_cell"): (r"(?<!car\s)t-?\s?cell(?!\s+(?:therapy|engager))", r"t-all", r"t-lineage"),
    ("histology", "favorable"): (r"favou?rable[-\s]histology", r"fh"),
    ("histology", "non_clear_cell"): (r"non-?\s?clear[-\s]cell",),
    ("histology", "clear_cell"): (r"clear[-\s]cell",),
    ("histology", "ewing"): (r"ewing(?:'s)?\s+sarcoma",),
    ("margin", "negative"): (r"r0(?:\s+resection)?", r"margin-negative"),
    ("margin", "positive"): (r"r[12](?:\s+resection)?", r"margin-positive"),
    ("prior_therapy", "none"): (r"(?:previously\s+)?untreated", r"treatment-?\s?na[iï]ve",
                                r"no\s+prior\s+(?:therapy|treatment)", r"therapy-?\s?na[iï]ve"),
    ("comorbidity", "diabetes"): (r"diabetes(?:\s+mellitus)?", r"diabetic"),
    ("comorbidity", "cardiac"): (r"(?:cardiac|heart)\s+(?:disease|dysfunction|failure|comorbidit(?:y|ies))",),
    ("comorbidity", "renal"): (r"(?:renal|kidney)\s+(?:disease|dysfunction|failure|impairment|insufficiency)",),
    ("comorbidity", "liver"): (r"(?:liver|hepatic)\s+(?:disease|dysfunction|failure|impairment|insufficiency)",),
    ("comorbidity", "pulmonary"): (r"(?:pulmonary|lung)\s+(?:disease|dysfunction)",),
    ("site", "extremity"): (r"(?<!to\s)(?<!to\sthe\s)(?:extremity|extremities)",),
    ("site", "axial"): (r"axial",),
    ("site", "pelvis"): (r"(?<!to\s)(?<!to\sthe\s)(?:pelvis|pelvic)",),
    ("site", "chest_wall"): (r"chest\s+wall",),
    ("risk", "very_high"): (r"very\s+high[-\s]risk",),
    ("histology", "anaplastic"): (r"anaplastic",),
    ("metastasis", "cns"): (r"(?:isolated\s+)?cns(?=\s+(?:relapse|involvement|disease|leuka?emia|metastas[ie]s))",),
    # A relapse or residual lesions at a site are disease at that site; "relapse" itself stays readable.
    ("metastasis", "lung"): (r"(?:lungs?|pulmonary)(?=\s+(?:relapse|recurrence|nodules?|lesions?))",
                             r"(?<=relapse\sin\s)(?:the\s+)?lungs?", r"(?<=recurrence\sin\s)(?:the\s+)?lungs?"),
    ("metastasis", "bone"): (r"bones?(?=\s+(?:relapse|recurrence|lesions?))",
                             r"(?<=relapse\sin\s)(?:the\s+)?bones?", r"(?<=recurrence\sin\s)(?:the\s+)?bones?"),
    ("histology", "papillary"): (r"papillary",),
    ("histology", "chromophobe"): (r"chromophobe",),
    ("histology", "chondrosarcoma"): (r"chondrosarcoma",),
    ("histology", "osteosarcoma"): (r"osteosarcoma",),
}
# Therapies named as treatments, not patient properties; blanked before any rule reads them.
_NOT_PATIENT = re.compile(r"\bcar[-\s]?t(?:-?\s?cells?)?(?:\s+(?:cell\s+)?therapy)?\b"
                          r"|\bto\s+(?:negative|clear|wide)\s+margins?\b"
                          # "with or without X" leaves X open.
                          r"|\bwith\s+or\s+without\s+[^,;()]+")

# Head words of keys whose values are often bare words ("lung", "persistent") that would be
# ambiguous without them; values are read before or after the head, coordinated.
_HEADS: dict[str, str] = {
    "comorbidity": r"comorbidit(?:y|ies)|comorbid\s+conditions?|coexisting\s+conditions?",
    "metastasis": r"metastas[ie]s|metastatic\s+(?:disease\s+)?(?:to|in)|mets|spread\s+to",
    "mrd": r"mrd|minimal\s+residual\s+disease|measurable\s+residual\s+disease",
    "risk": r"[-\s]?risk(?:\s+group|\s+disease)?",
    "grade": r"[-\s]?grade",
    "margin": r"(?<!to\s)margins?",
    "response": r"response|remission",
    "histology": r"anaplasia",
    "prior_therapy": (r"(?:prior|previous(?:ly)?(?:\s+(?:treated|received))?(?:\s+with)?|after|following|"
                      r"failure\s+of|failed|refractory\s+to|resistant\s+to|intoleran(?:t|ce)\s+(?:to|of)|"
                      r"pretreated\s+with|exposure\s+to|received)(?:\s+(?:cranial|systemic|adjuvant|neoadjuvant|"
                      r"intensive|first-line|front-?line|induction|initial))?"),
}
_HEAD_VALUES: dict[str, dict[str, str]] = {
    "comorbidity": {"diabetes": r"diabetes|diabetic", "liver": r"liver|hepatic", "cardiac": r"cardiac|heart",
                    "renal": r"renal|kidney", "pulmonary": r"pulmonary|lung"},
    "metastasis": {"lung": r"lungs?(?:-only)?|pulmonary", "bone_marrow": r"bone\s+marrow", "bone": r"bones?|osseous",
                   "brain": r"brain", "liver": r"liver|hepatic", "cns": r"cns|central\s+nervous\s+system"},
    "mrd": {"persistent": r"persistent|persisting", "rising": r"rising|increasing",
            "positive": r"positive|detectable|\+", "negative": r"negative|undetectable"},
    "risk": {"very_high": r"very\s+high", "high": r"high", "standard": r"standard", "intermediate": r"intermediate",
             "low": r"low", "favorable": r"favou?rable", "poor": r"poor"},
    "grade": {"low": r"low", "intermediate": r"intermediate", "high": r"high"},
    "margin": {"negative": r"negative|wide|clear", "positive": r"positive|involved", "close": r"close"},
    "response": {"cr": r"complete", "pr": r"partial", "good": r"good", "poor": r"poor"},
    "histology": {"focal_anaplasia": r"focal", "diffuse_anaplasia": r"diffuse"},
    "prior_therapy": {"tki": r"tkis?|tyrosine\s+kinase\s+inhibitors?", "chemotherapy": r"chemotherapy|chemo",
                      "radiation": r"radiation(?:\s+therapy)?|radiotherapy|rt",
                      "immunotherapy": r"immunotherapy|checkpoint\s+inhibitors?|immune\s+checkpoint\s+inhibitors?",
                      "surgery": r"surgery|resection|nephrectomy|excision|amputation|surgical\s+resection",
                      "transplant": r"(?:allogeneic\s+|allo-?)?(?:hct|sct|hsct|stem\s+cell\s+transplant(?:ation)?|"
                                    r"transplant(?:ation)?)"},
}
# Keys whose values may be any word when they follow the head ("comorbidities of hypertension").
_OPEN_AFTER = {"comorbidity"}
_NOT_VALUES = {"the", "a", "an", "any", "other", "such", "as", "and", "or", "with", "of", "to", "in", "including",
               "substantial", "significant", "major", "serious", "severe", "relevant", "disease", "diseases",
               "patients", "therapy", "treatment", "all"}

_POLARITY: dict[str, tuple[str, dict[str, str]]] = {
    "ph": (r"ph|philadelphia(?:\s+chromosome)?|bcr[\s:-]*abl1?",
           {"positive": "+", "+": "+", "negative": "-", "-": "-"}),
    "mrd": (r"mrd|minimal\s+residual\s+disease|measurable\s+residual\s+disease",
            {"positive": "positive", "+": "positive", "negative": "negative", "-": "negative"}),
}
_ROMAN = {"i": "I", "ii": "II", "iii": "III", "iv": "IV", "v": "V", "1": "I", "2": "II", "3": "III", "4": "IV",
          "5": "V"}
_ORDER = ["I", "II", "III", "IV", "V"]
_STAGE_ITEM = r"(iv|v|iii|ii|i|[1-5])[abc]?\d?"
_STAGE = re.compile(rf"{_B}stages?\s+{_STAGE_ITEM}((?:\s*(?:to|or|and|,|/|-|and/or)\s*(?:stage\s+)?{_STAGE_ITEM}{_E})*)"
                    rf"{_E}")


@dataclass(frozen=True)
class Found:
    """One categorical value read from the phrase, before negation and grouping."""

    key: str
    values: tuple[str, ...]
    start: int
    end: int
    joiner: str  # "or" / "and" between several values; "" for one


def _blank(text: str, start: int, end: int) -> str:
    return text[:start] + " " * (end - start) + text[end:]


def _fixed_phrases() -> list[tuple[str, str, re.Pattern[str]]]:
    """Fixed phrases from the vocabulary (multi-word or hyphenated synonyms) and :data:`_EXTRA_FIXED`."""
    table: list[tuple[str, str, str]] = []
    for (key, value), patterns in _EXTRA_FIXED.items():
        table.extend((key, value, p) for p in patterns)
    onboarded = onboarded_sources()
    for spec in VOCABULARY.values():
        if spec.kind is not KeyKind.CATEGORICAL or spec.source in onboarded:
            continue  # an onboarded guideline's wordings ('heart failure' as a sign) must not read other guidelines
        for value, synonyms in spec.values.items():
            if spec.name in ("prior_therapy", "metastasis", "mrd") and value not in ("none", "any"):
                continue  # bare site/therapy words need their head word ("lung metastases", "prior TKI")
            if spec.name in ("margin", "risk", "grade") or value in ("focal_anaplasia", "diffuse_anaplasia"):
                continue  # read by the head rule, which also sees coordinated values ("close or positive margins")
            for synonym in synonyms:
                single_histology = spec.name == "histology" and len(synonym) > 4
                if (re.search(r"[\s-]", synonym) or single_histology) and not re.match(
                    r"^[a-z]+-(?:positive|negative)$", synonym
                ):
                    table.append((spec.name, value, re.escape(synonym).replace(r"\ ", r"\s+")))
    # Longest patterns first so "non-clear cell" wins over "clear cell".
    table.sort(key=lambda row: -len(row[2]))
    return [(key, value, re.compile(rf"{_B}(?:{pattern}){_E}")) for key, value, pattern in table]


_FIXED = _fixed_phrases()


def _joiner(text: str) -> str:
    return "or" if re.search(r"\bor\b|/", text) else ("and" if re.search(r"\band\b|,", text) else "")


def _find_polarity(text: str) -> tuple[list[Found], str]:
    found: list[Found] = []
    for key, (head, values) in _POLARITY.items():
        after = re.compile(rf"{_B}(?:{head})(?!-like)\s*(?:-\s*|:\s*|\s)?(positive|negative|\+|-)(?![\w+-])")
        before = re.compile(rf"{_B}(positive|negative)\s+(?:for\s+)?(?:{head}){_E}")
        for pattern in (after, before):
            for match in pattern.finditer(text):
                value = values.get(match[1])
                if value is not None:
                    found.append(Found(key, (value,), match.start(), match.end(), ""))
                    text = _blank(text, match.start(), match.end())
    return found, text


def _find_stage(text: str) -> tuple[list[Found], str]:
    found: list[Found] = []
    for match in _STAGE.finditer(text):
        listed = re.sub(r"^stages?\s+|\bstage\s+", " ", match.group(0))
        items = [_ROMAN[m] for m in re.findall(rf"(?<![a-z0-9]){_STAGE_ITEM}(?![a-z0-9])", listed)]
        if not items:
            continue
        values = list(dict.fromkeys(items))
        if len(items) == 2 and re.search(r"\s(?:to|-)\s|\d?-", match.group(0)) and not re.search(
            r"\b(?:or|and)\b|,", match.group(0)
        ):
            lo, hi = sorted((_ORDER.index(items[0]), _ORDER.index(items[1])))
            values = _ORDER[lo:hi + 1]
        found.append(Found("stage", tuple(values), match.start(), match.end(), "or" if len(values) > 1 else ""))
        text = _blank(text, match.start(), match.end())
    return found, text


_GRADE_NUMBER = re.compile(rf"{_B}grade\s+([1-3])(?:\s*(?:to|or|and|-|/)\s*([1-3]))?{_E}")
_GRADE_NAMES = {1: "low", 2: "intermediate", 3: "high"}


def _find_grade_numbers(text: str) -> tuple[list[Found], str]:
    """"Grade 1" → low, "grade 2-3" → {intermediate, high} (three-tier grading)."""
    found: list[Found] = []
    for match in _GRADE_NUMBER.finditer(text):
        lo = int(match[1])
        hi = int(match[2]) if match[2] else lo
        values = tuple(_GRADE_NAMES[g] for g in range(min(lo, hi), max(lo, hi) + 1))
        found.append(Found("grade", values, match.start(), match.end(), "or" if len(values) > 1 else ""))
        text = _blank(text, match.start(), match.end())
    return found, text


def _find_fixed(text: str, multiword: bool | None = None) -> tuple[list[Found], str]:
    found: list[Found] = []
    for key, value, pattern in _FIXED:
        for match in pattern.finditer(text):
            if multiword is not None and (" " in match.group(0).strip()) != multiword:
                continue
            found.append(Found(key, (value,), match.start(), match.end(), ""))
            text = _blank(text, match.start(), match.end())
    return found, text


def _value_alternation(key: str) -> str:
    return "|".join(f"(?:{p})" for p in _HEAD_VALUES[key].values())


def _read_values(key: str, chunk: str, open_values: bool) -> list[str]:
    values: list[str] = []
    for part in re.split(r"\s*(?:,|/|\bor\b|\band\b|\band/or\b)\s*", chunk):
        part = part.strip(" -")
        if not part:
            continue
        for value, pattern in _HEAD_VALUES[key].items():
            if re.fullmatch(rf"(?:(?:the|a|an)\s+)?(?:{pattern})", part):
                values.append(value)
                break
        else:
            word = part.split()[-1] if part.split() else ""
            if open_values and re.fullmatch(r"[a-z][a-z0-9_]+", word) and word not in _NOT_VALUES:
                values.append(word)
    return values


def _find_heads(text: str) -> tuple[list[Found], str]:
    found: list[Found] = []
    for key, head in _HEADS.items():
        value = rf"(?:{_value_alternation(key)})-?"
        sep = r"\s*(?:,|/|or|and|and/or)\s*"
        is_prefix_cue = key == "prior_therapy"
        if not is_prefix_cue:
            before = re.compile(rf"{_B}((?:{value})(?:{sep}(?:{value}))*)\s*(?:{head}){_E}")
            for match in before.finditer(text):
                values = _read_values(key, match[1], open_values=False)
                if values:
                    found.append(Found(key, tuple(dict.fromkeys(values)), match.start(), match.end(),
                                       _joiner(match[1])))
                    text = _blank(text, match.start(), match.end())
        word = r"[a-z][a-z0-9_]*" if key in _OPEN_AFTER else rf"(?:{_value_alternation(key)})"
        item = rf"(?:(?:the|a|an)\s+)?(?:{word})"
        preposition = r"(?:of|to|in|involving|including|such\s+as|like|:)" + ("" if key in _OPEN_AFTER else "?")
        after = re.compile(
            rf"{_B}(?:{head})\s*{preposition}\s*"
            rf"((?:{item})(?:{sep}(?:{item}))*){_E}"
        )
        for match in after.finditer(text):
            values = _read_values(key, match[1], open_values=key in _OPEN_AFTER)
            if values:
                found.append(Found(key, tuple(dict.fromkeys(values)), match.start(), match.end(), _joiner(match[1])))
                text = _blank(text, match.start(), match.end())
    return found, text


def _find_bare_negated_heads(text: str) -> tuple[list[Found], str]:
    """"without comorbidities" / "no MRD" with no value: the key's "none"-like value."""
    found: list[Found] = []
    for key, value, head in (("comorbidity", "none", _HEADS["comorbidity"]), ("mrd", "negative", _HEADS["mrd"])):
        for match in re.finditer(rf"{_B}(?:without|no)\s+(?:{head}){_E}(?!\s*(?:of|including|such\s+as|like|:))", text):
            found.append(Found(key, (value,), match.start(), match.end(), ""))
            text = _blank(text, match.start(), match.end())
    return found, text


def find_categorical(text: str, negated: bool = False) -> list[Constraint]:
    """Categorical constraints stated in one phrase (see the module docstring for the rule order)."""
    found: list[Found] = []
    text = _NOT_PATIENT.sub(lambda m: " " * len(m.group(0)), text)
    remaining = text
    steps = (_find_polarity, _find_stage, _find_grade_numbers, _find_bare_negated_heads,
             lambda t: _find_fixed(t, multiword=True), _find_heads, lambda t: _find_fixed(t, multiword=False))
    for step in steps:
        more, remaining = step(remaining)
        found.extend(more)
    # A negator that is part of a matched phrase ("without substantial comorbidities") negates nothing else.
    found = _subtype_over_tumour_type(found, text)
    negator_positions = [
        m.start() for m in _NEGATOR.finditer(text) if not any(f.start <= m.start() < f.end for f in found)
    ]
    found.sort(key=lambda f: f.start)
    constraints: list[Constraint] = []
    for index, item in enumerate(found):
        spec = VOCABULARY[item.key]
        is_negated = negated or any(p < item.start for p in negator_positions)
        # The same key stated twice in a row ("relapsed or refractory") is one set.
        if index and found[index - 1].key == item.key and not is_negated:
            gap = text[found[index - 1].end:item.start]
            if re.fullmatch(r"\s*(?:or|/|and/or|,)\s*", gap):
                previous = constraints.pop() if constraints and constraints[-1].key == item.key else None
                values = set(item.values)
                if previous is not None:
                    values |= set(previous.value) if isinstance(previous.value, frozenset) else {str(previous.value)}
                constraints.append(_make(item.key, tuple(sorted(values)), "or", False))
                continue
        if spec.values and any(v in _BOOLEAN_FLIP for v in item.values) and is_negated:
            constraints.append(_make(item.key, tuple(_BOOLEAN_FLIP.get(v, v) for v in item.values), item.joiner, False))
            continue
        constraints.extend(_make_all(item, is_negated))
    return constraints


_TUMOUR_TYPES = {"chondrosarcoma", "osteosarcoma", "ewing"}


def _subtype_over_tumour_type(found: list[Found], text: str) -> list[Found]:
    """"Dedifferentiated chondrosarcoma" is the subtype, not also the tumour type."""
    subtypes = [f for f in found if f.key == "histology" and not set(f.values) & _TUMOUR_TYPES]
    kept: list[Found] = []
    for item in found:
        if item.key == "histology" and set(item.values) <= _TUMOUR_TYPES and any(
            s.end <= item.start and re.fullmatch(r"[\s,]*(?:or|and)?[\s,]*", text[s.end:item.start]) is not None
            for s in subtypes
        ):
            continue
        kept.append(item)
    return kept


def _make(key: str, values: tuple[str, ...], joiner: str, negated: bool) -> Constraint:
    if len(values) == 1:
        return Constraint(key=key, op=Op.NE if negated else Op.EQ, value=values[0])
    return Constraint(key=key, op=Op.IN, value=frozenset(values))


def _make_all(item: Found, negated: bool) -> list[Constraint]:
    if negated:
        return [Constraint(key=item.key, op=Op.NE, value=v) for v in item.values]
    if len(item.values) > 1 and (item.joiner == "or" or item.key == "stage"):
        return [Constraint(key=item.key, op=Op.IN, value=frozenset(item.values))]
    return [Constraint(key=item.key, op=Op.EQ, value=v) for v in item.values]
