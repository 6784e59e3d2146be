"""RuArg-2022's two stages in the browser's HIT form and the API: the stance stage asks relevance and stance,
the premise stage only the premise of the claims its stance stage found relevant."""
from __future__ import annotations

import re

import pytest
from sqlalchemy import select

from annotator.campaigns.imports import import_transaction
from annotator.core.extensions import db
from annotator.core.models import Assignment, Item, Project
from annotator.engine import assignment as engine
from annotator.shared_tasks.ruarg2022.stages import create_premise_stage
from tests.conftest import DATA, load_project, stored
from tests.web.conftest import csrf_token, open_hit_page


def _vote(project, user, item: Item, answer: dict) -> None:  # type: ignore[no-untyped-def, type-arg]
    lease = Assignment(project_id=project.id, item_id=item.id, user_id=user.id,
                       expires_at=engine.utcnow() + engine.timedelta(minutes=5))
    db.session.add(lease)
    db.session.commit()
    engine.submit(lease.id, user, answer)


@pytest.fixture
def stance(app):  # type: ignore[no-untyped-def]
    return load_project("ruarg2022", DATA / "ruarg2022" / "train_excerpt.tsv", "st", k=2, stage="stance",
                        declared=False)


@pytest.fixture
def premise(stance, make_user):  # type: ignore[no-untyped-def]
    """The premise stage of 17024 only (relevant to quarantine in train.tsv), after two stance votes."""
    item = db.session.scalar(select(Item).where(Item.project_id == stance.id, Item.external_id == "17024"))
    answer = {"claims": {c: {"stance": codes["stance"]} for c, codes in item.reference.items()}}
    for name in ("s1", "s2"):
        _vote(stance, make_user(name), item, answer)
    with import_transaction():
        create_premise_stage("st", "pr", k=3)
    return stored(Project, slug="pr")


def _hit(client, slug: str) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    page = open_hit_page(client, slug).get_data(as_text=True)
    return page, re.search(rf'action="(/p/{slug}/a/\d+)"', page).group(1)


def test_the_stance_stages_key_help_names_the_stance_and_no_premise(stance, make_user, login):
    make_user("ann")
    page, _ = _hit(login("ann"), "st")
    keys = re.search(r'(?s)<details class="card keys">(.*?)</details>', page).group(1)
    assert "then the stance" in keys and "premise" not in keys


def test_the_stance_stage_asks_relevance_and_stance_but_no_premise(stance, make_user, login):
    make_user("ann")
    client = login("ann")
    page, action = _hit(client, "st")
    assert 'name="masks_relevant"' in page and 'name="masks_stance"' in page and 'name="masks_premise"' not in page
    response = client.post(action, data={"csrf_token": csrf_token(page), "masks_relevant": "yes", "masks_stance": "0",
                                         "quarantine_relevant": "no", "vaccines_relevant": "no"})
    assert response.status_code == 302
    assert stored(Assignment, status="submitted").answer == {
        "claims": {"masks": {"stance": 0}, "quarantine": {"stance": -1}, "vaccines": {"stance": -1}}}


def test_the_premise_stage_asks_only_the_premise_of_the_relevant_claims(premise, make_user, login):
    make_user("ann")
    client = login("ann")
    page, action = _hit(client, "pr")
    assert "[USER], согласно предписаниям Роспотребнадзора" in page
    assert 'name="quarantine_premise"' in page
    assert 'name="quarantine_relevant"' not in page and 'name="quarantine_stance"' not in page
    assert "Wearing masks is beneficial" not in page
    missing = client.post(action, data={"csrf_token": csrf_token(page)})
    assert missing.status_code == 400 and "Choose the premise label." in missing.get_data(as_text=True)
    assert stored(Assignment, status="submitted", project_id=premise.id) is None
    response = client.post(action, data={"csrf_token": csrf_token(page), "quarantine_premise": "0"})
    assert response.status_code == 302
    assert stored(Assignment, status="submitted", project_id=premise.id).answer == {
        "claims": {"quarantine": {"premise": 0}}}


def test_the_api_item_of_the_premise_stage_names_its_claims_and_labels(premise, api_client):
    api = api_client("bot")
    lease = api.post("/api/v1/projects/pr/next").get_json()["assignment"]
    assert lease["item"] == {"id": "17024", "text": lease["item"]["text"], "claims": ["quarantine"],
                             "labels": ["premise"]}
    refused = api.post(f"/api/v1/assignments/{lease['id']}/submit",
                       json={"answer": {"claims": {"quarantine": {"stance": 1, "premise": 1}}}})
    assert refused.status_code == 422 and 'needs exactly "premise" codes' in refused.get_json()["error"]
    accepted = api.post(f"/api/v1/assignments/{lease['id']}/submit",
                        json={"answer": {"claims": {"quarantine": {"premise": 1}}}})
    assert accepted.status_code == 201
