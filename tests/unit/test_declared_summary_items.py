"""`summary_items: true` in a definition: the gold summary starts with its items decided by the votes, left for
adjudication and adjudicated (declared/adjudication.py `item_counts`); off by default, the summary is as before.

Gold rows of the review-aspects example (examples/review_aspects.yaml), written out: r1 decided, r2 with one
aspect undecided, r3 undecided and then decided by an admin (its rows' votes say "adjudicated").
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from annotator.declared.definition import DefinitionError
from annotator.declared.definition_reader import definition_from_text
from annotator.tasks.custom import DeclaredTask

TEXT = (Path(__file__).resolve().parents[2] / "examples" / "review_aspects.yaml").read_text(encoding="utf-8")
ROWS = [("r1", "mentioned", "price", "yes", 3, 1.0, "yes, yes, no"),
        ("r1", "sentiment", "price", "positive", 2, 1.0, "positive, positive"),
        ("r2", "mentioned", "price", "yes", 3, 1.0, "yes, yes, yes"),
        ("r2", "sentiment", "price", "undecided", 3, 0.0, "positive, negative, mixed"),
        ("r3", "mentioned", "price", "no", 0, 1.0, "adjudicated"),
        ("r3", "sentiment", "price", "n/a", 0, 1.0, "adjudicated")]
GOLD = pd.DataFrame(ROWS, columns=["item", "question", "unit", "gold", "n", "score", "votes"])
ITEMS = ("items decided", "items for adjudication", "items adjudicated")


def summary(extra: str = "") -> dict[str, int]:
    return DeclaredTask(definition_from_text(TEXT + extra)).gold_summary(GOLD).counts


def test_without_the_key_the_summary_counts_gold_values_only():
    assert not set(ITEMS) & set(summary()) and summary()["sentiment: undecided"] == 1


def test_with_summary_items_the_summary_starts_with_the_items_by_status():
    counts = summary("\nsummary_items: true\n")
    assert list(counts)[:3] == list(ITEMS)
    assert [counts[name] for name in ITEMS] == [1, 1, 1]      # r1 decided, r2 for adjudication, r3 adjudicated
    assert {k: v for k, v in counts.items() if k not in ITEMS} == summary()


def test_another_value_is_refused():
    with pytest.raises(DefinitionError) as caught:
        definition_from_text(TEXT + "\nsummary_items: sometimes\n")
    assert (caught.value.path, caught.value.message) == ("summary_items", "must be true or false")
