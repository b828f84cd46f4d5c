"""The one constraint vocabulary shared by the corpus, the extractor, the graph and QA.

Each key is numeric (compared with <, <=, >, >=, =, !=, or ``in [lo,hi]``) or categorical
(=, != or ``in {a,b}``). Categorical values are canonical lower-case tokens (stage uses Roman
numerals); ``synonyms`` lists surface forms the extractor maps onto a key or value.
An ``open`` categorical key accepts any token matching ``[a-z0-9_]+`` beyond the listed ones.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class KeyKind(StrEnum):
    NUMERIC = "numeric"
    CATEGORICAL = "categorical"


@dataclass(frozen=True)
class KeySpec:
    name: str
    kind: KeyKind
    description: str
    unit: str | None = None
    minimum: float | None = None
    maximum: float | None = None
    values: dict[str, tuple[str, ...]] = field(default_factory=dict)
    synonyms: tuple[str, ...] = ()
    open: bool = False


def _num(name: str, description: str, unit: str, lo: float, hi: float, synonyms: tuple[str, ...]) -> KeySpec:
    return KeySpec(name, KeyKind.NUMERIC, description, unit=unit, minimum=lo, maximum=hi, synonyms=synonyms)


def _cat(
    name: str,
    description: str,
    values: dict[str, tuple[str, ...]],
    synonyms: tuple[str, ...],
    open_: bool = False,
) -> KeySpec:
    return KeySpec(name, KeyKind.CATEGORICAL, description, values=values, synonyms=synonyms, open=open_)


VOCABULARY: dict[str, KeySpec] = {
    spec.name: spec
    for spec in (
        _num("age", "Patient age", "years", 0, 120, ("age", "aged", "years old", "y", "yr", "years")),
        _num("performance_status", "ECOG performance status", "ECOG", 0, 4,
             ("ecog", "performance status", "ps", "ecog ps")),
        _num("tumor_size", "Largest tumour diameter", "cm", 0, 100, ("tumor size", "tumour size", "cm")),
        _num("necrosis", "Histological necrosis after neoadjuvant chemotherapy", "%", 0, 100,
             ("necrosis", "tumor necrosis", "histologic response")),
        _num("time_to_relapse", "Time from diagnosis to relapse", "months", 0, 600,
             ("months from diagnosis", "after diagnosis", "time to relapse", "relapse interval")),
        _cat("ph", "Philadelphia chromosome (BCR::ABL1) status",
             {"+": ("ph+", "ph-positive", "philadelphia chromosome-positive", "philadelphia-positive",
                    "bcr-abl1-positive", "bcr::abl1-positive"),
              "-": ("ph-", "ph-negative", "philadelphia chromosome-negative", "philadelphia-negative",
                    "bcr-abl1-negative", "bcr::abl1-negative")},
             ("ph", "philadelphia chromosome", "philadelphia", "bcr-abl1", "bcr::abl1")),
        _cat("lineage", "ALL immunophenotype lineage",
             {"b_cell": ("b-cell", "b-all", "b-lineage", "precursor b"), "t_cell": ("t-cell", "t-all", "t-lineage")},
             ("lineage", "immunophenotype")),
        _cat("mrd", "Measurable (minimal) residual disease status",
             {"negative": ("mrd-negative", "mrd−", "undetectable"), "positive": ("mrd-positive", "mrd+", "detectable"),
              "persistent": ("persistent",), "rising": ("rising", "increasing"), "unknown": ("not assessed",)},
             ("mrd", "minimal residual disease", "measurable residual disease")),
        _cat("response", "Response to the preceding therapy",
             {"cr": ("complete response", "complete remission", "cr"),
              "less_than_cr": ("<cr", "less than cr", "less than complete response", "incomplete response"),
              "pr": ("partial response", "pr"), "stable": ("stable disease", "sd"),
              "progression": ("progressive disease", "progression", "pd"),
              "good": ("good response", "good histologic response"),
              "poor": ("poor response", "poor histologic response")},
             ("response", "remission")),
        _cat("comorbidity", "Comorbid conditions",
             {"none": ("without substantial comorbidities", "no substantial comorbidities", "fit"),
              "substantial": ("with substantial comorbidities", "substantial comorbidities", "unfit"),
              "diabetes": ("diabetes",), "liver": ("liver", "hepatic"), "cardiac": ("cardiac", "heart"),
              "renal": ("renal", "kidney"), "pulmonary": ("pulmonary", "lung")},
             ("comorbidity", "comorbidities"), open_=True),
        _cat("stage", "Stage (AJCC / COG)",
             {"I": ("stage i", "stage 1"), "II": ("stage ii", "stage 2"), "III": ("stage iii", "stage 3"),
              "IV": ("stage iv", "stage 4"), "V": ("stage v", "stage 5")},
             ("stage",)),
        _cat("histology", "Histological subtype",
             {"favorable": ("favorable histology", "fh"), "anaplastic": ("anaplastic",),
              "focal_anaplasia": ("focal anaplasia",), "diffuse_anaplasia": ("diffuse anaplasia",),
              "clear_cell": ("clear cell", "clear-cell"), "non_clear_cell": ("non-clear cell", "non–clear cell"),
              "papillary": ("papillary",), "chromophobe": ("chromophobe",),
              "conventional": ("conventional",), "ewing": ("ewing sarcoma",),
              "chondrosarcoma": ("chondrosarcoma",), "osteosarcoma": ("osteosarcoma",),
              "dedifferentiated": ("dedifferentiated",), "mesenchymal": ("mesenchymal",),
              "ups": ("undifferentiated pleomorphic sarcoma", "malignant fibrous histiocytoma", "mfh")},
             ("histology", "histologic", "subtype"), open_=True),
        _cat("grade", "Tumour grade",
             {"low": ("low-grade", "low grade"), "intermediate": ("intermediate-grade",),
              "high": ("high-grade", "high grade")},
             ("grade",)),
        _cat("margin", "Surgical resection margins",
             {"negative": ("negative margins", "wide margins", "r0"), "positive": ("positive margins", "r1", "r2"),
              "close": ("close margins",)},
             ("margin", "margins", "resection margins")),
        _cat("metastasis", "Metastatic sites",
             {"none": ("localized", "no metastases", "non-metastatic"), "any": ("metastatic",),
              "lung": ("lung", "pulmonary"), "bone": ("bone",), "brain": ("brain",), "liver": ("liver",),
              "bone_marrow": ("bone marrow",), "cns": ("cns", "central nervous system")},
             ("metastasis", "metastases", "metastatic"), open_=True),
        _cat("prior_therapy", "Therapy already received",
             {"none": ("untreated", "treatment-naive", "no prior therapy"), "tki": ("tki", "tyrosine kinase inhibitor"),
              "chemotherapy": ("chemotherapy",), "radiation": ("radiation", "radiotherapy", "rt"),
              "immunotherapy": ("immunotherapy", "checkpoint inhibitor"), "surgery": ("surgery", "resection"),
              "transplant": ("hct", "allogeneic hct", "stem cell transplant")},
             ("prior therapy", "previously treated", "prior"), open_=True),
        _cat("risk", "Risk group",
             {"low": ("low risk",), "standard": ("standard risk",), "intermediate": ("intermediate risk",),
              "high": ("high risk",), "very_high": ("very high risk",), "favorable": ("favorable risk",),
              "poor": ("poor risk",)},
             ("risk", "risk group", "imdc")),
        _cat("disease_status", "Disease status",
             {"newly_diagnosed": ("newly diagnosed", "new diagnosis"), "relapsed": ("relapsed", "relapse"),
              "refractory": ("refractory",), "recurrent": ("recurrent", "recurrence")},
             ("disease status",)),
        _cat("resectable", "Whether the tumour is resectable",
             {"yes": ("resectable",), "no": ("unresectable", "not resectable")},
             ("resectable", "resectability")),
        _cat("transplant_eligible", "Candidate for allogeneic haematopoietic cell transplant",
             {"yes": ("transplant candidate", "eligible for transplant"),
              "no": ("not a transplant candidate", "ineligible for transplant")},
             ("transplant", "hct")),
        _cat("site", "Primary tumour site",
             {"extremity": ("extremity", "limb"), "axial": ("axial",), "pelvis": ("pelvis", "pelvic"),
              "chest_wall": ("chest wall",), "skull": ("skull",)},
             ("site", "primary site"), open_=True),
    )
}
