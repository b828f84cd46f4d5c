"""Footnotes of a scanned document settled across its pages (pure logic, no OCR)."""

from __future__ import annotations

from dkg.parsing.doc_notes import (
    Citation,
    NoteEntry,
    infer_unread_keys,
    keys_by_cited_word,
    resolve_key_conflicts,
    same_note_groups,
    settle_note_keys,
    split_merged_entries,
    undouble_keys,
)

DONOR = "Donor options: matched sibling, matched unrelated or haploidentical donors."
CART = "CAR T-cell products include tisagenlecleucel and brexucabtagene autoleucel."
ABL = "ABL1 kinase domain mutation analysis guides the choice of TKI."
FERTILITY = "Fertility preservation is discussed before alkylating agents are started."
DEXRA = "Dexrazoxane may be given with doxorubicin for cardioprotection."


def _keys(entries: list[NoteEntry]) -> list[str]:
    return [e.key for e in entries]


def test_a_run_together_footnote_is_split_where_one_part_stands_alone_elsewhere() -> None:
    pages = {0: [NoteEntry("d", f"{FERTILITY} {DEXRA}")], 1: [NoteEntry("d", FERTILITY)]}
    split = split_merged_entries(pages)
    assert [(e.key, e.text) for e in split[0]] == [("d", FERTILITY), ("?", DEXRA)]
    assert split[1] == pages[1]


def test_a_two_sentence_footnote_found_nowhere_else_is_not_split() -> None:
    pages = {0: [NoteEntry("d", f"{FERTILITY} {DEXRA}")], 1: [NoteEntry("a", CART)]}
    assert split_merged_entries(pages) == pages


def test_groups_join_the_same_footnote_despite_small_misreads() -> None:
    pages = {0: [NoteEntry("h", CART), NoteEntry("?", DONOR)],
             1: [NoteEntry("i", DONOR.replace("sibling", "sibiing"))], 2: [NoteEntry("h", CART)]}
    groups = sorted(sorted(g) for g in same_note_groups(pages))
    assert groups == [[(0, 0), (2, 0)], [(0, 1), (1, 0)]]


def test_an_unread_key_takes_the_key_other_pages_read() -> None:
    pages = {0: [NoteEntry("h", CART), NoteEntry("?", DONOR), NoteEntry("m", ABL)],
             1: [NoteEntry("i", DONOR)], 2: [NoteEntry("i", DONOR), NoteEntry("m", ABL)]}
    assert _keys(settle_note_keys(pages, {})[0]) == ["h", "i", "m"]


def test_a_lone_misread_is_outvoted_but_not_when_the_pages_boxes_cite_it() -> None:
    pages = {0: [NoteEntry("h", CART), NoteEntry("j", DONOR), NoteEntry("m", ABL)],
             1: [NoteEntry("i", DONOR)], 2: [NoteEntry("i", DONOR)]}
    assert _keys(settle_note_keys(pages, {})[0]) == ["h", "i", "m"]
    assert _keys(settle_note_keys(pages, {0: {"j"}})[0]) == ["h", "j", "m"]


def test_a_key_that_breaks_the_pages_order_or_repeats_one_is_not_taken() -> None:
    out_of_order = {0: [NoteEntry("h", CART), NoteEntry("?", DONOR)], 1: [NoteEntry("c", DONOR)],
                    2: [NoteEntry("c", DONOR)]}
    assert _keys(settle_note_keys(out_of_order, {})[0]) == ["h", "?"]
    taken = {0: [NoteEntry("i", CART), NoteEntry("?", DONOR)], 1: [NoteEntry("i", DONOR)],
             2: [NoteEntry("i", DONOR)]}
    assert _keys(settle_note_keys(taken, {})[0]) == ["i", "?"]


def test_pages_lettering_their_footnotes_independently_are_left_as_read() -> None:
    pages = {0: [NoteEntry("a", DONOR)], 1: [NoteEntry("b", DONOR)], 2: [NoteEntry("c", DONOR)]}
    assert settle_note_keys(pages, {}) == pages


def test_a_footnote_printed_on_three_pages_takes_the_text_most_like_the_others() -> None:
    misread = DONOR.replace("haploidentical", "hap1oidentlcal")
    pages = {0: [NoteEntry("i", misread)], 1: [NoteEntry("i", DONOR)], 2: [NoteEntry("i", DONOR)]}
    assert [e.text for e in settle_note_keys(pages, {})[0]] == [DONOR]


def test_a_key_read_nowhere_is_found_by_elimination_under_document_wide_letters() -> None:
    pages = {0: [NoteEntry("h", CART), NoteEntry("?", DONOR), NoteEntry("j", ABL)],
             1: [NoteEntry("h", CART), NoteEntry("j", ABL)], 2: [NoteEntry("?", DONOR), NoteEntry("j", ABL)]}
    assert _keys(infer_unread_keys(pages)[0]) == ["h", "i", "j"]
    assert _keys(infer_unread_keys(pages)[2]) == ["i", "j"]


def test_elimination_needs_one_letter_left_and_document_wide_letters() -> None:
    two_left = {0: [NoteEntry("h", CART), NoteEntry("?", DONOR), NoteEntry("k", ABL)],
                1: [NoteEntry("h", CART), NoteEntry("k", ABL)]}
    assert _keys(infer_unread_keys(two_left)[0]) == ["h", "?", "k"]
    # one letter read for two different footnotes: the pages letter their footnotes independently
    per_page = {0: [NoteEntry("a", CART), NoteEntry("?", DONOR), NoteEntry("c", ABL)],
                1: [NoteEntry("a", FERTILITY), NoteEntry("c", ABL)], 2: [NoteEntry("a", CART)]}
    assert _keys(infer_unread_keys(per_page)[0]) == ["a", "?", "c"]


def _read(key: str, text: str, read: str | None = None) -> NoteEntry:
    return NoteEntry(key, text, read=key if read is None else read)


def test_a_key_two_footnotes_hold_stays_with_the_one_whose_reads_confirm_it() -> None:
    # page 0's box markers misread "o" as "r" and re-keyed its footnote, whose own key was read "o"
    pages = {0: [_read("h", CART), _read("r", DONOR, read="o")],
             1: [_read("h", CART), _read("r", ABL)], 2: [_read("r", ABL)], 3: [_read("?", DONOR, read="?")]}
    out = resolve_key_conflicts(pages)
    assert _keys(out[0]) == ["h", "o"] and _keys(out[1]) == ["h", "r"] and _keys(out[3]) == ["?"]


def test_a_losing_footnote_whose_read_is_taken_or_out_of_order_becomes_unread() -> None:
    taken = {0: [_read("h", CART), _read("r", DONOR, read="h")],
             1: [_read("h", CART), _read("r", ABL)], 2: [_read("r", ABL), _read("w", FERTILITY)],
             3: [_read("w", FERTILITY)]}
    assert _keys(resolve_key_conflicts(taken)[0]) == ["h", "?"]
    out_of_order = {0: [_read("h", CART), _read("r", DONOR, read="a")],
                    1: [_read("h", CART), _read("r", ABL)], 2: [_read("r", ABL)]}
    assert _keys(resolve_key_conflicts(out_of_order)[0]) == ["h", "?"]


def test_key_conflicts_are_left_alone_without_a_better_claim_or_document_wide_letters() -> None:
    even = {0: [_read("h", CART), _read("r", DONOR, read="?")],
            1: [_read("h", CART), _read("r", ABL, read="?")], 2: [_read("r", ABL, read="?")]}
    assert resolve_key_conflicts(even) == even
    # every page letters its footnotes from "a": one read letter for many footnotes
    per_page = {0: [_read("a", CART), _read("b", DONOR, read="c")], 1: [_read("a", ABL), _read("b", FERTILITY)],
                2: [_read("a", DEXRA), _read("b", ABL)]}
    assert resolve_key_conflicts(per_page) == per_page


def test_a_key_misread_as_the_first_word_is_dropped_when_another_page_reads_the_text_without_it() -> None:
    pages = {0: [NoteEntry("g", f"9 {CART}")], 1: [NoteEntry("g", CART)]}
    assert [e.text for e in settle_note_keys(pages, {})[0]] == [CART]
    alone = {0: [NoteEntry("g", f"9 {CART}")], 1: [NoteEntry("h", DONOR)]}
    assert [e.text for e in settle_note_keys(alone, {})[0]] == [f"9 {CART}"]


def test_a_doubled_key_is_its_letter_unless_the_letters_ran_past_z_or_another_footnote_holds_it() -> None:
    pages = {0: [_read("h", CART), _read("kk", DONOR)], 1: [_read("h", CART), _read("kk", DONOR)],
             2: [_read("m", ABL)], 3: [_read("m", ABL)]}
    assert _keys(undouble_keys(pages)[0]) == ["h", "k"]
    past_z = {**pages, 2: [_read("z", ABL)], 3: [_read("z", ABL)]}
    assert _keys(undouble_keys(past_z)[0]) == ["h", "kk"]
    held = {**pages, 2: [_read("k", ABL)], 3: [_read("k", ABL)]}
    assert _keys(undouble_keys(held)[0]) == ["h", "kk"]


NOTES = {"a": "Tyrosine kinase inhibitors used with chemotherapy.", "d": "MRD is measured by flow cytometry.",
         "g": "High-dose radiotherapy above 60 Gy.", "l": "Definitive radiotherapy doses are 50.4 Gy.",
         "h": "Checkpoint inhibitor plus VEGFR inhibitor combinations.", "j": "Cabozantinib also inhibits MET."}


def test_a_marker_after_a_term_cites_the_footnote_explaining_it_when_misread_or_unread() -> None:
    cites = [Citation("mrd", "d", NOTES), Citation("mrd", "d", NOTES), Citation("mrd", "a", NOTES),
             Citation("mrd", "?", NOTES), Citation("maintenance", "a", NOTES)]
    assert keys_by_cited_word(cites) == ["d", "d", "d", "d", "a"]


def test_a_read_key_is_kept_when_it_follows_the_word_elsewhere_or_its_footnote_mentions_the_word() -> None:
    # the combination's footnote h after "cabozantinib" twice: both stay, though j mentions the drug
    cabo = [Citation("cabozantinib", "j", NOTES)] * 3 + [Citation("cabozantinib", "h", NOTES)] * 2
    assert keys_by_cited_word(cabo) == ["j", "j", "j", "h", "h"]
    # radiotherapy^l: its own footnote mentions radiotherapy too, so the more usual g does not replace it
    radio = [Citation("radiotherapy", "g", NOTES)] * 2 + [Citation("radiotherapy", "l", NOTES)]
    assert keys_by_cited_word(radio) == ["g", "g", "l"]


def test_a_marker_keeps_its_read_without_a_clear_majority_or_a_footnote_for_it_on_its_page() -> None:
    tied = [Citation("mrd", "d", NOTES), Citation("mrd", "x", {"x": "MRD by PCR."}), Citation("mrd", "a", NOTES)]
    assert keys_by_cited_word(tied) == ["d", "x", "a"]
    elsewhere = [Citation("mrd", "d", NOTES)] * 2 + [Citation("mrd", "a", {"a": "TKIs."})]
    assert keys_by_cited_word(elsewhere) == ["d", "d", "a"]
    assert keys_by_cited_word([Citation("", "a", NOTES), Citation("", "d", NOTES)]) == ["a", "d"]
