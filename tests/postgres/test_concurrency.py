"""Many annotators at once, through several gunicorn worker processes, on both engines, for every HIT type.

16 annotators work a project to the end over the JSON API, answering each HIT with its task type's
`example_answer`. Along the way some clients double-submit, send two `next` requests at once, and
an "expirer" pushes random leases into the past, so late submits race with re-leases of the same
slot. Afterwards annotator/engine/invariants.py checks the database (k distinct votes per item, nobody
twice on an item, no lease left, counters equal to rows, labels exactly as the type makes them)
against what the clients sent: every 201 is exactly one stored vote with the answer sent, and
every stored vote had its 201.

Each registered task type runs from its sample data in tests/support/type_data.py (a type without an entry
fails there).

A second test runs the key-point project with quality control on (annotator/quality): control items
served at a rate, careless annotators blocked on their control answers with their votes excluded
(done_count decremented while others work on), and dynamic overlap raising items' targets; the same
invariants must hold, with each item ending at exactly its own target.
"""
from __future__ import annotations

import http.client
import json
import os
import random
import socket
import subprocess
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from annotator.core.extensions import db
from annotator.core.models import utcnow
from annotator.engine.invariants import SentSubmit, check_project
from annotator.tasks import TASK_TYPES, TaskType, project_task, task_type
from bench.server import listening_socket
from tests.conftest import load_project
from tests.support.gunicorn_server import start_gunicorn, wait_until_serving
from tests.support.type_data import format_data, type_data

ANNOTATORS, WORKERS = 16, 3
SLUG = "load"
pytestmark = pytest.mark.concurrency


class Servers:
    """gunicorn servers by database URL, each started at its first test and stopped when the module ends.

    Why one server per database and module, not one per test: a test's isolation is in its database, which the
    `app` fixture empties before the test (and the server keeps nothing of it: its workers' only in-process copy
    is of API token holders, keyed by token, and every test issues new random tokens; figures are computed from
    votes only past the server's KEPT_RESULTS_FROM_VOTES, 20,000, which no test here reaches), and every request
    of a test has ended when it does (its clients' threads are joined). Starting and stopping three workers took
    2-3 s of each of the 16 tests' set-up and tear-down, more than most tests' own work.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.running: dict[str, tuple[subprocess.Popen, socket.socket, int]] = {}

    def port(self, database_url: str) -> int:
        if database_url not in self.running:
            sock = listening_socket()
            port = sock.getsockname()[1]
            instance = self.folder / f"server-{len(self.running)}"
            instance.mkdir()
            env = {**os.environ, "DATABASE_URL": database_url, "SECRET_KEY": "concurrency-test",
                   "ANNOTATOR_INSTANCE": str(instance)}
            process = start_gunicorn(sock, WORKERS, env, instance / "gunicorn.log")
            self.running[database_url] = (process, sock, port)
            wait_until_serving(port, process, instance / "gunicorn.log")
        process, _, port = self.running[database_url]
        if process.poll() is not None:
            pytest.fail(f"gunicorn exited with {process.returncode} after an earlier test")
        return port

    def stop(self) -> None:
        for process, _, _ in self.running.values():
            process.terminate()
        for process, sock, _ in self.running.values():
            process.wait(timeout=30)
            sock.close()


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Servers]:
    running = Servers(tmp_path_factory.mktemp("gunicorn"))
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture
def server(app, database_url, servers):  # type: ignore[no-untyped-def]
    """The port of the module's server on the test's database (emptied by `app` before the test)."""
    return servers.port(database_url)


class Client:
    def __init__(self, port: int, token: str, username: str) -> None:
        self.port, self.token, self.username = port, token, username

    def post(self, path: str, body: dict | None = None) -> tuple[int, dict | None]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        try:
            conn.request("POST", path, body=json.dumps(body) if body is not None else None,
                         headers={"Authorization": f"Bearer {self.token}", "Content-Type": "application/json"})
            response = conn.getresponse()
            data = response.read()
            return response.status, json.loads(data) if data else None
        finally:
            conn.close()


@dataclass
class Run:
    """What the clients saw, shared by their threads."""

    sent: list[SentSubmit] = field(default_factory=list)
    statuses: list[int] = field(default_factory=list)
    expired: list[int] = field(default_factory=list)  # leases the expirer pushed into the past
    blocked: list[str] = field(default_factory=list)  # annotators whose `next` answered 403 blocked
    lock: threading.Lock = field(default_factory=threading.Lock)
    # Set by each careless annotator once it has stored an ordinary vote (or stopped): careful annotators start
    # then, so that the careless still find ordinary work, and so controls, left to answer (with the careful
    # starting at once, a loaded machine could let them finish the work before any careless one was blocked).
    careless_started: list[threading.Event] = field(default_factory=list)


def _next(client: Client, pair: ThreadPoolExecutor, rng: random.Random, run: Run) -> tuple[int, dict | None]:
    """`next`, now and then as two requests at once: both must get the same lease."""
    path = f"/api/v1/projects/{SLUG}/next"
    if rng.random() >= 0.1:
        return client.post(path)
    expirations = len(run.expired)
    first, second = pair.map(lambda _: client.post(path), range(2))
    leases = [r[1]["assignment"]["id"] for r in (first, second) if r[0] == 200]
    if len(set(leases)) > 1 or (leases and first[0] != second[0]):
        # only when the expirer ended a lease meanwhile, which changes what is free
        assert len(run.expired) > expirations, (first, second)
    return first if first[0] == 200 else second


def _submit(client: Client, pair: ThreadPoolExecutor, lease: dict, answer: dict, copies: int, run: Run) -> bool:
    """Submit `copies` times at once; whether the vote was stored (one 201)."""
    url = f"/api/v1/assignments/{lease['id']}/submit"
    results = list(pair.map(lambda _: client.post(url, {"answer": answer}), range(copies)))
    statuses = [status for status, _ in results]
    assert sum(s == 201 for s in statuses) <= 1, results
    assert all(s in (200, 201, 409) for s in statuses), results
    with run.lock:
        run.statuses.extend(statuses)
        run.sent.extend(SentSubmit(lease["id"], client.username, answer, s) for s in statuses)
    return 201 in statuses


def _annotate(client: Client, task: TaskType, rng: random.Random, run: Run, careless: bool = False) -> int:
    """Work to the end; how many HITs were leased. Control items are answered right (no key point matches
    them), except by a careless annotator, who matches every key point from their first stored ordinary
    vote on (so that when they are blocked on their control answers, they always have a vote to be taken
    out)."""
    started = run.careless_started[int(client.username.removeprefix("ann"))] if careless else None
    if not careless:
        for event in run.careless_started:
            event.wait(timeout=120)
    try:
        return _annotate_on(client, task, rng, run, careless, started)
    finally:
        if started is not None:
            started.set()


def _annotate_on(client: Client, task: TaskType, rng: random.Random, run: Run, careless: bool,
                 started: threading.Event | None) -> int:
    careful_until_stored = careless
    with ThreadPoolExecutor(2) as pair:
        for leased in range(200):
            status, body = _next(client, pair, rng, run)
            with run.lock:
                run.statuses.append(status)
            if status == 204:
                return leased
            if status == 403 and body.get("blocked"):
                with run.lock:
                    if client.username not in run.blocked:
                        run.blocked.append(client.username)
                return leased
            assert status == 200, (status, body)
            lease = body["assignment"]
            copies = 2 if rng.random() < 0.2 else 1  # double submits
            control = lease["item"]["id"] in CONTROLS
            if careless and not careful_until_stored:
                answer = {"matches": [kp["id"] for kp in lease["item"]["key_points"]]}
            else:
                answer = {"matches": []} if control else task.example_answer(lease["item"], rng)
            stored = _submit(client, pair, lease, answer, copies, run)
            if stored and not control:
                careful_until_stored = False
                if started is not None:
                    started.set()
    pytest.fail(f"{client.username} still got HITs after 200 rounds")


def _expirer(url: str, stop: threading.Event, run: Run, errors: list[BaseException]) -> None:
    """Push a random open lease into the past now and then, as if its annotator walked away."""
    engine = create_engine(url, connect_args={"timeout": 30} if url.startswith("sqlite") else {})
    rng = random.Random(7)
    try:
        while not stop.is_set():
            with engine.begin() as conn:
                ids = conn.execute(text("SELECT id FROM assignments WHERE status = 'leased'")).scalars().all()
                if ids:
                    chosen = rng.choice(ids)
                    conn.execute(text("UPDATE assignments SET expires_at = :past WHERE id = :i"),
                                 {"past": utcnow() - timedelta(minutes=1), "i": chosen})
                    run.expired.append(chosen)
            stop.wait(0.05)
    except BaseException as error:  # reported by the test, not lost in the thread
        errors.append(error)
    finally:
        engine.dispose()


@pytest.fixture(params=sorted(TASK_TYPES))
def task(request, app) -> TaskType:  # type: ignore[no-untyped-def]
    """Each registered type's test project imported as SLUG (before the server starts: a type without
    test data fails at once). k is at most ANNOTATORS, so that every item can be finished."""
    data, task = type_data(request.param), task_type(request.param)
    project = load_project(data.format, data.path, SLUG, **{"k": min(task.default_k, ANNOTATORS), **data.options})
    return project_task(project)  # a declared campaign's type bound to its definition; the others as registered


def _work(port: int, tokens: dict[str, str], task: TaskType, database_url: str, careless: int = 0) -> Run:
    """All annotators to the end, with the expirer running; re-raises what went wrong in a thread.

    The first `careless` annotators answer carelessly (see _annotate). An annotator told "nothing left"
    may find work later (a blocked annotator's votes taken out, an item's target raised by dynamic
    overlap), as a crowd that comes back would: so all of them ask again until nobody gets a HIT."""
    run, stop, errors = Run(careless_started=[threading.Event() for _ in range(careless)]), threading.Event(), []
    expirer = threading.Thread(target=_expirer, args=(database_url, stop, run, errors))
    expirer.start()
    rngs = {name: random.Random(n) for n, name in enumerate(tokens)}
    try:
        with ThreadPoolExecutor(len(tokens)) as pool:
            for _ in range(5):
                futures = [pool.submit(_annotate, Client(port, token, name), task, rngs[name], run, n < careless)
                           for n, (name, token) in enumerate(tokens.items())]
                if sum(future.result(timeout=300) for future in futures) == 0:
                    break
            else:
                pytest.fail("annotators still got HITs after five rounds")
    finally:
        stop.set()
        expirer.join()
    assert not errors, errors
    return run


def test_invariants_hold_with_many_annotators_and_several_worker_processes(task, api_client, server, database_url):
    tokens = {f"ann{n}": api_client(f"ann{n}").token for n in range(ANNOTATORS)}
    run = _work(server, tokens, task, database_url)
    assert run.expired, "the expirer never expired a lease: the test did not exercise expiry"
    assert all(s < 500 for s in run.statuses)
    assert any(r.status == 201 for r in run.sent)

    db.session.remove()
    checks = check_project(SLUG, complete=True, sent=run.sent)
    assert [c for c in checks if not c.passed] == [], "\n".join(f"{c.name}: {c.detail}" for c in checks)
    assert len(checks) == 11


CONTROLS = ("arg_1_0", "arg_1_1", "arg_1_2", "arg_1_3", "arg_1_4")
QUALITY = {"control_rate": 0.5, "block_min_controls": 2, "block_accuracy": 0.5, "blocked_votes": "exclude",
           "max_k": 4, "confidence": 0.9}


@pytest.fixture
def quality_task(app) -> TaskType:  # type: ignore[no-untyped-def]
    """The key-point project (a declared project of KPA-2021's match.yaml) with control items, blocking (votes
    excluded) and dynamic overlap from k = 2 to 4."""
    from annotator.core.models import Item, Project
    data = format_data("kpa2021")
    project = load_project(data.format, data.path, SLUG, k=2, **data.options)
    for item in db.session.scalars(db.select(Item).where(Item.external_id.in_(CONTROLS))):
        item.is_control = True
        item.reference = {kp["id"]: 0 for kp in item.payload["key_points"]}  # the known answer: no match
    db.session.get(Project, project.id).quality = QUALITY
    db.session.commit()
    return project_task(db.session.get(Project, project.id))


def _watch_figures(app, stop: threading.Event, errors: list[BaseException]) -> None:  # type: ignore[no-untyped-def]
    """An admin on the project page while the crowd works: its kept figures (figures/kept.py) are computed in
    processes of their own, claimed in the database, while votes come and votes are excluded."""
    from annotator.core.models import Project
    from annotator.figures.kept import StillComputing
    from annotator.figures.kept_figures import kept_figure
    try:
        while not stop.is_set():
            with app.app_context():
                try:
                    kept_figure(db.session.scalars(db.select(Project).filter_by(slug=SLUG)).one(), "summary")
                except StillComputing:
                    pass
                finally:
                    db.session.remove()
            stop.wait(0.2)
    except BaseException as error:  # reported by the test, not lost in the thread
        errors.append(error)


def _computations_done() -> None:
    for thread in [t for t in threading.enumerate() if t.name.startswith("kept-results-")]:
        thread.join(timeout=120)


def test_invariants_hold_with_control_items_blocking_and_dynamic_overlap(app, quality_task, api_client, server,
                                                                         database_url):
    """And the figures kept while it ran are what a recomputation from the votes gives."""
    from annotator.core.models import Assignment, ControlAnswer, Item, Project, User
    from annotator.figures.kept import StillComputing
    from annotator.figures.kept_figures import kept_differences, kept_figure
    tokens = {f"ann{n}": api_client(f"ann{n}").token for n in range(ANNOTATORS)}
    app.config.update(KEPT_RESULTS_FROM_VOTES=1, KEPT_RESULTS_REFRESH="process")  # the default: its own process
    stop, errors = threading.Event(), []  # type: ignore[var-annotated]
    watcher = threading.Thread(target=_watch_figures, args=(app, stop, errors))
    watcher.start()
    try:
        run = _work(server, tokens, quality_task, database_url, careless=4)
    finally:
        stop.set()
        watcher.join()
        _computations_done()
    assert not errors, errors
    assert all(s < 500 for s in run.statuses)
    db.session.remove()
    checks = check_project(SLUG, complete=True, sent=run.sent)
    assert [c for c in checks if not c.passed] == [], "\n".join(f"{c.name}: {c.detail}" for c in checks)
    try:  # figures of the last votes: kept as they are if their stamp holds, else computed now in the background
        kept_figure(db.session.scalars(db.select(Project).filter_by(slug=SLUG)).one(), "summary")
    except StillComputing:
        pass
    _computations_done()
    db.session.remove()
    current, differing = kept_differences(db.session.scalars(db.select(Project).filter_by(slug=SLUG)).one())
    assert current and differing == [], (current, differing)
    # Careless annotators are blocked after two control answers (each does ~8 leases, half of them controls)
    # and the ordinary votes they gave before were taken out while the others worked on.
    assert {"ann0", "ann1", "ann2", "ann3"} & set(run.blocked), run.blocked
    ordinary = db.session.execute(db.select(User.username, Assignment.excluded)
                                  .join(User, User.id == Assignment.user_id).join(Item, Item.id == Assignment.item_id)
                                  .where(Assignment.status == "submitted", Item.is_control.is_(False))).all()
    assert set(run.blocked) <= {"ann0", "ann1", "ann2", "ann3"}  # nobody who answered the controls right
    assert {name for name, excluded in ordinary if excluded} == set(run.blocked)
    assert all(excluded for name, excluded in ordinary if name in run.blocked)
    assert db.session.scalar(db.select(db.func.count()).select_from(ControlAnswer)) > 0
    targets = [item.target or 2 for item in db.session.scalars(db.select(Item).where(Item.is_control.is_(False)))]
    assert all(2 <= t <= 4 for t in targets) and max(targets) > 2, targets  # dynamic overlap asked for more
