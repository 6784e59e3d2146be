"""`flask demo`: what `make run` needs on a fresh database, and harmless to run again.

The demo projects are data, listed in annotator/campaigns/demo/projects.json (slug, name, format, path,
options, guidelines, licence notice), and go through the same import as `flask import`.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import click
from flask.cli import with_appcontext
from sqlalchemy import select

from annotator.campaigns.imports import ImportRefused, import_files, import_transaction
from annotator.core.extensions import db
from annotator.core.models import Project, User
from annotator.people.accounts import create_user
from annotator.shared_tasks.formats import file_format

DEMO = Path(__file__).resolve().parents[1] / "campaigns" / "demo"
DEMO_ANNOTATORS = ("annotator1", "annotator2", "annotator3")


def demo_projects() -> list[dict[str, Any]]:
    return json.loads((DEMO / "projects.json").read_text(encoding="utf-8"))["projects"]


@click.command("demo")
@with_appcontext
def demo_command() -> None:
    """Ensure an admin account, three demo annotators and the demo projects exist."""
    if db.session.scalar(select(User).where(User.role == "admin")) is None:
        password = create_user("admin", "admin", os.environ.get("ANNOTATOR_ADMIN_PASSWORD")).password
        shown = "from ANNOTATOR_ADMIN_PASSWORD" if os.environ.get("ANNOTATOR_ADMIN_PASSWORD") else password
        click.echo(f"Admin account: admin / {shown}  (shown once; change it on the Password page or with "
                   "`flask users password admin`)")
    if db.session.scalar(select(User).where(User.username == DEMO_ANNOTATORS[0])) is None:
        demo_password = os.environ.get("ANNOTATOR_DEMO_PASSWORD")
        for name in DEMO_ANNOTATORS:  # the first one's password (given or generated) is the others' too
            demo_password = create_user(name, "annotator", demo_password).password
        click.echo(f"Demo annotators: {', '.join(DEMO_ANNOTATORS)} / {demo_password}  (shown once)")
    db.session.commit()
    for spec in demo_projects():
        if db.session.scalar(select(Project).where(Project.slug == spec["slug"])) is None:
            _load(spec)


def _load(spec: dict[str, Any]) -> None:
    try:
        with import_transaction():
            result = import_files(file_format(spec["format"]), DEMO / spec["path"], slug=spec["slug"],
                                  name=spec["name"], options=spec.get("options", {}))
            result.project.guidelines = (DEMO / spec["guidelines"]).read_text(encoding="utf-8").strip() \
                if spec.get("guidelines") else ""
    except ImportRefused as error:
        raise click.ClickException(str(error)) from None
    click.echo(f"Demo project {spec['slug']!r}: {spec['notice']}")
