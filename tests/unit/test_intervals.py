"""Bootstrap intervals over units of Fleiss' kappa and Krippendorff's alpha (annotator/analysis/intervals.py).

The replicates are checked against the libraries themselves: the same units drawn (the same seeded generator), each
replicate's coefficient computed by statsmodels' fleiss_kappa and the krippendorff package, percentiles by numpy."""
from __future__ import annotations

import krippendorff
import numpy as np
import pytest
from statsmodels.stats.inter_rater import fleiss_kappa

from annotator.analysis.intervals import (
    SEED,
    alpha_interval,
    alpha_of,
    kappa_interval,
    unit_coincidences,
)
from annotator.analysis.intervals import fleiss_kappa as own_kappa


def table(seed: int, units: int = 40, values: int = 3, raters: int = 5, varying: bool = False) -> np.ndarray:
    """Units x values counts of raters who mostly agree on a unit's value."""
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(units):
        true = rng.integers(values)
        n = int(rng.integers(2, raters + 1)) if varying else raters
        given = [true if rng.random() < 0.7 else rng.integers(values) for _ in range(n)]
        rows.append(np.bincount(given, minlength=values))
    return np.array(rows)


def library_replicates(counts: np.ndarray, coefficient, replicates: int) -> list[float]:  # type: ignore[no-untyped-def]
    """The documented draw (how many units of each distinct count row: a multinomial of n over the rows' shares,
    seeded), each drawn table rebuilt unit by unit and measured by the library."""
    rows, frequency = np.unique(counts, axis=0, return_counts=True)
    draws = np.random.default_rng(SEED).multinomial(len(counts), frequency / frequency.sum(), size=replicates)
    return [coefficient(np.repeat(rows, drawn, axis=0)) for drawn in draws]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_kappa_point_value_is_statsmodels(seed: int) -> None:
    counts = table(seed)
    assert own_kappa(counts) == pytest.approx(fleiss_kappa(counts, method="fleiss"), abs=1e-12)


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
@pytest.mark.parametrize("seed", [1, 2])
def test_alpha_point_value_is_the_krippendorff_packages(level: str, seed: int) -> None:
    counts = table(seed, values=4, varying=True)
    expected = krippendorff.alpha(value_counts=counts.astype(float), level_of_measurement=level)
    assert alpha_of(unit_coincidences(counts).sum(axis=0), level) == pytest.approx(expected, abs=1e-12)


def test_kappa_interval_is_the_percentiles_of_statsmodels_on_the_same_draws() -> None:
    counts = table(4)
    expected = np.percentile(library_replicates(counts, lambda c: fleiss_kappa(c, method="fleiss"), 200), [2.5, 97.5])
    interval = kappa_interval(counts, replicates=200)
    assert interval is not None
    assert (interval.low, interval.high, interval.replicates) == (pytest.approx(expected[0]),
                                                                  pytest.approx(expected[1]), 200)


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_alpha_interval_is_the_percentiles_of_krippendorff_on_the_same_draws(level: str) -> None:
    counts = table(5, values=4, varying=True)
    expected = np.percentile(library_replicates(
        counts, lambda c: krippendorff.alpha(value_counts=c.astype(float), level_of_measurement=level), 200),
        [2.5, 97.5])
    interval = alpha_interval(counts, level, replicates=200)
    assert interval is not None
    assert (interval.low, interval.high) == (pytest.approx(expected[0]), pytest.approx(expected[1]))


def test_the_interval_holds_the_point_value_and_narrows_with_more_units() -> None:
    small, large = table(6, units=30), table(6, units=600)
    narrow, wide = kappa_interval(large), kappa_interval(small)
    assert narrow is not None and wide is not None
    assert narrow.low < own_kappa(large) < narrow.high and wide.low < own_kappa(small) < wide.high
    assert narrow.high - narrow.low < wide.high - wide.low


def test_the_same_votes_give_the_same_interval_and_another_seed_another() -> None:
    counts = table(7)
    assert alpha_interval(counts) == alpha_interval(counts)
    assert alpha_interval(counts) != alpha_interval(counts, seed=SEED + 1)


def test_replicates_without_a_defined_coefficient_are_left_out_and_counted() -> None:
    # two units: one all "a", one all "b"; a replicate drawing the same unit twice has one value only (1/2 of them)
    interval = alpha_interval(np.array([[3, 0], [0, 3]]), replicates=100)
    assert interval is not None and 30 < interval.replicates < 70 and interval.low == interval.high == 1.0


def test_one_unit_has_no_interval() -> None:
    assert kappa_interval(np.array([[2, 1]])) is None and alpha_interval(np.array([[2, 1]])) is None
