"""Gold for exports folded forward from a big project's kept gold (annotator/figures/kept_gold.py): the kept
rows of items without a vote since, the other items computed from their own labels, and the result equal to the
gold computed from every label, on both engines, for every type whose gold is per item (each type's test project,
tests/support/type_data.py, k = 2, voted through the engine; `KEPT_RESULTS_FROM_VOTES` lowered so that it is big)."""
from __future__ import annotations

import hashlib
import random

import pandas as pd
import pytest
from sqlalchemy import select, update

from annotator.analysis.results import labels_frame
from annotator.core.extensions import db
from annotator.core.models import Adjudication, Assignment, Item, KeptResult, Project, User
from annotator.engine import assignment as engine
from annotator.figures.kept import refresh, results_changed
from annotator.figures.kept_figures import VOTES
from annotator.figures.kept_gold import KeptGold, folded_gold, gold_frame
from annotator.tasks import project_settings, project_task
from tests.conftest import all_rows, load_project, put_back
from tests.support.type_data import EVERY_FORMAT, format_data, type_data

# The shared tasks' formats whose declared projects' gold is per item (declared/gold.py `per_item`; the built-in
# types these cases ran on are gone, docs/one-engine.md): each is folded.
PER_ITEM = ["emphasis2020", "kpa2021", "kpa2021-check", "ruarg2022"]
FOLDED = "ruarg2022"   # the format whose project the folding's other cases run on (m of n, adjudication)
MARKED = "votes"       # a column of its gold: the votes behind each decision, as text


def cast_votes(project_id: int, user: User, at_most: int | None = None) -> int:
    """`user` answers up to `at_most` HITs (all they can get without a limit) through the engine, with answers
    drawn at random (seeded by user and item); returns how many."""
    project = db.session.get_one(Project, project_id)
    task, settings = project_task(project), project_settings(project)
    votes = 0
    while at_most is None or votes < at_most:
        lease = engine.next_for(user, project)
        if lease is None:
            break
        shown = task.public_item(lease.item, settings, lease.presentation)
        engine.submit(lease.id, user, task.example_answer(shown, random.Random(f"{user.username}:{lease.item.id}")))
        votes += 1
    return votes


def keep_figures(project_id: int) -> None:
    """The VOTES group's figures computed and kept, as a page or `flask refresh-figures` keeps them."""
    refresh(project_id, VOTES)
    db.session.remove()


@pytest.fixture
def voted(app, make_user, run_shared):  # type: ignore[no-untyped-def]
    """Make the type's test project (k = 2) with every item voted once and a third of them twice, its figures
    kept; returns (the project's id, an annotator who has not voted).

    The votes are cast once per engine, type and options in the run (`run_shared`, as `demo` does): a later test
    gets the rows that made put back as they were, ids included, which is what casting them again would store (the
    answers are drawn with a seed of user and item); the annotator who has not voted is made in each test."""
    def make(task_name: str, quality: dict | None = None, **options) -> tuple[int, User]:  # type: ignore[no-untyped-def]
        app.config.update(KEPT_RESULTS_FROM_VOTES=1, KEPT_RESULTS_REFRESH="request")

        def cast() -> tuple[int, dict[str, list[dict]]]:
            data = format_data(task_name) if task_name in EVERY_FORMAT else type_data(task_name)
            project = load_project(data.format, data.path, "fold", **{**data.options, "k": 2, **options})
            project.quality = quality
            db.session.commit()
            project_id, items = project.id, len(project.items)
            assert cast_votes(project_id, make_user("a")) == items
            assert cast_votes(project_id, make_user("b"), max(1, items // 3)) >= 1
            keep_figures(project_id)
            return project_id, all_rows()

        made_with = hashlib.sha256(repr((quality, sorted(options.items()))).encode()).hexdigest()[:16]
        (project_id, rows), cast_now = run_shared.get_or_make(
            f"kept-gold-{db.engine.dialect.name}-{task_name}-{made_with}", cast)
        if not cast_now:
            put_back(rows)
        return project_id, make_user("c")
    return make


def project_now(project_id: int) -> Project:
    """The project as a next request reads it: a fresh session."""
    db.session.remove()
    return db.session.get_one(Project, project_id)


@pytest.mark.parametrize("task_name", PER_ITEM)
def test_gold_folded_forward_over_votes_since_equals_the_gold_of_every_label(voted, task_name):
    project_id, third = voted(task_name)
    assert cast_votes(project_id, third, 3) >= 1  # completes items that had one vote: their gold is new
    project = project_now(project_id)
    folded = folded_gold(project)
    assert folded is not None, "the kept gold was not folded forward"
    computed = gold_frame(project, labels_frame(project))
    assert len(computed) > 0
    pd.testing.assert_frame_equal(folded, computed)
    assert folded.equals(gold_frame(project_now(project_id)))  # what exports get


@pytest.mark.parametrize("task_name", PER_ITEM)
def test_an_export_from_folded_gold_is_byte_for_byte_the_export_computed_from_every_label(app, voted, task_name,
                                                                                           tmp_path):
    project_id, third = voted(task_name)
    cast_votes(project_id, third, 2)
    runner, fmt = app.test_cli_runner(), format_data(task_name).format
    folded_out, computed_out = tmp_path / "folded", tmp_path / "computed"
    assert folded_gold(project_now(project_id)) is not None
    result = runner.invoke(args=["export", fmt, "--project", "fold", "--out", str(folded_out)])
    assert result.exit_code == 0, result.output
    app.config["KEPT_RESULTS_FROM_VOTES"] = 10 ** 9  # a small project: every label read
    assert folded_gold(project_now(project_id)) is None
    result = runner.invoke(args=["export", fmt, "--project", "fold", "--out", str(computed_out)])
    assert result.exit_code == 0, result.output
    files = sorted(p.name for p in folded_out.rglob("*") if p.is_file())
    assert files and files == sorted(p.name for p in computed_out.rglob("*") if p.is_file())
    for name in files:
        assert next(folded_out.rglob(name)).read_bytes() == next(computed_out.rglob(name)).read_bytes(), name


def marked_kept_gold(project_id: int) -> pd.DataFrame:
    """Replace the kept gold's `MARKED` column by a value no rule gives ("kept"), with the votes as they were: rows
    read from the kept gold then show it. Returns the gold as computed at that point."""
    row = db.session.scalars(select(KeptResult).where(KeptResult.project_id == project_id,
                                                      KeptResult.name == "gold")).one()
    from annotator.figures import kept as kept_module
    value = kept_module._load(row)
    assert value is not None and isinstance(value[0], KeptGold)
    gold = value[0].frame
    row.payload = kept_module._dump(KeptGold(gold.assign(**{MARKED: "kept"}), value[0].votes))
    db.session.commit()
    return gold


def test_items_without_votes_since_come_from_the_kept_gold_and_the_others_from_their_labels(voted, make_user):
    project_id, third = voted(FOLDED)
    before = marked_kept_gold(project_id)
    assert cast_votes(project_id, third, 1) == 1
    changed = db.session.scalars(select(Item.external_id).join(Assignment).where(
        Assignment.project_id == project_id, Assignment.user_id == third.id)).one()
    folded = folded_gold(project_now(project_id))
    assert folded is not None
    assert "kept" not in set(folded.loc[folded["item"] == changed, MARKED])   # computed from its labels
    assert set(folded.loc[folded["item"] != changed, MARKED]) == {"kept"}
    assert set(before["item"]) | {changed} == set(folded["item"])


def test_a_vote_on_an_item_that_is_not_counted_leaves_the_kept_gold_as_it_is(voted):
    project_id, third = voted(FOLDED, k=3)  # no item has its three votes: nothing is counted
    marked_kept_gold(project_id)
    cast_votes(project_id, third, 1)
    folded = folded_gold(project_now(project_id))
    assert folded is not None and set(folded[MARKED]) <= {"kept"}


def test_an_item_whose_target_was_raised_leaves_the_folded_gold(voted):
    project_id, _ = voted(FOLDED, quality={"max_k": 4, "confidence": 0.01})  # dynamic overlap, items sure at 2
    counted = gold_frame(project_now(project_id))["item"].iloc[0]
    db.session.execute(update(Item).where(Item.project_id == project_id, Item.external_id == counted)
                       .values(target=3))  # as dynamic overlap asks for a third vote
    db.session.commit()
    project = project_now(project_id)
    folded = folded_gold(project)
    assert folded is not None and counted not in set(folded["item"])
    pd.testing.assert_frame_equal(folded, gold_frame(project, labels_frame(project)))


def test_nothing_is_folded_after_a_change_that_no_vote_shows(voted):
    project_id, third = voted(FOLDED)
    cast_votes(project_id, third, 1)
    results_changed(project_id)  # e.g. votes excluded: the kept figures are dropped with the generation
    db.session.commit()
    assert folded_gold(project_now(project_id)) is None


def changed_after_a_vote(voted, column: str, values: dict) -> Project:  # type: ignore[no-untyped-def]
    """The project with its figures kept and a vote since, then `values` set in its `column` (settings
    or quality); the project as a next request reads it."""
    project_id, third = voted(FOLDED)
    cast_votes(project_id, third, 1)
    project = project_now(project_id)
    setattr(project, column, {**(getattr(project, column) or {}), **values})
    db.session.commit()
    return project_now(project_id)


def test_nothing_is_folded_under_another_configuration(voted):
    project = changed_after_a_vote(voted, "settings", {"agree": 3})
    assert folded_gold(project) is None
    assert gold_frame(project).equals(gold_frame(project, labels_frame(project)))


def test_nothing_is_folded_where_low_kappa_annotators_are_left_out_of_gold(voted):
    assert folded_gold(changed_after_a_vote(voted, "quality", {"gold_min_kappa": 0.1})) is None


def test_nothing_is_folded_once_an_admin_has_adjudicated(voted, make_user):
    project_id, third = voted("ruarg2022")   # RuArg-2022: m of n, with adjudication
    item = db.session.scalars(select(Item).where(Item.project_id == project_id)).first()
    db.session.add(Adjudication(project_id=project_id, item_id=item.id, user_id=make_user("adm", "admin").id,
                                answer={"claims": {}}))
    db.session.commit()
    cast_votes(project_id, third, 1)
    assert folded_gold(project_now(project_id)) is None


def test_a_type_whose_gold_looks_across_items_is_never_folded(voted):
    project_id, third = voted("recam2021")   # ReCAM's rule a: an annotator's accuracy across items
    cast_votes(project_id, third, 1)
    assert folded_gold(project_now(project_id)) is None


def test_a_vote_deleted_by_an_erasure_is_never_folded_back_in_when_its_item_fills_again(voted, make_user):
    """An erasure deletes votes one transaction at a time and scrubs the account last; an item whose erased vote was
    replaced meanwhile has as many votes as the kept gold counted, but not the same ones."""
    from annotator.people.erasure import delete_all_votes, lock_out
    project_id, third = voted(FOLDED)
    second = db.session.scalars(select(User).where(User.username == "b")).one()
    lock_out(second.id)
    db.session.commit()
    assert delete_all_votes(second.id) >= 1
    cast_votes(project_id, third)  # fills again the items the erased votes left short
    project = project_now(project_id)
    assert folded_gold(project) is None
    pd.testing.assert_frame_equal(gold_frame(project), gold_frame(project, labels_frame(project)))
