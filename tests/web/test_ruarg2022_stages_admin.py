"""RuArg-2022's two stages on the admin pages: where a premise stage comes from, and the settings that tie a
project's votes to its stage."""
from __future__ import annotations

import io

import pytest
from sqlalchemy import func, select

from annotator.core.extensions import db
from annotator.core.models import Project
from tests.conftest import DATA
from tests.web.conftest import csrf_token

TRAIN = DATA / "ruarg2022" / "train_excerpt.tsv"


@pytest.fixture
def admin(login, make_user):  # type: ignore[no-untyped-def]
    make_user("boss", role="admin")
    return login("boss")


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
