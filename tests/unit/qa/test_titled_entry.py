"""A question that presents with one chart's title enters that chart at its first box (dkg.qa.titled_entry)."""

from __future__ import annotations

from dkg.qa.named_step import Box
from dkg.qa.titled_entry import answer_titled_entry, titled_entry
from dkg.qa.way_in import WayIn

TITLES = {"1": "BRADYCARDIA with PULSE", "4": "TACHYCARDIA w/ PULSE", "2": "CHEST PAIN"}
TEXTS = {"root": ("Universal Patient Care Guideline Monitor and 12-Lead ECG", ("1", "4")),
         "pads": ("Place PACER PADS", ("1",)),
         "stable": ("STABLE?", ("4",)),
         "sob": ("Chest Pain / SOB / Dizziness?", ("4",)),
         "link": ("Chest Pain Guideline", ("4",)),
         "care": ("Universal Patient Care Protocol O2 If <90% SpO2 Monitor / Defibrillator IV / IO access", ("2",)),
         "aspirin": ("Aspirin 324mg PO chewed", ("2",)),
         "ecg": ("12 Lead ECG", ("2",))}
BOXES = [Box(uid, text, pages, True, tuple(TITLES[p] for p in pages)) for uid, (text, pages) in TEXTS.items()]


def _arrow(a: str, b: str, *tests: str) -> dict[str, object]:
    text = TEXTS[b][0]
    return {"a": a, "b": b, "arrow": list(tests), "box": [], "action": not text.endswith("?"), "content": text}


# the chest pain chart is reached through the tachycardia chart's link too, on a rate and a chest pain tested there
WAY = WayIn([_arrow("root", "pads", "heart_rate<50"), _arrow("root", "stable", "heart_rate>100"),
             _arrow("stable", "sob", "stable=yes"), _arrow("sob", "link", "chest_pain_sob_dizziness=yes"),
             _arrow("link", "care"), _arrow("care", "aspirin"), _arrow("aspirin", "ecg")])
GUIDELINE = "cardiac-smog"  # the shipped vocabulary: its titles' keys (heart_rate, chest_pain_sob_dizziness)
PRESENTING = "54M crushing substernal CP x30 min. SpO2 95% RA, on monitor, IV in. What do I give him first?"


def test_a_question_saying_a_charts_title_enters_it_at_its_first_box() -> None:
    entered = titled_entry(PRESENTING, GUIDELINE, BOXES, WAY, {"chest_pain_sob_dizziness": "yes"})
    assert entered is not None and entered.page == "2" and entered.entries == {"care"}
    # the first box's items reported in separate clauses: the next step is aspirin
    assert answer_titled_entry(PRESENTING, GUIDELINE, "1", entered, BOXES, WAY, {}).matched_nodes == ["aspirin"]
    # nothing reported: the chart's first box
    plain = "Crushing chest pain for 30 min. What do I give him first?"
    entered = titled_entry(plain, GUIDELINE, BOXES, WAY, {})
    assert entered is not None
    assert answer_titled_entry(plain, GUIDELINE, "1", entered, BOXES, WAY, {}).matched_nodes == ["care"]


def test_a_stated_fact_tested_on_the_way_in_or_a_denied_title_leaves_the_walk_to_place_the_patient() -> None:
    # the rate admits this patient to the tachycardia chart, whose link leads to the chest pain chart
    assert titled_entry("HR 180, chest pain. What next?", GUIDELINE, BOXES, WAY, {"heart_rate": 180.0}) is None
    assert titled_entry("Denies chest pain, HR 40. What next?", GUIDELINE, BOXES, WAY, {"heart_rate": 40.0}) is None
    assert titled_entry("Denies chest pain. What next?", GUIDELINE, BOXES, WAY, {}) is None
    # 'not stable' is tested only on the tachycardia chart, whose title names the heart rate, which is not stated
    entered = titled_entry("Crushing chest pain, diaphoretic. What first?", GUIDELINE, BOXES, WAY,
                           {"chest_pain_sob_dizziness": "yes", "stable": "no"})
    assert entered is not None and entered.page == "2"
    assert titled_entry("Crushing chest pain, diaphoretic, HR 180. What first?", GUIDELINE, BOXES, WAY,
                        {"chest_pain_sob_dizziness": "yes", "stable": "no", "heart_rate": 180.0}) is None
    # a guideline of one chart has no chart to choose
    single = [Box(b.uid, b.content, ("2",), True, ("CHEST PAIN",)) for b in BOXES]
    assert titled_entry(PRESENTING, GUIDELINE, single, WAY, {}) is None
