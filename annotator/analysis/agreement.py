"""Inter-annotator agreement: Fleiss' kappa (statsmodels' formula, `fleiss_kappa_value`) and Krippendorff's alpha
(krippendorff).

Input is one frame of (unit, coder, value) rows per label field, as a task type's
`agreement_units` gives it; a frame whose attrs say `level="ordinal"` (with `order`, lowest value
first) gets the ordinal alpha, which counts easy-vs-hard as a bigger disagreement than easy-vs-medium.
Both coefficients are computed from the same units x categories count table (nominal alpha does
not depend on who gave a rating, only on the counts, so this also scales to thousands of crowd
coders). Every report states its inputs and which units were left out and why; an undefined
coefficient is explained in words, never shown as nan. Asked for (`intervals`), each coefficient also gets its 95%
interval by a bootstrap over units (intervals.py).
"""
from __future__ import annotations

import dataclasses
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Literal

from annotator.analysis.answer_match import TEXT, AnswerMatch, answer_match
from annotator.analysis.concordance import Concordance, concordance
from annotator.analysis.distribution_match import ITEM as DISTRIBUTION_ITEM
from annotator.analysis.distribution_match import DistributionMatch, distribution_match
from annotator.analysis.intervals import Interval, alpha_interval, kappa_interval
from annotator.analysis.relation_match import SET, RelationMatch, relation_match
from annotator.analysis.split_half import SplitHalf, split_half

if TYPE_CHECKING:  # imported where used: a server worker that serves only HITs never loads pandas (issue 12)
    import numpy as np
    import pandas as pd


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
    # dataclasses.field: the name `field` is this class's first attribute.
    left_out: list[dict[str, Any]] = dataclasses.field(default_factory=list)  # {"units": n, "why": "..."}
    level: str = "nominal"  # of Krippendorff's alpha
    kappa_interval: Interval | None = None   # 95%, bootstrap over units, when asked for (intervals.py)
    alpha_interval: Interval | None = None
    kendall_w: Concordance | None = None     # a ranking's field (its frame has a `block` column: concordance.py)
    split_half: SplitHalf | None = None      # a best-worst field (its frame has an `object` column: split_half.py)
    answer_match: AnswerMatch | None = None  # an extractive question's field (an `answer_text` column: answer_match.py)
    relation_match: RelationMatch | None = None  # a relations question's field (a `relation_set` column)
    distribution_match: DistributionMatch | None = None  # a distribution's field (a `distribution_item` column)

    def to_dict(self) -> dict[str, Any]:
        """Every figure; the intervals, W, split-half, the answers' and the relations' match only when computed (files
        written before them keep their bytes)."""
        data = asdict(self)
        for name in ("kappa_interval", "alpha_interval", "kendall_w", "split_half", "answer_match", "relation_match",
                     "distribution_match"):
            if data[name] is None:
                del data[name]
        return data


def count_table(units: pd.DataFrame) -> pd.DataFrame:
    """Units x categories: how many coders gave each value to each unit (an ordinal field's in its order)."""
    import numpy as np
    import pandas as pd

    # What pd.crosstab gives (sorted units x sorted values, int64), from codes and one bincount: crosstab's
    # groupby is several times slower on a big project (bench/aggregate.py; figures in
    # bench/results/2026-11-25-figures-from-docstrings.md).
    unit_codes, unit_names = pd.factorize(units["unit"], sort=True)
    value_codes, values = pd.factorize(units["value"].astype(str), sort=True)
    rated = unit_codes >= 0  # crosstab leaves out rows without a unit
    counts = np.bincount(unit_codes[rated] * len(values) + value_codes[rated],
                         minlength=len(unit_names) * len(values)).reshape(len(unit_names), len(values))
    table = pd.DataFrame(counts, index=pd.Index(unit_names, name="unit"), columns=pd.Index(values, name="value"))
    order = [str(v) for v in units.attrs.get("order", ())]
    if order:
        unknown = sorted(set(table.columns) - set(order))
        if unknown:
            raise ValueError(f"values {unknown} are not in the field's order {order}")
        table = table.reindex(columns=order, fill_value=0)
    return table


def _single_value(table: pd.DataFrame) -> str | None:
    used = [c for c in table.columns if table[c].sum() > 0]
    return used[0] if len(used) == 1 else None


Level = Literal["nominal", "ordinal", "interval", "ratio"]  # krippendorff's levels of measurement


def _alpha(table: pd.DataFrame, level: Level = "nominal") -> Coefficient:
    if table.empty:
        return Coefficient(None, "no unit was rated by two or more annotators")
    only = _single_value(table)
    if only is not None:
        return Coefficient(None, f"every rating is {only!r}: with a single value there is no "
                                 "disagreement to expect, so alpha is 0/0", len(table))
    # Imported here, not at the top: only this needs krippendorff, and a server worker that never computes it
    # should not carry it (issue 12: every worker's memory counts; figures in
    # bench/results/2026-11-25-figures-from-docstrings.md).
    import krippendorff

    # With value_counts, krippendorff takes the columns as the ordered value domain.
    value = krippendorff.alpha(value_counts=table.to_numpy(dtype=float), level_of_measurement=level)
    return Coefficient(float(value), None, len(table))


def _equal_raters(table: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """The units rated by the most common number of raters (Fleiss' kappa's units), and that number."""
    per_unit = table.sum(axis=1)
    counts = per_unit.value_counts()
    raters = int(counts[counts == counts.max()].index.max())  # the most common number of ratings
    return table[per_unit == raters], raters


def _fleiss(table: pd.DataFrame, left_out: list[dict[str, Any]]) -> Coefficient:
    if table.empty:
        return Coefficient(None, "no unit was rated by two or more annotators")
    equal, raters = _equal_raters(table)
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
    return Coefficient(fleiss_kappa_value(equal.to_numpy(dtype=float)), None, len(equal))


def fleiss_kappa_value(table: np.ndarray) -> float:
    """Fleiss' kappa of a units x categories count table, every unit rated by the same number of raters: statsmodels'
    `fleiss_kappa(table, method="fleiss")` step for step, so the same float (tests/unit/test_agreement_fleiss.py
    compares them). Written out rather than imported: statsmodels added some 54 MB to the process that computes a
    big project's kept figures, for these few lines (bench/results/2026-11-29-kept-figures-memory.md)."""
    import numpy as np

    table = 1.0 * np.asarray(table)   # avoid integer division
    n_sub, _ = table.shape
    n_total = table.sum()
    n_rat = table.sum(1).max()
    if n_total != n_sub * n_rat:
        raise ValueError("Fleiss' kappa needs every unit rated by the same number of raters")
    p_cat = table.sum(0) / n_total   # marginal frequency of the categories
    table2 = table * table
    p_rat = (table2.sum(1) - n_rat) / (n_rat * (n_rat - 1.))
    p_mean = p_rat.mean()
    p_mean_exp = (p_cat * p_cat).sum()
    return float((p_mean - p_mean_exp) / (1 - p_mean_exp))


def field_agreement(name: str, units: pd.DataFrame, intervals: bool = False) -> FieldAgreement:
    import pandas as pd

    table = count_table(units) if not units.empty else pd.DataFrame()
    per_unit = table.sum(axis=1) if not table.empty else pd.Series(dtype=int)
    left_out: list[dict[str, Any]] = []
    once = int((per_unit < 2).sum())
    if once:
        left_out.append({"units": once, "why": "rated by one annotator only: nothing to compare",
                         "coefficient": "both"})
    paired = table[per_unit >= 2] if not table.empty else table
    level = units.attrs.get("level", "nominal")
    if units.empty:
        nothing = Coefficient(None, "no votes yet")
        return FieldAgreement(name, 0, 0, 0, [], nothing, nothing, left_out, level)
    result = FieldAgreement(
        field=name, units=len(table), coders=int(units["coder"].nunique()) if not units.empty else 0,
        ratings=len(units), categories=[str(c) for c in table.columns],
        fleiss_kappa=_fleiss(paired, left_out), krippendorff_alpha=_alpha(paired, level), left_out=left_out,
        level=level, kendall_w=concordance(units) if "block" in units.columns else None,
        split_half=split_half(units) if "object" in units.columns else None,
        answer_match=answer_match(units) if TEXT in units.columns else None,
        relation_match=relation_match(units) if SET in units.columns else None,
        distribution_match=distribution_match(units) if DISTRIBUTION_ITEM in units.columns   # not when pooled
        and bool(units[DISTRIBUTION_ITEM].notna().all()) else None)
    if intervals:
        if result.fleiss_kappa.value is not None:
            result.kappa_interval = kappa_interval(_equal_raters(paired)[0].to_numpy(dtype=float))
        if result.krippendorff_alpha.value is not None:
            result.alpha_interval = alpha_interval(paired.to_numpy(dtype=float), level)
    return result


def krippendorff_alpha(units: pd.DataFrame) -> Coefficient:
    """Alpha alone, at the frame's level, over its units rated twice or more: field_agreement's figure without
    Fleiss' kappa (and without loading statsmodels)."""
    if units.empty:
        return Coefficient(None, "no votes yet")
    return _alpha(_rated(units), units.attrs.get("level", "nominal"))


def agreement(units_by_field: dict[str, pd.DataFrame], intervals: bool = False) -> list[FieldAgreement]:
    return [field_agreement(name, units, intervals) for name, units in units_by_field.items()]


# --------------------------------------------------------------------------- per unit and per item

def _rated(units: pd.DataFrame) -> pd.DataFrame:
    """The count table of the units rated at least twice (the only ones agreement can be seen on)."""
    import pandas as pd

    table = count_table(units) if not units.empty else pd.DataFrame()
    return table[table.sum(axis=1) >= 2] if not table.empty else table


def _per_unit(table: pd.DataFrame) -> pd.DataFrame:
    import pandas as pd

    if table.empty:
        return pd.DataFrame({"ratings": pd.Series(dtype=int), "observed": pd.Series(dtype=float)})
    n = table.sum(axis=1)
    observed = (table * (table - 1)).sum(axis=1) / (n * (n - 1))
    return pd.DataFrame({"ratings": n.astype(int), "observed": observed.astype(float)})


def _chance(table: pd.DataFrame) -> float | None:
    if table.empty:
        return None
    shares = table.sum(axis=0) / table.to_numpy().sum()
    return float((shares ** 2).sum())


def unit_agreement(units: pd.DataFrame) -> pd.DataFrame:
    """Per unit (index): `ratings` n and `observed` agreement P_i, the share of rater pairs that agree.

    P_i = sum_j n_ij (n_ij - 1) / (n (n - 1)) is the per-unit term of Fleiss' kappa (Fleiss 1971); it
    needs two ratings, so units rated once are left out.
    """
    return _per_unit(_rated(units))


def chance_agreement(units: pd.DataFrame) -> float | None:
    """Fleiss' P_e = sum_j p_j^2, p_j the share of category j among the ratings of units rated twice or more."""
    return _chance(_rated(units))


def item_agreement(units: pd.DataFrame, items: pd.Series) -> pd.DataFrame:
    """Per item (index): rated `units`, mean `observed` P_i, and `kappa` = (mean P_i - P_e) / (1 - P_e).

    `items` names each row's item (aligned with `units`). P_e is the whole input's chance agreement, so an
    item's kappa says how far its agreement is above what the project's category shares predict, and the
    unit-weighted mean of the items' kappas is the project's Fleiss' kappa when every unit has the same
    number of ratings. kappa is NaN when P_e is 1 (a single category: nothing to correct for).
    """
    import pandas as pd

    table = _rated(units)
    per_unit = _per_unit(table)
    if per_unit.empty:
        return pd.DataFrame({"units": pd.Series(dtype=int), "observed": pd.Series(dtype=float),
                             "kappa": pd.Series(dtype=float)})
    # Each unit's first row, chosen before the text becomes Python objects: at a million labels an object per row of
    # both columns was some 250 MB at the items group's peak (bench/results/2026-11-28-kept-figures-memory.md).
    first = ~units["unit"].duplicated().to_numpy()
    item_of_unit = pd.Series(items[first].to_numpy(), index=units["unit"][first].to_numpy())
    grouped = per_unit.assign(item=item_of_unit.reindex(per_unit.index).to_numpy()).groupby("item", sort=False)
    result = pd.DataFrame({"units": grouped.size().astype(int), "observed": grouped["observed"].mean()})
    expected = _chance(table)
    result["kappa"] = ((result["observed"] - expected) / (1 - expected)
                       if expected is not None and expected < 1 else float("nan"))
    return result
