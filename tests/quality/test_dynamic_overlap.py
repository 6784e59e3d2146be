"""Part 6: dynamic overlap: an item stops at k when its majority answers are sure enough, else gets more votes."""
from __future__ import annotations

import pytest
from sqlalchemy import select

from annotator.analysis.results import project_progress
from annotator.core.extensions import db
from annotator.core.models import Item
from annotator.engine import assignment as engine
from annotator.engine.invariants import all_passed, check_project
from annotator.figures.kept_gold import gold_frame
from annotator.quality.overlap import confident, majority_posteriors
from tests.quality.conftest import make_controls, right_answer, set_quality, vote_on, wrong_answer

NONE = {"matches": []}


def test_the_posterior_weights_each_vote_by_its_annotators_accuracy():
    votes = [("u", "f", "1", 1), ("u", "f", "1", 2)]
    (value, posterior), = majority_posteriors(votes, {1: 0.9, 2: 0.8}).values()
    # uniform prior over two answers: 0.9 * 0.8 / (0.9 * 0.8 + 0.1 * 0.2)
    assert value == "1" and posterior == pytest.approx(0.72 / 0.74)


def test_a_dissenting_vote_lowers_the_posterior():
    votes = [("u", "f", "1", 1), ("u", "f", "1", 2), ("u", "f", "0", 3)]
    (value, posterior), = majority_posteriors(votes, {1: 0.7, 2: 0.7, 3: 0.7}).values()
    assert value == "1" and posterior == pytest.approx(0.7)


def test_every_unit_must_be_sure():
    votes = [("a", "f", "1", 1), ("a", "f", "1", 2), ("b", "f", "1", 1), ("b", "f", "0", 2)]
    assert not confident(votes, {1: 0.9, 2: 0.9}, 0.9)
    assert confident(votes[:2], {1: 0.9, 2: 0.9}, 0.9)


@pytest.fixture
def dynamic(kpa_project):  # type: ignore[no-untyped-def]
    project = kpa_project(k=2)
    set_quality(project, control_rate=0.0, max_k=4, confidence=0.9, default_accuracy=0.7)
    return project


def _item(external_id: str) -> Item:
    return db.session.scalar(
        select(Item).where(Item.external_id == external_id).execution_options(populate_existing=True))


def test_agreeing_votes_of_accurate_annotators_stop_the_item_at_k(dynamic, make_user):
    control, = make_controls(dynamic, "arg_1_0")
    ann, bob = make_user("ann"), make_user("bob")
    for user in (ann, bob):  # both prove accurate on the control item
        vote_on(user, dynamic, "arg_1_0", right_answer(control))
        vote_on(user, dynamic, "arg_1_1", NONE)
    assert _item("arg_1_1").target is None and _item("arg_1_1").done_count == 2
    assert set(gold_frame(dynamic)["item"]) == {"arg_1_1"}


def test_unsure_votes_raise_the_target_until_max_k(dynamic, make_user):
    users = [make_user(f"a{n}") for n in range(4)]
    vote_on(users[0], dynamic, "arg_1_1", NONE)
    vote_on(users[1], dynamic, "arg_1_1", NONE)  # two votes at 0.7: posterior 0.845 < 0.9
    assert _item("arg_1_1").target == 3
    assert gold_frame(dynamic).empty  # pending: it needs a third vote
    vote_on(users[2], dynamic, "arg_1_1", NONE)  # three at 0.7: 0.927, sure
    assert _item("arg_1_1").target == 3
    assert set(gold_frame(dynamic)["item"]) == {"arg_1_1"}


def test_the_target_never_exceeds_max_k(dynamic, make_user):
    control, = make_controls(dynamic, "arg_1_0")
    users = [make_user(f"a{n}") for n in range(5)]
    item = _item("arg_1_1")
    first = item.payload["key_points"][0]["id"]
    for n, user in enumerate(users[:4]):  # split votes from annotators who fail the control item
        vote_on(user, dynamic, "arg_1_0", wrong_answer(control))
        vote_on(user, dynamic, "arg_1_1", {"matches": [first]} if n % 2 else NONE)
    assert _item("arg_1_1").target == 4 and _item("arg_1_1").done_count == 4
    assert project_progress(dynamic).complete == 1


def test_the_engine_gives_a_raised_item_its_extra_votes_and_no_more(dynamic, make_user):
    users = [make_user(f"a{n}") for n in range(4)]
    vote_on(users[0], dynamic, "arg_1_0", NONE)
    vote_on(users[1], dynamic, "arg_1_0", NONE)
    served = []
    for user in users[2:]:
        while (lease := engine.next_for(user, dynamic)) is not None:
            served.append((user.username, lease.item.external_id))
            engine.submit(lease.id, user, NONE)
    assert served.count(("a2", "arg_1_0")) == 1 and ("a3", "arg_1_0") not in served
    assert _item("arg_1_0").done_count == _item("arg_1_0").target == 3
    db.session.remove()
    assert all_passed(check_project("kpa"))
