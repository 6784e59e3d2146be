"""A NUL in a URL's text segment (a project's slug, a crowd link's platform or token) is a 404, never a 500.

PostgreSQL's text columns cannot hold or be compared with a NUL, and psycopg refuses such a parameter, so a
lookup by `/crowd/%00/prolific/...` answered 500 there (found by the crowd entry property); SQLite compared it
and found nothing. A segment with a NUL matches no route on either engine.
"""
from __future__ import annotations

import pytest
from sqlalchemy import func, select

from annotator.core.extensions import db
from annotator.core.models import CrowdWorker

WITH_NUL = ["%00", "kpa%00", "%00kpa", "k%00pa"]


@pytest.mark.parametrize("segment", WITH_NUL)
def test_a_crowd_link_with_a_nul_in_its_slug_is_a_404_and_makes_no_account(app, kpa_project, segment):
    kpa_project()
    response = app.test_client().get(f"/crowd/{segment}/prolific/x",
                                     query_string={"PROLIFIC_PID": "5f1a", "STUDY_ID": "s", "SESSION_ID": "t"})
    assert response.status_code == 404
    db.session.remove()
    assert db.session.scalar(select(func.count()).select_from(CrowdWorker)) == 0


@pytest.mark.parametrize("segment", WITH_NUL)
def test_an_annotators_and_an_admins_page_with_a_nul_in_the_slug_are_404s(login, make_user, kpa_project, segment):
    kpa_project()
    make_user("boss", role="admin")
    client = login("boss")
    for url in (f"/p/{segment}/", f"/admin/projects/{segment}", f"/admin/projects/{segment}/annotators"):
        assert client.get(url).status_code == 404, url


def test_a_slug_without_a_nul_still_reaches_its_page(login, make_user, kpa_project):
    kpa_project()
    make_user("boss", role="admin")
    assert login("boss").get("/admin/projects/kpa").status_code == 200
