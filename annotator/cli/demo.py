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
import re
from datetime import datetime, timedelta
from typing import Any

import click
from flask.cli import with_appcontext
from sqlalchemy import func, select

from annotator.campaigns.demo_projects import DEMO, DEMO_ANNOTATORS, demo_projects
from annotator.campaigns.imports import ImportRefused, import_files, import_transaction
from annotator.core.extensions import db
from annotator.core.models import Item, Project, User, utcnow
from annotator.engine import assignment as engine
from annotator.people.accounts import create_user
from annotator.shared_tasks.formats import file_format
from annotator.tasks import TaskType, settings_with_defaults, task_type

AGREE = 0.75  # how often a demo annotator gives the item's "true" answer rather than one drawn at random
SECONDS_PER_HIT = 40  # the demo votes are spread over time so that the dashboard's time charts have a shape


@click.command("demo")
@with_appcontext
def demo_command() -> None:
    """Ensure an admin account, three demo annotators and the demo projects (one per HIT type, with votes) exist."""
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
            project = _load(spec)
            votes = demo_votes(project, spec.get("complete", 0))
            click.echo(f"Demo project {spec['slug']!r} ({spec['purpose']}): {spec['notice']}"
                       + (f" {votes} demo votes." if votes else ""))


def _load(spec: dict[str, Any]) -> Project:
    try:
        with import_transaction():
            result = import_files(file_format(spec["format"]), DEMO / spec["path"], slug=spec["slug"],
                                  name=spec["name"], k=spec.get("k"), options=spec.get("options", {}),
                                  settings=spec.get("settings"))
            result.project.guidelines = (DEMO / spec["guidelines"]).read_text(encoding="utf-8").strip() \
                if spec.get("guidelines") else ""
    except ImportRefused as error:
        raise click.ClickException(str(error)) from None
    return result.project


def demo_votes(project: Project, complete: int) -> int:
    """Demo votes: every item gets k - 1 votes, and `complete` items all k, so gold and agreement have data.

    Cast through the engine, as in the browser (next_for then submit, one vote at a time, spread over the
    last hours): the last demo annotators answer every item they can get, then the first one answers
    `complete` HITs, which the engine (least-loaded item first) completes; the rest is left for whoever logs
    in as the first demo annotator. The answers are drawn with a seed made of the project's slug, so the demo
    is the same every time: per item a "true" answer (see _true_answer), which each annotator gives with
    probability AGREE, else an answer of their own drawn at random.
    Returns the votes cast.
    """
    by_name = {u.username: u for u in db.session.scalars(select(User).where(User.username.in_(DEMO_ANNOTATORS),
                                                                            User.active.is_(True)))}
    voters = [by_name[n] for n in DEMO_ANNOTATORS[1:project.k] if n in by_name]
    first = by_name.get(DEMO_ANNOTATORS[0])
    plan = [(user, None) for user in voters] + ([(first, complete)] if first is not None else [])
    task = task_type(project.task_type)
    settings = settings_with_defaults(task, project.settings)
    rng = random.Random(f"demo:{project.slug}")
    items = db.session.scalar(select(func.count()).select_from(Item).where(Item.project_id == project.id)) or 0
    start = utcnow() - timedelta(seconds=SECONDS_PER_HIT * 2 * (items * len(voters) + complete) + 3600)
    votes = 0
    shared = random.getstate()  # the engine draws presentations (which side is A) from `random`: seeded here
    try:
        for user, hits in plan:
            while hits is None or hits > 0:
                random.seed(f"demo:{project.slug}:{votes}")
                now = start + timedelta(seconds=SECONDS_PER_HIT * 2 * votes)
                if not _vote(project, task, settings, user, rng, now):
                    break
                votes += 1
                hits = None if hits is None else hits - 1
    finally:
        random.setstate(shared)
    return votes


def _vote(project: Project, task: TaskType, settings: dict[str, Any], user: User, rng: random.Random,
          now: datetime) -> bool:
    """One demo vote of `user` through the engine at time `now`; False when nothing is left for them."""
    lease = engine.next_for(user, project, now=now)
    if lease is None:
        return False
    shown = task.public_item(lease.item, settings, lease.presentation)
    true = _true_answer(task, lease, shown, random.Random(f"demo:{project.slug}:{lease.item.external_id}"))
    answer = true if rng.random() < AGREE else task.example_answer(shown, rng)
    engine.submit(lease.id, user, answer, now=now + timedelta(seconds=SECONDS_PER_HIT * (0.5 + rng.random())))
    return True


def _true_answer(task: TaskType, lease: engine.Lease, shown: Any, rng: random.Random) -> dict[str, Any]:
    """The answer most demo annotators give to the leased item.

    Where the demo knows better than chance: KPA matching and cloze answer the item's reference (the official
    labels, the known option); the match check says yes when the key point and the argument share a word
    beyond the topic's (a judge's rough stand-in: it accepts most of the sample system alpha's pairs and
    few of gamma's, see kpa2021_topic/make_demo.py); the set comparison takes the
    stance of the arguments summarised and mostly prefers the system whose name sorts first (alpha is the
    sample systems' best, gamma their worst), so the demo's ranking has a shape. Other answers are drawn at random.
    """
    answer = task.example_answer(shown, rng)
    payload = lease.item.payload
    if task.name == "kp_match_check":
        topic = _stems(payload["topic"], set())
        shared = _stems(payload["key_point"]["text"], topic) & _stems(payload["argument"], topic)
        return {"verdict": "yes" if shared else "no"}
    if task.name == "kp_set_compare":
        presentation = lease.presentation or {"a": payload["systems"][0], "b": payload["systems"][1]}
        better = "A" if presentation["a"] < presentation["b"] else "B"
        stance = "all_support" if payload["stance"] == 1 else "all_contest"
        return {"stance_a": stance, "stance_b": stance,  # the better one, or on some pairs the other
                **{question: better if rng.random() < 0.7 else "AB".replace(better, "")
                   for question in ("less_redundant", "more_central")}}
    reference = db.session.get_one(Item, lease.item.id).reference
    if not isinstance(reference, dict):
        return answer
    if task.name == "kp_match":  # reference: {key point id: 1 or 0} from labels_<split>.csv
        shown_ids = [kp["id"] for kp in shown["key_points"]]
        return {**answer, "matches": [kp for kp in shown_ids if reference.get(kp) == 1]}
    if task.name == "cloze" and "label" in reference:  # reference: {"label": the known option}
        return {**answer, "option": int(reference["label"])}
    return answer


def _stems(text: str, leave_out: set[str]) -> set[str]:
    """The first five letters of each word of four letters or more, but those in `leave_out`."""
    return {w[:5] for w in re.findall(r"[a-z]+", text.lower()) if len(w) >= 4} - leave_out
