"""bench/data.py's `describe`: what the load and pages benchmarks read of their data before the load starts.

Every shared task's campaign is a declared definition now, so the type a benchmark's clients answer with must be
bound to the definition the import makes, as a project's is; unbound, the benchmarks stopped at their set-up. The
expected values are read from the input files themselves, not from the code under test.
"""
from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from bench.common import ROOT, SetupError
from bench.data import DEFAULT, DataSpec, describe

EXAMPLES = ROOT / "examples"


def first_csv_row(path: Path) -> dict[str, str]:
    with open(path, newline="", encoding="utf-8") as f:
        return next(csv.DictReader(f))


def test_the_default_data_gives_a_type_bound_to_its_definition() -> None:
    data = describe(DEFAULT, 3)

    assert data.task.definition.questions, "the declared KPA type reads its questions from the import's definition"
    assert data.items == 3


def test_the_default_data_shows_its_first_argument_as_the_file_has_it() -> None:
    first = first_csv_row(DEFAULT.path / "arguments_dev.csv")

    sample = describe(DEFAULT, 1).sample_item

    assert (sample["id"], sample["argument"], sample["topic"]) == (first["arg_id"], first["argument"], first["topic"])
    with open(DEFAULT.path / "key_points_dev.csv", newline="", encoding="utf-8") as f:
        topic_points = [row["key_point"] for row in csv.DictReader(f) if row["topic"] == first["topic"]
                        and row["stance"] == first["stance"]]
    assert [kp["text"] for kp in sample["key_points"]] == topic_points


def test_an_item_count_of_zero_takes_every_item() -> None:
    with open(DEFAULT.path / "arguments_dev.csv", newline="", encoding="utf-8") as f:
        arguments = sum(1 for _ in csv.DictReader(f))

    assert describe(DEFAULT, 0).items == arguments


def test_a_declared_definition_of_ones_own_is_bound_too() -> None:
    spec = DataSpec("custom", EXAMPLES / "claim_stance_likert_items.jsonl",
                    {"definition": (str(EXAMPLES / "claim_stance_likert.yaml"),)})
    with open(spec.path, encoding="utf-8") as f:
        first = json.loads(f.readline())

    data = describe(spec, 2)

    assert data.task.definition.name
    assert data.sample_item["id"] == first["id"]
    assert data.sample_item["text"] == first["text"]


def test_a_file_with_no_items_is_refused_with_its_path(tmp_path: Path) -> None:
    empty = tmp_path / "items.jsonl"
    empty.write_text("", encoding="utf-8")
    spec = DataSpec("custom", empty, {"definition": (str(EXAMPLES / "claim_stance_likert.yaml"),)})

    with pytest.raises(SetupError, match=r"custom refuses .*items.jsonl: .*holds no item"):
        describe(spec, 1)
