"""RuArg-2022's premise stage made or extended from the stance stage's decided sentences: an action of the shared task's
own folder (shared_tasks/ruarg2022/stages.create_premise_stage), which its command and its admin page call."""
from __future__ import annotations

import pytest
from sqlalchemy import func, select, text

from annotator.campaigns.import_refused import ImportRefused
from annotator.core.errors import FormatError
from annotator.core.extensions import db
from annotator.core.models import Item, Project
from annotator.shared_tasks.ruarg2022.stages import create_premise_stage
from tests.actions.conftest import trail
from tests.conftest import load_project, stored
from tests.people.conftest import events
from tests.web.test_ruarg2022_declared_stages_admin import TRAIN, _decide


@pytest.fixture
def stance(app):  # type: ignore[no-untyped-def]
    """The train excerpt as a declared stance stage, k=2, nobody has voted yet."""
    return load_project("ruarg2022", TRAIN, "st", k=2, stage="stance")


def _asked(slug: str) -> dict[str, list[str]]:
    """The premise stage's sentences and the claims each asks, read in a fresh session."""
    db.session.remove()
    rows = db.session.execute(select(Item.external_id, Item.payload).join(Project).where(Project.slug == slug))
    return {external_id: payload["claims"] for external_id, payload in rows}


def test_the_premise_stage_is_made_of_the_decided_relevant_sentences_and_recorded_naming_the_admin(
        stance, make_user, admin):
    _decide(stance, make_user, "17024", "17037")
    result = create_premise_stage("st", "pr", name="Premises", k=4, agree=3, by=admin)
    assert (result.created, result.added, result.waiting) == (True, 2, 0)
    project = stored(Project, slug="pr")
    assert (project.name, project.k, project.source["stance_project"]) == ("Premises", 4, "st")
    assert _asked("pr") == {"17024": ["quarantine"], "17037": ["masks", "quarantine"]}
    [event] = [e for e in events("import") if e.project == "pr"]
    assert (event.actor_id, event.actor) == admin
    assert event.detail == {"format": "premise-stage", "from": "st", "created": True, "items": 2, "votes": 0}


def test_run_again_it_adds_the_sentences_decided_since(stance, make_user, admin):
    _decide(stance, make_user, "17024")
    create_premise_stage("st", "pr", k=3, by=admin)
    _decide(stance, make_user, "17037")
    result = create_premise_stage("st", "pr", by=admin)
    assert (result.created, result.added, result.waiting) == (False, 1, 1)
    assert set(_asked("pr")) == {"17024", "17037"}
    assert trail()[-1] == ("import", "pr", {"format": "premise-stage", "from": "st", "created": False, "items": 1,
                                            "votes": 0})


def test_a_project_that_is_not_its_premise_stage_is_refused_and_nothing_is_made_or_recorded(stance, make_user, admin):
    _decide(stance, make_user, "17024")
    load_project("ruarg2022", TRAIN, "other", k=2, stage="stance")
    before = trail()
    with pytest.raises(ImportRefused) as refused:
        create_premise_stage("st", "other", by=admin)
    assert str(refused.value) == "project 'other' exists and is not the premise stage of 'st'\nNothing was imported."
    assert isinstance(refused.value.__cause__, FormatError)
    db.session.remove()
    assert db.session.scalar(select(func.count()).select_from(Project)) == 2 and trail() == before


def test_a_premise_stage_s_m_cannot_change_and_the_waiting_sentences_are_not_added(stance, make_user, admin):
    _decide(stance, make_user, "17024")
    create_premise_stage("st", "pr", k=3, agree=2, by=admin)
    _decide(stance, make_user, "17037")
    before = trail()
    with pytest.raises(ImportRefused, match="decides a premise by 2 annotators, fixed in its definition"):
        create_premise_stage("st", "pr", agree=3, by=admin)
    assert set(_asked("pr")) == {"17024"} and trail() == before


def test_postgresql_s_planner_is_given_the_statistics_of_the_sentences_added(stance, make_user, admin):
    """refresh_statistics (ANALYZE) after the commit, as after an import: the planner counts the stance stage's items
    and the premise stage's two."""
    if db.engine.dialect.name != "postgresql":
        pytest.skip("PostgreSQL's statistics only")
    _decide(stance, make_user, "17024", "17037")
    sentences = db.session.scalar(select(func.count()).select_from(Item))
    create_premise_stage("st", "pr", by=admin)
    db.session.remove()
    assert db.session.scalar(text("SELECT reltuples FROM pg_class WHERE oid = 'items'::regclass")) == sentences + 2
