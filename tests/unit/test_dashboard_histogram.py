"""The time-per-HIT histogram keeps a readable number of bins whatever the times."""
from __future__ import annotations

import numpy as np

from annotator.analysis.dashboard import MAX_BINS, _histogram


def test_one_long_lease_among_equal_times_gives_few_bins() -> None:
    figure = _histogram(np.array([60.0] * 99 + [60.001] * 50 + [1800.0]))
    assert len(figure["bins"]) <= MAX_BINS and sum(b["count"] for b in figure["bins"]) == 150
    assert figure["bins"][0]["from"] == 60.0 and figure["bins"][-1]["to"] == 1800.0
    assert figure["median"] == 60.0


def test_bins_grow_with_the_number_of_hits_up_to_the_cap() -> None:
    assert len(_histogram(np.arange(8.0))["bins"]) == 4
    assert len(_histogram(np.arange(2.0 ** 20))["bins"]) == MAX_BINS


def test_no_times_give_no_bins() -> None:
    assert _histogram(np.array([])) == {"unit": "seconds", "median": None, "bins": []}
