"""The common interface: one registry, one report type, one ranking function for the four tasks."""
from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import pytest

from annotator.core.errors import SubmissionError
from annotator.lookups.scorers import SCORERS, ScoreReport, rank, score_files


@pytest.fixture
def sample_inputs(excerpts: Path, tmp_path: Path) -> dict[str, tuple[Path, Path]]:
    """Gold and a submission per task, from the excerpts."""
    kpa = excerpts / "kpa2021"
    predictions = tmp_path / "kpa.json"
    predictions.write_text(json.dumps({"arg_4_0": {"kp_4_1": 0.9}, "arg_4_121": {"kp_4_0": 0.8}}))
    emphasis = excerpts / "emphasis2020" / "dev_excerpt.txt"
    answer = tmp_path / "emphasis.txt"
    answer.write_text("\n" + "\n\n".join("\n".join("x\tw\t0.5\t" for _ in range(n)) for n in (9, 9, 4, 3, 2)) + "\n")
    ruarg = excerpts / "ruarg2022" / "train_excerpt.tsv"
    recam = excerpts / "recam2021"
    return {"kpa2021": (kpa, predictions), "emphasis2020": (emphasis, answer), "ruarg2022": (ruarg, ruarg),
            "recam2021": (recam / "Task_1_dev_excerpt.jsonl", recam / "subtask1_excerpt.csv")}


def test_the_registry_knows_the_four_tasks() -> None:
    assert set(SCORERS) == {"kpa2021", "emphasis2020", "ruarg2022", "recam2021"}


def test_every_task_reports_exactly_its_declared_metrics(sample_inputs: dict[str, tuple[Path, Path]]) -> None:
    for task, (gold, predictions) in sample_inputs.items():
        report = score_files(task, gold, predictions)
        assert report.task == task
        assert tuple(report.metrics) == SCORERS[task].metrics
        assert all(type(v) is float for v in report.metrics.values())


def test_every_report_is_one_strict_json_object_with_metrics_at_the_top(
        sample_inputs: dict[str, tuple[Path, Path]]) -> None:
    for task, (gold, predictions) in sample_inputs.items():
        out = score_files(task, gold, predictions).to_json()
        assert set(out) == set(SCORERS[task].metrics) | {"detail", "warnings", "beside"}
        json.dumps(out, allow_nan=False)


def test_the_text_rendering_shows_metrics_tables_and_warnings(sample_inputs: dict[str, tuple[Path, Path]]) -> None:
    report = score_files("kpa2021", *sample_inputs["kpa2021"])
    text = report.to_text()
    assert "strict" in text and "relaxed" in text and "groups:" in text and "warnings:" in text
    assert "We should abandon the use of school uniform" in text


def test_options_are_passed_through_and_accepted_as_text(sample_inputs: dict[str, tuple[Path, Path]],
                                                         tmp_path: Path) -> None:
    gold, predictions = sample_inputs["kpa2021"]
    test_gold = tmp_path / "kpa_test"
    test_gold.mkdir()
    for kind in ("arguments", "key_points", "labels"):
        shutil.copy(gold / f"{kind}_dev.csv", test_gold / f"{kind}_test.csv")
    report = score_files("kpa2021", test_gold, predictions, split="test", variant="plain-ap", strict_topics="true")
    assert (report.detail["split"], report.detail["variant"], report.detail["strict_topics"]) == ("test", "plain-ap",
                                                                                                   True)
    recam = score_files("recam2021", *sample_inputs["recam2021"], subtask="1")
    assert recam.metrics == {"accuracy": 1.0}


@pytest.mark.parametrize("task, options, message", [
    ("kpa2021", {"numeric": True},
     "kpa2021: unknown option(s) numeric; accepted: split, variant, strict_topics, random_ties, seed"),
    ("kpa2021", {"variant": "latest"}, "option variant must be one of ('official', 'plain-ap')"),
    ("emphasis2020", {"numeric": "maybe"}, "option numeric must be a bool"),
    ("recam2021", {"subtask": 3}, "option subtask must be one of (1, 2)"),
    ("semeval2099", {}, "unknown task 'semeval2099'"),
])
def test_unknown_tasks_and_bad_options_are_refused_clearly(sample_inputs: dict[str, tuple[Path, Path]], task: str,
                                                           options: dict, message: str) -> None:
    gold, predictions = sample_inputs.get(task, sample_inputs["kpa2021"])
    with pytest.raises(ValueError) as caught:
        score_files(task, gold, predictions, **options)
    assert message in str(caught.value)


def reports(task: str, *metrics: dict[str, float]) -> list[ScoreReport]:
    return [ScoreReport(task, m) for m in metrics]


def test_kpa_ranks_by_the_mean_of_the_strict_and_relaxed_ranks_not_by_mean_map() -> None:
    teams = reports("kpa2021", {"strict": 0.9, "relaxed": 0.1}, {"strict": 0.5, "relaxed": 0.45},
                    {"strict": 0.4, "relaxed": 0.4})
    # strict ranks 1, 2, 3; relaxed ranks 3, 1, 2: means 2, 1.5, 2.5 (team 0 has the best mean mAP, 0.5)
    assert rank("kpa2021", teams) == [1, 0, 2]


def test_kpa_breaks_equal_mean_ranks_by_mean_map_then_keeps_input_order() -> None:
    teams = reports("kpa2021", {"strict": 0.6, "relaxed": 0.4}, {"strict": 0.4, "relaxed": 0.6},
                    {"strict": 0.5, "relaxed": 0.55}, {"strict": 0.6, "relaxed": 0.4})
    # strict ranks 1, 4, 3, 1; relaxed ranks 3, 1, 2, 3: mean ranks 2, 2.5, 2.5, 2
    assert rank("kpa2021", teams) == [0, 3, 2, 1]


def test_emphasis_and_recam_rank_by_their_single_metric() -> None:
    assert rank("emphasis2020", reports("emphasis2020", {"score": 0.3}, {"score": 0.7}, {"score": 0.5})) == [1, 2, 0]
    assert rank("recam2021", reports("recam2021", {"accuracy": 0.5}, {"accuracy": 0.9})) == [1, 0]


def test_ruarg_has_two_leaderboards_stance_by_default_and_premise() -> None:
    teams = reports("ruarg2022", {"f1_stance": 0.6, "f1_premise": 0.1}, {"f1_stance": 0.5, "f1_premise": 0.4},
                    {"f1_stance": 0.2, "f1_premise": 0.5})
    assert SCORERS["ruarg2022"].rankings == ("f1_stance", "f1_premise")
    assert rank("ruarg2022", teams) == [0, 1, 2]
    assert rank("ruarg2022", teams, by="f1_premise") == [2, 1, 0]
    assert rank("ruarg2022", teams, by="mean") == [1, 0, 2]


def test_ranking_refuses_reports_of_another_task_and_unknown_orders() -> None:
    with pytest.raises(ValueError, match="cannot rank a recam2021 report on the emphasis2020 leaderboard"):
        rank("emphasis2020", reports("recam2021", {"accuracy": 0.5}))
    with pytest.raises(ValueError, match="cannot rank by 'recall'"):
        rank("recam2021", reports("recam2021", {"accuracy": 0.5}), by="recall")


def _zip(tmp_path: Path, members: dict[str, str]) -> Path:
    path = tmp_path / "submission.zip"
    with zipfile.ZipFile(path, "w") as archive:
        for name, content in members.items():
            archive.writestr(name, content)
    return path


@pytest.mark.parametrize("task", sorted(SCORERS))
def test_a_zip_member_the_scorer_does_not_read_is_refused_by_name(sample_inputs, tmp_path: Path, task: str) -> None:
    """Before, recam2021 scored subtask1.csv and silently left out anything else in the zip."""
    gold, predictions = sample_inputs[task]
    declared = SCORERS[task].zip_members
    members = {declared[0].replace("*", "answer"): predictions.read_text(), "readme.txt": "our system"} if declared \
        else {predictions.name: predictions.read_text()}
    words = "holds 'readme.txt', which the .* scorer does not read" if declared else "a zip cannot be scored here"
    with pytest.raises(SubmissionError, match=words) as caught:
        score_files(task, gold, _zip(tmp_path, members))
    assert caught.value.file == "submission.zip"


@pytest.mark.parametrize("task", sorted(t for t in SCORERS if SCORERS[t].zip_members))
def test_a_zip_member_in_a_folder_or_no_member_is_refused(sample_inputs, tmp_path: Path, task: str) -> None:
    gold, predictions = sample_inputs[task]
    name = SCORERS[task].zip_members[0].replace("*", "answer")
    with pytest.raises(SubmissionError, match=f"holds 'out/{name}'.*at the zip's root"):
        score_files(task, gold, _zip(tmp_path, {f"out/{name}": predictions.read_text()}))
    with pytest.raises(SubmissionError, match="the zip holds no file"):
        score_files(task, gold, _zip(tmp_path, {"__MACOSX/._x": ""}))
