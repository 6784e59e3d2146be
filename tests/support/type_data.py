"""Sample data per HIT type: for each registered task type, a project the tests can import and annotate.

Tests that must hold for every type (the concurrency test, the API and upload properties, the views of
every type) are parametrised over `annotator.tasks.TASK_TYPES` and take the type's project from here, so a
new type is covered by all of them as soon as it has an entry. Every registered HIT type must have one:
tests/unit/test_type_data.py fails for a type without it, and `type_data` fails the test that asks.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import DATA


@dataclass(frozen=True)
class TypeData:
    """Where a task type's test project comes from: a format, its input, and the import's options."""

    format: str
    path: Path
    options: dict[str, Any] = field(default_factory=dict)  # format options, k, lease_minutes, settings


# One entry per registered task type; each test chooses its own k.
TEST_DATA: dict[str, TypeData] = {
    "custom": TypeData("custom", DATA / "declared" / "items.jsonl",                           # 3 items
                       {"definition": DATA / "declared" / "every_kind.yaml"}),
}


# Formats that feed a type another format already covers above (a shared task's format whose projects are declared
# ones, the built-in type it had removed): their own data, for the tests that run over every format.
MORE_FORMATS: dict[str, TypeData] = {
    "emphasis2020": TypeData("emphasis2020", DATA / "emphasis2020" / "dev_excerpt.txt"),      # 3 items
    "recam2021": TypeData("recam2021", DATA / "recam2021" / "Task_1_dev_excerpt.jsonl"),       # 4 items
    "kpa2021": TypeData("kpa2021", DATA / "kpa2021", {"split": "test"}),                     # 26 items
    "kpa2021-check": TypeData("kpa2021-check", DATA / "kpa2021_track2", {"split": "test"}),  # 39 items
    "kpa2021-compare": TypeData("kpa2021-compare", DATA / "kpa2021_track2", {"split": "test"}),  # 6 items
    "ruarg2022": TypeData("ruarg2022", DATA / "ruarg2022" / "train_excerpt.tsv"),              # 11 items
}
EVERY_FORMAT: dict[str, TypeData] = {**{data.format: data for data in TEST_DATA.values()}, **MORE_FORMATS}


def format_data(format_name: str) -> TypeData:
    """The test data of a format (its type's entry, or its own in MORE_FORMATS); the asking test fails, saying what
    to add, when there is none."""
    if format_name not in EVERY_FORMAT:
        pytest.fail(f"no test data for format {format_name!r}: add it to MORE_FORMATS in {__file__}")
    return EVERY_FORMAT[format_name]


def type_data(task_name: str) -> TypeData:
    """The entry of a task type; the asking test fails, saying what to add, when there is none."""
    if task_name not in TEST_DATA:
        pytest.fail(f"no test data for task type {task_name!r}: add it to TEST_DATA in {__file__}")
    return TEST_DATA[task_name]
