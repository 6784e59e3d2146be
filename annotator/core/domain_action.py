"""The decorator every domain action wears: one transaction, committed only with the action's audit event.

Why a decorator rather than a habit: the audit trail is only worth something if no change of state reaches the
database without its event, and the pages and commands that each wrote their own `record` call had drifted.
Here the rule is enforced where the change is made: an action that returns without having recorded one of the
events it declares is an error (`Unrecorded`), and everything it wrote is rolled back.

Why in core, below every layer: the domain actions are `annotator/actions/`, above the shared tasks, but a shared
task's own change of state (RuArg-2022's premise stage, made by its page and its command) is an action too, in the
shared task's folder; both wear this decorator (annotator/actions/base.py gives it to the actions under its old
name, with `figures_stale`, which needs figures/).
"""
from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from annotator.core.audit import ACTING, ACTIONS, RECORDED
from annotator.core.database import BEGIN_OPTION
from annotator.core.extensions import db

P = ParamSpec("P")
R = TypeVar("R")

# Every action, by its module and name, with the audit events it may record (tests/people/test_audit_coverage.py
# reads it: each action is checked to record what it declares).
REGISTRY: dict[str, tuple[str, ...]] = {}
# `db.session.info` key while an action runs: what is to run once the outermost action has committed.
AFTER_COMMIT = "actions.after_commit"


class Unrecorded(RuntimeError):
    """An action returned without recording its audit event: a defect of the action, so nothing it did is kept."""


def action(*events: str, after_commit: Callable[[], None] | None = None) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Make a function a domain action recording one of `events` (names of core/audit.ACTIONS).

    The wrapped function takes who acts as its argument `by` (core/audit.Actor): every event recorded while it runs
    names that actor, also those the area's functions it calls record. It checks and writes in the session; the
    wrapper commits when it returns having recorded one of `events`, and rolls everything back when it raises (the
    refusal goes on to the caller) or recorded none (`Unrecorded`). An action called inside another joins the
    outer one's transaction, so the outer one must let a refusal of the inner one through: nothing is undone between
    them.

    `after_commit`: what runs once the action's transaction is committed (by the outermost action, once however
    many inner ones ask for it), and never when it is rolled back: an import's `refresh_statistics`, PostgreSQL's
    ANALYZE of the rows the import committed.
    """
    unknown = [event for event in events if event not in ACTIONS]
    if not events or unknown:
        raise ValueError(f"an action records events of core/audit.ACTIONS, not {unknown or 'none'}")

    def wrap(function: Callable[P, R]) -> Callable[P, R]:
        name = f"{function.__module__}.{function.__name__}"
        signature = inspect.signature(function)
        if "by" not in signature.parameters:
            raise ValueError(f"{name}: an action takes who acts as its argument `by`")

        @functools.wraps(function)
        def run(*args: P.args, **kwargs: P.kwargs) -> R:
            by = signature.bind(*args, **kwargs).arguments["by"]  # a TypeError for arguments that do not fit
            info = db.session.info
            outer: list[str] | None = info.get(RECORDED)
            outer_actor = info.get(ACTING)
            if outer is None:
                _begin_writing(name)
                info[AFTER_COMMIT] = []
            recorded: list[str] = []
            afterwards: list[Callable[[], None]] = []
            info[RECORDED], info[ACTING] = recorded, by
            try:
                result = function(*args, **kwargs)
                if not set(recorded) & set(events):
                    raise Unrecorded(f"{name} changed state without recording {' or '.join(events)}")
                if after_commit is not None:
                    info[AFTER_COMMIT].append(after_commit)
                if outer is None:
                    db.session.commit()
            except BaseException:
                if outer is None:
                    db.session.rollback()
                raise
            finally:
                if outer is None:
                    info.pop(RECORDED, None)
                    info.pop(ACTING, None)
                    afterwards = info.pop(AFTER_COMMIT, [])
                else:
                    outer.extend(recorded)
                    info[RECORDED], info[ACTING] = outer, outer_actor
            for step in dict.fromkeys(afterwards):  # each once, in the order asked
                step()
            return result

        REGISTRY[name] = events
        return run

    return wrap


def _begin_writing(name: str) -> None:
    """On SQLite, the action's transaction takes the write lock at BEGIN, as core/database.write_transaction's do.

    A page has read before it calls the action (the admin's account, the project), in a deferred transaction;
    had another writer (an annotator's vote) committed since, the action's first write would fail (WAL's busy
    snapshot) and the page with it. So that read transaction ends here, and the action reads and writes in one
    that no other writer can move. PostgreSQL continues the request's transaction (READ COMMITTED: each statement
    reads what is committed). On both, nothing may be pending when an action starts: it would be committed with
    the action's event, as if the action had made it."""
    session = db.session()
    if session.new or session.dirty or session.deleted:
        session.rollback()
        raise Unrecorded(f"{name}: changes made before the action would be committed without their event")
    if session.get_bind().dialect.name != "sqlite":
        return
    if session.in_transaction():
        session.commit()
    session.connection(execution_options={BEGIN_OPTION: "IMMEDIATE"})
