"""The committed clinician dev / held-out files are exactly what the documented split rule gives."""

from collections import Counter

from dkg.qa.clinician import DEV_PATH, HELDOUT_PATH, SOURCE_PATH, load_items, split_items


def test_committed_split_follows_the_rule() -> None:
    dev, held = split_items(load_items(SOURCE_PATH))
    assert [i.id for i in load_items(DEV_PATH)] == [i.id for i in dev]
    assert [i.id for i in load_items(HELDOUT_PATH)] == [i.id for i in held]


def test_split_is_a_stratified_third() -> None:
    items = load_items(SOURCE_PATH)
    dev, held = split_items(items)
    assert len(held) == 20 and len(dev) == 40
    assert not {i.id for i in dev} & {i.id for i in held}
    for stratum, n in Counter((i.guideline, i.type) for i in items).items():
        kept = sum((i.guideline, i.type) == stratum for i in held)
        assert n // 3 <= kept <= n // 3 + 1, stratum


def test_another_seed_gives_another_split() -> None:
    items = load_items(SOURCE_PATH)
    assert {i.id for i in split_items(items, "other")[1]} != {i.id for i in split_items(items)[1]}
