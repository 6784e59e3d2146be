"""The web import of SemEval-2020 emphasis files with "Serve a new project from the task's definition" ticked (as it
is by default): the project is a declared project of selection.yaml, its imported votes are the definition's rows,
and an annotator's HIT is the declared span page (the words, the cuts between them), whose posted tags are stored as
the definition's answer (read back in a fresh session)."""
from __future__ import annotations

import io
import json
import re
import zipfile

from sqlalchemy import func, select

from annotator.core.extensions import db
from annotator.core.models import SUBMITTED, Assignment, Item, Label, Project, User
from tests.conftest import DATA
from tests.web.conftest import csrf_token, open_hit_page

DEV = DATA / "emphasis2020" / "dev_excerpt.txt"


def _upload_declared(login, make_user, **fields):  # type: ignore[no-untyped-def]
    make_user("boss", role="admin")
    client = login("boss")
    url = "/admin/projects/new/emphasis2020"
    page = client.get(url).get_data(as_text=True)
    assert '<input checked id="declared" name="declared" type="checkbox" value="y">' in page   # ticked by default
    data = {"csrf_token": csrf_token(page), "name": "Quotes", "slug": "quotes", "k": "9", "lease_minutes": "20",
            "guidelines": "", "files": [(io.BytesIO(DEV.read_bytes()), DEV.name)], "declared": "y", **fields}
    return client.post(url, content_type="multipart/form-data", data=data)


def test_the_upload_with_the_box_ticked_makes_a_declared_project_with_the_votes_as_its_rows(login, make_user):
    response = _upload_declared(login, make_user, with_votes="y")
    assert response.status_code == 302, response.get_data(as_text=True)
    db.session.remove()
    project = db.session.scalars(select(Project).where(Project.slug == "quotes")).one()
    assert (project.task_type, project.definition["name"]) == ("custom", "Emphasis selection (SemEval-2020 Task 10)")
    fields = dict(db.session.execute(select(Label.field, func.count()).group_by(Label.field)).all())
    words = sum(len(payload["words"]) for payload in db.session.scalars(select(Item.payload)))
    assert fields == {"emphasis": 9 * words, "emphasis.bio": 9 * words}


def test_the_admin_pages_show_the_declared_project_and_its_zip_holds_the_released_file(login, make_user):
    assert _upload_declared(login, make_user, with_votes="y").status_code == 302
    client = login("boss")
    assert client.get("/admin/projects/quotes").status_code == 200
    assert client.get("/admin/projects/quotes/items/").status_code == 200
    response = client.get("/admin/projects/quotes/export.zip")
    assert response.status_code == 200
    with zipfile.ZipFile(io.BytesIO(response.data)) as archive:
        assert archive.read("dev_excerpt.txt") == DEV.read_bytes()


def test_an_annotator_gets_the_declared_span_page_and_a_posted_selection_is_stored_as_its_tags(login, make_user):
    assert _upload_declared(login, make_user, k="3").status_code == 302
    make_user("ann")
    client = login("ann")
    html = open_hit_page(client, "quotes").get_data(as_text=True)
    assert 'data-boundaries-of="emphasis"' in html and ">Life<" in html
    action = re.search(r'action="(/p/quotes/a/\d+)"', html).group(1)
    tags = ["O"] * 6 + ["B", "O", "O", "O", "B", "O"]   # risks, samenesses
    response = client.post(action, data={"csrf_token": csrf_token(html), "q_emphasis": json.dumps(tags)})
    assert response.status_code == 302
    db.session.remove()
    vote = db.session.scalars(select(Assignment).join(User, User.id == Assignment.user_id)
                              .where(User.username == "ann", Assignment.status == SUBMITTED)).one()
    assert vote.answer == {"emphasis": tags}
    rows = dict(db.session.execute(select(Label.unit, Label.value).where(Label.assignment_id == vote.id,
                                                                         Label.field == "emphasis.bio")).all())
    assert rows == {f"Q_0_{n}": tag for n, tag in enumerate(tags)}
