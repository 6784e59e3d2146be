"""Kendall's coefficient of concordance W of rankings, per block (an item) and over a campaign.

Why beside Krippendorff's alpha: a ranking question's agreement frame (annotator/declared/ranking.py) has one row
per (item / option, annotator) with the rank as value and a `block` column naming the item; alpha compares ranks
unit by unit, W asks whether the annotators of one item put its options in the same order. For one item ranked
completely by m annotators, n options, R_j the rank sum of option j (Kendall & Babington Smith, 1939):

    W = 12 S / (m^2 (n^3 - n)),   S = sum_j (R_j - m (n + 1) / 2)^2

from 0 (no agreement) to 1 (the same order), and chi^2 = m (n - 1) W with n - 1 degrees of freedom tests it
against random orders (good for n > 7; a Friedman statistic, as textbooks give it). Ranks here never tie (a ranking
is a permutation), so no tie correction is needed. Over a campaign `value` is the mean of the items' W (each item
ranked by two or more annotators), and the test sums the items' independent chi^2 and degrees of freedom.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True)
class Concordance:
    value: float | None                 # the mean W of the items ranked by two or more annotators
    undefined_because: str | None = None
    items: int = 0                      # items it was computed on
    chi_square: float | None = None     # the sum of the items' m (n - 1) W
    df: int = 0                         # the sum of their n - 1
    p_value: float | None = None        # of chi_square with df degrees of freedom

    def text(self, digits: int = 3) -> str:
        if self.value is None:
            return f"undefined: {self.undefined_because}"
        test = f", chi² {self.chi_square:.2f} on {self.df} df, p {self.p_value:.3g}" \
            if self.chi_square is not None and self.p_value is not None else ""
        items = f"{self.items} item" + ("s" if self.items != 1 else "")
        return f"{self.value:.{digits}f} (mean over {items}{test})"


def kendall_w(ranks: list[list[float]]) -> float | None:
    """W of one block: `ranks[a][j]` annotator a's rank of object j (each row a permutation of 1..n); None when
    fewer than two annotators or objects."""
    m = len(ranks)
    n = len(ranks[0]) if ranks else 0
    if m < 2 or n < 2:
        return None
    sums = [sum(row[j] for row in ranks) for j in range(n)]
    mean = m * (n + 1) / 2
    s = sum((r - mean) ** 2 for r in sums)
    return 12 * s / (m * m * (n ** 3 - n))


def concordance(units: pd.DataFrame) -> Concordance:
    """W over the blocks of an agreement frame with columns unit, coder, value (a rank) and block; an annotator's
    ranking counts when it ranks every unit of its block."""
    if units.empty:
        return Concordance(None, "no votes yet")
    blocks: dict[object, dict[object, dict[str, float]]] = {}
    for block, unit, coder, value in zip(units["block"], units["unit"], units["coder"], units["value"]):
        try:
            blocks.setdefault(block, {}).setdefault(coder, {})[str(unit)] = float(value)
        except ValueError:
            continue
    values: list[float] = []
    chi = 0.0
    df = 0
    for by_coder in blocks.values():
        objects = sorted({unit for ranking in by_coder.values() for unit in ranking})
        complete = [[ranking[o] for o in objects] for ranking in by_coder.values() if len(ranking) == len(objects)]
        w = kendall_w(complete)
        if w is None:
            continue
        values.append(w)
        chi += len(complete) * (len(objects) - 1) * w
        df += len(objects) - 1
    if not values:
        return Concordance(None, "no item was ranked by two or more annotators")
    from scipy.stats import chi2  # here: only this needs scipy (as agreement.py loads krippendorff where used)

    return Concordance(sum(values) / len(values), None, len(values), chi, df, float(chi2.sf(chi, df)))
