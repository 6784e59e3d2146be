"""`flask score TASK --gold PATH --predictions PATH`: the official metric of a shared task.

Exit status 2 for a submission that cannot be scored (like click's usage errors: the caller's input
is wrong), 1 for an unusable gold file, 0 with the report otherwise.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
from flask.cli import with_appcontext

from ..errors import FormatError, SubmissionError
from ..scoring import SCORERS, score_files


class SubmissionRefused(click.ClickException):
    exit_code = 2


@click.command("score")
@with_appcontext
@click.argument("task", type=click.Choice(sorted(SCORERS)))
@click.option("--gold", type=click.Path(exists=True, path_type=Path), required=True,
              help="Gold file, or for kpa2021 the folder with the three CSV files.")
@click.option("--predictions", type=click.Path(exists=True, dir_okay=False, path_type=Path), required=True)
@click.option("--split", help="kpa2021: which *_<split>.csv files to read (default dev).")
@click.option("--variant", type=click.Choice(["official", "plain-ap"]),
              help="kpa2021: official (HEAD, default) or plain-ap (before 2021-09-23).")
@click.option("--strict-topics", is_flag=True, default=None,
              help="kpa2021: count best key points of another topic or stance as wrong.")
@click.option("--numeric", is_flag=True, default=None,
              help="emphasis2020: compare scores as numbers, not as text like the official scorer.")
@click.option("--by-position", is_flag=True, default=None,
              help="ruarg2022: align rows by position like the CodaLab program, not by text_id.")
@click.option("--subtask", type=click.IntRange(1, 2), help="recam2021: which CSV of a zip to score.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object: the metrics, detail and warnings.")
def score_command(task: str, gold: Path, predictions: Path, as_json: bool, **given: Any) -> None:
    """Score PREDICTIONS against GOLD with TASK's official metric (kpa2021, emphasis2020, ruarg2022, recam2021)."""
    options = {name: value for name, value in given.items() if value is not None}
    foreign = sorted(set(options) - set(SCORERS[task].options))
    if foreign:
        names = ", ".join("--" + name.replace("_", "-") for name in foreign)
        raise click.UsageError(f"{names} does not apply to {task}")
    try:
        report = score_files(task, gold, predictions, **options)
    except SubmissionError as error:
        raise SubmissionRefused(f"the submission cannot be scored: {error}") from None
    except FormatError as error:
        raise click.ClickException(f"the gold data cannot be used: {error}") from None
    if as_json:
        click.echo(json.dumps(report.to_json(), indent=2, ensure_ascii=False))
    else:
        click.echo(report.to_text(), nl=False)
