"""A question that names no guideline is placed by the distinctive words it shares with one guideline's boxes."""

from __future__ import annotations

from dkg.qa.guideline_words import GuidelineWordsSettings, content_words, distinctive_words, guidelines_by_words

BOXES = {
    "cardiac": ["Aspirin 324mg chewed", "NTG 0.4mg SL q5min", "12-Lead ECG", "ST elevation: STEMI, transport",
                "Morphine 1-5mg IV or Fentanyl 25-50mcg IV", "Consider treatment per protocol"],
    "kidney": ["Radical nephrectomy", "Consider treatment per protocol", "ECG before surgery"],
    "bone": ["Wide excision", "Consider treatment per protocol"],
}


def test_words_shared_by_two_guidelines_tell_none_apart() -> None:
    words = distinctive_words(BOXES)
    assert "ecg" not in words["cardiac"] and "ecg" not in words["kidney"]
    assert {"ntg", "stemi", "morphin"} <= words["cardiac"]
    assert "treatment" not in words["bone"] and "consid" not in words["bone"]


def test_a_question_sharing_two_distinctive_words_is_about_that_guideline() -> None:
    words = distinctive_words(BOXES)
    assert guidelines_by_words("pt s/p ASA and NTG x1, 12-lead shows STEMI: where does the chart send him?",
                               words) == ["cardiac"]
    assert guidelines_by_words("When does the chart let you give morphine or fentanyl?", words) == ["cardiac"]


def test_one_shared_word_or_as_many_words_of_another_guideline_imply_none() -> None:
    words = distinctive_words(BOXES)
    assert guidelines_by_words("NTG given, what next?", words) == []
    assert guidelines_by_words("NTG and aspirin before the radical nephrectomy", words) == []
    # twice as many words of one guideline outweigh a word of another
    assert guidelines_by_words("NTG and aspirin chewed before the nephrectomy", words) == ["cardiac"]
    assert guidelines_by_words("ECG and treatment done, next step?", words) == []
    assert guidelines_by_words("NTG given, what next?", words, GuidelineWordsSettings(min_shared=1)) == ["cardiac"]


def test_doses_numbers_and_question_words_are_no_content_words() -> None:
    assert content_words("Give 0.4mg x 3, what does the chart recommend for the patient?") == frozenset()
    assert {"12-lead", "lead"} <= content_words("repeat the 12-lead")
