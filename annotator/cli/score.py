"""`flask score TASK --gold PATH --predictions PATH`: the official metric of a shared task.

One subcommand per registered scorer, with that scorer's own options. Exit status 2 for a
submission that cannot be scored (like click's usage errors: the caller's input is wrong), 1 for an
unusable gold file, 0 with the report otherwise.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
from flask.cli import AppGroup

from annotator.cli.options import click_option, given
from annotator.core.errors import FormatError, SubmissionError
from annotator.lookups.scorers import SCORERS, Scorer, score_files


class SubmissionRefused(click.ClickException):
    exit_code = 2


class ScoreCommand(click.Command):
    """Says that an option of another task does not apply here, rather than that it does not exist."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)
        except click.NoSuchOption as error:
            others = {o.flag for s in SCORERS.values() for o in s.options}
            if error.option_name in others:
                raise click.UsageError(f"{error.option_name} does not apply to {self.name}", ctx) from None
            raise


def score_command(scorer: Scorer) -> click.Command:
    def run(gold: Path, predictions: Path, as_json: bool, **options: Any) -> None:
        try:
            report = score_files(scorer.name, gold, predictions, **given(options))
        except SubmissionError as error:
            raise SubmissionRefused(f"the submission cannot be scored: {error}") from None
        except FormatError as error:
            raise click.ClickException(f"the gold data cannot be used: {error}") from None
        if as_json:
            click.echo(json.dumps(report.to_json(), indent=2, ensure_ascii=False))
        else:
            click.echo(report.to_text(), nl=False)

    params: list[click.Parameter] = [
        click.Option(["--gold"], type=click.Path(exists=True, path_type=Path), required=True, help=scorer.gold),
        click.Option(["--predictions"], type=click.Path(exists=True, dir_okay=False, path_type=Path), required=True,
                     help=scorer.predictions),
        *(click_option(o) for o in scorer.options),
        click.Option(["--json", "as_json"], is_flag=True,
                     help="One JSON object: the metrics, detail, warnings and beside (another rule's figures "
                          "where they differ)."),
    ]
    return ScoreCommand(scorer.name, callback=run, params=params, help=f"{scorer.title}.")


score_group = AppGroup("score", help="Score a system's predictions against gold with a task's official metric.")
for _scorer in SCORERS.values():
    score_group.add_command(score_command(_scorer))
