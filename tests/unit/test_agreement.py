"""Agreement coefficients, their stated inputs and their undefined cases (never nan)."""
from __future__ import annotations

import math

import pandas as pd
import pytest

from annotator.analysis.agreement import field_agreement


def _long(matrix: list[list[object]]) -> pd.DataFrame:
    """Coders x units (None = not rated) -> (unit, coder, value) rows."""
    rows = [{"unit": f"u{u}", "coder": f"c{c}", "value": str(v)}
            for c, row in enumerate(matrix) for u, v in enumerate(row) if v is not None]
    return pd.DataFrame(rows)


KRIPPENDORFF_2011 = [  # Krippendorff (2011), "Computing Krippendorff's alpha-reliability", section C
    [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
]


def test_alpha_reproduces_krippendorffs_published_nominal_example():
    result = field_agreement("x", _long(KRIPPENDORFF_2011))
    assert result.krippendorff_alpha.value == pytest.approx(0.743, abs=5e-4)


def test_units_rated_once_are_left_out_and_said_so():
    result = field_agreement("x", _long(KRIPPENDORFF_2011))
    assert result.units == 12 and result.krippendorff_alpha.units == 11
    assert {"units": 1, "why": "rated by one annotator only: nothing to compare", "coefficient": "both"} \
        in result.left_out


def test_fleiss_reproduces_the_textbook_example():
    # Fleiss (1971) as tabulated on Wikipedia: 10 subjects, 14 raters, 5 categories, kappa 0.210
    table = [[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
             [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]]
    rows = [{"unit": f"s{s}", "coder": f"r{s}-{n}", "value": str(cat)}
            for s, counts in enumerate(table) for cat, count in enumerate(counts) for n in range(count)]
    result = field_agreement("x", pd.DataFrame(rows).assign(coder=lambda f: f.groupby("unit").cumcount()))
    assert result.fleiss_kappa.value == pytest.approx(0.210, abs=5e-4)
    assert result.coders == 14 and result.ratings == 140


def test_fleiss_uses_the_units_with_the_common_number_of_ratings_and_names_the_others():
    frame = _long([[1, 0, 1, 0], [1, 0, 0, 0], [1, 1, None, None]])
    result = field_agreement("x", frame)
    assert result.fleiss_kappa.units == 2  # u0, u1 have 3 ratings; u2, u3 only 2
    assert any(left["coefficient"] == "fleiss_kappa" and left["units"] == 2 for left in result.left_out)
    assert result.krippendorff_alpha.units == 4


def test_a_single_value_everywhere_is_undefined_in_words():
    result = field_agreement("x", _long([[0, 0, 0], [0, 0, 0]]))
    for coefficient in (result.fleiss_kappa, result.krippendorff_alpha):
        assert coefficient.value is None and "single value" in coefficient.undefined_because
        assert "nan" not in coefficient.text()


def test_no_unit_rated_twice_is_undefined_in_words():
    result = field_agreement("x", _long([[1, 0, None], [None, None, 1]]))
    assert result.krippendorff_alpha.value is None
    assert result.krippendorff_alpha.undefined_because == "no unit was rated by two or more annotators"
    assert result.fleiss_kappa.value is None


def test_no_ratings_at_all_is_undefined_not_a_crash():
    result = field_agreement("x", pd.DataFrame(columns=["unit", "coder", "value"]))
    assert (result.units, result.coders, result.ratings) == (0, 0, 0)
    assert result.fleiss_kappa.value is None and result.krippendorff_alpha.value is None
    assert result.krippendorff_alpha.text() == "undefined: no votes yet"


def test_perfect_agreement_on_two_values_is_one():
    result = field_agreement("x", _long([[0, 1, 1, 0], [0, 1, 1, 0], [0, 1, 1, 0]]))
    assert result.fleiss_kappa.value == pytest.approx(1.0)
    assert result.krippendorff_alpha.value == pytest.approx(1.0)
    assert all(math.isfinite(c.value) for c in (result.fleiss_kappa, result.krippendorff_alpha))
