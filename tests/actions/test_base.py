"""The action decorator: one transaction, committed only with the action's audit event."""
from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest
from sqlalchemy import select, update

import annotator.actions
import annotator.shared_tasks
from annotator.actions import accounts
from annotator.actions.base import REGISTRY, Unrecorded, action
from annotator.core.audit import ACTIONS, Actor, record
from annotator.core.extensions import db
from annotator.core.models import Item, Project
from tests.actions.conftest import trail
from tests.conftest import stored
from tests.people.conftest import events


@action("project.settings")
def _rename(project: Project, name: str, by: Actor) -> None:
    project.name = name
    record("project.settings", project, {"name": name}, actor=by)


@action("project.settings")
def _rename_unrecorded(project: Project, name: str, by: Actor) -> None:
    project.name = name


@action("project.settings")
def _rename_then_refuse(project: Project, name: str, by: Actor) -> None:
    project.name = name
    record("project.settings", project, {"name": name}, actor=by)
    raise ValueError("refused after writing")


@action("project.archive")
def _archive_and_rename(project: Project, by: Actor) -> None:
    project.archived = True
    record("project.archive", project, {"archived": True}, actor=by)
    _rename(project, "Inner", by)
    raise ValueError("the outer action refuses after the inner one returned")


def test_an_action_commits_its_change_with_its_event_and_actor(kpa_project, admin):
    _rename(kpa_project(), "Renamed", admin)
    assert stored(Project, slug="kpa").name == "Renamed"
    assert trail()[-1] == ("project.settings", "kpa", {"name": "Renamed"})


def test_an_action_that_records_no_event_is_refused_and_changes_nothing(kpa_project, admin):
    project = kpa_project()
    before = len(trail())
    with pytest.raises(Unrecorded, match="without recording project.settings"):
        _rename_unrecorded(project, "Renamed", admin)
    assert stored(Project, slug="kpa").name != "Renamed" and len(trail()) == before


def test_a_refused_action_rolls_back_what_it_wrote_and_its_event(kpa_project, admin):
    project = kpa_project()
    before = len(trail())
    with pytest.raises(ValueError, match="refused after writing"):
        _rename_then_refuse(project, "Renamed", admin)
    assert stored(Project, slug="kpa").name != "Renamed" and len(trail()) == before


def test_an_action_called_inside_another_is_rolled_back_with_it(kpa_project, admin):
    project = kpa_project()
    before = len(trail())
    with pytest.raises(ValueError, match="the outer action refuses"):
        _archive_and_rename(project, admin)
    project = stored(Project, slug="kpa")
    assert (project.archived, project.name != "Inner", len(trail())) == (False, True, before)


def test_every_event_of_an_action_names_the_actor_it_was_given(app, admin):
    """Also the events the area's functions record (people/accounts.py records account.create itself): outside a
    request, who() would have named the command line."""
    accounts.create_account("ann", "annotator", None, True, admin)
    [event] = events("account.create")
    assert (event.actor_id, event.actor) == admin


_SEEN: list[str | None] = []


def _look_from_elsewhere() -> None:
    """What another connection reads of the project's name: only what is committed."""
    with db.engine.connect() as other:
        _SEEN.append(other.scalar(select(Project.name).where(Project.slug == "kpa")))


@action("project.settings", after_commit=_look_from_elsewhere)
def _rename_then_look(project: Project, name: str, by: Actor) -> None:
    project.name = name
    record("project.settings", project, {"name": name}, actor=by)


@action("project.settings", after_commit=_look_from_elsewhere)
def _rename_refuse_then_look(project: Project, name: str, by: Actor) -> None:
    project.name = name
    record("project.settings", project, {"name": name}, actor=by)
    raise ValueError("refused after writing")


@action("project.archive", after_commit=_look_from_elsewhere)
def _archive_rename_then_look(project: Project, by: Actor) -> None:
    project.archived = True
    record("project.archive", project, {"archived": True}, actor=by)
    _rename_then_look(project, "Inner", by)
    _SEEN.append("the inner action returned")


def test_what_runs_after_the_commit_sees_what_the_action_committed(kpa_project, admin):
    """An import's refresh_statistics (PostgreSQL's ANALYZE) runs so, on the rows the import committed."""
    project = kpa_project()
    _SEEN.clear()
    _rename_then_look(project, "Renamed", admin)
    assert _SEEN == ["Renamed"]


def test_what_runs_after_the_commit_does_not_run_when_the_action_is_refused(kpa_project, admin):
    project = kpa_project()
    _SEEN.clear()
    with pytest.raises(ValueError, match="refused after writing"):
        _rename_refuse_then_look(project, "Renamed", admin)
    assert _SEEN == []


def test_what_an_inner_action_runs_after_the_commit_runs_once_after_the_outer_one_commits(kpa_project, admin):
    project = kpa_project()
    _SEEN.clear()
    _archive_rename_then_look(project, admin)
    assert _SEEN == ["the inner action returned", "Inner"]


def test_an_action_must_take_who_acts():
    with pytest.raises(ValueError, match="takes who acts as its argument `by`"):
        action("project.settings")(lambda project: None)


def test_an_action_must_name_events_of_the_audit_trail():
    with pytest.raises(ValueError, match="core/audit.ACTIONS"):
        action("project.renamed")
    with pytest.raises(ValueError, match="core/audit.ACTIONS"):
        action()


def test_every_public_function_of_the_actions_package_is_an_action():
    """A function added to annotator/actions without @action would change state without the guarantee."""
    found = set()
    for module_info in pkgutil.iter_modules(annotator.actions.__path__):
        if module_info.name == "base":
            continue
        module = importlib.import_module(f"annotator.actions.{module_info.name}")
        found |= {f"{module.__name__}.{name}" for name, member in inspect.getmembers(module, inspect.isfunction)
                  if member.__module__ == module.__name__ and not name.startswith("_")}
    assert found and found == {name for name in REGISTRY if name.startswith("annotator.actions.")}
    assert {event for events in REGISTRY.values() for event in events} <= set(ACTIONS)


def test_an_action_outside_the_actions_package_is_a_shared_tasks_own():
    """A shared task's folder sits below annotator/actions (the layers), so its own change of state, which its page
    and its command call, is an action in its folder wearing the same decorator (core/domain_action.py): RuArg-2022's
    premise stage. Nowhere else in the app is a function an action."""
    for module_info in pkgutil.walk_packages(annotator.shared_tasks.__path__, "annotator.shared_tasks."):
        importlib.import_module(module_info.name)
    elsewhere = {name for name in REGISTRY if not name.startswith(("annotator.actions.", "tests."))}
    assert "annotator.shared_tasks.ruarg2022.stages.create_premise_stage" in elsewhere
    assert {name for name in elsewhere if not name.startswith("annotator.shared_tasks.")} == set()


def test_an_action_writes_though_another_writer_committed_since_the_page_read(kpa_project, admin):
    """SQLite: a page reads (the project) in a deferred transaction, an annotator's vote commits, then the page's
    action writes; in that read transaction the write would fail (WAL's busy snapshot). PostgreSQL continues the
    request's transaction, whose statements each read what is committed."""
    if db.engine.dialect.name != "sqlite":
        pytest.skip("SQLite's snapshots only")
    kpa_project()
    db.session.remove()
    project = db.session.scalars(select(Project).where(Project.slug == "kpa")).one()  # the page's read
    with db.engine.connect() as other:  # another writer, committed meanwhile
        other.execute(update(Item).where(Item.project_id == project.id, Item.external_id == "arg_1_1")
                      .values(target=4))
        other.commit()
    _rename(project, "Renamed", admin)
    assert stored(Project, slug="kpa").name == "Renamed"


def test_a_change_pending_before_an_action_refuses_it_and_is_not_committed(kpa_project, admin):
    project = kpa_project()
    project.archived = True  # written outside any action, not committed
    with pytest.raises(Unrecorded, match="changes made before the action"):
        _rename(project, "Renamed", admin)
    saved = stored(Project, slug="kpa")
    assert (saved.archived, saved.name != "Renamed") == (False, True)
