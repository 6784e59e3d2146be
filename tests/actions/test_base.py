"""The action decorator: one transaction, committed only with the action's audit event."""
from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest
from sqlalchemy import select, update

import annotator.actions
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
    assert found and found == {name for name in REGISTRY if not name.startswith("tests.")}
    assert {event for events in REGISTRY.values() for event in events} <= set(ACTIONS)


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
