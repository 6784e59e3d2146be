"""RuArg-2022's HIT on declared projects (the default, and every RuArg project since migration
0022_stance_premise_declared), over the test client: what the annotator is shown and asked at each stage, what the
API gives and takes, and who may decide a sentence.

The behaviours of the built-in type's own tests (test_stance_premise_hit.py and test_stance_premise_stages_hit.py,
removed with the type) that no declared test named yet: the page never shows an item's known answer;
the stance stage asks relevance and stance and no premise, its key help too; the premise stage asks only the
premise of the claims its stance stage found relevant, and stores nothing while one is missing; its API item names
those claims, and today's premise-stage answer is taken and a stance in it refused with today's message; an
annotator can neither open nor post the review pages."""
from __future__ import annotations

import re
from typing import Any

import pytest
from sqlalchemy import select

from annotator.core.audit import who
from annotator.core.extensions import db
from annotator.core.models import Adjudication, Assignment, Item, Project, User
from annotator.engine import assignment as engine
from annotator.shared_tasks.ruarg2022.stages import create_premise_stage
from tests.conftest import DATA, load_project, stored
from tests.web.conftest import csrf_token, open_hit_page

TRAIN = DATA / "ruarg2022" / "train_excerpt.tsv"
IRRELEVANT = {"relevance": "irrelevant"}


def _vote(project: Project, user: User, item: Item, answer: dict[str, Any]) -> None:
    lease = Assignment(project_id=project.id, item_id=item.id, user_id=user.id,
                       expires_at=engine.utcnow() + engine.timedelta(minutes=5))
    db.session.add(lease)
    db.session.commit()
    engine.submit(lease.id, user, answer)


@pytest.fixture
def stance(app):  # type: ignore[no-untyped-def]
    """The train excerpt as a declared stance stage (stance.yaml), k=2."""
    return load_project("ruarg2022", TRAIN, "st", k=2, stage="stance")


@pytest.fixture
def premise(stance, make_user):  # type: ignore[no-untyped-def]
    """The declared premise stage of 17024 only (relevant to quarantine in train.tsv), after two stance votes."""
    item = db.session.scalar(select(Item).where(Item.project_id == stance.id, Item.external_id == "17024"))
    answer = {"claims": {c: {k: v for k, v in said.items() if k != "premise"}
                         for c, said in item.reference["claims"].items()}}
    for name in ("s1", "s2"):
        _vote(stance, make_user(name), item, answer)
    create_premise_stage("st", "pr", k=3, by=who())
    return stored(Project, slug="pr")


def _hit(client, slug: str) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    page = open_hit_page(client, slug).get_data(as_text=True)
    return page, re.search(rf'action="(/p/{slug}/a/\d+)"', page).group(1)


def _submitted(project: Project) -> list[Assignment]:
    db.session.remove()   # a fresh session: what the request committed
    return list(db.session.scalars(select(Assignment).where(Assignment.project_id == project.id,
                                                            Assignment.status == "submitted")))


def test_the_hit_shows_the_sentence_and_every_claim_but_never_the_known_answer(app, make_user, login):
    load_project("ruarg2022", TRAIN, "ru", k=3)
    make_user("ann")
    page, _ = _hit(login("ann"), "ru")
    assert "[USER], согласно предписаниям Роспотребнадзора" in page
    for claim in ("Wearing masks is beneficial for society", "Vaccination is beneficial for society"):
        assert claim in page
    assert page.count('name="q_claims__') >= 3
    assert "reference" not in page and "known" not in page.lower()


def test_the_stance_stage_asks_relevance_and_stance_but_no_premise(stance, make_user, login):
    make_user("ann")
    client = login("ann")
    page, action = _hit(client, "st")
    assert 'name="q_claims__0__relevance"' in page and 'name="q_claims__0__stance"' in page
    assert "premise" not in page.lower()   # neither a question nor the key help names it
    response = client.post(action, data={"csrf_token": csrf_token(page), "q_claims__0__relevance": "relevant",
                                         "q_claims__0__stance": "0", "q_claims__1__relevance": "irrelevant",
                                         "q_claims__2__relevance": "irrelevant"})
    assert response.status_code == 302
    [vote] = _submitted(stance)
    assert vote.answer == {"claims": {"masks": {"relevance": "relevant", "stance": "0"}, "quarantine": IRRELEVANT,
                                      "vaccines": IRRELEVANT}}


def test_the_premise_stage_asks_only_the_premise_of_the_relevant_claims(premise, make_user, login):
    make_user("ann")
    client = login("ann")
    page, action = _hit(client, "pr")
    assert "[USER], согласно предписаниям Роспотребнадзора" in page
    assert 'name="q_quarantine_premise"' in page
    assert 'name="q_masks_premise"' not in page and "relevance" not in page
    assert "wearing masks is beneficial" not in page.lower()


def test_the_premise_stage_stores_nothing_while_a_premise_is_missing(premise, make_user, login):
    make_user("ann")
    client = login("ann")
    page, action = _hit(client, "pr")
    missing = client.post(action, data={"csrf_token": csrf_token(page)})
    assert missing.status_code == 400 and "Please answer this question." in missing.get_data(as_text=True)
    assert _submitted(premise) == []
    response = client.post(action, data={"csrf_token": csrf_token(page), "q_quarantine_premise": "0"})
    assert response.status_code == 302
    [vote] = _submitted(premise)
    assert vote.answer == {"quarantine_premise": "0"}


def test_the_api_item_of_the_premise_stage_names_its_claims_and_takes_today_s_answer(premise, api_client):
    api = api_client("bot")
    lease = api.post("/api/v1/projects/pr/next").get_json()["assignment"]
    assert lease["item"]["id"] == "17024" and lease["item"]["claims"] == ["quarantine"]
    refused = api.post(f"/api/v1/assignments/{lease['id']}/submit",
                       json={"answer": {"claims": {"quarantine": {"stance": 1, "premise": 1}}}})
    assert refused.status_code == 422 and 'needs exactly "premise" codes' in refused.get_json()["error"]
    accepted = api.post(f"/api/v1/assignments/{lease['id']}/submit",
                        json={"answer": {"claims": {"quarantine": {"premise": 1}}}})
    assert accepted.status_code == 201
    assert stored(Assignment, id=lease["id"]).answer == {"quarantine_premise": "1"}


def test_annotators_cannot_adjudicate(app, make_user, login):
    project = load_project("ruarg2022", TRAIN, "ru", k=3)
    item = stored(Item, external_id="17024", project_id=project.id)
    for n, code in enumerate(("2", "0", "1")):   # three stances of masks: undecided
        _vote(stored(Project, slug="ru"), make_user(f"a{n}"), item, {"claims": {
            "masks": {"relevance": "relevant", "stance": code, "premise": "1"}, "quarantine": IRRELEVANT,
            "vaccines": IRRELEVANT}})
    make_user("ann")
    client = login("ann")
    assert client.get("/admin/projects/ru/review/").status_code == 403
    token = csrf_token(open_hit_page(client, "ru").get_data(as_text=True))   # a valid token: only the role refuses
    response = client.post("/admin/projects/ru/review/17024", data={
        "csrf_token": token, "q_claims__0__relevance": "irrelevant", "q_claims__1__relevance": "irrelevant",
        "q_claims__2__relevance": "irrelevant"})
    assert response.status_code == 403
    assert stored(Adjudication, item_id=item.id) is None
