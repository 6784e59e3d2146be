"""The part of a run's set-up that has no `flask` command: trimming the import, and the annotators.

Run as `python -m bench.provision --project SLUG --annotators N [--items M]` in the environment
gunicorn gets (DATABASE_URL ...), after `flask db upgrade` and `flask import`. It keeps only the
project's first M items when asked (for formats without a smaller copy, see data.py), creates the
annotators ann1..annN with an API token each (one process: 20 runs of `flask users add` would take
longer than the load), and prints one JSON line: {"tokens": {username: token}, "items": count}.
With `--controls N` the first N items that have a reference answer become control items, and
`--quality KEY=VALUE` sets the project's quality control (annotator/core/quality_settings.py), so that
the hot path is measured with control items served and scored and blocking evaluated.
"""
from __future__ import annotations

import argparse
import json

from sqlalchemy import delete, func, select

from annotator import create_app
from annotator.campaigns.projects import refresh_statistics
from annotator.core.extensions import db
from annotator.core.models import Item, Project
from annotator.people.accounts import create_user, issue_token


def keep_first(project: Project, items: int) -> None:
    """Delete the project's items after the first `items` (by position, i.e. input order)."""
    first = select(Item.position).where(Item.project_id == project.id).order_by(Item.position).offset(items).limit(1)
    cut = db.session.scalar(first)
    if cut is not None:
        db.session.execute(delete(Item).where(Item.project_id == project.id, Item.position >= cut))
        db.session.commit()
        refresh_statistics()


def annotators(count: int) -> dict[str, str]:
    """ann1..annN with one API token each, committed."""
    tokens = {}
    for n in range(1, count + 1):
        user = create_user(f"ann{n}", "annotator", "bench-password").user
        tokens[user.username] = issue_token(user)
    db.session.commit()
    return tokens


def quality(project: Project, controls: int, settings: list[str]) -> int:
    """Make the first `controls` items with a reference answer control items and apply the quality
    settings; the number of control items made. Bad settings stop the run (OptionError, named)."""
    from annotator.core.quality_settings import checked_quality
    from annotator.quality.controls import make_control

    given = dict(option.split("=", 1) for option in settings)
    made = 0
    if controls:
        for item in db.session.scalars(select(Item).where(Item.project_id == project.id, Item.reference.is_not(None))
                                       .order_by(Item.position).limit(controls)):
            make_control(item, project)
            made += 1
    if given:
        project.quality = checked_quality(project, given)
    db.session.commit()
    return made


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--project", required=True)
    parser.add_argument("--annotators", type=int, required=True)
    parser.add_argument("--items", type=int, default=0, help="keep only the first N items (0: all)")
    parser.add_argument("--controls", type=int, default=0, help="make the first N items with a reference control items")
    parser.add_argument("--quality", action="append", default=[], metavar="KEY=VALUE", help="a quality setting")
    args = parser.parse_args()
    with create_app().app_context():
        project = db.session.scalar(select(Project).where(Project.slug == args.project))
        if args.items:
            keep_first(project, args.items)
        controls = quality(project, args.controls, args.quality)
        tokens = annotators(args.annotators)
        count = db.session.scalar(select(func.count()).select_from(Item).where(Item.project_id == project.id))
    print(json.dumps({"tokens": tokens, "items": count, "controls": controls}))


if __name__ == "__main__":
    main()
