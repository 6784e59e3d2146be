"""`flask import kpa2021-check|kpa2021-compare`: declared projects of match_check.yaml and set_compare.yaml (the
built-in Track-2 types are gone: docs/one-engine.md) give what the built-in Track-2 projects gave for the same votes:
the judgments and the pairs' gold, written out here from the votes the three judges give (a verdict's label by a
strict majority of yes, faulty counting as no; mostly faulty when more than half say faulty), and the systems'
rankings led by the system the judges prefer. The kept database's projects hold every exported file and `flask rank`
report to the bytes the built-in types wrote (tests/lifecycle/test_upgrade_keeps_exports.py).
"""
from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest
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


def _check_voted(app, make_user) -> None:  # type: ignore[no-untyped-def]
    _import(app, "kpa2021-check", "declared")
    _judge_checks(("declared",), [make_user(f"judge{j}") for j in range(3)])


def test_the_check_import_makes_a_declared_project_of_match_check_yaml_with_the_built_in_items(app):
    _import(app, "kpa2021-check", "declared")
    declared = _project("declared")
    assert (declared.task_type, declared.k, declared.source) == ("custom", 3, {"format": "kpa2021-check",
                                                                              "split": "test"})
    assert declared.definition == json.loads(json.dumps(load_definition(CHECK_DEFINITION).to_data()))
    payloads = [i.payload for i in declared.items]
    assert len(payloads) == 39 and set(payloads[0]) == {"id", "arg_id", "topic", "stance", "argument", "key_point",
                                                        "systems"}


@pytest.mark.parametrize("kind", ["kpa2021-check", "kpa2021-compare"])
def test_without_declared_the_import_is_refused_saying_the_built_in_type_is_gone(app, kind):
    result = app.test_cli_runner().invoke(args=[str(a) for a in (
        "import", kind, FIXTURE, "--split", "test", "--project", "old", *SYSTEMS, "--no-declared")])
    assert result.exit_code != 0 and "HIT type is gone" in result.output and "Nothing was imported" in result.output
    assert db.session.scalar(select(Project).where(Project.slug == "old")) is None


def test_a_verdict_is_stored_as_the_definitions_answer_and_row(app, make_user):
    _check_voted(app, make_user)
    vote = db.session.execute(select(Assignment).join(User).join(Item).where(User.username == "judge2")
                              .order_by(Item.position).limit(1)).scalar_one()
    said = _verdict(vote.item.payload, 2)
    assert vote.answer == {"verdict": said}
    rows = db.session.execute(select(Label.unit, Label.field, Label.value).where(Label.assignment_id == vote.id))
    assert [tuple(row) for row in rows] == [("verdict", "verdict", said)]


def _expected_pairs() -> list[dict[str, str]]:
    """pairs.csv worked out from the verdicts `_verdict` gives: per pair its counts, the label and whether the key
    point is mostly faulty, and the systems that proposed it."""
    rows = []
    for item in _project("declared").items:
        said = [_verdict(item.payload, judge) for judge in range(3)]
        rows.append({"item": item.external_id, "unit": "pair", "votes": "3", "yes": str(said.count("yes")),
                     "no": str(said.count("no")), "faulty": str(said.count("faulty")),
                     "label": "1" if 2 * said.count("yes") > 3 else "0",
                     "faulty_majority": str(2 * said.count("faulty") > 3),
                     "systems": ", ".join(e["name"] for e in item.payload["systems"])})
    return rows


def test_the_check_exports_are_those_of_the_built_in_type_for_the_same_verdicts(app, make_user, tmp_path):
    _check_voted(app, make_user)
    declared = _export(app, "kpa2021-check", "declared", tmp_path / "d")
    assert sorted(p.name for p in declared.iterdir()) == sorted(CHECK_FILES)
    with (declared / "pairs.csv").open(encoding="utf-8", newline="") as handle:
        assert list(csv.DictReader(handle)) == _expected_pairs()
    assert {row["faulty_majority"] for row in _expected_pairs()} == {"True", "False"}   # some pairs mostly faulty
    with (declared / "judgments.csv").open(encoding="utf-8", newline="") as handle:
        judgments = list(csv.DictReader(handle))
    items = {i.external_id: i.payload for i in _project("declared").items}
    expected = sorted((item, entry["name"], entry["key_point_id"], f"judge{judge}", _verdict(payload, judge))
                      for item, payload in items.items() for judge in range(3) for entry in payload["systems"])
    assert sorted((j["item"], j["system"], j["system_key_point_id"], j["annotator"], j["verdict"])
                  for j in judgments) == expected


def test_the_check_ranking_puts_the_system_the_judges_found_right_first(app, make_user):
    _check_voted(app, make_user)
    report = json.loads(_cli(app, "rank", "--project", "declared", "--json").output)
    rows = report["tables"][0]["rows"]
    assert [row["system"] for row in rows][0] == "alpha"
    assert {row["system"]: row["mostly faulty"] for row in rows}["gamma"] > 0


def test_a_comparison_is_proposed_the_best_systems_of_a_declared_check_project(app, make_user):
    _check_voted(app, make_user)
    result = _cli(app, "import", "kpa2021-compare", FIXTURE, "--split", "test", "--project", "cmp", *SYSTEMS,
                  "--propose-from", "declared")
    assert "the 3 best systems by matching" in result.output
    assert _project("cmp").settings["check_project"] == "declared"


# --- the key-point set comparison ---------------------------------------------------------------------------------

COMPARE_FILES = ("judgments.csv", "strengths.csv", "kp_set_ranking.csv", "report.json")
PREFERRED = ("alpha", "alpha", "beta")   # judge j finds PREFERRED[j]'s set better on every question


def _shown(payload: dict[str, Any], presentation: dict[str, Any] | None) -> dict[str, str]:
    """The systems the lease shows as A and B (the definition's drawn order: the item's second as A when swapped)."""
    first, second = payload["systems"]
    return {"a": second, "b": first} if (presentation or {}).get("swapped") else {"a": first, "b": second}


def _preferring(system: str, payload: dict[str, Any], shown: dict[str, str]) -> dict[str, str]:
    """Today's answer of a judge who finds `system`'s set better, on the page that showed shown["a"] as A; a pair
    without `system` is judged equal, both sets taking the right stance."""
    right = "all_support" if payload["stance"] == 1 else "all_contest"
    side = "A" if shown["a"] == system else "B" if shown["b"] == system else "equal"
    return {"stance_a": right if side in ("A", "equal") else "most_support",
            "stance_b": right if side in ("B", "equal") else "most_support",
            "less_redundant": side, "more_central": side}


def _judge_comparisons(users: list[User]) -> dict[tuple[str, str], dict[str, str]]:
    """The declared project voted through the engine in today's answer shape, on the order each lease drew; what
    each judge was shown, by (item, judge)."""
    declared, shown = _project("declared"), {}
    for user, system in zip(users, PREFERRED):
        while (lease := engine.next_for(user, declared)) is not None:
            seen = shown[(lease.item.external_id, user.username)] = _shown(lease.item.payload, lease.presentation)
            engine.submit(lease.id, user, _preferring(system, lease.item.payload, seen))
    return shown


def _compare_voted(app, make_user) -> dict[tuple[str, str], dict[str, str]]:  # type: ignore[no-untyped-def]
    _import(app, "kpa2021-compare", "declared")
    return _judge_comparisons([make_user(f"judge{j}") for j in range(3)])


def test_the_comparison_import_makes_a_declared_project_of_set_compare_yaml_with_the_built_in_items(app):
    _import(app, "kpa2021-compare", "declared")
    declared = _project("declared")
    assert (declared.task_type, declared.source) == ("custom", {"format": "kpa2021-compare", "split": "test"})
    assert declared.definition["name"] == "Key-point set comparison (KPA-2021 Track 2)"
    payloads = [i.payload for i in declared.items]
    assert len(payloads) == 6 and set(payloads[0]) == {"id", "topic", "stance", "systems", "summaries"}


def test_the_comparison_judgments_are_the_built_in_types_for_the_same_judgments(app, make_user, tmp_path):
    """judgments.csv: each judgment with the systems shown as A and B and the answers in system names, as the
    judges gave them on the page they saw."""
    shown = _compare_voted(app, make_user)
    declared = _export(app, "kpa2021-compare", "declared", tmp_path / "d")
    assert sorted(p.name for p in declared.iterdir()) == sorted(COMPARE_FILES)
    with (declared / "judgments.csv").open(encoding="utf-8", newline="") as handle:
        judgments = list(csv.DictReader(handle))
    items = {i.external_id: i.payload for i in _project("declared").items}
    expected = []
    for (item, judge), seen in shown.items():
        answer = _preferring(PREFERRED[int(judge.removeprefix("judge"))], items[item], seen)
        names = {"A": seen["a"], "B": seen["b"], "equal": "equal"}
        expected.append((item, seen["a"], seen["b"], judge, answer["stance_a"], answer["stance_b"],
                         names[answer["less_redundant"]], names[answer["more_central"]]))
    assert sorted((j["item"], j["system_a"], j["system_b"], j["annotator"], j["stance_a"], j["stance_b"],
                   j["less_redundant"], j["more_central"]) for j in judgments) == sorted(expected)
    assert {j["system_a"] for j in judgments} == {"alpha", "beta", "gamma"}


def test_the_comparison_ranking_puts_the_set_the_judges_prefer_first(app, make_user):
    _compare_voted(app, make_user)
    report = json.loads(_cli(app, "rank", "--project", "declared", "--json").output)
    ranking = {t["name"]: t["rows"] for t in report["tables"]}["kp_set_ranking"]
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
