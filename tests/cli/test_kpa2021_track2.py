"""`flask import kpa2021-check|kpa2021-compare`, `flask rank` and their exports, on both engines.

The projects are declared projects of match_check.yaml and set_compare.yaml (the built-in Track-2 types are gone:
docs/one-engine.md); the judges answer in today's API shapes, which the bridges take (a comparison's A and B as its
lease shows them: `_shown`)."""
from __future__ import annotations

import csv
import json
import random
import shutil
from pathlib import Path

import pytest
from sqlalchemy import func, select

from annotator.core.extensions import db
from annotator.core.models import Assignment, Item, Project, ProjectData
from annotator.engine import assignment as engine
from tests.conftest import DATA, stored

FIXTURE = DATA / "kpa2021_track2"
SYSTEMS = [f"--system={name}={FIXTURE / 'systems' / name}" for name in ("alpha", "beta", "gamma")]


def _cli(app, *args):  # type: ignore[no-untyped-def]
    return app.test_cli_runner().invoke(args=[str(a) for a in args])


def _import(app, kind: str, slug: str, *args, systems=SYSTEMS):  # type: ignore[no-untyped-def]
    """The fixture's systems imported into `slug`: a declared project of the format's definition."""
    result = _cli(app, "import", kind, FIXTURE, "--split", "test", "--project", slug, *systems, *args)
    assert result.exit_code == 0, result.output
    return result


def _answer_all(project_slug: str, users, answer) -> None:  # type: ignore[no-untyped-def]
    """Every user answers every item; `answer(item payload, presentation)` gives the answer."""
    project = stored(Project, slug=project_slug)
    for user in users:
        while (lease := engine.next_for(user, project)) is not None:
            engine.submit(lease.id, user, answer(lease.item.payload, lease.presentation))


def test_one_item_per_top_half_pair_with_the_systems_kept_out_of_sight(app):
    result = _import(app, "kpa2021-check", "chk")
    assert "Imported 39 argument / key point pairs" in result.output
    item = db.session.scalar(select(Item).order_by(Item.position))
    assert {e["name"] for e in item.payload["systems"]} <= {"alpha", "beta", "gamma"}
    names = set(db.session.scalars(select(ProjectData.name)))
    assert names == {"track2:arguments", "system:alpha", "system:beta", "system:gamma"}


def test_identical_pairs_of_two_systems_are_one_item(app, tmp_path):
    shutil.copytree(FIXTURE / "systems" / "alpha", tmp_path / "twin")
    _import(app, "kpa2021-check", "chk", systems=[SYSTEMS[0], f"--system=twin={tmp_path / 'twin'}"])
    items = db.session.scalars(select(Item)).all()
    assert len(items) == 13 and all([e["name"] for e in i.payload["systems"]] == ["alpha", "twin"] for i in items)


def test_the_systems_folders_of_an_upload_are_found_without_naming_them(app):
    _import(app, "kpa2021-check", "chk", systems=[])
    assert db.session.scalar(select(func.count()).select_from(ProjectData)) == 4


def test_a_sample_keeps_a_share_of_each_systems_pairs_per_topic_and_stance_the_same_each_time(app):
    _import(app, "kpa2021-check", "a", "--sample", "0.5", "--seed", "3")
    _import(app, "kpa2021-check", "b", "--sample", "0.5", "--seed", "3")
    first, second = (set(db.session.scalars(select(Item.external_id).join(Project).where(Project.slug == s)))
                     for s in ("a", "b"))
    assert first == second and 15 <= len(first) <= 21  # 3 systems x (round(3.5) + 3) pairs, some shared


def test_a_bad_system_file_imports_nothing_and_says_where(app, tmp_path):
    broken = tmp_path / "broken"
    shutil.copytree(FIXTURE / "systems" / "beta", broken)
    predictions = json.loads((broken / "predictions.p").read_text())
    predictions["arg_1_2"]["beta_con_0"] = "very"
    (broken / "predictions.p").write_text(json.dumps(predictions))
    result = _cli(app, "import", "kpa2021-check", FIXTURE, "--split", "test", "--project", "chk", SYSTEMS[0],
                  f"--system=broken={broken}")
    assert result.exit_code == 1 and "broken/predictions.p" in result.output and "is not a number" in result.output
    assert "Nothing was imported" in result.output
    assert db.session.scalar(select(func.count()).select_from(Project)) == 0


def test_map_on_the_verdicts_ranks_the_systems_best_first(app, make_user, tmp_path):
    _import(app, "kpa2021-check", "chk")
    users = [make_user(f"u{n}") for n in range(3)]
    def alpha(payload, _):  # type: ignore[no-untyped-def]
        return {"verdict": "yes" if any(e["name"] == "alpha" for e in payload["systems"]) else "no"}

    _answer_all("chk", users, alpha)
    report = json.loads(_cli(app, "rank", "--project", "chk", "--json").output)
    table = {row["system"]: row for row in report["tables"][0]["rows"]}
    assert table["alpha"]["rank"] == 1 and table["alpha"]["mAP"] == pytest.approx(1.0)
    assert table["alpha"]["judged"] == table["alpha"]["top-half pairs"] == 13
    assert table["beta"]["mAP"] < 1.0
    out = tmp_path / "out"
    _cli(app, "export", "kpa2021-check", "--project", "chk", "--out", out)
    judgments = list(csv.DictReader(open(out / "judgments.csv", encoding="utf-8")))
    assert {row["system"] for row in judgments} == {"alpha", "beta", "gamma"}
    assert len(judgments) >= 39 * 3 and (out / "map.csv").is_file() and (out / "report.json").is_file()

def test_the_check_judgments_name_each_annotator_as_the_comparison_judgments_do(app, make_user, tmp_path):
    _import(app, "kpa2021-check", "chk")
    users = [make_user(name) for name in ("ada", "grace", "linus")]
    _answer_all("chk", users, lambda payload, _: {"verdict": "yes"})
    _cli(app, "export", "kpa2021-check", "--project", "chk", "--out", tmp_path)
    judgments = list(csv.DictReader(open(tmp_path / "judgments.csv", encoding="utf-8")))
    assert "annotator_id" not in judgments[0]
    assert {row["annotator"] for row in judgments} == {"ada", "grace", "linus"}



def _shown(payload, presentation) -> dict[str, str]:  # type: ignore[no-untyped-def]
    """The systems a comparison's lease shows as A and B: the item's second as A when the definition's drawn order
    swaps the comparisons (`{"swapped": [...]}`)."""
    first, second = payload["systems"]
    return {"a": second, "b": first} if (presentation or {}).get("swapped") else {"a": first, "b": second}


def _prefer(system: str):  # type: ignore[no-untyped-def]
    """Judges who find `system`'s set better on every question, whichever side it is shown on."""
    def answer(payload, presentation):  # type: ignore[no-untyped-def]
        shown = _shown(payload, presentation)
        right = "all_support" if payload["stance"] == 1 else "all_contest"
        side = "A" if shown["a"] == system else "B" if shown["b"] == system else "equal"
        return {"stance_a": right if side == "A" else "most_support",
                "stance_b": right if side == "B" else "most_support",
                "less_redundant": side, "more_central": side}
    return answer


def test_a_system_that_never_loses_gets_no_strength_and_the_report_says_why(app, make_user):
    _import(app, "kpa2021-compare", "cmp")
    _answer_all("cmp", [make_user(f"u{n}") for n in range(3)], _prefer("gamma"))
    report = _cli(app, "rank", "--project", "cmp").output
    assert "no ranking, because gamma never lost" in report
    assert "KP-set ranking" not in report


def test_a_pairs_file_chooses_the_comparisons(app, tmp_path):
    (tmp_path / "pairs.txt").write_text("# chosen\nalpha,beta\nbeta gamma\n")
    _import(app, "kpa2021-compare", "cmp", "--pairs", tmp_path / "pairs.txt")
    assert sorted(set(db.session.scalars(select(Item.external_id)))) == \
        ["t1con:alpha:beta", "t1con:beta:gamma", "t1pro:alpha:beta", "t1pro:beta:gamma"]
    (tmp_path / "bad.txt").write_text("alpha,alpha\n")
    result = _cli(app, "import", "kpa2021-compare", FIXTURE, "--split", "test", "--project", "other", *SYSTEMS,
                  "--pairs", tmp_path / "bad.txt")
    assert result.exit_code == 1 and "bad.txt, line 1" in result.output


def test_the_generation_track_combines_the_map_ranks_and_the_kp_set_ranks(app, make_user, tmp_path):
    random.seed(2021)  # which system is shown as A is drawn per HIT: seeded, so that both orders occur in every run
    _import(app, "kpa2021-check", "chk")
    _import(app, "kpa2021-compare", "cmp", "--check-project", "chk", "--k", "4")
    users = [make_user(f"u{n}") for n in range(4)]
    _answer_all("chk", users[:3],
                lambda payload, _: {"verdict": "yes" if "alpha" in {e["name"] for e in payload["systems"]} else "no"})
    votes = iter([_prefer("alpha"), _prefer("alpha"), _prefer("beta"), _prefer("gamma")])
    for user in users:  # alpha wins most, but everyone wins and loses somewhere, so the fits exist
        _answer_all("cmp", [user], next(votes))
    report = json.loads(_cli(app, "rank", "--project", "cmp", "--json").output)
    tables = {t["name"]: t["rows"] for t in report["tables"]}
    assert [row["system"] for row in tables["generation_ranking"]][0] == "alpha"
    strengths = {row["system"]: row for row in tables["strengths"]}
    assert sum(row["less redundant strength"] for row in strengths.values()) == pytest.approx(100.0)
    assert strengths["alpha"]["less redundant rank"] == 1
    out = tmp_path / "out"
    _cli(app, "export", "kpa2021-compare", "--project", "cmp", "--out", out)
    judgments = list(csv.DictReader(open(out / "judgments.csv", encoding="utf-8")))
    assert len(judgments) == 4 * 6 and {j["less_redundant"] for j in judgments} <= {"alpha", "beta", "gamma", "equal"}
    recorded = db.session.scalars(select(Assignment.presentation).join(Project).where(Project.slug == "cmp")).all()
    assert {bool(p["swapped"]) for p in recorded} == {True, False}   # both orders shown


def test_a_tie_between_key_points_is_broken_by_the_files_order_after_storing_too(app, tmp_path):
    """The first maximal key point of the file wins a tie (Track 1's max). PostgreSQL's JSONB orders an object's
    keys by length, so stored predictions read back with the shorter id first and the ranking paired the
    argument with another key point than the one its item was made from."""
    from annotator.shared_tasks.kpa2021 import track2_files as track2
    from annotator.shared_tasks.kpa2021.check_maps import stored_runs
    system = tmp_path / "tied"
    shutil.copytree(FIXTURE / "systems" / "alpha", system)
    predictions = json.loads((system / "predictions.p").read_text())
    scores = predictions["arg_1_0"]
    best = max(scores.values())
    predictions["arg_1_0"] = {"alpha_con_4": best, **{k: v for k, v in scores.items() if k != "alpha_con_4"}}
    predictions["arg_1_0"]["alpha_con_0"] = best  # tied with alpha_con_4, which comes first in the file
    (system / "predictions.p").write_text(json.dumps(predictions))
    _import(app, "kpa2021-check", "chk", systems=[f"--system=tied={system}"])
    _, runs = stored_runs(stored(Project, slug="chk"))
    assert list(runs["tied"].predictions["arg_1_0"]) == list(predictions["arg_1_0"])
    assert track2.best_key_point(runs["tied"].predictions["arg_1_0"]) == "alpha_con_4"


def _team_copy(tmp_path: Path, team: str, of: str) -> str:
    """A fixture system handed in under a team's name (its Track-2 folder), as a --system value."""
    shutil.copytree(FIXTURE / "systems" / of, tmp_path / team)
    return f"--system={team}={tmp_path / team}"


def test_a_system_outside_5_to_10_key_points_per_topic_and_stance_imports_nothing_and_says_where(app, tmp_path):
    """The task README, Track 2 output: "at least 5 key points and at most 10 per topic"."""
    short = tmp_path / "short"
    shutil.copytree(FIXTURE / "systems" / "beta", short)
    lines = (short / "key_points.csv").read_text().splitlines(keepends=True)
    (short / "key_points.csv").write_text("".join(line for line in lines if not line.startswith("beta_con_4,")))
    predictions = json.loads((short / "predictions.p").read_text())
    (short / "predictions.p").write_text(json.dumps({a: {k: v for k, v in s.items() if k != "beta_con_4"}
                                                     for a, s in predictions.items()}))
    result = _cli(app, "import", "kpa2021-check", FIXTURE, "--split", "test", "--project", "chk", SYSTEMS[0],
                  f"--system=short={short}")
    assert result.exit_code == 1 and "Nothing was imported" in result.output
    assert "short/key_points.csv, line 5, column key_point_id: 4 key points for topic" in result.output
    assert db.session.scalar(select(func.count()).select_from(Project)) == 0
    allowed = _import(app, "kpa2021-check", "other-rules", "--any-key-point-count",
                      systems=[SYSTEMS[0], f"--system=short={short}"])
    assert "Imported" in allowed.output


def test_a_sampled_check_gives_one_map_over_the_judged_pairs(app, make_user):
    """Overview §3.3.2: a binary label by the judges' majority and "a single mAP score" (Table 3: one mAP column).
    With half the pairs judged, the unjudged half is left out, not counted wrong (strict) or right (relaxed)."""
    from annotator.shared_tasks.kpa2021 import track2_files as track2
    from annotator.shared_tasks.kpa2021.files import read_arguments
    from annotator.shared_tasks.kpa2021.track2_map import judged_map
    _import(app, "kpa2021-check", "chk", "--sample", "0.5", "--seed", "0")
    users = [make_user(f"u{n}") for n in range(3)]
    verdicts: dict[tuple[str, str], int] = {}

    def judge(payload, _):  # type: ignore[no-untyped-def]
        match = sum(map(ord, payload["arg_id"])) % 3 != 0  # two pairs in three match, whichever system made them
        for entry in payload["systems"]:
            verdicts[(payload["arg_id"], entry["key_point_id"])] = int(match)
        return {"verdict": "yes" if match else "no"}
    _answer_all("chk", users, judge)
    report = json.loads(_cli(app, "rank", "--project", "chk", "--json").output)
    assert list(report["tables"][0]["rows"][0]) == ["rank", "system", "mAP", "judged", "top-half pairs",
                                                    "mostly faulty"]
    arguments = read_arguments(FIXTURE / "arguments_test.csv")
    for row in report["tables"][0]["rows"]:
        run = track2.read_system(FIXTURE / "systems" / row["system"], row["system"], arguments)
        mine = {pair: label for pair, label in verdicts.items() if pair[1] in run.key_points}
        assert row["judged"] == len(mine) < row["top-half pairs"] == 13
        assert row["mAP"] == pytest.approx(judged_map("test", arguments, run, mine).value)
        track_1 = track2.mean_average_precision("test", arguments, run, mine).metrics
        assert track_1["strict"] < row["mAP"] < track_1["relaxed"]  # the two figures the Track-1 scorer gives


def test_only_the_listed_systems_are_imported_whatever_their_folders_case(app):
    _import(app, "kpa2021-check", "chk", "--only", "ALPHA", "--only", "Gamma", "--only", "NotSubmitted")
    assert set(db.session.scalars(select(ProjectData.name))) == {"track2:arguments", "system:alpha", "system:gamma"}
    result = _cli(app, "import", "kpa2021-check", FIXTURE, "--split", "test", "--project", "other", *SYSTEMS,
                  "--only", "delta")
    assert result.exit_code == 1 and "none of the systems given (alpha, beta, gamma) is among those to import" \
        in result.output


def test_the_check_project_takes_the_track_1_top_10_proposed_from_the_leaderboard(app, tmp_path):
    """Task README: "Scoring as one of the top 10 teams on track 1 is a perquisite for being evaluated on track 2".
    Overview Table 2: SMatchToPR is rank 1, Enigma rank 4, pa_vincent rank 12 (Table 3 shows all three in Track 2)."""
    from tests.support.kpa_track2_tables import TABLE_2_TOP_10, track_1_leaderboard
    board = track_1_leaderboard()
    systems = [_team_copy(tmp_path, "smatchtopr", "alpha"), _team_copy(tmp_path, "enigma", "beta"),
               _team_copy(tmp_path, "pa_vincent", "gamma")]
    result = _import(app, "kpa2021-check", "chk", "--propose-from", board.id, systems=systems)
    proposed = [line.split()[1] for line in result.output.splitlines() if line.rstrip().endswith("yes")]
    assert proposed == TABLE_2_TOP_10
    assert set(db.session.scalars(select(ProjectData.name))) == {"track2:arguments", "system:smatchtopr",
                                                                  "system:enigma"}


def test_a_proposal_from_an_unknown_leaderboard_is_refused_in_words(app):
    result = _cli(app, "import", "kpa2021-check", FIXTURE, "--split", "test", "--project", "chk", *SYSTEMS,
                  "--propose-from", "99")
    assert result.exit_code == 1 and "there is no Track-1 leaderboard '99'" in result.output
    assert db.session.scalar(select(func.count()).select_from(Project)) == 0


def test_the_comparison_takes_the_3_best_by_matching_proposed_from_the_check_project(app, make_user, tmp_path):
    """Task README: the key-point sets of "the 3 systems that obtain the best results for matching in this track"."""
    delta = _team_copy(tmp_path, "delta", "gamma")
    _import(app, "kpa2021-check", "chk", systems=[*SYSTEMS, delta])
    def judge(payload, _):  # type: ignore[no-untyped-def]
        return {"verdict": "yes" if {"alpha", "beta"} & {e["name"] for e in payload["systems"]} else "no"}
    _answer_all("chk", [make_user(f"u{n}") for n in range(3)], judge)
    result = _import(app, "kpa2021-compare", "cmp", "--propose-from", "chk", systems=[*SYSTEMS, delta])
    assert "the 3 best systems by matching" in result.output
    assert "delta has the same mAP as gamma; add it to the list" in result.output  # a copy of gamma, judged alike
    pairs = db.session.scalar(select(ProjectData.content).where(ProjectData.name == "track2:pairs"))
    assert pairs == [["alpha", "beta"], ["alpha", "gamma"], ["beta", "gamma"]]
    assert stored(Project, slug="cmp").settings["check_project"] == "chk"


def test_the_gold_counts_of_the_39_pairs_add_up_to_39_with_the_mostly_faulty_apart(app, make_user):
    """They added up to 42: the 3 pairs judged mostly faulty were counted as "no match" and again as "faulty"."""
    _import(app, "kpa2021-check", "chk")
    faulty = set(db.session.scalars(select(Item.external_id).order_by(Item.position).limit(3)))
    by_id = {i.payload["arg_id"] + "/" + i.payload["key_point"]["text"]: i.external_id for i in db.session.scalars(
        select(Item))}
    _answer_all("chk", [make_user(f"u{n}") for n in range(3)], lambda payload, _: {
        "verdict": "faulty" if by_id[payload["arg_id"] + "/" + payload["key_point"]["text"]] in faulty else "yes"})
    gold = json.loads(_cli(app, "agreement", "--project", "chk", "--json").output)["gold"]
    verdicts = {key: n for key, n in gold.items() if key.startswith("verdict: ")}
    assert verdicts == {"verdict: yes": 36, "verdict: no": 3, "verdict: undecided": 0}
    assert sum(verdicts.values()) == 39   # each pair once
    assert (gold["faulty_majority: 1"], gold["faulty_majority: 0"]) == (3, 36)   # the mostly faulty, apart
