"""Query understanding (dkg.retrieval.understanding) and the per-sub-query ranking (dkg.retrieval.subqueries)."""

from __future__ import annotations

import pytest

from dkg.lexicon import DiseaseResolver, load_lexicon
from dkg.retrieval.subqueries import interleave, rank_sub_query, rank_understood
from dkg.retrieval.types import Hit
from dkg.retrieval.understanding import SubQuery, clause_intent, masked_intent, understand

NAMES = ["Polycythemia Vera", "Essential Thrombocythemia", "Chronic Myeloproliferative Neoplasms", "Renal Cell Cancer",
         "Wilms Tumor and Other Childhood Kidney Tumors", "Nasopharyngeal Cancer", "Adult Hodgkin Lymphoma",
         "Childhood Hodgkin Lymphoma", "Merkel Cell Carcinoma", "Skin Cancer", "Non-Small Cell Lung Cancer",
         "Lung Cancer", "Metastatic Squamous Neck Cancer with Occult Primary"]


@pytest.fixture(scope="module")
def resolver() -> DiseaseResolver:
    return load_lexicon().resolver(NAMES)


def test_shorthand_is_read_before_search(resolver: DiseaseResolver) -> None:
    a = understand("Tx options for stage III NSCLC s/p resection?", load_lexicon(), resolver)
    assert a.text == "treatment options for stage III NSCLC after resection?"
    assert a.diseases == ("Non-Small Cell Lung Cancer",)
    assert a.disease_weights == {"Non-Small Cell Lung Cancer": 1.0, "Lung Cancer": 0.5}  # broader: half
    assert a.intent == {"treatment": 1.0}  # "stage III" describes the patient, it does not ask about staging
    assert not a.is_multi


def test_disease_names_and_patient_state_do_not_count_as_intent() -> None:
    assert masked_intent("low-grade, locally advanced, stage IIIA", []).split() == [",", ","]
    a = understand("What are the treatments for Metastatic Squamous Neck Cancer with Occult Primary?", load_lexicon(),
                   load_lexicon().resolver(NAMES))
    assert a.intent == {"treatment": 1.0}  # not "stages" from "Metastatic"


def test_unqualified_name_prefers_the_adult_form_and_a_cue_chooses(resolver: DiseaseResolver) -> None:
    lex = load_lexicon()
    plain = understand("Does smoking raise the risk of kidney cancer?", lex, resolver)
    assert plain.disease_weights == {"Renal Cell Cancer": 1.0, "Wilms Tumor and Other Childhood Kidney Tumors": 0.5}
    child = understand("kidney cancer in my 6-year-old: how is it treated?", lex, resolver)
    assert child.diseases == ("Wilms Tumor and Other Childhood Kidney Tumors",)
    assert child.population.population == "childhood"


def test_two_diseases_make_two_sub_queries(resolver: DiseaseResolver) -> None:
    a = understand("How are polycythemia vera and essential thrombocythemia each treated?", load_lexicon(), resolver)
    assert [tuple(s.diseases) for s in a.sub_queries] == [
        ("Polycythemia Vera", "Chronic Myeloproliferative Neoplasms"),
        ("Essential Thrombocythemia", "Chronic Myeloproliferative Neoplasms")]
    assert a.sub_queries[0].label == "polycythemia vera → Polycythemia Vera"


def test_two_asked_aspects_make_two_sub_queries(resolver: DiseaseResolver) -> None:
    a = understand("Nasopharyngeal cancer - who is at risk, and what are the symptoms?", load_lexicon(), resolver)
    assert [s.aspects for s in a.sub_queries] == [("susceptibility",), ("symptoms",)]
    assert a.sub_queries[1].label == "Nasopharyngeal cancer → Nasopharyngeal Cancer; aspect: symptoms"


def test_one_clause_with_cues_of_two_kinds_is_one_question() -> None:
    assert clause_intent("wide excision + sentinel node biopsy, then radiation therapy or chemotherapy?") == {
        "treatment": 1.0, "exams and tests": 0.5}
    a = understand("Merkel cell ca: WLE and SLNB, then adjuvant RT?", load_lexicon(), load_lexicon().resolver(NAMES))
    assert not a.is_multi and a.intent["treatment"] == 1.0


def test_without_a_resolver_nothing_is_resolved() -> None:
    a = understand("NSCLC Tx", load_lexicon(), None)
    assert a.mentions == () and a.text == "NSCLC treatment"


# ---- ranking ------------------------------------------------------------------------------------------------
TYPES = {"pv-trt": "treatment", "pv-info": "information", "et-trt": "treatment", "et-info": "information",
         "lung-trt": "treatment"}
DISEASES = {"pv-trt": frozenset({"Polycythemia Vera"}), "pv-info": frozenset({"Polycythemia Vera"}),
            "et-trt": frozenset({"Essential Thrombocythemia"}), "et-info": frozenset({"Essential Thrombocythemia"}),
            "lung-trt": frozenset({"Lung Cancer"})}


def test_disease_boost_is_weighted_and_explained() -> None:
    hits = [Hit("lung-trt", 0.70, 0.7), Hit("pv-trt", 0.60, 0.6), Hit("et-trt", 0.58, 0.58)]
    ranked = rank_sub_query(hits, SubQuery({"Polycythemia Vera": 1.0, "Essential Thrombocythemia": 0.5}, (), "PV"),
                            {"treatment": 1.0}, TYPES, DISEASES, intent_weight=0.2, disease_weight=0.2, k=3)
    assert [(h.rid, round(h.score, 2), h.reason) for h in ranked] == [
        ("pv-trt", 0.8, "PV → Polycythemia Vera"), ("lung-trt", 0.7, None),
        ("et-trt", 0.68, "PV → Essential Thrombocythemia")]


def test_interleaving_returns_the_best_of_each_disease(resolver: DiseaseResolver) -> None:
    analysis = understand("How are polycythemia vera and essential thrombocythemia each treated?", load_lexicon(),
                          resolver)
    hits = [Hit("pv-trt", 0.9, 0.9), Hit("pv-info", 0.85, 0.85), Hit("et-info", 0.6, 0.6), Hit("et-trt", 0.5, 0.5)]
    ranked = rank_understood(hits, analysis, TYPES, DISEASES, intent_weight=0.2, disease_weight=0.2, k=4)
    assert [h.rid for h in ranked[:2]] == ["pv-trt", "et-trt"]
    assert ranked[1].reason == "essential thrombocythemia → Essential Thrombocythemia"
    # one ranking for both diseases would put polycythemia vera's second section before it
    single = rank_sub_query(hits, SubQuery(analysis.disease_weights), analysis.intent, TYPES, DISEASES,
                            intent_weight=0.2, disease_weight=0.2, k=4)
    assert [h.rid for h in single][:3] == ["pv-trt", "pv-info", "et-trt"]


def test_interleave_skips_repeats_and_empty_rankings() -> None:
    a = [Hit("x", 0.9, 0.9), Hit("y", 0.5, 0.5)]
    b = [Hit("x", 0.8, 0.8), Hit("z", 0.7, 0.7)]
    assert [h.rid for h in interleave([b, [], a], 5)] == ["x", "z", "y"]


# ---- the retriever's understood ranking, on a stand-in graph ------------------------------------------------
class _Rows:
    """Answers the retriever's named queries with fixed rows (no server; the Cypher itself is e2e-tested)."""

    def __init__(self) -> None:
        self.settings = None

    def read(self, query: str, params: dict[str, object] | None = None) -> list[dict[str, object]]:
        if "db.index.vector.queryNodes" in query:
            return [{"rid": "other", "cos": 0.9, "gcos": 0.9}]
        if "[x IN nodes(p)" in query:
            return []
        if "d.name IN $names" in query:
            return [{"rid": "pv-trt", "cos": 0.2, "gcos": 0.5}]
        if "RETURN d.name AS name" in query:
            return [{"name": n} for n in NAMES]
        if "collect(DISTINCT d.name)" in query:
            return [{"rid": "pv-trt", "diseases": ["Polycythemia Vera"]}]
        if "AS qtype" in query:
            return [{"rid": "pv-trt", "qtype": "treatment"}, {"rid": "other", "qtype": "treatment"}]
        raise AssertionError(f"unexpected query {query[:60]!r}")


def test_resolved_disease_sections_join_the_candidates_with_the_given_alpha() -> None:
    from dkg.retrieval.grag import Retriever
    from dkg.retrieval.settings import load_retrieval_settings

    retriever = Retriever(_Rows(), load_retrieval_settings(), check=False, embedder=object())  # type: ignore[arg-type]
    analysis = retriever.analyse("polycythaemia vera")
    hits = {h.rid: h for h in retriever.understood(analysis, [0.1], 5, alpha=0.0)}
    assert set(hits) == {"other", "pv-trt"}
    # alpha 0: only the neighbourhood term (0.5) counts, plus the disease boost (0.2); no intent in the query
    assert hits["pv-trt"].score == pytest.approx(0.5 + 0.2)
    assert hits["pv-trt"].reason == "polycythemia vera → Polycythemia Vera"
