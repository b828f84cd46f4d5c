"""Which assembly settings are lengths in points (scaled with the page's text size): declared by field metadata
(``dkg.parsing.settings.length``), not by a list of names kept beside the fields."""

from __future__ import annotations

import re
from dataclasses import fields

from dkg.parsing.settings import AssemblySettings, is_length

# the length fields ``AssemblySettings.LENGTHS`` listed before the fields were marked themselves, and the title's
# size tolerance, marked since
FORMER_LENGTHS = (
    "attach_tol", "corner_gap", "stem_gap", "head_reach", "shadow_offset_max", "shadow_size_tol",
    "label_on_connector", "label_reach_min", "branch_label_reach", "side_margin", "pointer_min_depth",
    "pointer_reach", "row_gap", "row_align_tol", "row_overlap", "stack_gap", "piece_gap", "junction_gap",
    "list_gap_min", "list_gap_max", "list_align_tol", "sibling_gap",
    "title_size_tol")  # a font size: a page drawn at twice the size has its title lines' sizes twice as far apart
# a float field named like a distance is a length unless it is one of these
LENGTHISH = re.compile(r"_(tol|gap|reach|margin|depth|overlap|min|max)$")
NAMED_LIKE_A_LENGTH_BUT_NOT_ONE = {
    "stack_overlap": "a share of the narrower box's width",
}
LENGTHS_NAMED_OTHERWISE = {"label_on_connector"}


def _marked() -> set[str]:
    return {item.name for item in fields(AssemblySettings) if is_length(item)}


def test_the_marked_fields_are_the_former_lengths() -> None:
    assert _marked() == set(FORMER_LENGTHS)


def test_scaling_doubles_exactly_the_marked_fields() -> None:
    base, doubled = AssemblySettings(), AssemblySettings().scaled(2.0)
    for item in fields(AssemblySettings):
        before, after = getattr(base, item.name), getattr(doubled, item.name)
        if is_length(item):
            assert after == 2 * before, item.name
        else:
            assert after == before and type(after) is type(before), item.name


def test_lengths_are_floats_and_float_fields_named_like_lengths_are_marked() -> None:
    for item in fields(AssemblySettings):
        value = getattr(AssemblySettings(), item.name)
        if is_length(item):
            assert isinstance(value, float), item.name
        if not isinstance(value, float):
            continue
        named_like_one = bool(LENGTHISH.search(item.name)) and item.name not in NAMED_LIKE_A_LENGTH_BUT_NOT_ONE
        assert is_length(item) == (named_like_one or item.name in LENGTHS_NAMED_OTHERWISE), item.name
