"""Whether a run is right: the database's invariants, and what only the clients saw.

The database checks are annotator/engine/invariants.py, the same code the concurrency test and
`flask check` run, here in-process (an app on the run's database URL, one app context) and with
what the clients sent, so every 201 is held against the stored vote. The HTTP checks (statuses,
each annotator's outcome) are the benchmark's own: in a clean run every submit answers 201, but on a project
that stops items early (`stopping:`), where a lease its item's stop released answers 409 and stores nothing (the
database checks hold every stored vote against a 201).
"""
from __future__ import annotations

import secrets
from collections import Counter

from annotator import create_app
from annotator.core.extensions import db
from annotator.core.quality_settings import stops_early
from annotator.engine.invariants import Invariant, SentSubmit, Snapshot, load_snapshot, run_checks
from config import Config

from .clients import Record
from .common import SLUG


class CheckConfig(Config):
    """The in-process app of the checks: it serves no request, so only the database settings matter (the others
    are the server's defaults, which the app checks as it starts)."""

    SECRET_KEY = secrets.token_hex(16)
    SQLALCHEMY_ENGINE_OPTIONS = {"pool_pre_ping": True}
    SQLITE_BUSY_TIMEOUT_MS = 30000


def _counted(counter: Counter, none: str) -> str:
    return ", ".join(f"{n}x {s}" for s, n in sorted(counter.items())) or none


def _size(snapshot: Snapshot, items: int, k: int) -> Invariant:
    found, stored_k = len(snapshot.items), snapshot.project.k
    return Invariant("project has the items and k asked for", found == items and stored_k == k,
                 f"{found} items (asked {items}), k={stored_k} (asked {k})")


def database_checks(url: str, records: list[Record], items: int, k: int,
                    complete: bool = True) -> tuple[list[Invariant], bool]:
    """The project's size and every invariant of annotator/engine/invariants.py (campaign complete, unless a
    --pairs run stopped the annotators before); and whether the project stops items early."""
    sent = [SentSubmit(r.assignment_id, r.username, r.answer, r.status) for r in records if r.kind == "submit"]
    app = create_app(CheckConfig, SQLALCHEMY_DATABASE_URI=url)
    with app.app_context():
        try:
            snapshot = load_snapshot(SLUG)
            return ([_size(snapshot, items, k), *run_checks(snapshot, complete=complete, sent=sent)],
                    stops_early(snapshot.project))
        finally:
            db.session.remove()
            db.engine.dispose()  # no pooled connection may outlive this (the next run forks clients)


def finished(outcome: dict[str, str]) -> Invariant:
    outcomes = Counter(outcome.values())
    return Invariant("every annotator finished (next answered 204)", set(outcomes) <= {"done"},
                 ", ".join(f"{n} {o}" for o, n in outcomes.items()))


def http_checks(records: list[Record], stops: bool = False) -> list[Invariant]:
    """Statuses: no 5xx and no lost request anywhere, and every submit a first-time 201 (or, on a project that
    stops items early, a 409 for a lease its item's stop released)."""
    submits = [r.status for r in records if r.kind == "submit"]
    five = Counter(s for s in submits if s >= 500)
    lost = sum(1 for s in submits if s == 0)
    expected = {0, 201, 409} if stops else {0, 201}
    other = Counter(s for s in submits if s not in expected and s < 500)
    released = Counter(s for s in submits if s == 409) if stops else Counter()
    nexts = Counter(r.status for r in records if r.kind == "next" and r.status not in (200, 204))
    answered = (Invariant("every submit answered 201, or 409 for a lease its item's stop released (no 200 repeat, "
                          "no other 4xx)", not other, _counted(other + released, "all 201"))
                if stops else Invariant("every submit answered 201 (no 200 repeat, no 4xx)", not other,
                                        _counted(other, "all 201")))
    return [Invariant("no submit answered 5xx", not five, _counted(five, "none")),
            Invariant("no submit without an HTTP answer (connection error / client timeout)", not lost, f"{lost}"),
            answered,
            Invariant("no next answered 5xx or failed", not nexts, _counted(nexts, "none"))]


def engine_checks(url: str, records: list[Record], outcome: dict[str, str], items: int, k: int,
                  complete: bool = True) -> list[Invariant]:
    """Everything an engine run must satisfy."""
    (size, *invariants), stops = database_checks(url, records, items, k, complete)
    return [size, finished(outcome), *invariants, *http_checks(records, stops)]


def ceiling_checks(records: list[Record], outcome: dict[str, str]) -> list[Invariant]:
    """The empty app has no database: it must only answer every request and let each client do its pairs."""
    bad = Counter(r.status for r in records if r.status not in (200, 201))
    return [Invariant("every request answered 200/201", not bad, _counted(bad, "all")),
            Invariant("every client did its pairs", set(outcome.values()) <= {"done"},
                  ", ".join(f"{n} {o}" for o, n in Counter(outcome.values()).items()))]
