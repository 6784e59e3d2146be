"""A declared KPA-2021 project takes the built-in types' settings, each where it belongs.

The settings that are rules (the match's share thresholds, the check's tie) go into the new project's copy of its
definition, so its gold is the built-in's under the same settings; those that are no rules but what the task's
rankings read (the check's mAP variant, the comparison's "equal" and its linked check project) stay project
settings, read back in a fresh session. Each is compared with a built-in project of the same items, settings and
votes in the same database (every file byte for byte), and shown to change the files, so the setting is not
silently dropped.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import Project, User
from annotator.engine import assignment as engine
from annotator.shared_tasks.kpa2021.bridge import SET_COMPARE
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
    _match(app, "built-in", users, "--positive-threshold", "0.7", "--no-declared")
    _match(app, "declared", users, "--positive-threshold", "0.7", "--declared")
    _match(app, "default", users, "--declared")
    declared = _files(app, "kpa2021", "declared", tmp_path / "d")
    assert declared == _files(app, "kpa2021", "built-in", tmp_path / "b")
    assert _labels(declared) == {"0"}   # 3 of 5 is below 0.7: the first key points undecided, left out
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
    users = [make_user(f"judge{j}") for j in range(4)]
    _check(app, "built-in", users, TIED, "--tie", "match", "--no-declared")
    _check(app, "declared", users, TIED, "--tie", "match", "--declared")
    _check(app, "default", users, TIED, "--declared")
    assert _project("declared").definition["questions"][0]["gold"]["ties"] == "yes"
    declared = _files(app, "kpa2021-check", "declared", tmp_path / "d")
    assert declared == _files(app, "kpa2021-check", "built-in", tmp_path / "b")
    assert _pair_labels(declared) == {"1"}
    assert _pair_labels(_files(app, "kpa2021-check", "default", tmp_path / "0")) == {"0"}


def test_a_declared_check_keeps_its_map_variant_and_its_map_is_the_built_in_one_of_that_variant(app, make_user,
                                                                                                 tmp_path):
    users = [make_user(f"judge{j}") for j in range(3)]
    mixed = ("yes", "no", "no")   # half the pairs match, half not
    _check(app, "built-in", users, mixed, "--map-variant", "plain-ap", "--no-declared", half_match=True)
    _check(app, "declared", users, mixed, "--map-variant", "plain-ap", "--declared", half_match=True)
    _check(app, "official", users, mixed, "--declared", half_match=True)
    assert _project("declared").settings["map_variant"] == "plain-ap"
    declared = _files(app, "kpa2021-check", "declared", tmp_path / "d")
    assert declared == _files(app, "kpa2021-check", "built-in", tmp_path / "b")
    assert declared["map.csv"] != _files(app, "kpa2021-check", "official", tmp_path / "0")["map.csv"]


# --- the comparison: "equal" and the linked check project ---------------------------------------------------------

PREFERRED = ("alpha", "alpha", "beta")   # judge j finds PREFERRED[j]'s set better; a pair without it is equal


def _preferring(system: str, payload: dict[str, Any], shown: dict[str, str]) -> dict[str, str]:
    right = "all_support" if payload["stance"] == 1 else "all_contest"
    side = "A" if shown["a"] == system else "B" if shown["b"] == system else "equal"
    return {"stance_a": right if side in ("A", "equal") else "most_support",
            "stance_b": right if side in ("B", "equal") else "most_support",
            "less_redundant": side, "more_central": side}


def _judge_comparisons(built_in_slug: str, declared_slugs: tuple[str, ...], users: list[User]) -> None:
    """The built-in project voted through the engine; each declared one by the same judges, each lease shown in
    the order the built-in drew (the bridge's presentation), today's answers posted as they are."""
    from annotator.core.models import Assignment
    built_in = _project(built_in_slug)
    for user, system in zip(users, PREFERRED):
        drawn = {}
        while (lease := engine.next_for(user, built_in)) is not None:
            drawn[lease.item.external_id] = lease.presentation
            engine.submit(lease.id, user, _preferring(system, lease.item.payload, lease.presentation))
        for slug in declared_slugs:
            declared = _project(slug)
            while (lease := engine.next_for(user, declared)) is not None:
                shown = drawn[lease.item.external_id]
                db.session.get_one(Assignment, lease.id).presentation = SET_COMPARE.presentation(
                    shown, lease.item.payload)
                db.session.commit()
                engine.submit(lease.id, user, _preferring(system, lease.item.payload, shown))


def _compare(app, slug: str, *args: Any) -> None:  # type: ignore[no-untyped-def]
    _cli(app, "import", "kpa2021-compare", FIXTURE, "--split", "test", "--project", slug, "--name", "compare",
         *SYSTEMS, *args)


def _tables(app, slug: str) -> dict[str, list[dict[str, Any]]]:  # type: ignore[no-untyped-def]
    report = json.loads(_cli(app, "rank", "--project", slug, "--json"))
    return {table["name"]: table["rows"] for table in report["tables"]}


def test_a_declared_comparison_that_drops_equal_ranks_as_the_built_in_one_that_does(app, make_user):
    _compare(app, "built-in", "--equal", "drop", "--no-declared")
    _compare(app, "declared", "--equal", "drop", "--declared")
    _compare(app, "half", "--declared")
    _judge_comparisons("built-in", ("declared", "half"), [make_user(f"judge{j}") for j in range(3)])
    assert _project("declared").settings["equal"] == "drop"
    dropped = _tables(app, "declared")
    assert dropped == _tables(app, "built-in")
    assert dropped["strengths"] != _tables(app, "half")["strengths"]


def test_a_declared_comparison_linked_to_a_declared_check_has_the_built_in_generation_ranking(app, make_user):
    users = [make_user(f"judge{j}") for j in range(3)]
    verdicts = ("yes", "yes", "no")
    _check(app, "check-built-in", users, verdicts, "--no-declared")
    _check(app, "check-declared", users, verdicts, "--declared")
    _compare(app, "built-in", "--check-project", "check-built-in", "--no-declared")
    _compare(app, "declared", "--check-project", "check-declared", "--declared")
    _judge_comparisons("built-in", ("declared",), users)
    assert _project("declared").settings["check_project"] == "check-declared"
    tables = _tables(app, "declared")
    assert tables == _tables(app, "built-in")
    assert [row["system"] for row in tables["generation_ranking"]] == ["alpha", "beta", "gamma"]
