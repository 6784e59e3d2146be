"""`TaskType.gold_per_item`: a type that says its gold of an item comes from that item's votes alone gives,
for any set of items, the same gold from their labels as from the whole project's (the items page of a big
project relies on it: annotator/figures/kept_figures.py). Checked on each such type's test project, voted
through the engine, both engines."""
from __future__ import annotations

import random

import pandas as pd
import pytest
from sqlalchemy import select

from annotator.analysis.results import labels_frame
from annotator.core.extensions import db
from annotator.core.models import Project
from annotator.figures.kept_gold import gold_frame
from annotator.tasks import TASK_TYPES, project_task
from tests.conftest import load_project
from tests.support.type_data import type_data
from tests.support.voting import vote_everywhere

PER_ITEM = sorted(name for name, task in TASK_TYPES.items() if task.gold_per_item)


def test_the_types_whose_gold_is_per_item_are_those_whose_rule_reads_one_items_votes() -> None:
    # Cloze validation judges annotators by their accuracy across items, and a declared campaign may ask for
    # Dawid-Skene or Bradley-Terry: their gold of an item depends on other items' votes.
    # (emphasis left the list with its built-in type: its projects are declared ones, docs/one-engine.md)
    # (and stance_premise with its: RuArg projects are declared ones)
    assert PER_ITEM == ["kp_match", "kp_match_check", "kp_set_compare"]


def _voted(task_name: str, make_user) -> Project:  # type: ignore[no-untyped-def]
    """The type's test project (tests/support/type_data.py), k = 3, every item voted by three annotators with the type's
    example answers (seeded). The demo's projects of these shared tasks are declared ones since the switch to one
    engine (docs/one-engine.md), so the built-in types' projects are made here."""
    data = type_data(task_name)
    project = load_project(data.format, data.path, "per-item", k=3, **data.options)
    assert project.task_type == task_name
    task = project_task(project)
    settings = task.settings_of(project)
    rng = random.Random(7)
    users = [make_user(f"ann{n}") for n in range(1, 4)]
    votes = vote_everywhere(project, users, lambda item, user: task.example_answer(task.public_item(item, settings),
                                                                                    rng))
    assert votes == 3 * len(project.items)
    db.session.remove()
    return db.session.scalars(select(Project).where(Project.slug == "per-item")).one()


@pytest.mark.parametrize("task_name", PER_ITEM)
def test_gold_from_some_items_labels_is_the_whole_projects_gold_of_those_items(app, make_user, task_name) -> None:
    project = _voted(task_name, make_user)
    labels = labels_frame(project, include_incomplete=True)
    whole = gold_frame(project, labels)
    items = list(dict.fromkeys(labels["item"]))
    assert len(items) >= 2, f"{project.slug}: too few voted items to compare"
    for some in ([items[0]], items[1::2]):
        part = gold_frame(project, labels[labels["item"].isin(some)])
        expected = whole[whole["item"].isin(some)].reset_index(drop=True)
        pd.testing.assert_frame_equal(part.reset_index(drop=True), expected, check_dtype=False)
        assert project_task(project).gold_per_item
