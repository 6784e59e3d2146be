"""The kept model's arrays (analysis/model_fields.py) give the units a page lists as a plain sort of them would."""
from __future__ import annotations

import numpy as np
import pytest

from annotator.analysis.model_fields import FieldAggregate, FieldPosteriors


def _field(n: int) -> FieldPosteriors:
    """n units of two classes whose posteriors take 21 values only (many ties), a third without gold."""
    rng = np.random.default_rng(47)
    posteriors = rng.integers(0, 21, (n, 2)) / 20
    gold = [str(i % 2) if i % 3 else None for i in range(n)]
    return FieldPosteriors.of(FieldAggregate("f", ["0", "1"], {}, 1, True, True), [f"u{i}" for i in range(n)],
                              [f"item{i // 4}" for i in range(n)], gold, posteriors.argmax(axis=1), posteriors)


@pytest.mark.parametrize("n", [5, 300, 5000])
def test_the_listed_units_are_a_stable_sort_differing_first_then_least_certain(n: int) -> None:
    fit = _field(n)
    rows = []
    for r in range(n):
        label = int(np.argmax(fit.posteriors[r]))
        gold = None if r % 3 == 0 else str(r % 2)
        rows.append((not (gold is not None and gold != str(label)), float(fit.posteriors[r, label]), f"u{r}"))
    expected = [unit for _, _, unit in sorted(rows, key=lambda row: row[:2])][:300]   # sorted() is stable
    assert [u.unit for u in fit.shown(300)] == expected


def test_the_units_of_a_page_of_items() -> None:
    found = _field(40).of_items(["item2", "item9", "nothing"])
    assert {item: [u.unit for u in units] for item, units in found.items()} == \
        {"item2": ["u8", "u9", "u10", "u11"], "item9": ["u36", "u37", "u38", "u39"]}
    assert [u.gold for u in found["item2"]] == ["0", None, "0", "1"]   # u9: a unit without gold


def test_the_dawid_skene_pages_figures_of_a_field_are_its_counts_and_its_listed_units() -> None:
    fit = _field(5000)
    page = fit.page(300)
    # counted here from the same inputs _field draws: every third unit has no gold, the others differ where the
    # posteriors' argmax is not their gold
    rng = np.random.default_rng(47)
    posteriors = rng.integers(0, 21, (5000, 2)) / 20
    labels = posteriors.argmax(axis=1)
    with_gold = [r for r in range(5000) if r % 3]
    assert (page.field, page.count, page.with_gold) == ("f", 5000, len(with_gold))
    assert page.differing == sum(1 for r in with_gold if str(labels[r]) != str(r % 2))
    assert [u.unit for u in page.shown] == [u.unit for u in fit.shown(300)] and len(page.shown) == 300
    assert page.summary is fit.summary
