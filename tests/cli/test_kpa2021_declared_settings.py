"""A declared KPA-2021 project takes the built-in types' settings, each where it belongs.

The settings that are rules (the match's share thresholds, the check's tie) go into the new project's copy of its
definition, so its gold is the built-in's under the same settings; those that are no rules but what the task's
rankings read (the check's mAP variant, the comparison's "equal" and its linked check project) stay project
settings, read back in a fresh session. Each gives the files the built-in type gave under that setting, worked out
here from the votes (the built-in types are gone: docs/one-engine.md), and is shown to change the files, so the
setting is not silently dropped.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import Project, User
from annotator.declared.items import load_definition
from annotator.engine import assignment as engine
from annotator.shared_tasks.kpa2021 import declared_rules
from annotator.shared_tasks.kpa2021.check_exchange import CHECK_DEFINITION
from tests.conftest import DATA

EXCERPT = DATA / "kpa2021"
FIXTURE = DATA / "kpa2021_track2"
SYSTEMS = [f"--system={name}={FIXTURE / 'systems' / name}" for name in ("alpha", "beta", "gamma")]


def _cli(app, *args: Any) -> str:  # type: ignore[no-untyped-def]
    result = app.test_cli_runner().invoke(args=[str(a) for a in args])
    assert result.exit_code == 0, result.output
    return str(result.output)


def _refused(app, *args: Any) -> str:  # type: ignore[no-untyped-def]
    result = app.test_cli_runner().invoke(args=[str(a) for a in args])
    assert result.exit_code != 0
    return str(result.output)


def _project(slug: str) -> Project:
    db.session.remove()
    return db.session.scalars(select(Project).where(Project.slug == slug)).one()


def _files(app, kind: str, slug: str, out: Path) -> dict[str, bytes]:  # type: ignore[no-untyped-def]
    _cli(app, "export", kind, "--project", slug, "--out", out)
    return {path.name: path.read_bytes() for path in sorted(out.iterdir())}


# --- the match: share thresholds ----------------------------------------------------------------------------------

def _tick_first_key_point(slug: str, users: list[User], ticking: int) -> None:
    """`ticking` of the users tick every argument's first key point, the others none: its share is ticking / n."""
    project = _project(slug)
    for j, user in enumerate(users):
        while (lease := engine.next_for(user, project)) is not None:
            first = lease.item.payload["key_points"][0]["id"]
            engine.submit(lease.id, user, {"matches": [first] if j < ticking else []})


def _match(app, slug: str, users: list[User], *args: Any) -> None:  # type: ignore[no-untyped-def]
    _cli(app, "import", "kpa2021", EXCERPT, "--split", "test", "--project", slug, "--k", 5, *args)
    _tick_first_key_point(slug, users, ticking=3)   # 3 of 5: a match at 0.6, undecided at 0.7


def test_a_declared_match_import_writes_the_thresholds_given_into_its_definition(app):
    _cli(app, "import", "kpa2021", EXCERPT, "--split", "test", "--project", "kpa", "--declared",
         "--positive-threshold", "0.7", "--negative-threshold", "0.2")
    project = _project("kpa")
    assert project.definition["questions"][0]["gold"] == {"rule": "share", "positive": 0.7, "negative": 0.2}
    assert project.settings == {}


def test_a_declared_match_with_other_thresholds_gives_the_built_in_files_of_those_thresholds(app, make_user,
                                                                                              tmp_path):
    users = [make_user(f"ann{j}") for j in range(5)]
    _match(app, "declared", users, "--positive-threshold", "0.7", "--declared")
    _match(app, "default", users, "--declared")
    declared = _files(app, "kpa2021", "declared", tmp_path / "d")
    assert _labels(declared) == {"0"}   # 3 of 5 is below 0.7: the first key points undecided, left out
    votes = [row.split(",") for row in declared["votes.csv"].decode().splitlines()[1:]]
    firsts = {item.payload["key_points"][0]["id"] for item in _project("declared").items}
    assert {(row[3], row[4], row[5]) for row in votes if row[1] in firsts} == {("3", "0.6", "undecided")}
    assert {(row[3], row[4], row[5]) for row in votes if row[1] not in firsts} == {("0", "0.0", "0")}
    assert _labels(_files(app, "kpa2021", "default", tmp_path / "0")) == {"0", "1"}   # at 0.6, matches


def _labels(files: dict[str, bytes]) -> set[str]:
    return {row.rsplit(",", 1)[1] for row in files["labels_test.csv"].decode().splitlines()[1:]}


def test_thresholds_the_wrong_way_round_are_refused_for_a_declared_match_saying_why(app):
    output = _refused(app, "import", "kpa2021", EXCERPT, "--split", "test", "--project", "kpa", "--declared",
                      "--positive-threshold", "0.3", "--negative-threshold", "0.4")
    assert "negative_threshold 0.4 must be below positive_threshold 0.3" in output
    assert db.session.scalar(select(Project).where(Project.slug == "kpa")) is None


# --- the check: the tie and the mAP variant -----------------------------------------------------------------------

TIED = ("yes", "yes", "no", "faulty")   # 2 yes against 2 no + faulty: a tie at k 4


def _check(app, slug: str, users: list[User], verdicts: tuple[str, ...], *args: Any,  # type: ignore[no-untyped-def]
           half_match: bool = False) -> None:
    """Judge j says verdicts[j] of every pair; with `half_match`, "yes" of every other pair (its id's characters
    sum to an even number), so a system's ranked pairs mix matches and no matches."""
    _cli(app, "import", "kpa2021-check", FIXTURE, "--split", "test", "--project", slug, "--name", "check",
         "--k", len(users), *SYSTEMS, *args)
    project = _project(slug)
    for user, verdict in zip(users, verdicts):
        while (lease := engine.next_for(user, project)) is not None:
            even = sum(map(ord, lease.item.external_id)) % 2 == 0
            engine.submit(lease.id, user, {"verdict": "yes" if half_match and even else verdict})


def _pair_labels(files: dict[str, bytes]) -> set[str]:
    header, *rows = files["pairs.csv"].decode().splitlines()
    column = header.split(",").index("label")
    return {row.split(",")[column] for row in rows}


def test_a_declared_check_with_a_tie_counted_as_match_gives_the_built_in_files_of_that_tie(app, make_user, tmp_path):
    """2 yes against 1 no and 1 faulty on every pair: a match with the tie counted so, no match by default."""
    users = [make_user(f"judge{j}") for j in range(4)]
    _check(app, "declared", users, TIED, "--tie", "match", "--declared")
    _check(app, "default", users, TIED, "--declared")
    assert _project("declared").definition["questions"][0]["gold"]["ties"] == "yes"
    assert "tie" not in _project("declared").settings
    declared = _files(app, "kpa2021-check", "declared", tmp_path / "d")
    assert _pair_labels(declared) == {"1"}
    assert _pair_labels(_files(app, "kpa2021-check", "default", tmp_path / "0")) == {"0"}


def test_a_declared_check_keeps_its_map_variant_and_its_map_is_the_built_in_one_of_that_variant(app, make_user):
    """plain-ap: each topic and stance's AP alone; official (the Track-1 code since 2021-09-23): the AP times the
    share of its judged pairs that match (1 only when every judged pair matches)."""
    users = [make_user(f"judge{j}") for j in range(3)]
    mixed = ("yes", "no", "no")   # half the pairs match, half not
    _check(app, "declared", users, mixed, "--map-variant", "plain-ap", "--declared", half_match=True)
    _check(app, "official", users, mixed, "--declared", half_match=True)
    assert _project("declared").settings["map_variant"] == "plain-ap"
    plain, official = (_tables(app, slug)["map_groups"] for slug in ("declared", "official"))
    assert [(r["system"], r["topic"], r["stance"]) for r in plain] == \
        [(r["system"], r["topic"], r["stance"]) for r in official]
    for ap, scaled in zip(plain, official):
        assert scaled["AP"] == pytest.approx(ap["AP"] * ap["matches"] / ap["judged"]), ap
    assert any(r["matches"] < r["judged"] and r["AP"] > 0 for r in plain)   # so the two differ somewhere


# --- the comparison: "equal" and the linked check project ---------------------------------------------------------

PREFERRED = ("alpha", "alpha", "beta")   # judge j finds PREFERRED[j]'s set better; a pair without it is equal


def _preferring(system: str, payload: dict[str, Any], shown: dict[str, str]) -> dict[str, str]:
    right = "all_support" if payload["stance"] == 1 else "all_contest"
    side = "A" if shown["a"] == system else "B" if shown["b"] == system else "equal"
    return {"stance_a": right if side in ("A", "equal") else "most_support",
            "stance_b": right if side in ("B", "equal") else "most_support",
            "less_redundant": side, "more_central": side}


def _shown(payload: dict[str, Any], presentation: dict[str, Any] | None) -> dict[str, str]:
    """The systems the lease shows as A and B (the definition's drawn order: the item's second as A when swapped)."""
    first, second = payload["systems"]
    return {"a": second, "b": first} if (presentation or {}).get("swapped") else {"a": first, "b": second}


def _judge_comparisons(slugs: tuple[str, ...], users: list[User]) -> None:
    """Each project voted through the engine by the same judges, today's answers on the order each lease drew."""
    for user, system in zip(users, PREFERRED):
        for slug in slugs:
            project = _project(slug)
            while (lease := engine.next_for(user, project)) is not None:
                shown = _shown(lease.item.payload, lease.presentation)
                engine.submit(lease.id, user, _preferring(system, lease.item.payload, shown))


def _compare(app, slug: str, *args: Any) -> None:  # type: ignore[no-untyped-def]
    _cli(app, "import", "kpa2021-compare", FIXTURE, "--split", "test", "--project", slug, "--name", "compare",
         *SYSTEMS, *args)


def _tables(app, slug: str) -> dict[str, list[dict[str, Any]]]:  # type: ignore[no-untyped-def]
    report = json.loads(_cli(app, "rank", "--project", slug, "--json"))
    return {table["name"]: table["rows"] for table in report["tables"]}


def test_a_declared_comparison_that_drops_equal_ranks_without_the_equal_judgments(app, make_user):
    """Judges 0 and 1 prefer alpha, judge 2 beta; a pair without the judge's system is judged equal. gamma wins no
    judgment, only the halves of those equal ones: dropped, it never won and no strength fits (the report says
    so); counted half a win, every question has its ranking, alpha first."""
    _compare(app, "declared", "--equal", "drop", "--declared")
    _compare(app, "half", "--declared")
    _judge_comparisons(("declared", "half"), [make_user(f"judge{j}") for j in range(3)])
    assert _project("declared").settings["equal"] == "drop"
    report = json.loads(_cli(app, "rank", "--project", "declared", "--json"))
    assert report["notes"] == [f"{question}: no ranking, because gamma never won, so no finite strength fits."
                               for question in ("less redundant", "more central", "right stance")]
    assert "kp_set_ranking" not in _tables(app, "declared")
    assert _tables(app, "half")["kp_set_ranking"][0]["system"] == "alpha"


def test_a_declared_comparison_linked_to_a_declared_check_has_the_generation_ranking(app, make_user):
    """The mean of each system's mAP rank (the check project's) and KP-set rank, mAP breaking ties."""
    users = [make_user(f"judge{j}") for j in range(3)]
    verdicts = ("yes", "yes", "no")
    _check(app, "check-declared", users, verdicts, "--declared")
    _compare(app, "declared", "--check-project", "check-declared", "--declared")
    _judge_comparisons(("declared",), users)
    assert _project("declared").settings["check_project"] == "check-declared"
    tables = _tables(app, "declared")
    maps = {row["system"]: (row["rank"], row["mAP"]) for row in _tables(app, "check-declared")["map"]}
    sets = {row["system"]: row["KP-set rank"] for row in tables["kp_set_ranking"]}
    expected = sorted(sets, key=lambda n: ((maps[n][0] + sets[n]) / 2, -maps[n][1]))
    assert [row["system"] for row in tables["generation_ranking"]] == expected == ["alpha", "beta", "gamma"]


def _more_arguments(tmp_path: Path) -> Path:
    """The excerpt again with every argument id prefixed: new items for the same topic and key points."""
    out = tmp_path / "more"
    out.mkdir()
    for name in ("arguments_test.csv", "labels_test.csv"):
        header, *rows = (EXCERPT / name).read_text(encoding="utf-8").splitlines()
        (out / name).write_text("\n".join([header, *[f"more_{row}" for row in rows]]) + "\n", encoding="utf-8")
    (out / "key_points_test.csv").write_bytes((EXCERPT / "key_points_test.csv").read_bytes())
    return out


def test_a_further_import_that_gives_no_thresholds_keeps_the_projects(app, tmp_path):
    _cli(app, "import", "kpa2021", EXCERPT, "--split", "test", "--project", "kpa", "--positive-threshold", "0.7")
    before = len(_project("kpa").items)
    _cli(app, "import", "kpa2021", _more_arguments(tmp_path), "--split", "test", "--project", "kpa")
    project = _project("kpa")
    assert project.definition["questions"][0]["gold"] == {"rule": "share", "positive": 0.7, "negative": 0.15}
    assert len(project.items) == 2 * before


def test_a_further_import_with_other_thresholds_is_refused_and_adds_nothing(app, tmp_path):
    _cli(app, "import", "kpa2021", EXCERPT, "--split", "test", "--project", "kpa", "--positive-threshold", "0.7")
    before = len(_project("kpa").items)
    output = _refused(app, "import", "kpa2021", _more_arguments(tmp_path), "--split", "test", "--project", "kpa",
                      "--positive-threshold", "0.8")
    assert "another definition" in output
    assert len(_project("kpa").items) == before


@pytest.mark.parametrize("tie", ["match", "no_match"])
def test_the_tie_a_check_projects_definition_holds_is_read_back_as_the_import_option(tie):
    """A check project takes no further import (its systems' data is named once), but the import form of an existing
    project is filled from its definition as RuArg's is (imports.options_of_definition)."""
    made = declared_rules.check_definition(load_definition(CHECK_DEFINITION).to_data(), {"tie": tie})
    assert declared_rules.check_settings(made) == {"tie": tie}
