"""`flask demo`: what `make run` needs on a fresh database, and harmless to run again."""
from __future__ import annotations

import os

import click
from flask.cli import with_appcontext
from sqlalchemy import select

from ..errors import FormatError
from ..exchange import kpa2021
from ..extensions import db
from ..formats.kpa2021 import shipped_demo_dir
from ..models import Project, User
from .users import create_user

DEMO_PROJECT = "kpa-demo"
DEMO_ANNOTATORS = ("annotator1", "annotator2", "annotator3")


@click.command("demo")
@with_appcontext
def demo_command() -> None:
    """Ensure an admin account, three demo annotators and the demo KPA project exist."""
    if db.session.scalar(select(User).where(User.role == "admin")) is None:
        _, password = create_user("admin", "admin", os.environ.get("ANNOTATOR_ADMIN_PASSWORD"))
        shown = "from ANNOTATOR_ADMIN_PASSWORD" if os.environ.get("ANNOTATOR_ADMIN_PASSWORD") else password
        click.echo(f"Admin account: admin / {shown}  (shown once; change it on the Password page or with `flask users password admin`)")
    if db.session.scalar(select(User).where(User.username == DEMO_ANNOTATORS[0])) is None:
        password = os.environ.get("ANNOTATOR_DEMO_PASSWORD")
        for name in DEMO_ANNOTATORS:
            _, password = create_user(name, "annotator", password)
        click.echo(f"Demo annotators: {', '.join(DEMO_ANNOTATORS)} / {password}  (shown once)")
    if db.session.scalar(select(Project).where(Project.slug == DEMO_PROJECT)) is None:
        try:
            project, count = kpa2021.import_files(shipped_demo_dir(), split="dev", project=DEMO_PROJECT,
                                                  name="KPA-2021 dev (demo)")
        except FormatError as error:
            db.session.rollback()
            raise click.ClickException(str(error)) from None
        project.guidelines = project.guidelines or DEMO_GUIDELINES
        click.echo(f"Demo project {DEMO_PROJECT!r}: {count} arguments of the KPA-2021 dev split "
                   "(ArgKP, © IBM 2020, CDLA-Sharing-1.0).")
    db.session.commit()


DEMO_GUIDELINES = """\
Read the argument and decide, for each key point shown, whether the argument expresses it.
A key point matches when it captures the gist of the argument, or the argument directly supports it.
Mark every key point that matches; if none does, choose "None of these key points".

Keyboard: number keys toggle key points, 0 chooses "None of these key points", Enter submits."""
