"""Files into a project (actions/imports.import_project): a new project or more items, all or nothing, recorded
with who imported."""
from __future__ import annotations

import pytest
from sqlalchemy import func, select, text

from annotator.actions.imports import import_project
from annotator.campaigns.import_refused import ImportRefused
from annotator.core.errors import LocatedError
from annotator.core.extensions import db
from annotator.core.models import AuditEvent, Item, Project
from annotator.lookups.formats import file_format
from tests.actions.conftest import trail
from tests.conftest import stored
from tests.people.conftest import events
from tests.support.declared_projects import EVERY_KIND, EVERY_KIND_ITEMS

CUSTOM = file_format("custom")
MORE = ('{"id": "N_1", "text": "Keep calm and carry on .", "other": "Back to Life", "text_id": "N_1", '
        '"other_id": "S_78"}\n')


def _items(slug: str) -> list[str]:
    db.session.remove()
    return list(db.session.scalars(select(Item.external_id).join(Project).where(Project.slug == slug)
                                   .order_by(Item.position)))


def _quotes(by, **given):  # type: ignore[no-untyped-def]
    return import_project(CUSTOM, EVERY_KIND_ITEMS, slug="quotes", options={"definition": EVERY_KIND}, by=by,
                          **given)


def test_a_new_project_is_stored_with_its_items_and_guidelines_and_recorded_naming_the_admin(app, admin):
    result = _quotes(admin, name="Quotes", k=2, guidelines="Read each quote twice.")
    assert (result.created, result.items, result.votes) == (True, 3, 0)
    project = stored(Project, slug="quotes")
    assert (project.name, project.k, project.guidelines) == ("Quotes", 2, "Read each quote twice.")
    assert _items("quotes") == ["Q_0", "S_1", "S_78"]
    [event] = events("import")
    assert (event.actor_id, event.actor, event.project) == (*admin, "quotes")
    assert event.detail == {"format": "custom", "created": True, "items": 3, "votes": 0}


def test_more_items_go_into_the_project_which_keeps_its_guidelines(app, admin, tmp_path):
    _quotes(admin, guidelines="Read each quote twice.")
    (tmp_path / "more.jsonl").write_text(MORE, encoding="utf-8")
    result = import_project(CUSTOM, tmp_path / "more.jsonl", slug="quotes", options={"definition": EVERY_KIND},
                            by=admin)
    assert (result.created, result.items) == (False, 1)
    assert _items("quotes") == ["Q_0", "S_1", "S_78", "N_1"]
    assert stored(Project, slug="quotes").guidelines == "Read each quote twice."
    assert trail()[-1] == ("import", "quotes", {"format": "custom", "created": False, "items": 1, "votes": 0})


def test_a_file_with_a_problem_is_refused_located_and_nothing_is_kept_or_recorded(app, admin, tmp_path):
    _quotes(admin)
    before = trail()
    bad = MORE + MORE.replace('"id": "N_1"', '"id": "N_2"').replace('"text": "Keep calm and carry on ."', '"text": ""')
    (tmp_path / "more.jsonl").write_text(bad, encoding="utf-8")
    with pytest.raises(ImportRefused) as refused:
        import_project(CUSTOM, tmp_path / "more.jsonl", slug="quotes", options={"definition": EVERY_KIND}, by=admin)
    assert str(refused.value).endswith("\nNothing was imported.")
    cause = refused.value.__cause__
    assert isinstance(cause, LocatedError) and (cause.file, cause.line) == ("more.jsonl", 2)
    assert _items("quotes") == ["Q_0", "S_1", "S_78"] and trail() == before


def test_a_new_project_whose_slug_was_taken_meanwhile_is_refused_and_the_other_left_alone(app, admin):
    _quotes(admin, name="The first")
    with pytest.raises(ImportRefused, match=r"^there is already a project 'quotes'; choose another slug\n"
                                            r"Nothing was imported\.$"):
        _quotes(admin, name="The second", new=True)
    assert stored(Project, slug="quotes").name == "The first" and _items("quotes") == ["Q_0", "S_1", "S_78"]
    assert [action for action, _, _ in trail()] == ["import"]


def test_a_refused_new_project_leaves_no_project_behind(app, admin, tmp_path):
    (tmp_path / "items.jsonl").write_text(MORE.replace('"text": "Keep calm and carry on ."', '"text": ""'),
                                          encoding="utf-8")
    with pytest.raises(ImportRefused, match="items.jsonl, line 1"):
        import_project(CUSTOM, tmp_path / "items.jsonl", slug="quotes", options={"definition": EVERY_KIND},
                       by=admin)
    db.session.remove()
    assert db.session.scalar(select(func.count()).select_from(Project)) == 0
    assert db.session.scalar(select(func.count()).select_from(AuditEvent)) == 0


def test_postgresql_s_planner_is_given_the_statistics_of_the_rows_each_import_committed(app, admin, tmp_path):
    """refresh_statistics (ANALYZE) after each import: the planner counts the items the second import added."""
    if db.engine.dialect.name != "postgresql":
        pytest.skip("PostgreSQL's statistics only")
    _quotes(admin)
    (tmp_path / "more.jsonl").write_text(MORE, encoding="utf-8")
    import_project(CUSTOM, tmp_path / "more.jsonl", slug="quotes", options={"definition": EVERY_KIND}, by=admin)
    db.session.remove()
    assert db.session.scalar(text("SELECT reltuples FROM pg_class WHERE oid = 'items'::regclass")) == 4
