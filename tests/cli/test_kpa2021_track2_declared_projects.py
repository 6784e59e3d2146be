"""`flask import kpa2021-check|kpa2021-compare --declared`: declared projects of match_check.yaml and
set_compare.yaml give what the built-in Track-2 projects give for the same votes: every exported file byte for
byte (the judgments, the pairs' gold, the systems' mAP and Bradley-Terry tables) and the same `flask rank` report.

The reference is a built-in project imported from the same systems' files in the same database, voted the same
way by the same three judges.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import Assignment, Item, Label, Project, User
from annotator.declared.items import load_definition
from annotator.engine import assignment as engine
from annotator.shared_tasks.kpa2021.declared_gold import CHECK_DEFINITION
from tests.conftest import DATA

FIXTURE = DATA / "kpa2021_track2"
SYSTEMS = [f"--system={name}={FIXTURE / 'systems' / name}" for name in ("alpha", "beta", "gamma")]
CHECK_FILES = ("judgments.csv", "pairs.csv", "map.csv", "map_groups.csv", "report.json")


def _cli(app, *args: Any):  # type: ignore[no-untyped-def]
    result = app.test_cli_runner().invoke(args=[str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result


def _import(app, kind: str, slug: str, *args: Any) -> None:  # type: ignore[no-untyped-def]
    """The fixture's three systems imported into `slug`, named after the format (report titles name the project)."""
    _cli(app, "import", kind, FIXTURE, "--split", "test", "--project", slug, "--name", kind, *SYSTEMS, *args)


def _project(slug: str) -> Project:
    db.session.remove()
    return db.session.scalars(select(Project).where(Project.slug == slug)).one()


def _export(app, kind: str, slug: str, out: Path) -> Path:  # type: ignore[no-untyped-def]
    _cli(app, "export", kind, "--project", slug, "--out", out)
    return out


# --- the match check ----------------------------------------------------------------------------------------------

def _verdict(payload: dict[str, Any], judge: int) -> str:
    """alpha's pairs mostly match, gamma's key points are mostly faulty, beta's alone split three ways."""
    names = {entry["name"] for entry in payload["systems"]}
    if "alpha" in names:
        return "yes" if judge < 2 else "no"
    if "gamma" in names:
        return "faulty" if judge < 2 else "yes"
    return ("no", "yes", "faulty")[judge]


def _judge_checks(slugs: tuple[str, ...], users: list[User]) -> None:
    for slug in slugs:
        project = _project(slug)
        for judge, user in enumerate(users):
            while (lease := engine.next_for(user, project)) is not None:
                engine.submit(lease.id, user, {"verdict": _verdict(lease.item.payload, judge)})


def _check_pair(app, make_user) -> None:  # type: ignore[no-untyped-def]
    _import(app, "kpa2021-check", "built-in", "--no-declared")
    _import(app, "kpa2021-check", "declared", "--declared")
    _judge_checks(("built-in", "declared"), [make_user(f"judge{j}") for j in range(3)])


def test_the_check_import_makes_a_declared_project_of_match_check_yaml_by_default_with_the_built_in_items(app):
    _import(app, "kpa2021-check", "declared")
    _import(app, "kpa2021-check", "built-in", "--no-declared")
    assert (_project("built-in").task_type, _project("built-in").definition) == ("kp_match_check", None)
    declared = _project("declared")
    assert (declared.task_type, declared.k, declared.source) == ("custom", 3, {"format": "kpa2021-check",
                                                                              "split": "test"})
    assert declared.definition == json.loads(json.dumps(load_definition(CHECK_DEFINITION).to_data()))
    payloads = {slug: [i.payload for i in _project(slug).items] for slug in ("declared", "built-in")}
    assert payloads["declared"] == payloads["built-in"] and len(payloads["declared"]) == 39


def test_a_verdict_is_stored_as_the_definitions_answer_and_row(app, make_user):
    _import(app, "kpa2021-check", "declared", "--declared")
    _judge_checks(("declared",), [make_user(f"judge{j}") for j in range(3)])
    vote = db.session.execute(select(Assignment).join(User).join(Item).where(User.username == "judge2")
                              .order_by(Item.position).limit(1)).scalar_one()
    said = _verdict(vote.item.payload, 2)
    assert vote.answer == {"verdict": said}
    rows = db.session.execute(select(Label.unit, Label.field, Label.value).where(Label.assignment_id == vote.id))
    assert [tuple(row) for row in rows] == [("verdict", "verdict", said)]


def test_the_check_exports_are_those_of_a_built_in_project_of_the_same_verdicts(app, make_user, tmp_path):
    _check_pair(app, make_user)
    declared = _export(app, "kpa2021-check", "declared", tmp_path / "d")
    built_in = _export(app, "kpa2021-check", "built-in", tmp_path / "b")
    assert sorted(p.name for p in declared.iterdir()) == sorted(CHECK_FILES)
    for name in CHECK_FILES:
        assert (declared / name).read_bytes() == (built_in / name).read_bytes(), name
    pairs = (declared / "pairs.csv").read_text(encoding="utf-8").splitlines()
    assert {line.split(",")[-2] for line in pairs[1:]} == {"True", "False"}   # some pairs mostly faulty


def test_the_check_ranking_is_the_built_in_projects(app, make_user):
    _check_pair(app, make_user)
    reports = {slug: json.loads(_cli(app, "rank", "--project", slug, "--json").output)
               for slug in ("declared", "built-in")}
    assert reports["declared"]["tables"] == reports["built-in"]["tables"]
    assert [row["system"] for row in reports["declared"]["tables"][0]["rows"]][0] == "alpha"


def test_a_comparison_is_proposed_the_best_systems_of_a_declared_check_project(app, make_user):
    _check_pair(app, make_user)
    result = _cli(app, "import", "kpa2021-compare", FIXTURE, "--split", "test", "--project", "cmp", *SYSTEMS,
                  "--propose-from", "declared")
    assert "the 3 best systems by matching" in result.output
    assert _project("cmp").settings["check_project"] == "declared"


# --- the key-point set comparison ---------------------------------------------------------------------------------

COMPARE_FILES = ("judgments.csv", "strengths.csv", "kp_set_ranking.csv", "report.json")
PREFERRED = ("alpha", "alpha", "beta")   # judge j finds PREFERRED[j]'s set better on every question


def _preferring(system: str, payload: dict[str, Any], shown: dict[str, str]) -> dict[str, str]:
    """Today's answer of a judge who finds `system`'s set better, on the page that showed shown["a"] as A; a pair
    without `system` is judged equal, both sets taking the right stance."""
    right = "all_support" if payload["stance"] == 1 else "all_contest"
    side = "A" if shown["a"] == system else "B" if shown["b"] == system else "equal"
    return {"stance_a": right if side in ("A", "equal") else "most_support",
            "stance_b": right if side in ("B", "equal") else "most_support",
            "less_redundant": side, "more_central": side}


def _judge_comparisons(users: list[User]) -> None:
    """The built-in project voted through the engine; the declared one by the same judges on the same items, each
    lease shown in the order the built-in drew (as a migration maps it: the bridge's presentation), today's
    answers posted as they are."""
    from annotator.shared_tasks.kpa2021.bridge import SET_COMPARE
    built_in, declared = _project("built-in"), _project("declared")
    for user, system in zip(users, PREFERRED):
        drawn = {}
        while (lease := engine.next_for(user, built_in)) is not None:
            drawn[lease.item.external_id] = lease.presentation
            engine.submit(lease.id, user, _preferring(system, lease.item.payload, lease.presentation))
        while (lease := engine.next_for(user, declared)) is not None:
            shown = drawn[lease.item.external_id]
            db.session.get_one(Assignment, lease.id).presentation = SET_COMPARE.presentation(shown, lease.item.payload)
            db.session.commit()
            engine.submit(lease.id, user, _preferring(system, lease.item.payload, shown))


def _compare_pair(app, make_user) -> None:  # type: ignore[no-untyped-def]
    _import(app, "kpa2021-compare", "built-in", "--no-declared")
    _import(app, "kpa2021-compare", "declared", "--declared")
    _judge_comparisons([make_user(f"judge{j}") for j in range(3)])


def test_the_comparison_import_makes_a_declared_project_of_set_compare_yaml_by_default_with_the_built_in_items(app):
    _import(app, "kpa2021-compare", "declared")
    _import(app, "kpa2021-compare", "built-in", "--no-declared")
    assert (_project("built-in").task_type, _project("built-in").definition) == ("kp_set_compare", None)
    declared = _project("declared")
    assert (declared.task_type, declared.source) == ("custom", {"format": "kpa2021-compare", "split": "test"})
    assert declared.definition["name"] == "Key-point set comparison (KPA-2021 Track 2)"
    payloads = {slug: [i.payload for i in _project(slug).items] for slug in ("declared", "built-in")}
    assert payloads["declared"] == payloads["built-in"] and len(payloads["declared"]) == 6


def test_the_comparison_exports_are_those_of_a_built_in_project_of_the_same_judgments(app, make_user, tmp_path):
    _compare_pair(app, make_user)
    declared = _export(app, "kpa2021-compare", "declared", tmp_path / "d")
    built_in = _export(app, "kpa2021-compare", "built-in", tmp_path / "b")
    assert sorted(p.name for p in declared.iterdir()) == sorted(COMPARE_FILES)
    for name in COMPARE_FILES:
        assert (declared / name).read_bytes() == (built_in / name).read_bytes(), name
    shown_a = {line.split(",")[3] for line in (declared / "judgments.csv").read_text().splitlines()[1:]}
    assert shown_a == {"alpha", "beta", "gamma"}


def test_the_comparison_ranking_is_the_built_in_projects(app, make_user):
    _compare_pair(app, make_user)
    reports = {slug: json.loads(_cli(app, "rank", "--project", slug, "--json").output)
               for slug in ("declared", "built-in")}
    assert reports["declared"]["tables"] == reports["built-in"]["tables"]
    ranking = {t["name"]: t["rows"] for t in reports["declared"]["tables"]}["kp_set_ranking"]
    assert ranking[0]["system"] == "alpha"


def test_a_declared_comparison_keeps_the_check_project_it_is_linked_to(app):
    _cli(app, "import", "kpa2021-compare", FIXTURE, "--split", "test", "--project", "cmp", *SYSTEMS, "--declared",
         "--check-project", "chk")
    assert (_project("cmp").task_type, _project("cmp").settings["check_project"]) == ("custom", "chk")


def test_a_declared_comparison_refuses_a_check_project_that_is_no_slug_saying_which(app):
    result = app.test_cli_runner().invoke(args=[str(a) for a in (
        "import", "kpa2021-compare", FIXTURE, "--split", "test", "--project", "cmp", *SYSTEMS, "--declared",
        "--check-project", "Not A Slug")])
    assert result.exit_code != 0 and "check_project" in result.output
    assert db.session.scalar(select(Project).where(Project.slug == "cmp")) is None
