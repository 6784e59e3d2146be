"""Per-unit and per-item agreement (agreement.py), which ranks the emphasis sentences on the admin page."""
from __future__ import annotations

import math

import pandas as pd
import pytest
from statsmodels.stats.inter_rater import fleiss_kappa

from annotator.analysis.agreement import chance_agreement, item_agreement, unit_agreement
from annotator.shared_tasks.emphasis2020.files import kappa_table, read_file
from tests.conftest import DATA


def _units(ratings: dict[str, str]) -> pd.DataFrame:
    """unit -> one character per coder's value."""
    return pd.DataFrame([{"unit": unit, "coder": n, "value": v}
                         for unit, values in ratings.items() for n, v in enumerate(values)])


def _train_excerpt_units() -> tuple[pd.DataFrame, pd.Series]:
    """Emphasised-or-not units of the train excerpt (29 words x 9 annotators) and each row's sentence."""
    rows = [{"unit": t.word_id, "coder": j, "value": "1" if tag != "O" else "0", "item": s.sentence_id}
            for s in read_file(DATA / "emphasis2020" / "train_excerpt.txt") for t in s.tokens
            for j, tag in enumerate(t.tags or ())]
    frame = pd.DataFrame(rows)
    return frame[["unit", "coder", "value"]], frame["item"]


def test_observed_agreement_of_a_unit_is_the_share_of_agreeing_rater_pairs() -> None:
    per_unit = unit_agreement(_units({"a": "111", "b": "110", "c": "1100"}))
    assert per_unit.loc["a", "observed"] == 1.0
    assert per_unit.loc["b", "observed"] == pytest.approx(1 / 3)   # 1 of the 3 pairs agrees
    assert per_unit.loc["c", "observed"] == pytest.approx(2 / 6)
    assert per_unit["ratings"].tolist() == [3, 3, 4]


def test_units_rated_once_have_no_agreement() -> None:
    assert list(unit_agreement(_units({"a": "1", "b": "10"})).index) == ["b"]


def test_chance_agreement_is_the_sum_of_squared_category_shares() -> None:
    assert chance_agreement(_units({"a": "11", "b": "10"})) == pytest.approx(0.75 ** 2 + 0.25 ** 2)


def test_item_agreement_averages_its_units() -> None:
    units = _units({"a": "111", "b": "110", "c": "000"})
    result = item_agreement(units, pd.Series(["x"] * 6 + ["y"] * 3))
    assert result.loc["x", "units"] == 2 and result.loc["x", "observed"] == pytest.approx((1 + 1 / 3) / 2)
    assert result.loc["y", "observed"] == 1.0


def test_the_unit_weighted_mean_of_item_kappas_is_fleiss_kappa_of_the_whole() -> None:
    units, items = _train_excerpt_units()
    result = item_agreement(units, items)
    whole = fleiss_kappa(kappa_table(read_file(DATA / "emphasis2020" / "train_excerpt.txt")), method="fleiss")
    assert (result["kappa"] * result["units"]).sum() / result["units"].sum() == pytest.approx(whole, abs=1e-12)
    assert sorted(result.index) == ["Q_1", "Q_1582", "S_0", "S_546"]


def test_item_kappa_is_nan_when_every_rating_is_the_same() -> None:
    result = item_agreement(_units({"a": "00", "b": "00"}), pd.Series(["x"] * 4))
    assert result.loc["x", "observed"] == 1.0 and math.isnan(result.loc["x", "kappa"])


def test_no_ratings_give_an_empty_frame() -> None:
    result = item_agreement(pd.DataFrame(columns=["unit", "coder", "value"]), pd.Series(dtype=str))
    assert result.empty and list(result.columns) == ["units", "observed", "kappa"]
