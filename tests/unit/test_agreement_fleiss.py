"""Fleiss' kappa written out (analysis/agreement.py `fleiss_kappa_value`) is statsmodels' `fleiss_kappa` to the last
bit: the kept figures compare floats exactly, and the figures of a project kept before the change must stay what
they were."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.inter_rater import fleiss_kappa

from annotator.analysis.agreement import count_table, field_agreement, fleiss_kappa_value


def _votes(rng: np.random.Generator, units: int, raters: int, categories: list[str], skill: float) -> pd.DataFrame:
    """A crowd's votes: each unit has a true category, each rater gives it with probability `skill`, else any."""
    truth = rng.integers(0, len(categories), size=units)
    rows = []
    for unit in range(units):
        for rater in rng.choice(50, size=raters, replace=False):
            given = truth[unit] if rng.random() < skill else rng.integers(0, len(categories))
            rows.append((f"{unit} / masks", int(rater), categories[given]))
    return pd.DataFrame(rows, columns=["unit", "coder", "value"])


@pytest.mark.parametrize(("raters", "categories", "skill"), [
    (3, ["relevant", "irrelevant"], 0.9),            # RuArg-2022's relevance
    (3, ["0", "1", "2", "irrelevant"], 0.7),         # its stance with "not asked" as a value
    (9, ["0", "1"], 0.8),                            # KPA-2021's match, nine votes per pair
    (5, ["a", "b", "c", "d", "e", "f"], 0.4),        # a noisy crowd, many categories
])
def test_the_written_out_kappa_is_statsmodels_float_for_float(raters: int, categories: list[str],
                                                             skill: float) -> None:
    rng = np.random.default_rng(2021)
    for _ in range(20):
        table = count_table(_votes(rng, int(rng.integers(20, 400)), raters, categories, skill)).to_numpy(dtype=float)
        assert fleiss_kappa_value(table) == float(fleiss_kappa(table, method="fleiss"))


def test_a_fields_kappa_is_statsmodels_on_its_equally_rated_units() -> None:
    rng = np.random.default_rng(7)
    votes = _votes(rng, 300, 3, ["2", "0", "1", "irrelevant"], 0.75)
    votes = votes.drop(index=votes.index[:4])   # two units rated by fewer annotators: left out of kappa
    table = count_table(votes)
    equal = table[table.sum(axis=1) == 3].to_numpy(dtype=float)
    result = field_agreement("stance / masks", votes)
    assert result.fleiss_kappa.units == len(equal) == 298
    assert result.fleiss_kappa.value == float(fleiss_kappa(equal, method="fleiss"))


def test_units_rated_by_unequal_numbers_are_refused() -> None:
    with pytest.raises(ValueError, match="same number of raters"):
        fleiss_kappa_value(np.array([[2.0, 1.0], [1.0, 0.0]]))
