"""`TaskType.gold_per_item`: a type that says its gold of an item comes from that item's votes alone gives,
for any set of items, the same gold from their labels as from the whole project's (the items page of a big
project relies on it: annotator/figures/kept_figures.py). Checked on every demo project (`flask demo`: the
demo data of each type, with its votes), both engines."""
from __future__ import annotations

import pandas as pd
import pytest
from sqlalchemy import select

from annotator.analysis.results import labels_frame
from annotator.core.extensions import db
from annotator.core.models import Project
from annotator.figures.kept_gold import gold_frame
from annotator.tasks import TASK_TYPES, project_task

PER_ITEM = sorted(name for name, task in TASK_TYPES.items() if task.gold_per_item)


def test_the_types_whose_gold_is_per_item_are_those_whose_rule_reads_one_items_votes() -> None:
    # Cloze validation judges annotators by their accuracy across items, and a declared campaign may ask for
    # Dawid-Skene or Bradley-Terry: their gold of an item depends on other items' votes.
    # (emphasis left the list with its built-in type: its projects are declared ones, docs/one-engine.md)
    assert PER_ITEM == ["kp_match", "kp_match_check", "kp_set_compare", "stance_premise"]


# Built-in types whose demo project is a declared project of their shared task's definition since the switch to one
# engine (docs/one-engine.md): the demo has no project of theirs to check; they go with the type.
SERVED_DECLARED: set[str] = set()


@pytest.mark.parametrize("task_name", sorted(set(PER_ITEM) - SERVED_DECLARED))
def test_gold_from_some_items_labels_is_the_whole_projects_gold_of_those_items(app, demo, task_name) -> None:
    projects = db.session.scalars(select(Project).where(Project.task_type == task_name)).all()
    assert projects, f"the demo has no {task_name} project"
    for project in projects:
        labels = labels_frame(project, include_incomplete=True)
        whole = gold_frame(project, labels)
        items = list(dict.fromkeys(labels["item"]))
        assert len(items) >= 2, f"{project.slug}: too few voted items to compare"
        for some in ([items[0]], items[1::2]):
            part = gold_frame(project, labels[labels["item"].isin(some)])
            expected = whole[whole["item"].isin(some)].reset_index(drop=True)
            pd.testing.assert_frame_equal(part.reset_index(drop=True), expected, check_dtype=False)
            assert project_task(project).gold_per_item
