"""`flask demo`: what `make run` needs on a fresh database, and harmless to run again.

The demo projects are data, listed in annotator/campaigns/demo/projects.json (slug, name, format, path,
options, HIT settings, k, guidelines, what the campaign is for, licence notice, items to complete), and go
through the same import as `flask import`: one project per built-in HIT type. A newly loaded project then
gets some votes of the demo annotators through the assignment engine, as if they had answered in the
browser, so that the dashboard, agreement and gold show something from the start (see demo_votes).
"""
from __future__ import annotations

import os
import random
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import click
from flask.cli import with_appcontext
from sqlalchemy import func, select, update

from annotator.actions.imports import import_project
from annotator.campaigns.demo_projects import DEMO, DEMO_ANNOTATORS, demo_projects
from annotator.campaigns.import_refused import ImportRefused
from annotator.core.audit import who
from annotator.core.extensions import db
from annotator.core.models import Item, Project, User, utcnow
from annotator.engine import assignment as engine
from annotator.lookups.formats import file_format
from annotator.people.accounts import AccountError, NewAccount, create_user
from annotator.tasks import TaskType, project_task

AGREE = 0.75  # how often a demo annotator gives the item's "true" answer rather than one drawn at random
SECONDS_PER_HIT = 40  # the demo votes are spread over time so that the dashboard's time charts have a shape


@click.command("demo")
@with_appcontext
def demo_command() -> None:
    """Ensure an admin account, three demo annotators and the demo projects (one per HIT type, with votes) exist."""
    existing = []
    admin = db.session.scalar(select(User).where(User.role == "admin").order_by(User.id).limit(1))
    if admin is None:
        given = os.environ.get("ANNOTATOR_ADMIN_PASSWORD") or None
        password = _account("admin", "admin", given, "ANNOTATOR_ADMIN_PASSWORD").password
        shown = "from ANNOTATOR_ADMIN_PASSWORD" if given else password
        click.echo(f"Admin account: admin / {shown}  (shown once; change it on the Password page or with "
                   "`flask users password admin`)")
    else:
        existing.append(admin.username)
    if db.session.scalar(select(User).where(User.username == DEMO_ANNOTATORS[0])) is None:
        demo_password = os.environ.get("ANNOTATOR_DEMO_PASSWORD") or None
        for name in DEMO_ANNOTATORS:  # the first one's password (given or generated) is the others' too
            demo_password = _account(name, "annotator", demo_password, "ANNOTATOR_DEMO_PASSWORD").password
        click.echo(f"Demo annotators: {', '.join(DEMO_ANNOTATORS)} / {demo_password}  (shown once)")
    else:
        existing.extend(DEMO_ANNOTATORS)
    db.session.commit()
    if existing:
        click.echo(login_hint(existing))
    for spec in demo_projects():
        if db.session.scalar(select(Project).where(Project.slug == spec["slug"])) is None:
            project = _load(spec)
            votes = demo_votes(project, spec.get("complete", 0), spec.get("open", 0))
            click.echo(f"Demo project {spec['slug']!r} ({spec['purpose']}): {spec['notice']}"
                       + (f" {votes} demo votes." if votes else "")
                       + (f" {spec['open']} items left without a vote, for everyone." if spec.get("open") else ""))


def login_hint(names: list[str]) -> str:
    """What a later run says about accounts made before: only their passwords' hashes are stored, so the
    passwords the first run printed cannot be shown again; a new one can be set."""
    return (f"Log in as {', '.join(names)}: these accounts were made by an earlier run, which printed their "
            "passwords once (only hashes are stored). Forgotten? Set a new one, printed once: "
            "`.venv/bin/flask --app annotator users password NAME`.")


def _account(name: str, role: str, password: str | None, variable: str) -> NewAccount:
    """A demo account; a password from the environment that the policy refuses stops the demo, naming the variable."""
    try:
        return create_user(name, role, password)
    except AccountError as error:
        db.session.rollback()
        raise click.ClickException(f"{variable}: {error}") from None


def _load(spec: dict[str, Any]) -> Project:
    fmt = file_format(spec["format"])
    paths = {o.name for o in fmt.import_options if o.type is Path}   # files named below the demo folder
    options = {name: DEMO / value if name in paths else value for name, value in spec.get("options", {}).items()}
    guidelines = (DEMO / spec["guidelines"]).read_text(encoding="utf-8").strip() if spec.get("guidelines") \
        else None   # a declared campaign's come with its definition
    try:
        result = import_project(fmt, DEMO / spec["path"], slug=spec["slug"], name=spec["name"], k=spec.get("k"),
                                options=options, settings=spec.get("settings"), guidelines=guidelines, by=who())
    except ImportRefused as error:
        raise click.ClickException(str(error)) from None
    return result.project


def demo_votes(project: Project, complete: int, open_items: int = 0) -> int:
    """Demo votes: the first items get k - 1 votes and `complete` of them all k, so gold and agreement have
    data; the last `open_items` (in file order) get none, so that every annotator, a new one as much as the
    demo ones, has HITs to do in every campaign, and still has after `annotator1` has done all of theirs.

    Cast through the engine, as in the browser (next_for then submit, one vote at a time, spread over the
    last hours): the last demo annotators answer every item they can get, then the first one answers
    `complete` HITs, which the engine (least-loaded item first) completes. The open items are held back from
    the engine meanwhile (_held_back), since the engine deals the least-loaded item first and would
    otherwise spread the votes over every item. The answers are drawn with a seed made of the project's slug,
    so the demo is the same every time: each annotator gives with probability AGREE the answer the task type
    says is likely (TaskType.likely_answer: the reference answer where there is one; drawn with a seed of the
    item's own, so the same for each annotator), else an answer of their own drawn at random.
    Returns the votes cast.
    """
    by_name = {u.username: u for u in db.session.scalars(select(User).where(User.username.in_(DEMO_ANNOTATORS),
                                                                            User.active.is_(True)))}
    voters = [by_name[n] for n in DEMO_ANNOTATORS[1:project.k] if n in by_name]
    first = by_name.get(DEMO_ANNOTATORS[0])
    plan = [(user, None) for user in voters] + ([(first, complete)] if first is not None else [])
    task = project_task(project)
    settings = task.settings_of(project)
    rng = random.Random(f"demo:{project.slug}")
    items = db.session.scalar(select(func.count()).select_from(Item).where(Item.project_id == project.id)) or 0
    start = utcnow() - timedelta(seconds=SECONDS_PER_HIT * 2 * (items * len(voters) + complete) + 3600)
    votes = 0
    with _held_back(project, open_items):   # which side is A: the engine draws it from the slug, item and name
        for user, hits in plan:
            while hits is None or hits > 0:
                now = start + timedelta(seconds=SECONDS_PER_HIT * 2 * votes)
                if not _vote(project, task, settings, user, rng, now):
                    break
                votes += 1
                hits = None if hits is None else hits - 1
    return votes


@contextmanager
def _held_back(project: Project, count: int) -> Iterator[None]:
    """The project's last `count` items kept out of the demo votes: shown to the engine as having all their
    votes meanwhile (done_count = k, which the engine never deals, not even as a control item), then put back
    to the no votes they have. Only for a project just imported, before anyone could work on it."""
    held = list(db.session.scalars(select(Item.id).where(Item.project_id == project.id, Item.done_count == 0)
                                   .order_by(Item.position.desc()).limit(count))) if count else []
    if held:
        db.session.execute(update(Item).where(Item.id.in_(held)).values(done_count=project.k))
        db.session.commit()
    try:
        yield
    finally:
        if held:
            db.session.execute(update(Item).where(Item.id.in_(held)).values(done_count=0))
            db.session.commit()


def _vote(project: Project, task: TaskType, settings: dict[str, Any], user: User, rng: random.Random,
          now: datetime) -> bool:
    """One demo vote of `user` through the engine at time `now`; False when nothing is left for them."""
    lease = engine.next_for(user, project, now=now)
    if lease is None:
        return False
    shown = task.public_item(lease.item, settings, lease.presentation)
    if rng.random() < AGREE:
        reference = db.session.get_one(Item, lease.item.id).reference  # the engine's item leaves it out
        answer = task.likely_answer(shown, reference, random.Random(f"demo:{project.slug}:{lease.item.external_id}"))
    else:
        answer = task.example_answer(shown, rng)
    engine.submit(lease.id, user, answer, now=now + timedelta(seconds=SECONDS_PER_HIT * (0.5 + rng.random())))
    return True
