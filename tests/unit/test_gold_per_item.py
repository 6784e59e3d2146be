"""`TaskType.gold_per_item`: a project whose gold of an item comes from that item's votes alone gives, for any set
of items, the same gold from their labels as from the whole project's (the items page of a big project and the
kept gold folded forward for exports rely on it: annotator/figures/kept_figures.py, kept_gold.py).

Since the switch to one engine the claim is the declared type's, per definition (declared/gold.py `per_item`): every
rule reads one item's votes. It is checked here on each shared task's test project and on every example definition
with an items file, voted through the engine by three annotators answering at random (seeded), both engines."""
from __future__ import annotations

import random
from pathlib import Path

import pandas as pd
import pytest
from sqlalchemy import select

from annotator.analysis.results import labels_frame
from annotator.core.extensions import db
from annotator.core.models import Project
from annotator.declared.definition_reader import definition_from_data, definition_from_file
from annotator.declared.gold import per_item
from annotator.figures.kept_gold import gold_frame
from annotator.tasks import project_task
from tests.conftest import load_project
from tests.support.type_data import format_data
from tests.support.voting import vote_everywhere

ROOT = Path(__file__).resolve().parents[2]
SHARED_TASKS = ROOT / "annotator" / "shared_tasks"
EXAMPLES = sorted(p for p in (ROOT / "examples").glob("*.yaml")
                  if (p.parent / f"{p.stem}_items.jsonl").exists() and per_item(definition_from_file(p)))
FORMATS = ["emphasis2020", "kpa2021", "kpa2021-check", "ruarg2022"]   # the shared tasks whose projects claim it


def test_the_shared_tasks_definitions_whose_rules_read_one_items_votes_claim_it():
    claims = {p.relative_to(SHARED_TASKS).as_posix(): per_item(definition_from_file(p))
              for p in sorted(SHARED_TASKS.glob("*/*.yaml"))}
    assert claims == {"emphasis2020/selection.yaml": True, "kpa2021/match.yaml": True,
                      "kpa2021/match_check.yaml": True,
                      "kpa2021/set_compare.yaml": False,           # Bradley-Terry: strengths from every pair
                      "recam2021/cloze.yaml": True,
                      "recam2021/cloze_selection.yaml": False,     # rule a: an annotator's accuracy across items
                      "ruarg2022/premise.yaml": True, "ruarg2022/stance.yaml": True,
                      "ruarg2022/stance_premise.yaml": True}


@pytest.mark.parametrize("rule", [{"rule": "dawid_skene"}, {"rule": "bradley_terry"}])
def test_a_rule_that_fits_a_model_over_every_item_is_not_per_item(rule):
    question = {"id": "q", "kind": "choice", "options": ["a", "b"], "gold": rule} if rule["rule"] == "dawid_skene" \
        else {"id": "q", "kind": "pairwise", "a": "x", "b": "y", "players": ["x", "y"], "gold": rule}
    definition = definition_from_data({"name": "n", "show": ["x", "y"], "questions": [
        {"id": "fine", "kind": "choice", "options": ["a", "b"], "gold": "majority"}, question]})
    assert not per_item(definition)


def test_a_best_worst_score_is_not_per_item():
    assert not per_item(definition_from_file(ROOT / "examples" / "best_worst_sentiment.yaml"))


def _voted(make_user, fmt: str, path: Path, **options) -> Project:  # type: ignore[no-untyped-def]
    project = load_project(fmt, path, "per-item", k=3, **options)
    task = project_task(project)
    settings = task.settings_of(project)
    rng = random.Random(7)
    users = [make_user(f"ann{n}") for n in range(1, 4)]
    votes = vote_everywhere(project, users, lambda item, user: task.example_answer(task.public_item(item, settings),
                                                                                    rng))
    assert votes >= 3 * sum(1 for item in project.items if not item.is_control)   # control items: now and then
    db.session.remove()
    return db.session.scalars(select(Project).where(Project.slug == "per-item")).one()


def _some_items_gold_is_the_whole_gold_of_them(project: Project) -> None:
    assert project_task(project).gold_per_item
    labels = labels_frame(project, include_incomplete=True)
    whole = gold_frame(project, labels)
    items = list(dict.fromkeys(labels["item"]))
    assert len(items) >= 2, f"{project.slug}: too few voted items to compare"
    for some in ([items[0]], items[1::2]):
        part = gold_frame(project, labels[labels["item"].isin(some)])
        expected = whole[whole["item"].isin(some)].reset_index(drop=True)
        pd.testing.assert_frame_equal(part.reset_index(drop=True), expected, check_dtype=False)


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_shared_tasks_project_gives_some_items_the_gold_the_whole_project_gives_them(app, make_user, fmt):
    data = format_data(fmt)
    _some_items_gold_is_the_whole_gold_of_them(_voted(make_user, data.format, data.path, **data.options))


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_an_example_campaign_gives_some_items_the_gold_the_whole_project_gives_them(app, make_user, example):
    project = _voted(make_user, "custom", example.parent / f"{example.stem}_items.jsonl", definition=example)
    _some_items_gold_is_the_whole_gold_of_them(project)
