import pytest

from dkg.errors import ConstraintError
from dkg.graph.model import (
    canonical_constraints,
    constraints_to_properties,
    node_key,
    option_details,
    properties_to_constraints,
    treatment_options,
)
from dkg.types import parse_constraints


@pytest.mark.parametrize(
    "cell",
    [
        "age>35,age<65",
        "age in [15,39]",
        "age>=65",
        "age=40",
        "ph=+",
        "mrd in {persistent,rising}",
        "comorbidity!=diabetes,comorbidity!=liver",
        "stage in {I,II},performance_status<=2",
        "age!=50",
    ],
)
def test_properties_round_trip(cell: str) -> None:
    constraints = parse_constraints(cell)
    props = constraints_to_properties(constraints)
    assert sorted(str(c) for c in properties_to_constraints(props)) == canonical_constraints(constraints)


def test_typed_properties() -> None:
    props = constraints_to_properties(parse_constraints("age>35,age<65,ph=+,comorbidity!=diabetes"))
    assert props == {
        "age_min": 35.0, "age_min_strict": True, "age_max": 65.0, "age_max_strict": True,
        "ph": ["+"], "comorbidity_not": ["diabetes"],
    }


def test_bounds_tighten_and_contradictions_are_refused() -> None:
    assert constraints_to_properties(parse_constraints("age>=18,age>=21"))["age_min"] == 21.0
    with pytest.raises(ConstraintError, match="age"):
        constraints_to_properties(parse_constraints("age>70,age<20"))
    with pytest.raises(ConstraintError, match="ph"):
        constraints_to_properties(parse_constraints("ph=+,ph=-"))


def test_equivalent_forms_share_one_canonical_form() -> None:
    assert canonical_constraints(parse_constraints("age>=15,age<=39")) == ["age in [15,39]"]


def test_node_key_ignores_whitespace_and_case() -> None:
    assert node_key("Ph-positive  ALL\n age 15–39") == node_key("ph-positive ALL age 15–39")
    assert node_key("a") != node_key("b")


def test_treatment_options_split_on_top_level_or() -> None:
    text = "Clinical trial or TKI (dasatinib or imatinib) + chemotherapy or blinatumomab"
    assert treatment_options(text) == ["Clinical trial", "TKI + chemotherapy", "blinatumomab"]


def test_option_details_are_the_items_a_footnote_lists() -> None:
    text = ("Clinical trial or second-line chemotherapy (Options include irinotecan with temozolomide, "
            "cyclophosphamide with topotecan, or high-dose ifosfamide.)")
    assert option_details(text) == ["irinotecan with temozolomide", "cyclophosphamide with topotecan",
                                    "high-dose ifosfamide"]
    assert treatment_options(text) == ["Clinical trial", "second-line chemotherapy"]
    assert option_details("Allogeneic HCT (Donor options: matched sibling, haploidentical or cord blood.)") == \
        ["matched sibling", "haploidentical", "cord blood"]


def test_option_details_stop_where_the_list_ends_and_skip_other_footnotes() -> None:
    assert option_details("Curettage (Curettage adjuvants include phenol, cryotherapy or argon beam, followed by "
                          "grafting or cement.)") == ["phenol", "cryotherapy", "argon beam"]
    assert option_details("Wide excision (Wide excision: en bloc removal of the tumor with a cuff of normal "
                          "tissue.)") == []
    assert option_details("Observation") == []


def test_a_short_list_of_alternatives_in_parentheses_names_options_too() -> None:
    assert option_details("Clinical trial or targeted therapy (IDH1 inhibitor or pazopanib) or chemotherapy") == \
        ["IDH1 inhibitor", "pazopanib"]
    footnote = "TKI + corticosteroids (Tyrosine kinase inhibitors (TKIs) used with or after chemotherapy: " \
               "imatinib, dasatinib, nilotinib or ponatinib.)"
    assert option_details(footnote) == ["imatinib", "dasatinib", "nilotinib", "ponatinib"]


def test_sentences_ranges_and_components_in_parentheses_name_no_option() -> None:
    for text in ("Repeat MRD (MRD is measured by flow cytometry, RT-PCR or next-generation sequencing.)",
                 "CNS prophylaxis (CNS prophylaxis: intrathecal methotrexate, cytarabine or both.)",
                 "Continue (0.01% or more)",
                 "Restaging (Staging imaging: chest CT with PET/CT or a whole-body bone scan.)",
                 "POMP (POMP: daily 6-mercaptopurine, weekly methotrexate and prednisone pulses.)",
                 "Adjuvant pembrolizumab (given every 3 or 6 weeks)"):
        assert option_details(text) == [], text
