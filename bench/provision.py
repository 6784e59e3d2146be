"""The part of a run's set-up that has no `flask` command: trimming the import, and the annotators.

Run as `python -m bench.provision --project SLUG --annotators N [--items M]` in the environment
gunicorn gets (DATABASE_URL ...), after `flask db upgrade` and `flask import`. It keeps only the
project's first M items when asked (for formats without a smaller copy, see data.py), creates the
annotators ann1..annN with an API token each (one process: 20 runs of `flask users add` would take
longer than the load), and prints one JSON line: {"tokens": {username: token}, "items": count}.
"""
from __future__ import annotations

import argparse
import json

from sqlalchemy import delete, func, select

from annotator import create_app
from annotator.accounts import create_user, issue_token
from annotator.extensions import db
from annotator.models import Item, Project
from annotator.projects import refresh_statistics


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--project", required=True)
    parser.add_argument("--annotators", type=int, required=True)
    parser.add_argument("--items", type=int, default=0, help="keep only the first N items (0: all)")
    args = parser.parse_args()
    with create_app().app_context():
        project = db.session.scalar(select(Project).where(Project.slug == args.project))
        if args.items:
            keep_first(project, args.items)
        tokens = annotators(args.annotators)
        count = db.session.scalar(select(func.count()).select_from(Item).where(Item.project_id == project.id))
    print(json.dumps({"tokens": tokens, "items": count}))


if __name__ == "__main__":
    main()
