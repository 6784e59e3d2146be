"""declared/words.agreement_unit_words: an agreement unit as an admin page says it (the Dawid-Skene page's units).

A pairwise question with `players` stores its unit as the JSON pair of the two things compared (declared/asked.py);
the page says "alpha vs beta" after the item. Any other unit, or a unit that is not such a pair, is said as stored.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from annotator.declared.definition_reader import definition_from_file
from annotator.declared.words import agreement_unit_words

SET_COMPARE = Path(__file__).resolve().parents[2] / "annotator" / "shared_tasks" / "kpa2021" / "set_compare.yaml"


@pytest.fixture(scope="module")
def definition():  # type: ignore[no-untyped-def]
    return definition_from_file(SET_COMPARE)


def test_a_comparisons_pair_is_said_as_its_two_players(definition) -> None:  # type: ignore[no-untyped-def]
    said = agreement_unit_words(definition, "less_redundant", 't1pro:alpha:beta / ["alpha", "beta"]')
    assert said == "t1pro:alpha:beta / alpha vs beta"


def test_an_item_id_holding_the_separator_keeps_it(definition) -> None:  # type: ignore[no-untyped-def]
    said = agreement_unit_words(definition, "more_central", 'a / b / ["x", "y / z"]')
    assert said == "a / b / x vs y / z"


@pytest.mark.parametrize("field, unit", [
    ("stance", "t1pro:alpha:beta / alpha"),                  # a side's own question: its unit is a system's name
    ("less_redundant", "t1pro:alpha:beta / [not json"),      # not a JSON pair
    ("less_redundant", 't1pro:alpha:beta / ["alpha"]'),      # not two
    ("less_redundant", 't1pro:alpha:beta / ["alpha", 3]'),   # not two names
    ("no_such_field", 't1pro:alpha:beta / ["alpha", "beta"]'),
])
def test_any_other_unit_is_said_as_stored(definition, field: str, unit: str) -> None:  # type: ignore[no-untyped-def]
    assert agreement_unit_words(definition, field, unit) == unit
