"""RuArg-2022's two stages on the admin pages: where a premise stage comes from, and the settings that tie a
project's votes to its stage."""
from __future__ import annotations

import html
import io

import pytest
from sqlalchemy import func, select

from annotator.campaigns.imports import import_transaction
from annotator.core.extensions import db
from annotator.core.models import Assignment, Item, Project, User
from annotator.engine import assignment as engine
from annotator.shared_tasks.ruarg2022.stages import create_premise_stage
from annotator.tasks.stance_premise import DEFAULT_CLAIMS, show_claims
from tests.conftest import DATA, load_project, stored
from tests.web.conftest import csrf_token

TRAIN = DATA / "ruarg2022" / "train_excerpt.tsv"


@pytest.fixture
def admin(login, make_user):  # type: ignore[no-untyped-def]
    make_user("boss", role="admin")
    return login("boss")


@pytest.fixture
def stance(app):  # type: ignore[no-untyped-def]
    """The train excerpt as a stance stage, k=2, nobody has voted yet."""
    return load_project("ruarg2022", TRAIN, "st", k=2, stage="stance", declared=False)


def _vote(project: Project, user, external_id: str, answer: dict) -> None:  # type: ignore[no-untyped-def, type-arg]
    item = db.session.scalar(select(Item).where(Item.project_id == project.id, Item.external_id == external_id))
    lease = Assignment(project_id=project.id, item_id=item.id, user_id=user.id,
                       expires_at=engine.utcnow() + engine.timedelta(minutes=5))
    db.session.add(lease)
    db.session.commit()
    engine.submit(lease.id, user, answer)


def _decide(stance: Project, make_user, *external_ids: str) -> None:  # type: ignore[no-untyped-def]
    """Two stance votes giving each sentence its file labels, so it is decided (by s1 and s2, made once)."""
    users = [stored(User, username=name) or make_user(name) for name in ("s1", "s2")]
    stance = stored(Project, slug=stance.slug)
    for external_id in external_ids:
        item = db.session.scalar(select(Item).where(Item.project_id == stance.id, Item.external_id == external_id))
        answer = {"claims": {c: {"stance": codes["stance"]} for c, codes in item.reference.items()}}
        for user in users:
            _vote(stance, user, external_id, answer)


def _save_settings(client, slug: str, **settings: str) -> str:  # type: ignore[no-untyped-def]
    """Post the project's settings form as the page fills it, with `settings` changed; the page's text."""
    page = client.get(f"/admin/projects/{slug}").get_data(as_text=True)
    project = stored(Project, slug=slug)
    claims = project.settings.get("claims", DEFAULT_CLAIMS)  # the page fills the claims' text area
    response = client.post(f"/admin/projects/{slug}", data={
        "csrf_token": csrf_token(page), "name": project.name, "k": str(project.k),
        "lease_minutes": str(project.lease_minutes), "claims": show_claims(claims), **settings})
    if response.status_code == 302:  # saved: the flash is on the page it leads to
        response = client.get(response.headers["Location"])
    return html.unescape(response.get_data(as_text=True))


def _projects() -> int:
    db.session.remove()
    return db.session.scalar(select(func.count()).select_from(Project))


def test_the_new_project_form_refuses_a_premise_stage_and_says_how_one_is_made(admin):
    url = "/admin/projects/new/ruarg2022"
    page = admin.get(url).get_data(as_text=True)
    response = admin.post(url, content_type="multipart/form-data", data={
        "csrf_token": csrf_token(page), "name": "Premises", "slug": "pr", "k": "3", "lease_minutes": "30",
        "stage": "premise", "stance_project": "st", "files": [(io.BytesIO(TRAIN.read_bytes()), TRAIN.name)]})
    html = response.get_data(as_text=True)
    assert response.status_code == 400
    assert "a premise-stage project is not imported from a file" in html
    assert "flask premise-stage --from STANCE --project SLUG" in html
    assert _projects() == 0


def test_the_stage_of_a_project_with_votes_cannot_change_and_the_message_names_it(admin, stance, make_user):
    _decide(stance, make_user, "17024")
    page = _save_settings(admin, "st", stage="both")
    assert "the setting stage cannot change now that project 'st' has votes: it is 'stance'" in page
    assert "Settings saved" not in page
    assert stored(Project, slug="st").settings["stage"] == "stance"


def test_the_claims_of_a_project_with_votes_cannot_change(admin, stance, make_user):
    """The votes answer the claims the HIT asked; another list would put them under other label columns."""
    _decide(stance, make_user, "17024")
    fewer = show_claims(DEFAULT_CLAIMS[:2])
    page = _save_settings(admin, "st", stage="stance", claims=fewer)
    assert "the setting claims cannot change now that project 'st' has votes: it keeps its value" in page
    assert [c["key"] for c in stored(Project, slug="st").settings["claims"]] == ["masks", "quarantine", "vaccines"]


def test_before_any_vote_the_claims_may_change(admin, stance):
    page = _save_settings(admin, "st", stage="stance", claims=show_claims(DEFAULT_CLAIMS[:2]))
    assert "Settings saved" in page
    assert [c["key"] for c in stored(Project, slug="st").settings["claims"]] == ["masks", "quarantine"]


def test_the_stance_project_of_a_premise_stage_with_votes_cannot_change(admin, stance, make_user):
    _decide(stance, make_user, "17024")
    with import_transaction():
        create_premise_stage("st", "pr", k=1)
    _vote(stored(Project, slug="pr"), make_user("p1"), "17024", {"claims": {"quarantine": {"premise": 1}}})
    page = _save_settings(admin, "pr", stance_project="other")
    assert "the setting stance_project cannot change now that project 'pr' has votes: it is 'st'" in page
    assert stored(Project, slug="pr").settings["stance_project"] == "st"


def test_other_settings_of_a_project_with_votes_still_change(admin, stance, make_user):
    _decide(stance, make_user, "17024")
    assert "Settings saved" in _save_settings(admin, "st", stage="stance", agree="1")
    assert stored(Project, slug="st").settings["agree"] == 1


def test_before_any_vote_the_stage_may_change(admin, stance):
    assert "Settings saved" in _save_settings(admin, "st", stage="both")
    assert stored(Project, slug="st").settings["stage"] == "both"


# --- the page "Create / extend the premise stage" ----------------------------------------------------

PAGE = "/admin/projects/st/premise-stage"


def _post_stage(client, **fields: str):  # type: ignore[no-untyped-def]
    page = client.get(PAGE).get_data(as_text=True)
    return client.post(PAGE, data={"csrf_token": csrf_token(page), **fields})


def test_the_stance_projects_page_links_to_the_premise_stage_page(admin, stance):
    assert f'href="{PAGE}"' in admin.get("/admin/projects/st").get_data(as_text=True)


def test_the_page_shows_how_many_relevant_sentences_there_are_before_anything_is_made(admin, stance, make_user):
    _decide(stance, make_user, "17024", "17037", "18481")
    page = admin.get(PAGE).get_data(as_text=True)
    assert '<dd id="relevant">3</dd>' in page and '<dd id="to-add">3</dd>' in page
    assert 'value="st-premise"' in page
    assert _projects() == 1


def test_the_form_creates_the_premise_stage_as_the_command_does(admin, stance, make_user):
    _decide(stance, make_user, "17024", "17037")
    response = _post_stage(admin, slug="pr", name="Premises", k="4", agree="3")
    assert response.status_code == 302 and response.headers["Location"] == "/admin/projects/pr"
    project = stored(Project, slug="pr")
    assert (project.name, project.k, project.settings["stage"], project.settings["stance_project"],
            project.settings["agree"]) == ("Premises", 4, "premise", "st", 3)
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
    load_project("ruarg2022", TRAIN, "both", declared=False)
    response = admin.get("/admin/projects/both/premise-stage")
    assert response.status_code == 404 and "is not a stance stage" in html.unescape(response.get_data(as_text=True))
