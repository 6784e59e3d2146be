"""`flask score`: the scorers behind one command, JSON output, and exit status 2 for bad submissions."""
from __future__ import annotations

import json

import pytest

from annotator import create_app
from tests.conftest import DATA, SHARED_DATA
from tests.support.emphasis_submissions import from_gold

SCORING = DATA / "scoring"


@pytest.fixture(scope="module")
def cli():  # type: ignore[no-untyped-def]
    """Scoring needs no database: one app for the module is enough."""
    runner = create_app("config.TestConfig").test_cli_runner()
    return lambda *args: runner.invoke(args=["score", *map(str, args)])


def test_recam_accuracy_as_json(cli):
    result = cli("recam2021", "--gold", SCORING / "recam2021" / "Task_1_dev_excerpt.jsonl",
                 "--predictions", SCORING / "recam2021" / "subtask1_excerpt.csv", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert set(report) >= {"accuracy", "detail", "warnings"} and 0 <= report["accuracy"] <= 1


@pytest.mark.shared_data
def test_recam_reference_number_through_the_cli(cli):
    data = SHARED_DATA / "recam2021" / "data"
    result = cli("recam2021", "--gold", data / "training_data" / "Task_2_dev.jsonl",
                 "--predictions", data / "submission example" / "subtask2.csv", "--json")
    assert json.loads(result.output)["accuracy"] == 0.5464159811985899


def test_kpa_metrics_and_options_as_json(cli, tmp_path):
    predictions = tmp_path / "predictions.json"
    predictions.write_text(json.dumps({"arg_1_0": {"kp_1_0": 0.9}, "arg_1_1": {"kp_1_1": 0.8}}))
    result = cli("kpa2021", "--gold", DATA / "kpa2021", "--split", "test", "--predictions", predictions,
                 "--variant", "plain-ap", "--json")
    assert result.exit_code == 0, result.output
    assert {"strict", "relaxed", "p_at_50_strict", "detail", "warnings"} <= set(json.loads(result.output))


def test_readable_table_without_json(cli, tmp_path):
    predictions = tmp_path / "predictions.json"
    predictions.write_text(json.dumps({"arg_1_0": {"kp_1_0": 0.9}}))
    result = cli("kpa2021", "--gold", DATA / "kpa2021", "--split", "test", "--predictions", predictions)
    assert result.exit_code == 0 and "strict" in result.output and "relaxed" in result.output


def test_malformed_submission_exits_2_naming_file_and_place(cli, tmp_path):
    predictions = tmp_path / "predictions.json"
    predictions.write_text('{"arg_1_0": {"kp_1_0": "high"}}')
    result = cli("kpa2021", "--gold", DATA / "kpa2021", "--split", "test", "--predictions", predictions)
    assert result.exit_code == 2
    assert "predictions.json" in result.output and "arg_1_0" in result.output


def test_bad_json_exits_2_with_line_and_column(cli, tmp_path):
    predictions = tmp_path / "predictions.json"
    predictions.write_text('{"arg_1_0": {"kp_1_0": 0.5},\n oops}')
    result = cli("kpa2021", "--gold", DATA / "kpa2021", "--split", "test", "--predictions", predictions)
    assert result.exit_code == 2 and "line 2" in result.output


def test_wrong_columns_in_a_ruarg_submission_exit_2(cli, tmp_path):
    predictions = tmp_path / "answer.tsv"
    predictions.write_text("text_id\tmasks_stance\n1\t2\n")
    result = cli("ruarg2022", "--gold", SCORING / "ruarg2022" / "train_excerpt.tsv", "--predictions", predictions)
    assert result.exit_code == 2 and "answer.tsv" in result.output


def test_an_option_of_another_task_is_refused(cli):
    result = cli("recam2021", "--gold", SCORING / "recam2021" / "Task_1_dev_excerpt.jsonl",
                 "--predictions", SCORING / "recam2021" / "subtask1_excerpt.csv", "--numeric")
    assert result.exit_code == 2 and "--numeric does not apply to recam2021" in result.output


def test_unusable_gold_exits_1(cli, tmp_path):
    gold = tmp_path / "gold.jsonl"
    gold.write_text("not json\n")
    result = cli("recam2021", "--gold", gold, "--predictions", SCORING / "recam2021" / "subtask1_excerpt.csv")
    assert result.exit_code == 1 and "gold" in result.output


def _emphasis_submission(path, value):  # type: ignore[no-untyped-def]
    path.write_text(from_gold(SCORING / "emphasis2020" / "dev_excerpt.txt", value), encoding="utf-8")
    return path


def test_emphasis_shows_the_numeric_comparison_beside_the_official_score_when_they_differ(cli, tmp_path):
    tenfold = _emphasis_submission(tmp_path / "tenfold.txt", lambda p: str(round(10 * float(p), 3)))
    result = cli("emphasis2020", "--gold", SCORING / "emphasis2020" / "dev_excerpt.txt", "--predictions", tenfold)
    assert result.exit_code == 0, result.output
    assert "  score    0.86875  (numeric comparison: 1.0)\n" in result.output
    as_json = json.loads(cli("emphasis2020", "--gold", SCORING / "emphasis2020" / "dev_excerpt.txt",
                             "--predictions", tenfold, "--json").output)
    assert (as_json["score"], as_json["beside"]["numeric comparison"]["score"]) == (0.86875, 1.0)


def test_emphasis_refuses_a_negative_score_with_exit_2_and_its_line(cli, tmp_path):
    """Task paper, section 5: scores are "greater and equal to zero"."""
    negated = _emphasis_submission(tmp_path / "negated.txt", lambda p: repr(-float(p)))
    result = cli("emphasis2020", "--gold", SCORING / "emphasis2020" / "dev_excerpt.txt", "--predictions", negated)
    assert result.exit_code == 2
    assert "negated.txt, line 2, column score: score '-0.2222222222222222' is negative" in result.output
