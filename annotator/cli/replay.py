"""`flask replay --project SLUG --stopping decided|confidence:P:M[:FIELD[:W]]`: a finished project's votes replayed
under a stopping rule (annotator/analysis/replay.py, docs/replay.md)."""
from __future__ import annotations

import json

import click
from flask.cli import with_appcontext

from annotator.analysis.replay import StoppingError, parse_stopping
from annotator.analysis.replay_project import ReplayRefused, project_replay
from annotator.cli.data import project_or_fail


def _figure(value: float | None) -> str:
    return "undefined" if value is None else f"{value:.4f}"


@click.command("replay")
@with_appcontext
@click.option("--project", "slug", required=True)
@click.option("--stopping", required=True, help="decided (stop an item when the votes to come cannot change its "
                                                "gold) or confidence:P:M (the model's posterior of the gold at "
                                                "least P, after at least M votes), e.g. confidence:0.95:3; "
                                                "confidence:P:M:FIELD[:W] with a prior per group of items by the item "
                                                "field FIELD, weight W [5], e.g. confidence:0.985:2:word")
@click.option("--k", type=click.IntRange(min=1), default=None, help="The cap of votes per item [the project's k].")
@click.option("--routing", is_flag=True, help="Take the votes in the order the live routing would have (each "
                                              "annotator's next vote on the least certain item open to them), not "
                                              "in the order they came.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object: votes_full, votes_used, saved_share, "
                                                      "gold_changed, gold_changed_share, alpha_before, alpha_after...")
def replay_command(slug: str, stopping: str, k: int | None, routing: bool, as_json: bool) -> None:
    """Replay the project's stored votes in the order they came under a stopping rule: votes saved, gold changed."""
    project = project_or_fail(slug)
    try:
        rule = parse_stopping(stopping)
        replayed = project_replay(project, rule, k, routing)
    except (StoppingError, ReplayRefused) as error:
        raise click.ClickException(str(error)) from None
    if as_json:
        click.echo(json.dumps(replayed.to_dict(), indent=2))
        return
    r = replayed.result
    routed = ", routed" if r.routing else ""
    click.echo(f"{slug}: {r.stopping}{routed}, k = {r.k}, questions {', '.join(replayed.questions)}; "
               f"{r.items} items, {r.units} units")
    click.echo(f"  votes used {r.votes_used} of {r.votes_full}: {r.saved_share:.1%} saved"
               + (f" ({r.votes_beyond_k} votes beyond k left out)" if r.votes_beyond_k else ""))
    click.echo(f"  gold changed on {r.gold_changed} units ({r.gold_changed_share:.2%})")
    click.echo(f"  Krippendorff's alpha {_figure(r.alpha_full)} on the full votes, {_figure(r.alpha_used)} on "
               "those used")
    if r.truth_units:
        click.echo(f"  accuracy against the {r.truth_units} known answers: {_figure(r.accuracy(False))} full, "
                   f"{_figure(r.accuracy(True))} used")
    for question, why in replayed.left_out.items():
        click.echo(f"  not replayed: {question} ({why})")
