"""A big project's page figures kept in the database, so that an admin page reads them instead of recomputing.

Why: gold and agreement are pure functions of every counted label, and at a million labels computing them
took seconds per page (issue 27). Small projects are still computed on every request (below
`KEPT_RESULTS_FROM_VOTES` submitted votes): nothing is stored for them and every figure includes every vote.

How a big project's page gets its figures (`kept`):
  * The **stamp** says what the figures are made of, read in one statement: the project's kept generation,
    a digest of its configuration (k, settings, quality, definition), its count of counted votes (the sum of
    the items' `done_count`) and of its items, control items and targets. Figures stored with the stamp the
    project still has are exactly what a computation now would give: they are served as they are.
  * Otherwise a computation is started (in a thread of this process, which claims it in the database so
    that one process of all hosts computes, and a claim left by a killed worker lapses), and the page shows
    the kept figures with their age ("as of 12:04:31, 37 votes since") if they are younger than
    `KEPT_RESULTS_MAX_AGE` seconds and of the same generation and configuration; else a page that says the
    figures are being computed and reloads. So what a page shows is never older than that bound.
  * Votes only add to the count, and adjudications to theirs. What changes results otherwise bumps the
    generation (`results_changed`, in the same transaction): an exclusion of votes, a decision replaced.
    Kept figures of an older generation are dropped, never shown, and a computation that started before the
    change cannot store what it found. A change of settings changes the stamp's digest.

The stamp is read *before* the labels, so kept figures include at least the votes their stamp counts; when
the stamp still holds, no vote was committed since it was read, and the figures are exactly current.
`flask check` recomputes every kept figure whose stamp holds and compares (annotator/cli/check.py).
The stored payload is pickled and signed with the app's secret key (HMAC-SHA256): a row that somebody
else wrote, or one from another version of the code, is recomputed, never unpickled.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import logging
import os
import pickle
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Collection, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from flask import Flask, current_app, g, has_request_context
from sqlalchemy import delete, func, insert, or_, select, true, update
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import defer

from annotator.core.database import BEGIN_OPTION
from annotator.core.extensions import db
from annotator.core.large_values import scalar_bytes
from annotator.core.models import Adjudication, Item, KeptResult, KeptState, Project, utcnow
from annotator.figures.kept_memory import read_figures

log = logging.getLogger(__name__)

# Bumped when what a payload holds changes shape, or a class it holds moves to another module (5: the kept
# figures' classes moved from annotator.analysis to annotator.figures; 6: the items figure without the gold of a
# project whose gold is per item, the model's unit names as Python strings, the formats' and scorers' classes moved to
# annotator.lookups): rows of another format are recomputed.
PAYLOAD_FORMAT = 6
DEFAULT_FROM_VOTES = 20_000
DEFAULT_MAX_AGE = 120
DEFAULT_INTERVAL = 30
DEFAULT_CLAIM_SECONDS = 600  # a claim whose computation died without releasing it (a host lost) lapses


@dataclass(frozen=True)
class Stamp:
    generation: int
    digest: str
    votes: int
    items: str
    controls: int  # also in `items`; here for pages that show it (read with the stamp, it costs nothing more)

    @property
    def text(self) -> str:
        return f"{PAYLOAD_FORMAT}:{self.generation}:{self.digest}:{self.votes}:{self.items}"

    def same_basis(self, other: str) -> bool:
        """Whether figures stamped `other` were computed under this generation and configuration (only
        votes, and items, may have come since)."""
        return other.split(":")[:3] == self.text.split(":")[:3]


@dataclass(frozen=True)
class Freshness:
    """How old shown figures are: computed from the votes up to `as_of`; `votes_since` have come since."""

    as_of: datetime
    votes_since: int
    max_age: int
    refreshing: bool


@dataclass(frozen=True)
class Kept:
    value: Any
    freshness: Freshness | None  # None: includes every vote committed before the request


class StillComputing(Exception):
    """No figures young enough yet: the page says so and reloads."""

    def __init__(self, votes: int, estimate: float | None, started: datetime | None) -> None:
        super().__init__("the figures are being computed")
        self.votes, self.estimate, self.started = votes, estimate, started


Compute = Callable[[Project, Collection[str]], Mapping[str, Any]]


@dataclass(frozen=True)
class Group:
    """Figures computed together (they share the label read): `compute(project, names)` returns a value for
    each of the names asked (a small project's page asks for its own only). `name`: how `flask refresh-figures`
    names it."""

    name: str
    names: tuple[str, ...]
    compute: Compute


def stamp(project: Project) -> Stamp:
    """The project's stamp, in one statement. Its votes are the sum of the items' `done_count`, which every submit
    raises by one in its own transaction (engine/assignment.py) and which equals the counted votes (an invariant
    of annotator/engine/invariants.py): one row per item to add up rather than one per vote to count, which every
    page of a big project paid (bench/results/2026-11-26-admin-pages.md, "The ranking at a million labels"). What lowers
    it, an exclusion or an erasure of votes, moves the generation too."""
    generation = select(KeptState.generation).where(KeptState.project_id == project.id).scalar_subquery()
    items = select(func.count(Item.id).label("n"),
                   func.coalesce(func.sum(Item.is_control.cast(db.Integer)), 0).label("c"),
                   func.coalesce(func.sum(func.coalesce(Item.target, 0)), 0).label("t"),
                   func.coalesce(func.sum(Item.done_count), 0).label("v"),
                   ).where(Item.project_id == project.id).subquery()
    decided = select(func.count(Adjudication.id).label("a"), func.coalesce(func.max(Adjudication.id), 0).label("m")
                     ).where(Adjudication.project_id == project.id).subquery()
    gen, n_items, controls, targets, count, adjudications, last = db.session.execute(
        select(generation, *items.c, *decided.c).select_from(items.join(decided, true()))).one()
    return Stamp(int(gen or 0), configuration_digest(project), int(count),
                 f"{n_items}.{controls}.{targets}.{adjudications}.{last}", int(controls))


def request_stamp(project: Project) -> Stamp:
    """The project's stamp, read once per request: a page showing figures of two groups (the items page) needs
    it twice, and at a million labels it counts 200,000 votes. Reading it before the second group's labels
    only makes it older, never newer than what they hold: a stale stamp costs a computation, not a wrong
    figure."""
    if not has_request_context():
        return stamp(project)
    read: dict[int, Stamp] = g.setdefault("kept_stamps", {})
    if project.id not in read:
        read[project.id] = stamp(project)
    return read[project.id]


def kept_from_votes() -> int:
    """From how many submitted votes a project's figures are kept (below, every figure is computed)."""
    return int(current_app.config.get("KEPT_RESULTS_FROM_VOTES", DEFAULT_FROM_VOTES))


def configuration_digest(project: Project) -> str:
    """What of the project row results depend on, as a short digest."""
    config = [project.task_type, project.k, project.settings, project.quality, project.definition]
    return hashlib.sha256(json.dumps(config, sort_keys=True, default=str).encode()).hexdigest()[:16]


def kept(project: Project, name: str, group: Group) -> Kept:
    """The figures `name` of `group` for a page of `project`: see the module's docstring."""
    now = request_stamp(project)
    if now.votes < kept_from_votes():
        return Kept(group.compute(project, (name,))[name], None)
    row = _row(project.id, name)
    value = _load(row, remember=True) if row is not None else None
    if row is not None and value is not None and row.stamp == now.text:
        return Kept(value[0], None)
    if current_app.config.get("KEPT_RESULTS_REFRESH", "process") == "request":
        return Kept(refresh(project.id, group)[name], None)
    max_age = int(current_app.config.get("KEPT_RESULTS_MAX_AGE", DEFAULT_MAX_AGE))
    if row is None or value is None or not now.same_basis(row.stamp):
        raise StillComputing(now.votes, row.seconds if row is not None else None, start_refresh(project.id, group))
    age = utcnow() - row.computed_at
    if not _due(age.total_seconds(), row.seconds, max_age):
        return Kept(value[0], Freshness(row.computed_at, max(0, now.votes - row.votes), max_age,
                                        _claimed_since(project.id) is not None))
    started = start_refresh(project.id, group)
    if age <= timedelta(seconds=max_age):
        return Kept(value[0], Freshness(row.computed_at, max(0, now.votes - row.votes), max_age, True))
    raise StillComputing(now.votes, row.seconds, started)


def _due(age: float, seconds: float, max_age: int) -> bool:
    """Whether figures started `age` seconds ago, which took `seconds` to compute, should be recomputed now.

    While annotators vote the figures are always a little behind, and starting the next computation as soon as
    one ends would keep a core busy (a million labels take 10-30 s) for differences an admin cannot see. So
    the next starts `KEPT_RESULTS_INTERVAL` seconds after the last ended, or sooner when it must end before
    the figures shown reach `max_age`."""
    interval = float(current_app.config.get("KEPT_RESULTS_INTERVAL", DEFAULT_INTERVAL))
    return interval <= 0 or age - seconds >= interval or age + 1.5 * seconds >= max_age


def results_changed(project_id: int) -> None:
    """Call in the transaction of a change that alters results without a vote: kept figures are dropped,
    and a computation under way will not store what it found (it started under the old generation)."""
    db.session.execute(update(KeptState).where(KeptState.project_id == project_id)
                       .values(generation=KeptState.generation + 1, claimed_until=None))
    db.session.execute(delete(KeptResult).where(KeptResult.project_id == project_id))


def start_refresh(project_id: int, group: Group) -> datetime | None:
    """Claim the project's next computation and start it; when another process (of any host) holds the claim,
    nothing is started. Returns when the running computation was claimed, if known.

    `KEPT_RESULTS_REFRESH="process"` (the default) computes in a process of its own (`flask refresh-figures`,
    on this app's database and key), so that a server worker's requests do not wait behind the computation
    for Python's interpreter lock; a thread of this process waits for it and releases the claim if it fails.
    "thread" computes in a thread of this process (tests, and apps made with a configuration other than
    the environment's, which a new process could not rebuild)."""
    running = _claimed_since(project_id)  # read first: a page view during a computation writes nothing
    if running is not None:
        return running
    claimed = _claim(project_id)
    if claimed is None:
        return _claimed_since(project_id)
    app = current_app._get_current_object()  # type: ignore[attr-defined]  # Flask's documented way
    process = _start_process(project_id, group) if current_app.config.get(
        "KEPT_RESULTS_REFRESH", "process") == "process" else None
    if process is not None:
        thread = threading.Thread(target=_wait_for_process, args=(app, project_id, process), daemon=True,
                                  name=f"kept-results-{project_id}")
    else:
        thread = threading.Thread(target=_refresh_in_thread, args=(app, project_id, group), daemon=True,
                                  name=f"kept-results-{project_id}")
    thread.start()
    return claimed


def refresh(project_id: int, group: Group) -> Mapping[str, Any]:
    """Compute the group's figures and store them under the stamp read before the labels (unless the
    generation moved meanwhile); returns them."""
    project = db.session.get(Project, project_id)
    if project is None:
        return {}
    basis, began, clock = stamp(project), utcnow(), time.perf_counter()
    values = group.compute(project, group.names)
    seconds = time.perf_counter() - clock
    db.session.rollback()  # end the reading transaction before writing on another connection
    with _writing() as connection:
        current = connection.execute(update(KeptState).where(KeptState.project_id == project_id,
                                                             KeptState.generation == basis.generation)
                                     .values(claimed_until=None))
        if current.rowcount != 1:
            _ensure_state(connection, project_id)
            if connection.execute(select(KeptState.generation)
                                  .where(KeptState.project_id == project_id)).scalar() != basis.generation:
                return values  # results changed while computing: these figures are not kept
        connection.execute(delete(KeptResult).where(KeptResult.project_id == project_id,
                                                    KeptResult.name.in_(list(values))))
        connection.execute(insert(KeptResult), [
            {"project_id": project_id, "name": name, "stamp": basis.text, "votes": basis.votes, "computed_at": began,
             "seconds": seconds, "payload": _dump(value)} for name, value in values.items()])
    return values


def kept_any(project: Project, name: str) -> tuple[str, Any] | None:
    """(its stamp, the kept figure `name`) whatever its stamp, when one is kept and its payload reads: for
    folding it forward (figures/kept_gold.py), never to be shown as it is."""
    row = _row(project.id, name)
    value = _load(row) if row is not None else None
    return (row.stamp, value[0]) if row is not None and value is not None else None


def kept_rows(project: Project) -> list[tuple[str, Any, bool]]:
    """(name, value, whether its stamp still holds) of every kept figure of the project whose payload reads."""
    now = stamp(project).text
    rows = db.session.scalars(select(KeptResult).options(defer(KeptResult.payload))
                              .where(KeptResult.project_id == project.id).order_by(KeptResult.name)).all()
    return [(row.name, value[0], row.stamp == now) for row in rows if (value := _load(row)) is not None]


def _refresh_in_thread(app: Flask, project_id: int, group: Group) -> None:
    with app.app_context():
        try:
            refresh(project_id, group)
        except Exception:
            log.exception("kept results of project %s not computed", project_id)
            release(project_id)
        finally:
            db.session.remove()


def _start_process(project_id: int, group: Group) -> subprocess.Popen | None:
    """`flask refresh-figures` on this app's database and key; None when no process could be started (the
    computation then runs in a thread of this one)."""
    try:
        return subprocess.Popen(
            [sys.executable, "-m", "flask", "--app", "annotator", "refresh-figures", "--project-id",
             str(project_id), "--group", group.name, "--nice", str(current_app.config.get("KEPT_RESULTS_NICE", 10))],
            env={**os.environ, "DATABASE_URL": db.engine.url.render_as_string(hide_password=False),
                 "SECRET_KEY": str(current_app.config["SECRET_KEY"])},
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    except OSError as error:
        log.warning("kept results of project %s computed in this process: no process started (%s)", project_id, error)
        return None


def _wait_for_process(app: Flask, project_id: int, process: subprocess.Popen) -> None:
    _, errors = process.communicate()
    if process.returncode != 0:
        log.error("kept results of project %s not computed: %s", project_id, errors.decode(errors="replace")[-2000:])
        with app.app_context():
            release(project_id)


def _claim(project_id: int) -> datetime | None:
    now = utcnow()
    seconds = current_app.config.get("KEPT_RESULTS_CLAIM_SECONDS", DEFAULT_CLAIM_SECONDS)
    with _writing() as connection:
        _ensure_state(connection, project_id)
        taken = connection.execute(update(KeptState).where(
            KeptState.project_id == project_id,
            or_(KeptState.claimed_until.is_(None), KeptState.claimed_until < now))
            .values(claimed_until=now + timedelta(seconds=seconds)))
    return now if taken.rowcount == 1 else None


def _claimed_since(project_id: int) -> datetime | None:
    """When the computation under way was claimed; None when none is (no claim, or a lapsed one)."""
    until = db.session.scalar(select(KeptState.claimed_until).where(KeptState.project_id == project_id))
    seconds = current_app.config.get("KEPT_RESULTS_CLAIM_SECONDS", DEFAULT_CLAIM_SECONDS)
    return until - timedelta(seconds=seconds) if until is not None and until > utcnow() else None


def release(project_id: int) -> None:
    """Give up the project's claim (its computation ended)."""
    with _writing() as connection:
        connection.execute(update(KeptState).where(KeptState.project_id == project_id).values(claimed_until=None))


@contextmanager
def _writing() -> Iterator[Connection]:
    """A transaction of its own that takes SQLite's write lock at BEGIN (a deferred one could not upgrade
    its read snapshot after another connection wrote: WAL's busy snapshot)."""
    with db.engine.connect() as connection:
        connection.execution_options(**{BEGIN_OPTION: "IMMEDIATE"})
        with connection.begin():
            yield connection


def _ensure_state(connection: Connection, project_id: int) -> None:
    """The project's KeptState row, made if missing (two processes may try at once: one insert wins)."""
    if connection.execute(select(KeptState.project_id).where(KeptState.project_id == project_id)).first():
        return
    try:
        with connection.begin_nested():
            connection.execute(insert(KeptState).values(project_id=project_id, generation=0, claimed_until=None))
    except IntegrityError:
        pass


def _key() -> bytes:
    return hashlib.sha256(b"kept-results:" + str(current_app.config["SECRET_KEY"]).encode()).digest()


def _dump(value: Any) -> bytes:
    body = pickle.dumps((PAYLOAD_FORMAT, value), protocol=pickle.HIGHEST_PROTOCOL)
    return hmac.new(_key(), body, hashlib.sha256).digest() + body


def _row(project_id: int, name: str) -> KeptResult | None:
    """The kept figure's row, its payload not read yet (`_load` reads it)."""
    return db.session.scalar(select(KeptResult).options(defer(KeptResult.payload))
                             .where(KeptResult.project_id == project_id, KeptResult.name == name))


def _load(row: KeptResult, remember: bool = False) -> tuple[Any] | None:
    """(value,) when the payload is signed with this app's key and of this format; None otherwise. The payload is
    read here, in the binary form (core/large_values.py): megabytes for a big project's figures. `remember`: for a
    page, found in or added to what this process read lately (figures/kept_memory.py), by the row's identity."""
    memory = read_figures() if remember else None
    identity = (row.id, row.name, row.stamp, row.computed_at, row.seconds)
    if memory is not None and (found := memory.get(identity)) is not None:
        return found
    payload = scalar_bytes(select(KeptResult.payload).where(KeptResult.id == row.id))
    if payload is None or len(payload) < 32:
        return None
    signature, body = payload[:32], memoryview(payload)[32:]
    if not hmac.compare_digest(signature, hmac.new(_key(), body, hashlib.sha256).digest()):
        return None
    try:
        fmt, value = pickle.loads(body)  # noqa: S301  # signed by this app above: written by this code only
    except Exception:
        return None
    if fmt != PAYLOAD_FORMAT:
        return None
    if memory is not None:
        memory.put(identity, (value,), len(payload))
    return (value,)


