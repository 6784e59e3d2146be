"""RuArg-2022's two stages on the admin pages, for declared projects (the default, and every RuArg project since
migration 0022_stance_premise_declared): where a premise stage comes from, and what of a stage a project's votes
tie it to.

The behaviours of test_ruarg2022_stages_admin.py (the built-in type's, removed with it), on a declared stance stage of
stance.yaml: the page "Create / extend the premise stage" counts, creates, extends and refuses as the command does;
the new project form refuses a premise stage. A declared project's stage, claims and m are its definition's, fixed
at the import: its settings form has no such field to change, before or after votes (the built-in's "fixed once
voted" settings), and saving the form leaves the definition as it was."""
from __future__ import annotations

import html
import io
from typing import Any

import pytest
from sqlalchemy import func, select

from annotator.core.extensions import db
from annotator.core.models import Assignment, Item, Project, User
from annotator.engine import assignment as engine
from tests.conftest import DATA, load_project, stored
from tests.web.conftest import csrf_token

TRAIN = DATA / "ruarg2022" / "train_excerpt.tsv"
PAGE = "/admin/projects/st/premise-stage"


@pytest.fixture
def admin(login, make_user):  # type: ignore[no-untyped-def]
    make_user("boss", role="admin")
    return login("boss")


@pytest.fixture
def stance(app):  # type: ignore[no-untyped-def]
    """The train excerpt as a declared stance stage (stance.yaml), k=2, nobody has voted yet."""
    return load_project("ruarg2022", TRAIN, "st", k=2, stage="stance")


def _vote(project: Project, user: User, external_id: str, answer: dict[str, Any]) -> None:
    item = db.session.scalar(select(Item).where(Item.project_id == project.id, Item.external_id == external_id))
    lease = Assignment(project_id=project.id, item_id=item.id, user_id=user.id,
                       expires_at=engine.utcnow() + engine.timedelta(minutes=5))
    db.session.add(lease)
    db.session.commit()
    engine.submit(lease.id, user, answer)


def _decide(stance: Project, make_user, *external_ids: str) -> None:  # type: ignore[no-untyped-def]
    """Two stance votes giving each sentence its file labels (the item's known answer, stance.yaml's questions of
    it), so it is decided (by s1 and s2, made once)."""
    users = [stored(User, username=name) or make_user(name) for name in ("s1", "s2")]
    stance = stored(Project, slug=stance.slug)
    for external_id in external_ids:
        item = db.session.scalar(select(Item).where(Item.project_id == stance.id, Item.external_id == external_id))
        answer = {"claims": {claim: {k: v for k, v in said.items() if k != "premise"}
                             for claim, said in item.reference["claims"].items()}}
        for user in users:
            _vote(stance, user, external_id, answer)


def _projects() -> int:
    db.session.remove()
    return db.session.scalar(select(func.count()).select_from(Project))


def test_the_new_project_form_refuses_a_premise_stage_and_says_how_one_is_made(admin):
    url = "/admin/projects/new/ruarg2022"
    page = admin.get(url).get_data(as_text=True)
    response = admin.post(url, content_type="multipart/form-data", data={
        "csrf_token": csrf_token(page), "name": "Premises", "slug": "pr", "k": "3", "lease_minutes": "30",
        "declared": "y", "stage": "premise", "stance_project": "st",
        "files": [(io.BytesIO(TRAIN.read_bytes()), TRAIN.name)]})
    said = response.get_data(as_text=True)
    assert response.status_code == 400
    assert "a premise-stage project is not imported from a file" in said
    assert "flask premise-stage --from STANCE --project SLUG" in said
    assert _projects() == 0


@pytest.mark.parametrize("voted", [False, True], ids=["before any vote", "with votes"])
def test_the_stage_claims_and_m_are_the_definition_s_and_the_settings_form_leaves_them(admin, stance, make_user,
                                                                                     voted):
    if voted:
        _decide(stance, make_user, "17024")
    before = stored(Project, slug="st").definition
    page = admin.get("/admin/projects/st").get_data(as_text=True)
    for field in ("stage", "claims", "agree", "relevant_votes"):
        assert f'name="{field}"' not in page, field
    response = admin.post("/admin/projects/st", data={
        "csrf_token": csrf_token(page), "name": "Stance stage", "k": "2", "lease_minutes": "45",
        "stage": "both", "claims": "masks | Masks help"})
    assert response.status_code == 302
    project = stored(Project, slug="st")
    assert (project.name, project.lease_minutes) == ("Stance stage", 45)   # the project's own settings still change
    assert project.definition == before


def test_the_stance_projects_page_links_to_the_premise_stage_page(admin, stance):
    assert f'href="{PAGE}"' in admin.get("/admin/projects/st").get_data(as_text=True)


def _post_stage(client, **fields: str):  # type: ignore[no-untyped-def]
    page = client.get(PAGE).get_data(as_text=True)
    return client.post(PAGE, data={"csrf_token": csrf_token(page), **fields})


def test_the_page_shows_how_many_relevant_sentences_there_are_before_anything_is_made(admin, stance, make_user):
    _decide(stance, make_user, "17024", "17037", "18481")
    page = admin.get(PAGE).get_data(as_text=True)
    assert '<dd id="relevant">3</dd>' in page and '<dd id="to-add">3</dd>' in page
    assert 'value="st-premise"' in page
    assert _projects() == 1


def test_the_form_creates_the_declared_premise_stage_as_the_command_does(admin, stance, make_user):
    _decide(stance, make_user, "17024", "17037")
    response = _post_stage(admin, slug="pr", name="Premises", k="4", agree="3")
    assert response.status_code == 302 and response.headers["Location"] == "/admin/projects/pr"
    project = stored(Project, slug="pr")
    assert (project.name, project.k, project.task_type, project.source["stance_project"]) == \
        ("Premises", 4, "custom", "st")
    assert {q["gold"]["m"] for q in project.definition["questions"]} == {3}
    rows = db.session.execute(select(Item.external_id, Item.payload).where(Item.project_id == project.id)).all()
    assert {i: p["claims"] for i, p in rows} == {"17024": ["quarantine"], "17037": ["masks", "quarantine"]}
    assert "Added 2 sentences to project &#39;pr&#39; (k=4)" in admin.get("/admin/projects/pr").get_data(as_text=True)


def test_the_form_extends_the_premise_stage_with_the_sentences_decided_since(admin, stance, make_user):
    _decide(stance, make_user, "17024")
    _post_stage(admin, slug="pr", k="3")
    _decide(stance, make_user, "17037")
    page = admin.get(PAGE).get_data(as_text=True)
    assert '<dd id="relevant">2</dd>' in page and '<dd id="present">1</dd>' in page and 'value="pr"' in page
    assert _post_stage(admin, slug="pr", k="3").status_code == 302
    db.session.remove()
    assert db.session.scalar(select(func.count()).select_from(Item).join(Project).where(Project.slug == "pr")) == 2


def test_a_refused_form_says_why_and_makes_nothing(admin, stance, make_user):
    _decide(stance, make_user, "17024")
    response = _post_stage(admin, slug="st", k="3")  # the stance project itself
    page = html.unescape(response.get_data(as_text=True))
    assert response.status_code == 400
    assert "project 'st' exists and is not the premise stage of 'st'" in page and "Nothing was imported" in page
    assert _projects() == 1


def test_the_form_needs_its_csrf_token(admin, stance, make_user):
    _decide(stance, make_user, "17024")
    assert admin.post(PAGE, data={"slug": "pr", "k": "3"}).status_code == 400
    assert _projects() == 1


def test_annotators_may_not_open_or_post_the_page(login, make_user, stance):
    make_user("ann")
    client = login("ann")
    assert client.get(PAGE).status_code == 403
    token = csrf_token(client.get("/account/password").get_data(as_text=True))
    assert client.post(PAGE, data={"csrf_token": token, "slug": "pr", "k": "3"}).status_code == 403
    assert _projects() == 1


def test_a_project_that_is_not_a_stance_stage_has_no_such_page(admin, app):
    load_project("ruarg2022", TRAIN, "both")
    response = admin.get("/admin/projects/both/premise-stage")
    assert response.status_code == 404 and "is not a stance stage" in html.unescape(response.get_data(as_text=True))
