"""Part 5: per annotator, mean Cohen's kappa with co-annotators (as scikit-learn computes it), accuracy, volume."""
from __future__ import annotations

import itertools
import json
import random

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score

from annotator.analysis.annotator_kappas import cohen_kappa, mean_kappas, pairwise_kappas
from annotator.declared.items import load_definition
from annotator.figures.kept_gold import gold_frame
from annotator.quality.annotators import annotator_table
from annotator.shared_tasks.kpa2021.declared_gold import MATCH_DEFINITION
from annotator.tasks.custom import DeclaredTask
from tests.quality.conftest import make_controls, right_answer, set_quality, vote_on


@pytest.mark.parametrize("seed", range(5))
def test_cohen_kappa_is_scikit_learns(seed):
    rng = random.Random(seed)
    a = [rng.choice("xyz") for _ in range(40)]
    b = [v if rng.random() < 0.6 else rng.choice("xyz") for v in a]
    assert cohen_kappa(np.array(a), np.array(b)) == pytest.approx(cohen_kappa_score(a, b))


def test_kappa_is_undefined_when_both_coders_give_one_and_the_same_label():
    assert cohen_kappa(np.array(["1"] * 5), np.array(["1"] * 5)) is None


def _units(rows: list[tuple[str, int, str]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["unit", "coder", "value"])


def test_pairs_need_the_minimum_of_shared_units():
    units = _units([(f"u{n}", c, str((n + c) % 2)) for n in range(4) for c in (1, 2)] + [("u0", 3, "1")])
    assert set(pairwise_kappas(units, min_units=3)) == {(1, 2)}


@pytest.mark.parametrize("seed", range(3))
def test_each_pairs_kappa_is_cohens_on_their_shared_units_with_first_values_counted_and_missing_ones_not(seed):
    """A crowd of 20 on 200 units, up to 9 each: every pair with 5 shared units or more, in the order of the
    coders' ids, with exactly the kappa of their labels on the units both gave a value to."""
    rng = random.Random(seed)
    rows = []
    for unit in range(200):
        for coder in rng.sample(range(1, 21), rng.randint(1, 9)):
            rows.append((f"u{unit}", coder, rng.choice(["0", "1", "2", None])))
            if rng.random() < 0.05:
                rows.append((f"u{unit}", coder, rng.choice("012")))  # a second value: the first one counts
    rng.shuffle(rows)
    units = _units(rows)
    first = units.drop_duplicates(["unit", "coder"]).dropna()
    values = {coder: dict(zip(group["unit"], group["value"])) for coder, group in first.groupby("coder")}
    expected = {}
    for a, b in itertools.combinations(sorted(values), 2):
        shared = sorted(set(values[a]) & set(values[b]))
        kappa = cohen_kappa(np.array([values[a][u] for u in shared]), np.array([values[b][u] for u in shared]))
        if len(shared) >= 5 and kappa is not None:
            expected[(a, b)] = (kappa, len(shared))
    found = pairwise_kappas(units, min_units=5)
    assert len(expected) > 100
    assert list(found.items()) == list(expected.items())


def test_a_pair_that_only_ever_gives_one_and_the_same_label_has_no_kappa():
    units = _units([(f"u{n}", c, "1") for n in range(12) for c in (1, 2)]
                   + [(f"u{n}", 3, str(n % 2)) for n in range(12)])
    assert set(pairwise_kappas(units, min_units=10)) == {(1, 3), (2, 3)}


def test_an_annotators_kappa_is_the_mean_over_co_annotators_of_scikit_learns_kappa():
    rng = random.Random(3)
    truth = [rng.choice("01") for _ in range(30)]
    votes = {c: [t if rng.random() < q else rng.choice("01") for t in truth] for c, q in ((1, 0.9), (2, 0.8), (3, 0.5))}
    labels = pd.DataFrame([(f"i{n}", n, "kp", "matches", v, c, c * 100 + n) for c, values in votes.items()
                           for n, v in enumerate(values)],
                          columns=["item", "position", "unit", "field", "value", "user_id", "assignment_id"])
    match = DeclaredTask(load_definition(MATCH_DEFINITION))   # KPA-2021's match.yaml: one field, `matches`
    kappa, pairs = mean_kappas(labels, match, min_units=10)[1]
    expected = np.mean([cohen_kappa_score(votes[1], votes[2]), cohen_kappa_score(votes[1], votes[3])])
    assert pairs == 2 and kappa == pytest.approx(expected)


def _three_annotators(project, make_user):  # type: ignore[no-untyped-def]
    """ann and bob agree on 12 arguments; cy answers the other key point each time."""
    from sqlalchemy import select

    from annotator.core.extensions import db
    from annotator.core.models import Item
    names = {name: make_user(name) for name in ("ann", "bob", "cy")}
    items = db.session.scalars(select(Item).where(Item.external_id != "arg_1_0").order_by(Item.position).limit(12))
    for n, item in enumerate(list(items)):
        first, second = (kp["id"] for kp in item.payload["key_points"][:2])
        choice, other = ({"matches": [first]}, {"matches": [second]}) if n % 2 else ({"matches": [second]},
                                                                                      {"matches": [first]})
        vote_on(names["ann"], project, item.external_id, choice)
        vote_on(names["bob"], project, item.external_id, choice)
        vote_on(names["cy"], project, item.external_id, other)
    return names


def test_the_annotator_table_has_kappa_accuracy_volume_and_time(kpa_project, make_user):
    project = kpa_project(k=3)
    control, = make_controls(project, "arg_1_0")
    set_quality(project, kappa_min_units=10)
    names = _three_annotators(project, make_user)
    vote_on(names["ann"], project, "arg_1_0", right_answer(control))
    rows = {r.username: r for r in annotator_table(project)}
    assert rows["ann"].votes == 13 and rows["ann"].control_answers == 1 and rows["ann"].control_accuracy == 1.0
    assert rows["ann"].kappa_pairs == 2 and rows["cy"].kappa < 0 < rows["ann"].kappa
    assert rows["bob"].median_seconds is not None


def test_annotators_below_the_kappa_are_left_out_of_gold_when_the_project_says_so(kpa_project, make_user):
    project = kpa_project(k=3)
    _three_annotators(project, make_user)
    assert set(gold_frame(project)["n"]) == {3}   # the declared gold's annotators per unit
    set_quality(project, kappa_min_units=10, gold_min_kappa=0.0)
    assert set(gold_frame(project)["n"]) == {2}


def test_flask_annotators_json(app, kpa_project, make_user):
    project = kpa_project(k=3)
    set_quality(project, kappa_min_units=10)
    _three_annotators(project, make_user)
    result = app.test_cli_runner().invoke(args=["annotators", "--project", "kpa", "--json"])
    assert result.exit_code == 0, result.output
    rows = {r["username"]: r for r in json.loads(result.output)["annotators"]}
    assert rows["cy"]["kappa"] < 0 and rows["ann"]["votes"] == 12


def test_the_admin_downloads_the_table_as_csv(kpa_project, make_user, login):
    project = kpa_project(k=3)
    _three_annotators(project, make_user)
    make_user("boss", role="admin")
    response = login("boss").get("/admin/projects/kpa/annotators?format=csv")
    lines = response.get_data(as_text=True).splitlines()
    assert response.mimetype == "text/csv" and lines[0].startswith("user_id,username,votes,median_seconds")
    assert len(lines) == 4
