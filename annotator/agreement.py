"""Inter-annotator agreement: Fleiss' kappa (statsmodels) and Krippendorff's alpha (krippendorff).

Input is one frame of (unit, coder, value) rows per label field, as a task type's
`agreement_units` gives it. Both coefficients are computed from the same units x categories
count table (nominal alpha does not depend on who gave a rating, only on the counts, so this
also scales to thousands of crowd coders). Every report states its inputs and which units were
left out and why; an undefined coefficient is explained in words, never shown as nan.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import krippendorff
import pandas as pd
from statsmodels.stats.inter_rater import fleiss_kappa


@dataclass(frozen=True)
class Coefficient:
    value: float | None
    undefined_because: str | None = None
    units: int = 0  # units it was computed on

    def text(self, digits: int = 3) -> str:
        return f"{self.value:.{digits}f}" if self.value is not None else f"undefined: {self.undefined_because}"


@dataclass
class FieldAgreement:
    field: str
    units: int            # units with at least one rating
    coders: int
    ratings: int
    categories: list[str]
    fleiss_kappa: Coefficient
    krippendorff_alpha: Coefficient
    left_out: list[dict[str, Any]] = field(default_factory=list)  # {"units": n, "why": "..."}

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def count_table(units: pd.DataFrame) -> pd.DataFrame:
    """Units x categories: how many coders gave each value to each unit."""
    return pd.crosstab(units["unit"], units["value"].astype(str))


def _single_value(table: pd.DataFrame) -> str | None:
    used = [c for c in table.columns if table[c].sum() > 0]
    return used[0] if len(used) == 1 else None


def _alpha(table: pd.DataFrame) -> Coefficient:
    if table.empty:
        return Coefficient(None, "no unit was rated by two or more annotators")
    only = _single_value(table)
    if only is not None:
        return Coefficient(None, f"every rating is {only!r}: with a single value there is no "
                                 "disagreement to expect, so alpha is 0/0", len(table))
    value = krippendorff.alpha(value_counts=table.to_numpy(dtype=float), level_of_measurement="nominal")
    return Coefficient(float(value), None, len(table))


def _fleiss(table: pd.DataFrame, left_out: list[dict[str, Any]]) -> Coefficient:
    if table.empty:
        return Coefficient(None, "no unit was rated by two or more annotators")
    per_unit = table.sum(axis=1)
    counts = per_unit.value_counts()
    raters = int(counts[counts == counts.max()].index.max())  # the most common number of ratings
    equal = table[per_unit == raters]
    unequal = len(table) - len(equal)
    if unequal:
        left_out.append({"units": unequal, "why": f"rated by a number of annotators other than {raters}; "
                                                  "Fleiss' kappa needs the same number for every unit",
                         "coefficient": "fleiss_kappa"})
    only = _single_value(equal)
    if only is not None:
        return Coefficient(None, f"every rating is {only!r}: with a single value the expected "
                                 "agreement is 1, so kappa is 0/0",
                           len(equal))
    return Coefficient(float(fleiss_kappa(equal.to_numpy(dtype=float), method="fleiss")), None, len(equal))


def field_agreement(name: str, units: pd.DataFrame) -> FieldAgreement:
    table = count_table(units) if not units.empty else pd.DataFrame()
    per_unit = table.sum(axis=1) if not table.empty else pd.Series(dtype=int)
    left_out: list[dict[str, Any]] = []
    once = int((per_unit < 2).sum())
    if once:
        left_out.append({"units": once, "why": "rated by one annotator only: nothing to compare",
                         "coefficient": "both"})
    paired = table[per_unit >= 2] if not table.empty else table
    if units.empty:
        nothing = Coefficient(None, "no votes yet")
        return FieldAgreement(name, 0, 0, 0, [], nothing, nothing, left_out)
    return FieldAgreement(
        field=name, units=len(table), coders=int(units["coder"].nunique()) if not units.empty else 0,
        ratings=len(units), categories=[str(c) for c in table.columns],
        fleiss_kappa=_fleiss(paired, left_out), krippendorff_alpha=_alpha(paired), left_out=left_out)


def agreement(units_by_field: dict[str, pd.DataFrame]) -> list[FieldAgreement]:
    return [field_agreement(name, units) for name, units in units_by_field.items()]
