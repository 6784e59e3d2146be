"""An export of a project with no complete item, in every registered format: the gold file is there, holding no
row (its header only, or empty where the official format has no header), and the CLI and the project page say
why. On realistic data: each format's excerpt in tests/data (tests/support/type_data.py), one annotator's votes on three
items of a k=3 project."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from annotator.engine import assignment as engine
from annotator.lookups.formats import FORMATS
from annotator.tasks import project_task, settings_with_defaults
from tests.conftest import load_project
from tests.support.type_data import format_data

# The gold file of each format's export; NO_HEADER: the formats whose gold file has no header line.
GOLD_FILES = {"kpa2021": "labels_test.csv", "kpa2021-check": "pairs.csv", "kpa2021-compare": "judgments.csv",
              "emphasis2020": "dev_excerpt.txt", "ruarg2022": "train_excerpt.tsv",
              "recam2021": "Task_1_dev_excerpt.jsonl", "custom": "gold.csv"}
NO_HEADER = {"emphasis2020", "recam2021"}


@pytest.fixture(params=sorted(FORMATS))
def half_voted(request, app, make_user):  # type: ignore[no-untyped-def]
    """A k=3 project of the format with one annotator's votes on 3 items: none complete."""
    fmt = FORMATS[request.param]
    if fmt.name not in GOLD_FILES:
        pytest.fail(f"name the gold file of format {fmt.name!r} in GOLD_FILES of {__file__}")
    data = format_data(fmt.name)
    project = load_project(data.format, data.path, "p", **{**data.options, "k": 3})
    task = project_task(project)
    settings = settings_with_defaults(task, project.settings)
    rng, user = random.Random(1), make_user("a")
    for _ in range(3):
        if (lease := engine.next_for(user, project)) is None:
            break
        engine.submit(lease.id, user, task.example_answer(task.public_item(lease.item, settings, lease.presentation),
                                                          rng))
    return fmt


def export(app, fmt, out: Path):  # type: ignore[no-untyped-def]
    return app.test_cli_runner().invoke(args=["export", fmt.name, "--project", "p", "--out", str(out)])


def test_the_gold_file_is_written_with_no_row(app, half_voted, tmp_path):
    """The header only (CSV and TSV formats) or empty (emphasis's 7-field layout, ReCAM's JSON Lines)."""
    assert export(app, half_voted, tmp_path / "out").exit_code == 0
    gold = tmp_path / "out" / GOLD_FILES[half_voted.name]
    assert gold.is_file()
    lines = gold.read_text(encoding="utf-8").splitlines()
    assert lines == ([] if half_voted.name in NO_HEADER else [lines[0]])


def test_the_command_says_why_the_gold_file_holds_no_row(app, half_voted, tmp_path):
    output = export(app, half_voted, tmp_path / "out").output
    assert "No item of project p is complete yet (3 votes; 0 of " in output
    assert "so there is no gold yet: gold comes from complete items only. Its gold file holds no row" in output
