"""`flask aggregate --project SLUG --method dawid-skene`: other aggregations of the votes beside the task's rule."""
from __future__ import annotations

import json
from pathlib import Path

import click
from flask.cli import with_appcontext

from annotator.analysis.aggregation import METHODS, posterior_table, project_dawid_skene
from annotator.cli.data import project_or_fail
from annotator.core.csv_cells import write_csv


@click.command("aggregate")
@with_appcontext
@click.option("--project", "slug", required=True)
@click.option("--method", type=click.Choice(METHODS), default=METHODS[0], show_default=True)
@click.option("--tol", type=click.FloatRange(min=0), default=1e-5, show_default=True,
              help="Stop when the log-likelihood moves by less than this.")
@click.option("--max-iter", type=click.IntRange(min=0), default=100, show_default=True,
              help="At most this many EM iterations.")
@click.option("--csv", "csv_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also write every unit's posteriors as columns to this CSV file.")
@click.option("--seed-controls", is_flag=True, help="Fit with the control items' votes too, their known answers "
                                                     "fixed.")
@click.option("--json", "as_json", is_flag=True, help="Every unit's posterior and every annotator's confusion "
                                                      "matrix (one-coin: accuracy), as one JSON object.")
def aggregate_command(slug: str, method: str, tol: float, max_iter: int, csv_path: Path | None, seed_controls: bool,
                      as_json: bool) -> None:
    """Dawid-Skene (or one-coin) labels of each categorical field, compared with the task's gold."""
    project = project_or_fail(slug)
    fields = project_dawid_skene(project, tol=tol, max_iter=max_iter, method=method, seed_controls=seed_controls)
    if csv_path is not None:
        write_csv(csv_path, *posterior_table(fields))
    if as_json:
        click.echo(json.dumps({"project": slug, "method": method, "tol": tol, "max_iter": max_iter,
                               "fields": [f.to_dict() for f in fields]}, indent=2))
        return
    for f in fields:
        state = "converged" if f.converged else "did not converge"
        click.echo(f"[{f.field}] {len(f.units)} units, classes {', '.join(f.classes) or '-'}; "
                   f"{state} after {f.iterations} iterations")
        click.echo("  priors " + ", ".join(f"{c} {p:.3f}" for c, p in f.priors.items()))
        if f.seeded is not None:
            click.echo(f"  seeded with the known answers of {f.seeded} control units")
        if f.method == "one-coin":
            click.echo("  likely spammers (accuracy little above chance): " + (", ".join(f.spammers) or "none"))
        if f.compared:
            click.echo(f"  differs from the task's gold on {f.differing} of "
                       f"{sum(1 for u in f.units if u.gold is not None)} units")
        else:
            click.echo("  (the task type gives no gold per unit for this field to compare with)")
