"""The one mAP of a generation system over the pairs its judges decided (KPA-2021 Track 2, matching aspect).

The overview, §3.3.2: the top-50% pairs judged, "a binary label from the annotations by the majority vote, and
compute a single mAP score" (Table 3 has one mAP column); the task README has only "a sample" of them labelled.
"""
from __future__ import annotations

import pytest

from annotator.shared_tasks.kpa2021 import track2_files as track2
from annotator.shared_tasks.kpa2021.files import read_arguments
from annotator.shared_tasks.kpa2021.track2_map import judged_map
from tests.conftest import DATA

FIXTURE = DATA / "kpa2021_track2"
ARGUMENTS = read_arguments(FIXTURE / "arguments_test.csv")
GROUP = {a.arg_id: (a.topic, a.stance) for a in ARGUMENTS}


def run(name: str) -> track2.SystemRun:
    return track2.read_system(FIXTURE / "systems" / name, name, ARGUMENTS)


def best_two_per_group(system: track2.SystemRun) -> dict[tuple[str, str], int]:
    """A sample of two judged pairs per topic and stance: its highest-scoring pair a match, the next one not."""
    labels: dict[tuple[str, str], int] = {}
    for group in set(GROUP.values()):
        pairs = sorted((p for p in track2.evaluated_pairs("test", ARGUMENTS, system) if GROUP[p[0]] == group),
                       key=lambda p: -p[2])
        labels[(pairs[0][0], pairs[0][1])], labels[(pairs[1][0], pairs[1][1])] = 1, 0
    return labels


@pytest.mark.parametrize("name", ["alpha", "beta", "gamma"])
def test_with_every_pair_judged_it_is_the_track_1_score_strict_and_relaxed_alike(name: str) -> None:
    system = run(name)
    labels = {(arg, kp): int(system.predictions[arg][kp] > 0.5)
              for arg, kp, _ in track2.evaluated_pairs("test", ARGUMENTS, system)}
    track_1 = track2.mean_average_precision("test", ARGUMENTS, system, labels).metrics
    result = judged_map("test", ARGUMENTS, system, labels)
    assert result.judged == 13
    assert result.value == pytest.approx(track_1["strict"]) == pytest.approx(track_1["relaxed"])


def test_a_sample_is_scored_on_its_judged_pairs_alone() -> None:
    """Two judged pairs per topic and stance, the better-scored one a match: AP 1 in each group, times 1 match of 2
    judged (the Track-1 code's factor: "a perfect score of 1 can only be achieved when all top 50% matches are
    correct", §3.3.1), so 0.5. The Track-1 scorer on the same verdicts counts the 11 unjudged pairs too."""
    system = run("alpha")
    labels = best_two_per_group(system)
    result = judged_map("test", ARGUMENTS, system, labels)
    assert (result.value, result.judged) == (pytest.approx(0.5), 4)
    assert [(g["judged"], g["matches"]) for g in result.groups] == [(2, 1), (2, 1)]
    track_1 = track2.mean_average_precision("test", ARGUMENTS, system, labels).metrics
    assert track_1["strict"] != pytest.approx(0.5) and track_1["relaxed"] != pytest.approx(0.5)


def test_the_earlier_track_1_codes_plain_ap_is_offered() -> None:
    system = run("alpha")
    assert judged_map("test", ARGUMENTS, system, best_two_per_group(system), variant="plain-ap").value == \
        pytest.approx(1.0)


def test_nothing_judged_gives_no_map_rather_than_zero() -> None:
    result = judged_map("test", ARGUMENTS, run("beta"), {})
    assert (result.value, result.judged, result.groups) == (None, 0, [])


def test_an_unanswered_argument_in_the_top_half_is_a_known_wrong_match_as_in_track_1() -> None:
    """Track-1 code (formats-and-scorers §1.3 step 4): an argument without a prediction that falls in the top half
    is a false positive scored 0.99; nobody judges it, and it still counts."""
    alpha = run("alpha")
    unanswered = [a.arg_id for a in ARGUMENTS if a.stance == -1][:8]  # 8 of the 14 con arguments: > floor(14/2)
    system = track2.SystemRun("alpha", alpha.key_points,
                              {arg: scores for arg, scores in alpha.predictions.items() if arg not in unanswered})
    labels = {(arg, kp): 1 for arg, kp, _ in track2.evaluated_pairs("test", ARGUMENTS, system)}
    con = next(g for g in judged_map("test", ARGUMENTS, system, labels).groups if g["stance"] == -1)
    assert (con["judged"], con["unanswered"], con["matches"]) == (6, 1, 6)
    assert con["ap"] < 1.0
