"""Agreement with 95% intervals: `flask agreement --intervals` and the project page, on a declared campaign's votes.

Expected intervals come from the libraries (statsmodels' fleiss_kappa, the krippendorff package) on the same drawn
units, from a count table built here from the votes, not by the product's code."""
from __future__ import annotations

import json
import random
from pathlib import Path

import krippendorff
import numpy as np
import pytest
from flask import Flask
from sqlalchemy import select
from statsmodels.stats.inter_rater import fleiss_kappa

from annotator.analysis.intervals import SEED
from annotator.campaigns.votes_import import import_votes
from annotator.core.extensions import db
from annotator.core.models import Project

DEFINITION = """\
name: Review sentiment
k: 4
show:
  - {field: text, label: Review}
questions:
  - {id: sentiment, kind: choice, prompt: "Is the review positive or negative?", options: [negative, positive],
     gold: majority}
"""


def drawn_votes() -> dict[str, list[str]]:
    """40 reviews, four annotators each, who give the review's sentiment three times in four."""
    rng = random.Random(11)
    votes = {}
    for n in range(40):
        true = rng.choice(["negative", "positive"])
        votes[f"r{n:02d}"] = [true if rng.random() < 0.75 else rng.choice(["negative", "positive"]) for _ in range(4)]
    return votes


def library_interval(counts: np.ndarray, coefficient) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    """1,000 replicates of the documented draw (a multinomial of n units over the distinct count rows, seeded),
    each drawn table measured by the library; the 2.5th and 97.5th percentiles."""
    rows, frequency = np.unique(counts, axis=0, return_counts=True)
    draws = np.random.default_rng(SEED).multinomial(len(counts), frequency / frequency.sum(), size=1000)
    values = [coefficient(np.repeat(rows, drawn, axis=0)) for drawn in draws]
    low, high = np.percentile(values, [2.5, 97.5])
    return float(low), float(high)


@pytest.fixture
def reviews(app: Flask, tmp_path: Path) -> dict[str, list[str]]:
    votes = drawn_votes()
    (tmp_path / "task.yaml").write_text(DEFINITION, encoding="utf-8")
    (tmp_path / "items.jsonl").write_text("".join(json.dumps({"id": i, "text": f"review {i}"}) + "\n" for i in votes),
                                          encoding="utf-8")
    result = app.test_cli_runner().invoke(args=["import", "custom", str(tmp_path / "items.jsonl"), "--definition",
                                                str(tmp_path / "task.yaml"), "--project", "reviews"])
    assert result.exit_code == 0, result.output
    with app.app_context():
        project = db.session.scalar(select(Project).where(Project.slug == "reviews"))
        import_votes(project, {item: [{"sentiment": v} for v in given] for item, given in votes.items()})
        db.session.commit()
    return votes


def test_agreement_intervals_are_the_bootstrap_over_units(app: Flask, reviews: dict[str, list[str]]) -> None:
    counts = np.array([[given.count("negative"), given.count("positive")] for given in reviews.values()], dtype=float)
    kappa = library_interval(counts, lambda c: fleiss_kappa(c, method="fleiss"))
    alpha = library_interval(counts, lambda c: krippendorff.alpha(value_counts=c, level_of_measurement="nominal"))
    result = app.test_cli_runner().invoke(args=["agreement", "--project", "reviews", "--intervals", "--json"])
    [field] = json.loads(result.output)["fields"]
    assert (field["kappa_interval"]["low"], field["kappa_interval"]["high"]) == pytest.approx(kappa)
    assert (field["alpha_interval"]["low"], field["alpha_interval"]["high"]) == pytest.approx(alpha)
    assert kappa[0] < field["fleiss_kappa"]["value"] < kappa[1]


def test_without_the_flag_the_json_is_as_before(app: Flask, reviews: dict[str, list[str]]) -> None:
    result = app.test_cli_runner().invoke(args=["agreement", "--project", "reviews", "--json"])
    [field] = json.loads(result.output)["fields"]
    assert "kappa_interval" not in field and "alpha_interval" not in field


def test_the_text_and_the_project_page_say_the_intervals(app: Flask, reviews: dict[str, list[str]], make_user,  # type: ignore[no-untyped-def]
                                                         login) -> None:
    counts = np.array([[given.count("negative"), given.count("positive")] for given in reviews.values()], dtype=float)
    low, high = library_interval(counts, lambda c: fleiss_kappa(c, method="fleiss"))
    words = f"95% interval {low:.3f} to {high:.3f}"
    assert words in app.test_cli_runner().invoke(args=["agreement", "--project", "reviews", "--intervals"]).output
    make_user("boss", role="admin")
    assert words in login("boss").get("/admin/projects/reviews").get_data(as_text=True)
