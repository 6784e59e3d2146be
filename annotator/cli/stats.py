"""`flask stats PROJECT...`: the shared task's dataset table of projects; `--split-sizes` draws a split first.

    flask stats kpa-train kpa-dev kpa-test            # KPA-2021 Table 1, a row per split and one over all
    flask stats campaign --split-sizes 2741,392,743 --seed 1   # draw train/dev/test, then the table by split
"""
from __future__ import annotations

import json
from pathlib import Path

import click
from flask.cli import with_appcontext

from annotator.actions.splits import draw_split
from annotator.campaigns.splits import SplitError, parse_names, parse_sizes
from annotator.cli.data import project_or_fail
from annotator.core.audit import who
from annotator.shared_tasks.dataset_stats import StatsError, dataset_report, stats_for
from annotator.shared_tasks.stats_base import LABEL_SOURCES


@click.command("stats")
@with_appcontext
@click.argument("slugs", metavar="PROJECT...", nargs=-1, required=True)
@click.option("--labels", type=click.Choice(LABEL_SOURCES), default="auto", show_default=True,
              help="Count the imported reference labels, the gold of the votes, or gold once there is any.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object instead of tables.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Also write the table as CSV and the report as report.json here.")
@click.option("--split-sizes", help="Draw a random split of the (one) project's items first, e.g. 2741,392,743; "
                                    "the sizes must add up to its item count.")
@click.option("--seed", type=int, help="The seed of the drawn split (required with --split-sizes): the same seed "
                                       "draws the same split.")
@click.option("--split-names", help="The names of the drawn splits, one per size.", default="train,dev,test",
              show_default=True)
def stats_command(slugs: tuple[str, ...], labels: str, as_json: bool, out_dir: Path | None, split_sizes: str | None,
                  seed: int | None, split_names: str) -> None:
    """The dataset table of the projects' shared task (one format), a row per split."""
    projects = [project_or_fail(slug) for slug in slugs]
    if split_sizes is not None:
        if len(projects) != 1:
            raise click.ClickException("--split-sizes draws the split of one project; name only that one")
        if seed is None:
            raise click.ClickException("--split-sizes needs --seed N, so that the split can be drawn again")
        try:
            split = draw_split(projects[0], parse_sizes(split_sizes), seed, who(), parse_names(split_names))
        except SplitError as error:
            raise click.ClickException(str(error)) from None
        click.echo(f"Drew the split of project {projects[0].slug!r} with seed {seed}: "
                   + ", ".join(f"{n} {s}" for n, s in zip(split.names, split.sizes)) + ".", err=True)
        try:
            stats_for(projects[0])
        except StatsError as error:
            click.echo(f"No dataset table: {error}.", err=True)
            return
    elif seed is not None:
        raise click.ClickException("--seed only goes with --split-sizes")
    try:
        report = dataset_report(projects, labels)
    except StatsError as error:
        raise click.ClickException(str(error)) from None
    if out_dir:
        for path in report.write(out_dir):
            click.echo(path, err=True)
    click.echo(json.dumps(report.to_json(), indent=2, ensure_ascii=False) if as_json
               else report.to_text(), nl=as_json)

