"""A hand-written development set: the issue's examples and realistic guideline phrasings.

Written before the corpus gold existed; each row is (sentence, expected canonical constraints).
"""

DEV_SET: list[tuple[str, set[str]]] = [
    # the examples
    ("Age less than 65 and greater than 35", {"age<65", "age>35"}),
    ("≥65 y", {"age>=65"}),
    ("AYA (15–39 years)", {"age in [15,39]"}),
    ("Ph-negative", {"ph=-"}),
    ("Philadelphia chromosome–positive", {"ph=+"}),
    ("Persistent or rising MRD", {"mrd in {persistent,rising}"}),
    ("Without substantial comorbidities", {"comorbidity=none"}),
    ("Without comorbidities of diabetes and liver", {"comorbidity!=diabetes", "comorbidity!=liver"}),
    # age phrasings
    ("Patients aged 60 or older", {"age>=60"}),
    ("Adults 18 years and older", {"age>=18"}),
    ("Between 1 and 9.99 years of age", {"age in [1,9.99]"}),
    ("Children younger than 10 years", {"age<10"}),
    ("< 21 years of age", {"age<21"}),
    ("Age 40 years or younger, ECOG 0-1", {"age<=40", "performance_status<=1"}),
    ("Older than 75 years", {"age>75"}),
    # categorical keys
    ("Ph+ B-cell ALL in complete remission", {"ph=+", "lineage=b_cell", "response=cr"}),
    ("MRD-negative CR after induction", {"mrd=negative", "response=cr"}),
    ("Relapsed or refractory disease", {"disease_status in {refractory,relapsed}"}),
    ("Stage III or IV", {"stage in {III,IV}"}),
    ("Stage I–II favorable histology Wilms tumor", {"stage in {I,II}", "histology=favorable"}),
    ("High-risk or very high-risk features", {"risk in {high,very_high}"}),
    ("Lung or bone metastases", {"metastasis in {bone,lung}"}),
    ("No distant metastases", {"metastasis=none"}),
    ("Positive or close margins", {"margin in {close,positive}"}),
    ("Positive margins after resection", {"margin=positive", "prior_therapy=surgery"}),
    ("Unresectable or metastatic disease", {"resectable=no", "metastasis=any"}),
    ("Not a candidate for allogeneic HCT", {"transplant_eligible=no"}),
    ("Previously treated with a TKI", {"prior_therapy=tki"}),
    ("Tumor > 5 cm, high-grade", {"tumor_size>5", "grade=high"}),
    ("Good histologic response (≥ 90% necrosis)", {"response=good", "necrosis>=90"}),
    # sentences with no patient constraint
    ("Clinical trial or TKI + hyper-CVAD", set()),
    ("Allogeneic HCT in first remission is an option", {"response=cr"}),
    ("Continue TKI for at least 2 years", set()),
    ("CAR T-cell therapy", set()),
    ("Observation", set()),
]
