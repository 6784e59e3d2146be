"""`flask import kpa2021 --declared`: a declared project of match.yaml, served by the one engine, gives what a
built-in key-point-match project gives for the same votes: the three official files and votes.csv byte for byte, the
scorer's gold of a leaderboard and the dataset table.

The reference is a built-in project imported from the same excerpt in the same database, voted the same way: five
annotators per argument, each ticking the key points the official labels match, annotator j also ticking the
argument's (j + 1)-th key point the labels leave unmatched, and annotator 4 ticking nothing on every third argument,
so the gold has matches, no matches and undecided pairs.
"""
from __future__ import annotations

import csv
import io
import json
import zipfile
from pathlib import Path

from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import Assignment, Item, Label, Project, User
from annotator.declared.items import load_definition
from annotator.shared_tasks.kpa2021.declared_gold import MATCH_DEFINITION
from annotator.shared_tasks.scorers import score_files
from tests.conftest import DATA, load_project
from tests.support.voting import vote_everywhere

EXCERPT = DATA / "kpa2021"
OFFICIAL = ("arguments_test.csv", "key_points_test.csv", "labels_test.csv", "votes.csv")


def _official_matches() -> dict[str, set[str]]:
    with (EXCERPT / "labels_test.csv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    found: dict[str, set[str]] = {}
    for row in rows:
        found.setdefault(row["arg_id"], set())
        if row["label"] == "1":
            found[row["arg_id"]].add(row["key_point_id"])
    return found


MATCHES = _official_matches()


def _answer(item: Item, user: User) -> dict[str, list[str]]:
    j = int(user.username.removeprefix("kpa-ann"))
    if j == 4 and item.position % 3 == 0:
        return {"matches": []}
    matched = MATCHES.get(item.external_id, set())
    unmatched = [kp["id"] for kp in item.payload["key_points"] if kp["id"] not in matched]
    extra = [unmatched[j + 1]] if j + 1 < len(unmatched) else []
    return {"matches": [kp["id"] for kp in item.payload["key_points"] if kp["id"] in matched or kp["id"] in extra]}


def _project(slug: str) -> Project:
    db.session.remove()
    return db.session.scalars(select(Project).where(Project.slug == slug)).one()


def _voted(slug: str, users: list[User], declared: bool) -> Project:
    project = load_project("kpa2021", EXCERPT, slug, split="test", k=5, declared=declared)
    assert (project.task_type == "custom") is declared
    vote_everywhere(project, users, _answer)
    return _project(slug)


def _pair(app, make_user) -> None:  # type: ignore[no-untyped-def]
    users = [make_user(f"kpa-ann{j}") for j in range(5)]
    _voted("built-in", users, declared=False)
    _voted("declared", users, declared=True)


def _export(app, slug: str, out: Path) -> Path:  # type: ignore[no-untyped-def]
    result = app.test_cli_runner().invoke(args=["export", "kpa2021", "--project", slug, "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


def test_the_import_makes_a_declared_project_of_match_yaml_by_default_with_the_built_in_items(app):
    result = app.test_cli_runner().invoke(args=["import", "kpa2021", str(EXCERPT), "--project", "declared"])
    assert result.exit_code == 0, result.output
    assert "Created project 'declared' (Declared campaign: " in result.output
    load_project("kpa2021", EXCERPT, "built-in", declared=False)
    declared = _project("declared")
    assert (declared.task_type, declared.k, declared.source) == ("custom", 8, {"format": "kpa2021", "split": "test"})
    assert declared.definition == json.loads(json.dumps(load_definition(MATCH_DEFINITION).to_data()))
    items = {slug: [(i.external_id, i.payload, i.reference) for i in _project(slug).items]
             for slug in ("declared", "built-in")}
    assert items["declared"] == items["built-in"] and items["declared"][0][2]


def test_without_declared_a_project_of_the_built_in_type_is_made_while_it_exists(app):
    result = app.test_cli_runner().invoke(args=["import", "kpa2021", str(EXCERPT), "--project", "kpa",
                                                "--no-declared"])
    assert result.exit_code == 0, result.output
    project = _project("kpa")
    assert (project.task_type, project.definition) == ("kp_match", None)


def test_a_vote_in_todays_shape_is_stored_as_the_definitions_rows(app, make_user):
    users = [make_user(f"kpa-ann{j}") for j in range(5)]
    _voted("declared", users, declared=True)
    vote = db.session.execute(select(Assignment).join(User).join(Item)
                              .where(User.username == "kpa-ann0", Item.external_id == "arg_1_0")).scalar_one()
    item = vote.item
    ticked = set(_answer(item, vote.user)["matches"])
    assert vote.answer == {"matches": [kp["id"] for kp in item.payload["key_points"] if kp["id"] in ticked]}
    rows = sorted((label.unit, label.field, label.value)
                  for label in db.session.scalars(select(Label).where(Label.assignment_id == vote.id)))
    assert rows == sorted((kp["id"], "matches", "1" if kp["id"] in ticked else "0")
                          for kp in item.payload["key_points"])


def test_the_official_files_and_votes_csv_are_those_of_a_built_in_project_of_the_same_votes(app, make_user, tmp_path):
    _pair(app, make_user)
    declared, built_in = _export(app, "declared", tmp_path / "d"), _export(app, "built-in", tmp_path / "b")
    assert sorted(p.name for p in declared.iterdir()) == sorted(OFFICIAL)
    assert [(declared / n).read_bytes() for n in OFFICIAL] == [(built_in / n).read_bytes() for n in OFFICIAL]
    labels = (declared / "votes.csv").read_text(encoding="utf-8").splitlines()[1:]
    assert {line.rsplit(",", 1)[1] for line in labels} == {"1", "0", "undecided"}


def test_a_leaderboard_takes_the_same_gold_and_scores_a_run_the_same(app, make_user, tmp_path):
    from annotator.campaigns.leaderboard import gold_set_from_project
    _pair(app, make_user)
    declared, built_in = (gold_set_from_project(_project(slug)) for slug in ("declared", "built-in"))
    assert (declared.task, declared.options) == (built_in.task, built_in.options) == ("kpa2021", {"split": "test"})
    assert _members(declared.content) == _members(built_in.content)
    run = tmp_path / "predictions.json"
    run.write_text(json.dumps(_official_predictions()), encoding="utf-8")
    scores = [score_files("kpa2021", _export(app, slug, tmp_path / slug), run, split="test").metrics
              for slug in ("declared", "built-in")]
    assert scores[0] == scores[1] and 0 < scores[0]["strict"] <= 1


def _members(content: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(content)) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def _official_predictions() -> dict[str, dict[str, float]]:
    """A run that scores each argument's key points by the official labels: a match 1.0, anything else 0.0."""
    with (EXCERPT / "labels_test.csv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    predictions: dict[str, dict[str, float]] = {}
    for row in rows:
        predictions.setdefault(row["arg_id"], {})[row["key_point_id"]] = float(row["label"])
    return predictions


def test_the_dataset_table_is_the_built_in_projects(app, make_user):
    _pair(app, make_user)
    tables = {}
    for slug in ("declared", "built-in"):
        result = app.test_cli_runner().invoke(args=["stats", slug, "--json", "--labels", "gold"])
        assert result.exit_code == 0, result.output
        tables[slug] = result.stdout
    assert tables["declared"] == tables["built-in"]
    row = json.loads(tables["declared"])["tables"][0]["rows"][0]
    assert row["pairs"] > 0 and 0 < row["positive"] < 1 and 0 < row["undecided"] < 1


def test_more_arguments_go_into_a_declared_project_only_as_declared_ones(app):
    first = app.test_cli_runner().invoke(args=["import", "kpa2021", str(EXCERPT), "--project", "kpa", "--declared"])
    assert first.exit_code == 0, first.output
    refused = app.test_cli_runner().invoke(args=["import", "kpa2021", str(EXCERPT), "--project", "kpa",
                                                 "--no-declared"])
    assert refused.exit_code != 0 and "project 'kpa' is a declared project" in refused.output
    assert _project("kpa").task_type == "custom"


def test_a_threshold_out_of_range_is_refused_for_a_declared_project_saying_which(app):
    refused = app.test_cli_runner().invoke(args=["import", "kpa2021", str(EXCERPT), "--project", "kpa", "--declared",
                                                 "--positive-threshold", "1.5"])
    assert refused.exit_code != 0 and "positive_threshold" in refused.output
    assert db.session.scalar(select(Project).where(Project.slug == "kpa")) is None
