"""The stance/premise HIT over the test client: the page, the form, the API, and adjudication by an admin."""
from __future__ import annotations

import re

import pytest
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import Adjudication, Assignment, Item, Label, Project
from annotator.engine import assignment as engine
from tests.conftest import DATA, load_project, stored
from tests.web.conftest import csrf_token, open_hit_page

IRR = {"stance": -1, "premise": -1}


@pytest.fixture
def project(app):  # type: ignore[no-untyped-def]
    return load_project("ruarg2022", DATA / "ruarg2022" / "train_excerpt.tsv", "ru", k=3, declared=False)


def _hit(client) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    page = open_hit_page(client, "ru").get_data(as_text=True)
    action = re.search(r'action="(/p/ru/a/\d+)"', page).group(1)
    return page, action


def test_the_hit_shows_the_sentence_and_every_claim_but_never_the_reference(project, make_user, login):
    make_user("ann")
    page, _ = _hit(login("ann"))
    assert "[USER], согласно предписаниям Роспотребнадзора" in page
    for claim in ("Wearing masks is beneficial for society", "Vaccination is beneficial for society"):
        assert claim in page
    assert 'name="masks_relevant"' in page and 'name="vaccines_premise"' in page
    assert "Definitions" in page and "beneficial for society</strong>" in page
    assert "reference" not in page


def test_the_interface_speaks_russian_when_the_project_says_so(project, make_user, login):
    project = stored(Project, slug="ru")
    project.settings = {**project.settings, "language": "ru"}
    db.session.commit()
    make_user("ann")
    page, _ = _hit(login("ann"))
    assert "Ношение масок полезно для общества" in page and "Нерелевантно" in page and "Определения" in page
    assert 'lang="ru"' in page and "Отправить" in page


def test_the_form_stores_the_answer_in_the_datasets_codes(project, make_user, login):
    make_user("ann")
    client = login("ann")
    page, action = _hit(client)
    response = client.post(action, data={"csrf_token": csrf_token(page), "masks_relevant": "yes", "masks_stance": "2",
                                         "masks_premise": "1", "quarantine_relevant": "no", "vaccines_relevant": "no",
                                         "vaccines_stance": "0"})  # a stray choice of an irrelevant claim is ignored
    assert response.status_code == 302
    vote = stored(Assignment, status="submitted")
    assert vote.answer == {"claims": {"masks": {"stance": 2, "premise": 1}, "quarantine": IRR, "vaccines": IRR}}
    labels = db.session.execute(select(Label.unit, Label.field, Label.value).order_by(Label.id)).all()
    assert labels[:2] == [("masks", "stance", "2"), ("masks", "premise", "1")] and len(labels) == 6


def test_the_form_asks_for_what_is_missing_and_stores_nothing(project, make_user, login):
    make_user("ann")
    client = login("ann")
    page, action = _hit(client)
    response = client.post(action, data={"csrf_token": csrf_token(page), "masks_relevant": "yes", "masks_stance": "2",
                                         "quarantine_relevant": "no"})
    html = response.get_data(as_text=True)
    assert response.status_code == 400
    assert "Choose the premise label." in html and "Say whether the sentence is about this claim." in html
    assert stored(Assignment, status="submitted") is None


def test_the_api_item_and_answer_have_the_documented_shape(project, api_client):
    api = api_client("bot")
    lease = api.post("/api/v1/projects/ru/next").get_json()["assignment"]
    assert lease["item"] == {"id": "17024", "text": lease["item"]["text"],
                             "claims": ["masks", "quarantine", "vaccines"]}
    answer = {"claims": {"masks": {"stance": 2, "premise": 1}, "quarantine": IRR, "vaccines": IRR}}
    response = api.post(f"/api/v1/assignments/{lease['id']}/submit", json={"answer": answer})
    assert response.status_code == 201 and response.get_json()["assignment"]["answer"] == answer


@pytest.mark.parametrize("claims, message", [
    ({"masks": IRR, "quarantine": IRR}, "claim 'vaccines' is missing"),
    ({"masks": IRR, "quarantine": IRR, "vaccines": IRR, "bikes": IRR}, "'bikes' is not one of this project's claims"),
    ({"masks": {"stance": 5, "premise": 1}, "quarantine": IRR, "vaccines": IRR}, "stance of claim 'masks' is 5"),
    ({"masks": {"stance": -1, "premise": 1}, "quarantine": IRR, "vaccines": IRR}, "irrelevant (-1) for one label"),
])
def test_the_api_refuses_answers_that_do_not_fit_with_422(project, api_client, claims, message):
    api = api_client("bot")
    lease = api.post("/api/v1/projects/ru/next").get_json()["assignment"]
    response = api.post(f"/api/v1/assignments/{lease['id']}/submit", json={"answer": {"claims": claims}})
    assert response.status_code == 422 and message in response.get_json()["error"]
    assert stored(Assignment, id=lease["id"]).status == "leased"


def _split_votes(project, make_user):  # type: ignore[no-untyped-def]
    """Three annotators who disagree on the stance of masks for sentence 17024."""
    item = stored(Item, external_id="17024")
    for n, code in enumerate((2, 0, 1)):
        user = make_user(f"a{n}")
        lease = Assignment(project_id=project.id, item_id=item.id, user_id=user.id,
                           expires_at=engine.utcnow() + engine.timedelta(minutes=5))
        db.session.add(lease)
        db.session.commit()
        engine.submit(lease.id, user, {"claims": {"masks": {"stance": code, "premise": 1}, "quarantine": IRR,
                                                  "vaccines": IRR}})


def test_an_admin_decides_an_undecided_sentence_through_the_hit_form(project, make_user, login):
    _split_votes(stored(Project, slug="ru"), make_user)
    make_user("boss", role="admin")
    admin = login("boss")
    overview = admin.get("/admin/projects/ru").get_data(as_text=True)
    assert "1 item to decide" in overview and "for adjudication" in overview
    listing = admin.get("/admin/projects/ru/review/").get_data(as_text=True)
    assert 'href="/admin/projects/ru/review/17024"' in listing
    page = admin.get("/admin/projects/ru/review/17024").get_data(as_text=True)
    assert "What the annotators said" in page and "masks stance" in page and 'name="masks_relevant"' in page
    response = admin.post("/admin/projects/ru/review/17024", data={
        "csrf_token": csrf_token(page), "masks_relevant": "yes", "masks_stance": "0", "masks_premise": "1",
        "quarantine_relevant": "no", "vaccines_relevant": "no"})
    assert response.status_code == 302
    decision = stored(Adjudication, item_id=stored(Item, external_id="17024").id)
    assert decision.answer["claims"]["masks"] == {"stance": 0, "premise": 1}
    assert "0 items to decide" in admin.get("/admin/projects/ru").get_data(as_text=True)


def test_the_admin_page_shows_the_consistency_checks(project, make_user, login):
    project = stored(Project, slug="ru")
    project.k = 1  # each vote completes its sentence, so gold and the checks count it
    db.session.commit()
    for n in range(2):
        user = make_user(f"a{n}")
        lease = engine.next_for(user, project)
        engine.submit(lease.id, user, {"claims": {"masks": {"stance": 2, "premise": 0}, "quarantine": IRR,
                                                  "vaccines": IRR}})
    make_user("boss", role="admin")
    html = login("boss").get("/admin/projects/ru").get_data(as_text=True)
    assert "votes: stance and premise of opposite polarity" in html
    assert "gold differs from the imported reference labels" in html
    assert "17024 (masks)" in html


def test_annotators_cannot_adjudicate(project, make_user, login):
    _split_votes(stored(Project, slug="ru"), make_user)
    make_user("ann")
    client = login("ann")
    assert client.get("/admin/projects/ru/review/").status_code == 403
    token = csrf_token(open_hit_page(client, "ru").get_data(as_text=True))   # a valid token: only the role refuses
    response = client.post("/admin/projects/ru/review/17024", data={
        "csrf_token": token, "masks_relevant": "no", "quarantine_relevant": "no", "vaccines_relevant": "no"})
    assert response.status_code == 403
    assert stored(Adjudication, item_id=stored(Item, external_id="17024").id) is None
