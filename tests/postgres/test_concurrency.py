"""Many annotators at once, through several gunicorn worker processes, on both engines.

The invariants of annotator/assignment.py are checked on the database afterwards: every item has
exactly k votes from k distinct annotators, nobody voted an item twice, nobody holds two open
leases, every 201 is exactly one stored vote and every refused submit stored none, and the
denormalised counters equal the rows. Along the way some clients double-submit, send two `next`
requests at once, and an "expirer" pushes random leases into the past, so late submits race
with re-leases of the same slot.
"""
from __future__ import annotations

import http.client
import json
import os
import random
import socket
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import create_engine, func, select, text

from annotator.accounts import issue_token
from annotator.extensions import db
from annotator.models import Assignment, Item, Label, utcnow

ROOT = Path(__file__).resolve().parents[2]
ANNOTATORS, K, WORKERS = 16, 8, 3
pytestmark = pytest.mark.concurrency


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def server(app, database_url, tmp_path):  # type: ignore[no-untyped-def]
    port = _free_port()
    env = {**os.environ, "DATABASE_URL": database_url, "SECRET_KEY": "concurrency-test",
           "ANNOTATOR_INSTANCE": str(tmp_path)}
    log = open(tmp_path / "gunicorn.log", "w")
    process = subprocess.Popen([str(Path(sys.executable).with_name("gunicorn")), "--workers", str(WORKERS),
                                "--bind", f"127.0.0.1:{port}", "annotator:create_app()"],
                               cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.2)
        else:
            pytest.fail(f"gunicorn did not start: {(tmp_path / 'gunicorn.log').read_text()}")
        yield port
    finally:
        process.terminate()
        process.wait(timeout=30)
        log.close()


class Client:
    def __init__(self, port: int, token: str) -> None:
        self.port, self.token = port, token

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


def _annotate(client: Client, rng: random.Random, accepted: set[int], refused: set[int],
              statuses: list[int], lock: threading.Lock, expired: list[int]) -> None:
    with ThreadPoolExecutor(2) as pair:
        for _ in range(200):
            if rng.random() < 0.1:  # two `next` at once from one annotator: both get the same lease
                expirations = len(expired)
                first, second = pair.map(lambda _: client.post("/api/v1/projects/kpa/next"), range(2))
                leases = [r[1]["assignment"]["id"] for r in (first, second) if r[0] == 200]
                if len(set(leases)) > 1 or (leases and first[0] != second[0]):
                    # only when the expirer ended a lease meanwhile, which changes what is free
                    assert len(expired) > expirations, (first, second)
                status, body = first if first[0] == 200 else second
            else:
                status, body = client.post("/api/v1/projects/kpa/next")
            if status == 204:
                return
            assert status == 200, (status, body)
            lease = body["assignment"]
            kps = [kp["id"] for kp in lease["item"]["key_points"]]
            answer = {"answer": {"matches": rng.sample(kps, rng.randint(0, 2))}}
            url = f"/api/v1/assignments/{lease['id']}/submit"
            copies = 2 if rng.random() < 0.2 else 1  # double submits
            results = list(pair.map(lambda _: client.post(url, answer), range(copies)))
            with lock:
                statuses.extend(s for s, _ in results)
                if any(s == 201 for s, _ in results):
                    assert sum(s == 201 for s, _ in results) == 1, results
                    accepted.add(lease["id"])
                elif all(s == 409 for s, _ in results):
                    refused.add(lease["id"])
                else:
                    assert all(s in (200, 409) for s, _ in results), results
                    # a 200 repeat without a 201 means an earlier request of ours stored it
                    accepted.add(lease["id"])


def _expirer(url: str, stop: threading.Event, expired: list[int], errors: list[BaseException]) -> None:
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
                    expired.append(chosen)
            stop.wait(0.05)
    except BaseException as error:  # reported by the test, not lost in the thread
        errors.append(error)
    finally:
        engine.dispose()


def test_invariants_hold_with_many_annotators_and_several_worker_processes(app, make_user, kpa_project,
                                                                           server, database_url):
    kpa_project(k=K)
    tokens = [issue_token(make_user(f"ann{i}")) for i in range(ANNOTATORS)]
    db.session.commit()
    accepted: set[int] = set()
    refused: set[int] = set()
    statuses: list[int] = []
    lock, stop = threading.Lock(), threading.Event()
    expired: list[int] = []
    errors: list[BaseException] = []
    expirer = threading.Thread(target=_expirer, args=(database_url, stop, expired, errors))
    expirer.start()
    try:
        with ThreadPoolExecutor(ANNOTATORS) as pool:
            futures = [pool.submit(_annotate, Client(server, token), random.Random(i), accepted, refused,
                                   statuses, lock, expired) for i, token in enumerate(tokens)]
            for future in futures:
                future.result(timeout=300)
    finally:
        stop.set()
        expirer.join()
    assert not errors, errors
    assert expired, "the expirer never expired a lease: the test did not exercise expiry"

    db.session.remove()
    assert all(s < 500 for s in statuses)
    votes = db.session.execute(select(Assignment.item_id, func.count(), func.count(func.distinct(Assignment.user_id)))
                               .where(Assignment.status == "submitted").group_by(Assignment.item_id)).all()
    assert len(votes) == 26 and all(n == K and distinct == K for _, n, distinct in votes)
    assert set(db.session.scalars(select(Item.done_count))) == {K}
    submitted = set(db.session.scalars(select(Assignment.id).where(Assignment.status == "submitted")))
    assert submitted == accepted and not (refused & submitted)
    open_leases = db.session.execute(select(Assignment.user_id, func.count()).where(Assignment.status == "leased")
                                     .group_by(Assignment.user_id).having(func.count() > 1)).all()
    assert open_leases == []
    kp_counts = {i.id: len(i.payload["key_points"]) for i in db.session.scalars(select(Item))}
    labels = dict(db.session.execute(select(Label.assignment_id, func.count()).group_by(Label.assignment_id)).all())
    assert set(labels) == submitted
    assert all(labels[a.id] == kp_counts[a.item_id]
               for a in db.session.scalars(select(Assignment).where(Assignment.status == "submitted")))
