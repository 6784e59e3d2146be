"""95% intervals of Fleiss' kappa and Krippendorff's alpha: a percentile bootstrap over units.

A coefficient from 400 units says little without its uncertainty. The units are the sampled thing (the items a
campaign could have drawn), so the bootstrap draws units with replacement, as many as there are (as a multinomial
over the distinct count rows: `resampled`), recomputes the coefficient, and takes the 2.5th and 97.5th percentiles
of 1,000 replicates (Efron & Tibshirani 1993, the percentile interval; Zapf et al. 2016, "Measuring inter-rater
reliability for nominal data - which coefficients and confidence intervals are appropriate?", BMC Medical Research
Methodology 16:93, recommend exactly this for Fleiss' kappa and Krippendorff's alpha). Krippendorff's own bootstrap
(Hayes & Krippendorff 2007) resamples pairs of values instead; over units the interval also carries how much the
units differ from each other.

Seeded (SEED), so the same votes give the same interval on every page and every run, and the kept figures compare
equal when recomputed. Both coefficients are computed here from the count rows without the libraries (a replicate
is one weighted sum over the distinct rows): kappa as statsmodels' fleiss_kappa does (Fleiss 1971), alpha as the
krippendorff package does from value counts (coincidences o, expected e, the level's distances d,
alpha = 1 - sum(o d) / sum(e d); an interval or ratio level takes the columns' positions as the values, as it does).
tests/unit/test_intervals.py checks both point values against the libraries. A replicate whose coefficient is
undefined (every drawn rating the same value) is left out, and the interval says how many replicates it rests on.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

REPLICATES = 1000
SEED = 20261128
LEVEL = 0.95


@dataclass(frozen=True)
class Interval:
    low: float
    high: float
    replicates: int            # replicates with a defined coefficient (of REPLICATES drawn)
    level: float = LEVEL

    def text(self, digits: int = 3) -> str:
        return f"{self.level:.0%} interval {self.low:.{digits}f} to {self.high:.{digits}f}"


def kappa_interval(counts: np.ndarray, replicates: int = REPLICATES, seed: int = SEED) -> Interval | None:
    """Fleiss' kappa's interval; `counts` units x categories, every unit rated by the same number of raters."""
    patterns, weights = resampled(counts, replicates, seed)
    if weights is None:
        return None
    raters = patterns.sum(axis=1)
    agreeing = (patterns * (patterns - 1)).sum(axis=1) / (raters * (raters - 1))
    observed = weights @ agreeing / weights.sum(axis=1)
    totals = weights @ patterns
    chance = ((totals / totals.sum(axis=1, keepdims=True)) ** 2).sum(axis=1)
    defined = chance < 1
    return _percentiles(((observed - chance)[defined] / (1 - chance[defined])).tolist())


def fleiss_kappa(counts: np.ndarray) -> float:
    """The point value the interval is drawn around (statsmodels' fleiss_kappa, method "fleiss")."""
    import numpy as np
    counts = np.asarray(counts, dtype=float)
    raters = counts.sum(axis=1)
    observed = float(((counts * (counts - 1)).sum(axis=1) / (raters * (raters - 1))).mean())
    shares = counts.sum(axis=0) / counts.sum()
    chance = float((shares ** 2).sum())
    return (observed - chance) / (1 - chance)


def alpha_interval(counts: np.ndarray, level: str = "nominal", replicates: int = REPLICATES,
                   seed: int = SEED) -> Interval | None:
    """Krippendorff's alpha's interval at `level`; `counts` units x values (in order), units rated twice or more."""
    import numpy as np
    patterns, weights = resampled(counts, replicates, seed)
    if weights is None:
        return None
    per_pattern = unit_coincidences(patterns)
    size = patterns.shape[1]
    summed = (weights @ per_pattern.reshape(len(patterns), size * size)).reshape(-1, size, size)
    values = alphas_of(summed, level)
    return _percentiles(values[~np.isnan(values)].tolist())


def resampled(counts: np.ndarray, replicates: int, seed: int) -> tuple[np.ndarray, np.ndarray | None]:
    """(the distinct rows of `counts`, replicates x rows: how often each is drawn), None for fewer than 2 units.

    Units with the same counts are interchangeable, so drawing n units with replacement is drawing how many of
    each distinct row: one multinomial of n over the rows' shares. The same distribution as drawing unit by unit,
    at the cost of the few distinct rows (a project of 200,000 words with nine annotators has at most ten), not
    of the units."""
    import numpy as np
    counts = np.asarray(counts, dtype=float)
    if counts.shape[0] < 2:
        return counts, None
    patterns, frequency = np.unique(counts, axis=0, return_counts=True)
    rng = np.random.default_rng(seed)
    draws: np.ndarray = rng.multinomial(counts.shape[0], frequency / frequency.sum(), size=replicates)
    return patterns, draws.astype(float)


def unit_coincidences(counts: np.ndarray) -> np.ndarray:
    """Units x values x values: each unit's pairs of values, n_c (n_k - [c = k]) / (m - 1), m its ratings."""
    import numpy as np
    counts = np.asarray(counts, dtype=float)
    ratings = counts.sum(axis=1)
    pairs = counts[:, :, None] * counts[:, None, :] - counts[:, :, None] * np.eye(counts.shape[1])[None]
    result: np.ndarray = pairs / (ratings - 1)[:, None, None]
    return result


def alpha_of(coincidences: np.ndarray, level: str) -> float | None:
    """Alpha from a coincidence matrix, None when undefined (no expected disagreement)."""
    import numpy as np
    value = float(alphas_of(np.asarray(coincidences, dtype=float)[None], level)[0])
    return None if np.isnan(value) else value


def alphas_of(coincidences: np.ndarray, level: str) -> np.ndarray:
    """Alpha of each of a stack of coincidence matrices (replicates x values x values), NaN where undefined.

    All the replicates at once, as array operations: the interval's 1,000 replicates one matrix at a time were
    half of an agreement panel's time (a loop of small numpy calls per replicate)."""
    import numpy as np
    totals = coincidences.sum(axis=1)                      # each matrix's column sums: n_c
    n = totals.sum(axis=1)
    distances = _distances(totals, level)
    expected = (totals[:, :, None] * totals[:, None, :] * distances).sum(axis=(1, 2)) / (n - 1)
    observed = (coincidences * distances).sum(axis=(1, 2))
    defined = expected > 0
    alphas: np.ndarray = np.full(len(coincidences), np.nan)
    alphas[defined] = 1 - observed[defined] / expected[defined]
    return alphas


def _distances(totals: np.ndarray, level: str) -> np.ndarray:
    """The squared distance of each pair of values (the krippendorff package's metrics), values x values, or
    replicates x values x values for the ordinal level (its distances depend on each replicate's totals)."""
    import numpy as np
    size = totals.shape[-1]
    position = np.arange(size, dtype=float)
    if level == "nominal":
        return 1 - np.eye(size)
    if level == "interval":
        distances: np.ndarray = (position[:, None] - position[None, :]) ** 2
        return distances
    if level == "ratio":
        sums = position[:, None] + position[None, :]
        differences = position[:, None] - position[None, :]
        return np.divide(differences, sums, out=np.zeros((size, size)), where=sums != 0) ** 2
    if level == "ordinal":   # (the totals from c to k, less half of the two ends)^2
        cumulative = np.concatenate([np.zeros((len(totals), 1)), np.cumsum(totals, axis=1)], axis=1)
        low, high = np.minimum.outer(np.arange(size), np.arange(size)), np.maximum.outer(np.arange(size),
                                                                                           np.arange(size))
        between = cumulative[:, high + 1] - cumulative[:, low]
        ordinal: np.ndarray = (between - (totals[:, :, None] + totals[:, None, :]) / 2) ** 2
        return ordinal
    raise ValueError(f"unknown level of measurement {level!r}")


def _percentiles(values: list[float]) -> Interval | None:
    import numpy as np
    if not values:
        return None
    tail = (1 - LEVEL) / 2 * 100
    low, high = np.percentile(values, [tail, 100 - tail])
    return Interval(float(low), float(high), len(values))
