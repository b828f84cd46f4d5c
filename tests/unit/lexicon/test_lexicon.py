"""The clinical-language lexicon: loading and validation, and each entry kind (abbreviations and shorthand,
lay words, British spellings, disease aliases and name forms, body sites, adult / childhood cues)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from dkg.lexicon import DATA_DIR, LexiconError, expand_query, load_lexicon, load_lexicon_data, resolve_diseases
from dkg.lexicon.matching import Lexicon
from dkg.retrieval.settings import load_retrieval_settings

NAMES = ["Adult Acute Lymphoblastic Leukemia", "Childhood Acute Lymphoblastic Leukemia", "Chronic Myelogenous Leukemia",
         "Non-Small Cell Lung Cancer", "Small Cell Lung Cancer", "Lung Cancer", "Myelodysplastic Syndromes",
         "Plasma Cell Neoplasms (Including Multiple Myeloma)", "Childhood Brain Stem Glioma", "Renal Cell Cancer",
         "Wilms Tumor and Other Childhood Kidney Tumors", "Intraocular (Uveal) Melanoma", "Melanoma",
         "Ewing Sarcoma", "Osteosarcoma and Malignant Fibrous Histiocytoma of Bone", "Merkel Cell Carcinoma",
         "Pituitary Tumors", "Gallbladder Cancer", "Adult Hodgkin Lymphoma", "Childhood Hodgkin Lymphoma",
         "Mycosis Fungoides and the Szary Syndrome", "Polycythemia Vera", "Essential Thrombocythemia"]


@pytest.fixture(scope="module")
def lex() -> Lexicon:
    return load_lexicon()


def diseases(lex: Lexicon, text: str) -> list[tuple[str, ...]]:
    expanded = lex.expand_query(text).text
    return [m.diseases for m in lex.resolver(NAMES).mentions(expanded, lex.population(expanded).population)]


# ---- loading ------------------------------------------------------------------------------------------------
def test_shipped_data_loads_with_every_kind() -> None:
    data = load_lexicon_data()
    assert {t.kind for t in data.terms} == {"abbreviation", "shorthand", "lay"}
    assert len(data.terms) > 300 and len(data.diseases) > 90 and data.spellings
    assert data.populations.childhood and data.populations.adult and data.populations.age_patterns


def _copy(tmp_path: Path) -> Path:
    folder = tmp_path / "lexicon"
    shutil.copytree(DATA_DIR, folder)
    return folder


def test_bad_entry_is_reported_with_file_entry_and_field(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    path = folder / "abbreviations.yaml"
    path.write_text(path.read_text() + "  - {term: Bx, expansion: biopsy, kind: acronym}\n")
    with pytest.raises(LexiconError) as err:
        load_lexicon_data(folder)
    message = str(err.value)
    assert "abbreviations.yaml" in message and "'Bx'" in message and "kind" in message
    assert "abbreviation" in message  # names what is allowed


def test_conflicting_duplicate_term_and_duplicate_disease_are_refused(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    path = folder / "abbreviations.yaml"
    path.write_text(path.read_text() + "  - {term: tx, expansion: transplant, kind: shorthand}\n")
    with pytest.raises(LexiconError, match="'tx' is listed twice"):
        load_lexicon_data(folder)
    folder = _copy(tmp_path / "second")
    path = folder / "disease_aliases.yaml"
    path.write_text(path.read_text() + "  - disease: Melanoma\n    aliases: [skin melanoma 2]\n")
    with pytest.raises(LexiconError, match="diseases listed twice: \\['Melanoma'\\]"):
        load_lexicon_data(folder)


def test_missing_file_and_unknown_key_say_what_is_expected(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    (folder / "spelling.yaml").unlink()
    with pytest.raises(LexiconError, match="spelling.yaml is missing"):
        load_lexicon_data(folder)
    folder = _copy(tmp_path / "second")
    (folder / "populations.yaml").write_text((folder / "populations.yaml").read_text() + "extra: 1\n")
    with pytest.raises(LexiconError, match="unknown top-level key"):
        load_lexicon_data(folder)


def test_age_pattern_without_group_is_refused(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    path = folder / "populations.yaml"
    path.write_text(path.read_text() + "    - {pattern: 'years old'}\n")
    with pytest.raises(LexiconError, match="needs a group"):
        load_lexicon_data(folder)


# ---- abbreviations and shorthand ------------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "expected"), [
    ("Tx of relapsed disease", "treatment of relapsed disease"),
    ("Dx and staging", "diagnosis and staging"),
    ("bone mets", "bone metastases"),
    ("s/p nephrectomy", "after nephrectomy (surgery to remove the kidney)"),
    ("most pts do well", "most patients do well"),
    ("head and neck ca", "head and neck cancer"),
    ("adjuvant RT", "adjuvant RT (radiation therapy)"),
    ("definitive chemoRT", "definitive chemotherapy and radiation therapy"),
    ("WLE and SLNB", "WLE and SLNB (wide local excision; sentinel lymph node biopsy)"),
    ("allo-SCT in CR1", "allo-SCT in CR1 (allogeneic stem cell transplant)"),
    ("Ph-positive ALL", "Ph-positive ALL"),
    ("Ph- ALL", "Ph- ALL (Philadelphia chromosome negative)"),
    ("f/u w/ CT", "follow-up with CT (CT scan)"),
])
def test_shorthand_is_replaced_and_abbreviations_are_kept_with_their_expansion(lex: Lexicon, text: str,
                                                                               expected: str) -> None:
    assert lex.expand_query(text).text == expected


def test_case_sensitive_terms_keep_other_readings(lex: Lexicon) -> None:
    assert lex.expand_query("CA-125 level").text == "CA-125 level (CA 125 tumor marker)"  # not "cancer-125"
    assert lex.expand_query("the OS was long").text == "the OS was long (overall survival)"
    assert lex.expand_query("what os are you on").text == "what os are you on"


def test_append_mode_keeps_the_term_and_does_not_repeat_a_written_expansion(lex: Lexicon) -> None:
    assert lex.expand_query("CNS relapse").text.startswith("CNS relapse (central nervous system")
    assert lex.expand_query("a CT scan").text == "a CT scan"


def test_appended_expansions_keep_the_question_phrases_intact(lex: Lexicon) -> None:
    assert lex.expand_query("growths on the pituitary gland").text == "growths on the pituitary gland (tumors)"
    assert diseases(lex, "How are growths on the pituitary gland dealt with?") == [("Pituitary Tumors",)]


def test_expansions_are_reported_with_their_kind(lex: Lexicon) -> None:
    q = expand_query("Sx of the voice box?")
    assert [(e.term, e.expansion, e.kind) for e in q.expansions] == [
        ("Sx", "symptoms", "shorthand"), ("voice box", "larynx", "lay")]
    assert q.original == "Sx of the voice box?"


# ---- lay words and spellings ------------------------------------------------------------------------------
def test_lay_words_gain_the_medical_term(lex: Lexicon) -> None:
    assert lex.expand_query("a lump in the womb").text == "a lump in the womb (mass tumor; uterus)"


@pytest.mark.parametrize(("british", "american"), [
    ("tumour", "tumor"), ("Leukaemia", "Leukemia"), ("paediatric", "pediatric"), ("haematologist", "hematologist"),
    ("oesophageal", "esophageal"), ("metastasis", "metastasis"), ("Sézary", "Sezary")])
def test_british_spellings_and_diacritics_become_american(lex: Lexicon, british: str, american: str) -> None:
    assert lex.american_spelling(british) == american


# ---- disease aliases ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "expected"), [
    ("NSCLC stage III", [("Non-Small Cell Lung Cancer",)]),
    ("Tx options for CML in chronic phase", [("Chronic Myelogenous Leukemia",)]),
    ("Does MGUS turn into myeloma?", [("Plasma Cell Neoplasms (Including Multiple Myeloma)",)]),
    ("DIPG prognosis", [("Childhood Brain Stem Glioma",)]),
    ("low-risk MDS", [("Myelodysplastic Syndromes",)]),
    ("metastatic clear cell RCC", [("Renal Cell Cancer",)]),
    ("Sézary syndrome", [("Mycosis Fungoides and the Szary Syndrome",)]),
])
def test_abbreviations_and_alternative_names_resolve(lex: Lexicon, text: str, expected: list[tuple[str, ...]]) -> None:
    assert diseases(lex, text) == expected


def test_the_longest_name_wins(lex: Lexicon) -> None:
    assert diseases(lex, "non-small cell lung cancer") == [("Non-Small Cell Lung Cancer",)]
    assert diseases(lex, "small cell lung cancer") == [("Small Cell Lung Cancer",)]
    assert diseases(lex, "lung cancer") == [("Lung Cancer",)]


def test_name_forms_need_no_curated_alias(lex: Lexicon) -> None:
    assert diseases(lex, "uveal melanoma") == [("Intraocular (Uveal) Melanoma",)]
    assert diseases(lex, "Merkel cell cancer") == [("Merkel Cell Carcinoma",)]
    assert diseases(lex, "Ewing's sarcomas") == [("Ewing Sarcoma",)]
    assert diseases(lex, "polycythaemia vera") == [("Polycythemia Vera",)]


def test_case_sensitive_alias(lex: Lexicon) -> None:
    both = ("Adult Acute Lymphoblastic Leukemia", "Childhood Acute Lymphoblastic Leukemia")
    assert diseases(lex, "relapsed ALL") == [both]
    assert diseases(lex, "all treatments for relapse") == []


def test_two_diseases_are_two_mentions(lex: Lexicon) -> None:
    assert diseases(lex, "are osteosarcoma and Ewing sarcoma treated alike?") == [
        ("Osteosarcoma and Malignant Fibrous Histiocytoma of Bone",), ("Ewing Sarcoma",)]
    assert diseases(lex, "PV vs ET") == [("Polycythemia Vera",), ("Essential Thrombocythemia",)]


def test_aliases_of_diseases_the_graph_lacks_are_ignored(lex: Lexicon) -> None:
    resolver = lex.resolver(["Melanoma"])
    assert "Non-Small Cell Lung Cancer" in resolver.unknown
    assert resolver.mentions("NSCLC") == []


# ---- body sites -------------------------------------------------------------------------------------------
def test_a_site_counts_only_for_a_cancer_question_naming_no_disease(lex: Lexicon) -> None:
    assert diseases(lex, "a growth on the pituitary gland") == [("Pituitary Tumors",)]
    assert diseases(lex, "they found cancer in her gallbladder") == [("Gallbladder Cancer",)]
    assert diseases(lex, "what does the pituitary gland do?") == []
    assert diseases(lex, "melanoma spread to the gallbladder") == [("Melanoma",)]


# ---- adult / childhood cues -----------------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "population"), [
    ("Hodgkin lymphoma in children", "childhood"),
    ("my 7-year-old has a kidney tumour", "childhood"),
    ("a 14 yo with leukaemia", "childhood"),
    ("an 18-month-old baby", "childhood"),
    ("I'm 58 and have Hodgkin lymphoma", "adult"),
    ("34F, new diagnosis", "adult"),
    ("treatment for adults", "adult"),
    ("in my 40s", "adult"),
    ("Hodgkin lymphoma", None),
    ("stage 2 disease, tumour 40 mm", None),
    ("how does it differ between children and adults?", None),
])
def test_population_cues(lex: Lexicon, text: str, population: str | None) -> None:
    assert lex.population(text).population == population


def test_population_chooses_between_adult_and_childhood_forms(lex: Lexicon) -> None:
    assert diseases(lex, "Hodgkin lymphoma in a 9-year-old") == [("Childhood Hodgkin Lymphoma",)]
    assert diseases(lex, "kidney cancer in adults") == [("Renal Cell Cancer",)]
    assert diseases(lex, "kidney cancer") == [("Renal Cell Cancer", "Wilms Tumor and Other Childhood Kidney Tumors")]


def test_module_level_api() -> None:
    assert [m.diseases for m in resolve_diseases("Tx for childhood ALL", NAMES)] == [
        ("Childhood Acute Lymphoblastic Leukemia",)]


# ---- against the knowledge layer -------------------------------------------------------------------------------
def test_every_curated_disease_is_a_knowledge_layer_disease() -> None:
    path = load_retrieval_settings().medquad_dir / "qa.jsonl"
    if not path.is_file():
        pytest.skip(f"MedQuAD not found at {path}")
    foci = {json.loads(line)["focus"] for line in path.read_text().splitlines() if line.strip()}
    resolver = load_lexicon().resolver(foci)
    assert resolver.unknown == ()
