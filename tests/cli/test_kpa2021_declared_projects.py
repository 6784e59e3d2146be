"""`flask import kpa2021`: a declared project of match.yaml (the built-in kp_match type is gone: docs/one-engine.md),
served by the one engine, gives what the built-in key-point-match type gave for the same votes: the three official
files and votes.csv, the scorer's gold of a leaderboard and the dataset table, each worked out here from the votes
by ArgKP's rule (a pair's share of the annotators who matched it: at least 0.6 a match, at most 0.15 no match,
undecided between and left out of the labels file) and the files' own layout.

Five annotators per argument, each ticking the key points the official labels match, annotator j also ticking the
argument's (j + 1)-th key point the labels leave unmatched, and annotator 4 ticking nothing on every third argument,
so the gold has matches, no matches and undecided pairs.
"""
from __future__ import annotations

import csv
import io
import json
import zipfile
from pathlib import Path
from types import SimpleNamespace

import pytest
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import Assignment, Item, Label, Project, User
from annotator.declared.items import load_definition
from annotator.lookups.scorers import score_files
from annotator.shared_tasks.kpa2021.declared_gold import MATCH_DEFINITION
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


def _voted(slug: str, users: list[User]) -> Project:
    project = load_project("kpa2021", EXCERPT, slug, split="test", k=5)
    assert project.task_type == "custom"
    vote_everywhere(project, users, _answer)
    return _project(slug)


def _one(app, make_user) -> None:  # type: ignore[no-untyped-def]
    _voted("declared", [make_user(f"kpa-ann{j}") for j in range(5)])


def _rows(name: str) -> list[dict[str, str]]:
    with (EXCERPT / name).open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def _expected_votes() -> list[tuple[str, str, int, int, float, int | str]]:
    """(arg_id, key point id, annotators, matched, share, label) of every pair, in the items' order (the arguments
    file's) and each argument's key points of its topic and stance in the key points file's order, worked out from
    the votes `_answer` gives."""
    key_points = _rows("key_points_test.csv")
    found = []
    for position, argument in enumerate(_rows("arguments_test.csv")):
        own = [kp for kp in key_points if (kp["topic"], kp["stance"]) == (argument["topic"], argument["stance"])]
        item = SimpleNamespace(external_id=argument["arg_id"], position=position,
                               payload={"key_points": [{"id": kp["key_point_id"]} for kp in own]})
        ticks = [set(_answer(item, SimpleNamespace(username=f"kpa-ann{j}"))["matches"]) for j in range(5)]
        for kp in own:
            matched = sum(kp["key_point_id"] in ticked for ticked in ticks)
            share = matched / 5
            label: int | str = 1 if share >= 0.6 else 0 if share <= 0.15 else "undecided"
            found.append((argument["arg_id"], kp["key_point_id"], 5, matched, share, label))
    return found


def _expected_labels_file() -> bytes:
    rows = [f"{arg},{kp},{label}" for arg, kp, _, _, _, label in _expected_votes() if label != "undecided"]
    return ("arg_id,key_point_id,label\n" + "".join(f"{row}\n" for row in rows)).encode()


def _expected_votes_file() -> bytes:
    lines = ["arg_id,key_point_id,annotators,matched,share,label",
             *(f"{arg},{kp},{n},{matched},{share!r},{label}"
               for arg, kp, n, matched, share, label in _expected_votes())]
    return "".join(f"{line}\n" for line in lines).encode()


def _export(app, slug: str, out: Path) -> Path:  # type: ignore[no-untyped-def]
    result = app.test_cli_runner().invoke(args=["export", "kpa2021", "--project", slug, "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


def test_the_import_makes_a_declared_project_of_match_yaml_with_the_built_in_items(app):
    """The items the built-in type stored: per argument its key points of the same topic and stance with their
    position in the key points file, the labels file's labels of the argument its reference."""
    result = app.test_cli_runner().invoke(args=["import", "kpa2021", str(EXCERPT), "--project", "declared"])
    assert result.exit_code == 0, result.output
    assert "Created project 'declared' (Declared campaign: " in result.output
    declared = _project("declared")
    assert (declared.task_type, declared.k, declared.source) == ("custom", 8, {"format": "kpa2021", "split": "test"})
    assert declared.definition == json.loads(json.dumps(load_definition(MATCH_DEFINITION).to_data()))
    key_points, labels = _rows("key_points_test.csv"), _rows("labels_test.csv")
    expected = []
    for argument in _rows("arguments_test.csv"):
        own = [(n, kp) for n, kp in enumerate(key_points)
               if (kp["topic"], kp["stance"]) == (argument["topic"], argument["stance"])]
        payload = {"id": argument["arg_id"], "topic": argument["topic"], "stance": int(argument["stance"]),
                   "argument": argument["argument"],
                   "key_points": [{"id": kp["key_point_id"], "text": kp["key_point"], "position": n} for n, kp in own]}
        reference = {row["key_point_id"]: int(row["label"]) for _, kp in own for row in labels
                     if (row["arg_id"], row["key_point_id"]) == (argument["arg_id"], kp["key_point_id"])}
        expected.append((argument["arg_id"], payload, reference or None))
    assert [(i.external_id, i.payload, i.reference) for i in declared.items] == expected
    assert expected[0][2]


def test_without_declared_the_import_is_refused_saying_the_built_in_type_is_gone(app):
    result = app.test_cli_runner().invoke(args=["import", "kpa2021", str(EXCERPT), "--project", "kpa",
                                                "--no-declared"])
    assert result.exit_code != 0
    assert "the built-in kp_match HIT type is gone" in result.output and "Nothing was imported" in result.output
    assert db.session.scalar(select(Project).where(Project.slug == "kpa")) is None


def test_a_vote_in_todays_shape_is_stored_as_the_definitions_rows(app, make_user):
    _one(app, make_user)
    vote = db.session.execute(select(Assignment).join(User).join(Item)
                              .where(User.username == "kpa-ann0", Item.external_id == "arg_1_0")).scalar_one()
    item = vote.item
    ticked = set(_answer(item, vote.user)["matches"])
    assert vote.answer == {"matches": [kp["id"] for kp in item.payload["key_points"] if kp["id"] in ticked]}
    rows = sorted((label.unit, label.field, label.value)
                  for label in db.session.scalars(select(Label).where(Label.assignment_id == vote.id)))
    assert rows == sorted((kp["id"], "matches", "1" if kp["id"] in ticked else "0")
                          for kp in item.payload["key_points"])


def test_the_official_files_and_votes_csv_are_the_built_in_types_of_the_same_votes(app, make_user, tmp_path):
    """The arguments and key points as the files give them, the labels of the decided pairs and every pair's
    counts, worked out from the votes by ArgKP's rule."""
    _one(app, make_user)
    declared = _export(app, "declared", tmp_path / "d")
    assert sorted(p.name for p in declared.iterdir()) == sorted(OFFICIAL)
    for name in ("arguments_test.csv", "key_points_test.csv"):
        assert (declared / name).read_bytes() == (EXCERPT / name).read_bytes(), name
    assert (declared / "labels_test.csv").read_bytes() == _expected_labels_file()
    assert (declared / "votes.csv").read_bytes() == _expected_votes_file()
    assert {label for *_, label in _expected_votes()} == {1, 0, "undecided"}


def test_a_leaderboard_takes_the_same_gold_and_scores_a_run_against_it(app, make_user, tmp_path):
    from annotator.campaigns.leaderboard import gold_set_from_project
    _one(app, make_user)
    gold = gold_set_from_project(_project("declared"))
    assert (gold.task, gold.options) == ("kpa2021", {"split": "test"})
    members = _members(gold.content)
    assert {Path(name).name: data for name, data in members.items()} == {
        "arguments_test.csv": (EXCERPT / "arguments_test.csv").read_bytes(),
        "key_points_test.csv": (EXCERPT / "key_points_test.csv").read_bytes(),
        "labels_test.csv": _expected_labels_file()}
    expected_gold = tmp_path / "expected"   # the gold files as worked out here
    expected_gold.mkdir()
    for name in ("arguments_test.csv", "key_points_test.csv"):
        (expected_gold / name).write_bytes((EXCERPT / name).read_bytes())
    (expected_gold / "labels_test.csv").write_bytes(_expected_labels_file())
    run = tmp_path / "predictions.json"
    run.write_text(json.dumps(_official_predictions()), encoding="utf-8")
    scores = [score_files("kpa2021", folder, run, split="test").metrics
              for folder in (_export(app, "declared", tmp_path / "declared"), expected_gold)]
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


def test_the_dataset_table_is_the_papers_of_the_gold(app, make_user):
    """Table 1's row of the gold, worked out from the pairs' labels: shares of all pairs, coverage of the labelled
    arguments (strict: a match; relaxed: a match or undecided) and the arguments matching two or more key points."""
    _one(app, make_user)
    result = app.test_cli_runner().invoke(args=["stats", "declared", "--json", "--labels", "gold"])
    assert result.exit_code == 0, result.output
    row = json.loads(result.stdout)["tables"][0]["rows"][0]
    pairs = _expected_votes()
    arguments = sorted({arg for arg, *_ in pairs})
    labels = {arg: [label for a, _, _, _, _, label in pairs if a == arg] for arg in arguments}
    n = len(pairs)
    expected = {"topics": 1, "arguments": len(arguments), "key points": len({kp for _, kp, *_ in pairs}),
                "labelled arguments": len(arguments), "pairs": n,
                "positive": sum(p[5] == 1 for p in pairs) / n, "negative": sum(p[5] == 0 for p in pairs) / n,
                "undecided": sum(p[5] == "undecided" for p in pairs) / n,
                "strict coverage": sum(1 in labels[a] for a in arguments) / len(arguments),
                "relaxed coverage": sum(bool({1, "undecided"} & set(labels[a])) for a in arguments) / len(arguments),
                "several key points": sum(labels[a].count(1) > 1 for a in arguments)}
    assert {key: row[key] for key in expected} == {key: pytest.approx(value) for key, value in expected.items()}
    assert row["pairs"] > 0 and 0 < row["positive"] < 1 and 0 < row["undecided"] < 1


def test_more_arguments_go_into_a_declared_project_only_as_declared_ones(app):
    first = app.test_cli_runner().invoke(args=["import", "kpa2021", str(EXCERPT), "--project", "kpa", "--declared"])
    assert first.exit_code == 0, first.output
    refused = app.test_cli_runner().invoke(args=["import", "kpa2021", str(EXCERPT), "--project", "kpa",
                                                 "--no-declared"])
    assert refused.exit_code != 0 and "the built-in kp_match HIT type is gone" in refused.output
    assert _project("kpa").task_type == "custom" and len(_project("kpa").items) == 26


def test_a_threshold_out_of_range_is_refused_for_a_declared_project_saying_which(app):
    refused = app.test_cli_runner().invoke(args=["import", "kpa2021", str(EXCERPT), "--project", "kpa", "--declared",
                                                 "--positive-threshold", "1.5"])
    assert refused.exit_code != 0 and "positive_threshold" in refused.output
    assert db.session.scalar(select(Project).where(Project.slug == "kpa")) is None
