"""figures/kept_figures.py's ItemFigures: each item's gold rows kept apart, so an items page decodes its own only.

The rows a page gets are the gold frame's records of its items, as the page drew them from the whole frame before;
their bytes depend on the values alone, so kept figures compare equal to a recomputation's."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from annotator.figures.kept_figures import ItemFigures, gold_by_item, same

GOLD = pd.DataFrame({
    "item": ["a", "a", "b", "c", "c"],
    "question": ["matches"] * 5,
    "unit": ["kp1", "kp2", "kp1", "kp1", "kp2"],
    "gold": ["1", "0", "undecided", "1", "Ünïcode"],
    "n": np.array([3, 3, 2, 3, 3], dtype=np.int64),
    "score": [1.0, 0.0, math.nan, 2 / 3, 1 / 3],
    "votes": ["3 of 3", "0 of 3", "1 of 2", "2 of 3", "1 of 3"],
    "note": [None, "text", None, None, None],
})


def figures(gold: pd.DataFrame) -> ItemFigures:
    return ItemFigures("matches", pd.DataFrame({"item": ["a", "b", "c"]}), gold_by_item(gold), frozenset())


def test_a_page_gets_its_items_rows_as_the_frame_has_them_in_the_pages_order() -> None:
    rows = figures(GOLD).gold_rows(["c", "a"])
    expected = GOLD.set_index("item").loc[["c", "a"]].reset_index().to_dict("records")
    assert len(rows) == 4 and same(rows, expected), rows   # NaN for NaN: the frame's missing note and score


def test_an_item_without_gold_gives_no_row_and_a_missing_score_stays_missing() -> None:
    kept = figures(GOLD)
    assert kept.gold_rows(["nope"]) == []
    [b] = kept.gold_rows(["b"])
    assert math.isnan(b["score"]) and b["gold"] == "undecided" and b["n"] == 2


def test_the_same_values_give_the_same_kept_figures_whichever_objects_hold_them() -> None:
    """The frame rebuilt from copies of its strings (no object shared with the first) keeps equal bytes."""
    rebuilt = GOLD.copy()
    for column in ("item", "question", "unit", "gold", "votes"):
        rebuilt[column] = ["".join(list(value)) for value in GOLD[column]]
    assert same(figures(GOLD), figures(rebuilt))
    assert not same(figures(GOLD), figures(GOLD.assign(gold=["1", "1", "undecided", "1", "Ünïcode"])))
