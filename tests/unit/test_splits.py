"""The seeded random split (campaigns/splits.py): by given sizes, the same for the same seed, refused in words."""
from __future__ import annotations

import random

import pytest

from annotator.campaigns.splits import SplitError, draw, parse_names, parse_sizes

IDS = [f"s{n}" for n in range(20)]


def test_the_split_has_the_given_sizes_and_keeps_item_order():
    split = draw(IDS, (12, 3, 5), seed=7)
    assert list(split) == IDS
    assert [list(split.values()).count(name) for name in ("train", "dev", "test")] == [12, 3, 5]


def test_the_same_seed_draws_the_same_split():
    assert draw(IDS, (12, 3, 5), seed=7) == draw(list(IDS), (12, 3, 5), seed=7)


def test_another_seed_draws_another_split():
    assert draw(IDS, (12, 3, 5), seed=7) != draw(IDS, (12, 3, 5), seed=8)


def test_the_draw_is_python_random_shuffle_of_the_items_cut_by_the_sizes():
    """The rule written down, so that the split can be drawn again without this code."""
    order = list(IDS)
    random.Random(7).shuffle(order)
    expected = {**{i: "train" for i in order[:12]}, **{i: "dev" for i in order[12:15]},
                **{i: "test" for i in order[15:]}}
    assert draw(IDS, (12, 3, 5), seed=7) == expected


def test_sizes_that_do_not_add_up_to_the_items_are_refused_in_words():
    with pytest.raises(SplitError, match="add up to 19, but the project has 20 items"):
        draw(IDS, (12, 3, 4), seed=7)


def test_one_size_per_split_name():
    with pytest.raises(SplitError, match="2 split sizes for 3 splits"):
        draw(IDS, (15, 5), seed=7)
    assert set(draw(IDS, (15, 5), seed=7, names=("train", "test")).values()) == {"train", "test"}


def test_an_empty_split_is_refused():
    with pytest.raises(SplitError, match="at least one item"):
        draw(IDS, (20, 0, 0), seed=7)


@pytest.mark.parametrize("text", ["2741;392;743", "2741,,743", "-1,2,3", "a,b,c", ""])
def test_sizes_must_be_whole_numbers_separated_by_commas(text):
    with pytest.raises(SplitError, match="whole numbers separated by commas"):
        parse_sizes(text)


def test_sizes_and_names_are_read_from_text():
    assert parse_sizes("2741, 392,743") == (2741, 392, 743)
    assert parse_names(None) == ("train", "dev", "test")
    assert parse_names("a,b") == ("a", "b")


@pytest.mark.parametrize("text, message", [("train,train", "twice"), ("train,d ev", "letters, digits")])
def test_bad_split_names_are_refused(text, message):
    with pytest.raises(SplitError, match=message):
        parse_names(text)
