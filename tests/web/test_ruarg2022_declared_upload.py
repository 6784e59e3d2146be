"""The web import of RuArg-2022 files with "Serve a new project from the task's definition" ticked (as it is by
default): the project is a
declared project of the stage's definition, its admin pages and export zip answer (the zip's file the task's bytes
once the votes decide the file's labels), an annotator's HIT is the declared claims page, whose posted answer is
stored as the definition's (read back in a fresh session), and the stance stage's page makes a declared premise
stage."""
from __future__ import annotations

import html
import io
import re
import zipfile

from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import SUBMITTED, Adjudication, Assignment, Item, Label, Project, User
from annotator.shared_tasks.ruarg2022.import_options import DEFAULT_CLAIMS, show_claims
from tests.cli.test_ruarg2022_stages import _vote
from tests.conftest import DATA
from tests.web.conftest import csrf_token, open_hit_page

TRAIN = DATA / "ruarg2022" / "train_excerpt.tsv"
CLAIMS = ("masks", "quarantine", "vaccines")


def _upload_declared(login, make_user, **fields):  # type: ignore[no-untyped-def]
    make_user("boss", role="admin")
    client = login("boss")
    url = "/admin/projects/new/ruarg2022"
    page = client.get(url).get_data(as_text=True)
    assert '<input checked id="declared" name="declared" type="checkbox" value="y">' in page   # ticked by default
    data = {"csrf_token": csrf_token(page), "name": "Covid", "slug": "covid", "k": "2", "lease_minutes": "20",
            "guidelines": "", "agree": "2", "relevant_votes": "2", "stage": "both", "language": "en",
            "claims": show_claims(DEFAULT_CLAIMS), "files": [(io.BytesIO(TRAIN.read_bytes()), TRAIN.name)],
            "declared": "y", **fields}
    return client.post(url, content_type="multipart/form-data", data=data)


def _project(slug: str) -> Project:
    db.session.remove()
    return db.session.scalars(select(Project).where(Project.slug == slug)).one()


def _file_labels() -> dict[str, dict[str, dict[str, int]]]:
    """The train excerpt's labels read from the file: text_id -> claim -> stance and premise code."""
    lines = TRAIN.read_bytes().decode("utf-8").split("\r\n")
    header = lines[0].split("\t")
    rows = [dict(zip(header, line.split("\t"))) for line in lines[1:] if line]
    return {r["text_id"]: {c: {"stance": int(r[f"{c}_stance"]), "premise": int(r[f"{c}_argument"])} for c in CLAIMS}
            for r in rows}


def test_the_upload_with_the_box_unticked_is_refused_saying_the_built_in_type_is_gone(login, make_user):
    """The built-in stance_premise type is gone (docs/one-engine.md): the form says so and nothing is made."""
    response = _upload_declared(login, make_user, declared="")
    page = response.get_data(as_text=True)
    assert response.status_code == 400
    assert "the built-in stance_premise HIT type is gone" in page and "with its box ticked" in page
    db.session.remove()
    assert db.session.scalars(select(Project)).all() == []


def test_the_upload_with_the_box_ticked_makes_a_declared_project_of_the_stages_definition(login, make_user):
    response = _upload_declared(login, make_user, stage="stance")
    assert response.status_code == 302, response.get_data(as_text=True)
    project = _project("covid")
    assert (project.task_type, project.k, project.definition["name"]) == (
        "custom", 2, "Stance per claim (RuArg-2022, first stage)")
    assert len(project.items) == len(_file_labels())


def test_the_admin_pages_answer_and_the_zip_holds_the_tasks_file_of_the_decided_votes(login, make_user):
    assert _upload_declared(login, make_user).status_code == 302
    project = _project("covid")
    voters = [make_user("v1"), make_user("v2")]
    for text_id, labels in _file_labels().items():
        for user in voters:
            _vote(project, user, text_id, {"claims": labels})
    client = login("boss")
    assert client.get("/admin/projects/covid").status_code == 200
    assert client.get("/admin/projects/covid/items/").status_code == 200
    response = client.get("/admin/projects/covid/export.zip")
    assert response.status_code == 200
    with zipfile.ZipFile(io.BytesIO(response.data)) as archive:
        assert archive.read("train_excerpt.tsv") == TRAIN.read_bytes()


def test_an_annotator_gets_the_declared_claims_page_and_a_posted_answer_is_stored_as_the_definitions(login,
                                                                                                   make_user):
    assert _upload_declared(login, make_user).status_code == 302
    make_user("ann")
    client = login("ann")
    page = open_hit_page(client, "covid").get_data(as_text=True)
    assert page.count('name="q_claims__0__relevance"') == 2 and "Wearing masks is beneficial" in page
    action = re.search(r'action="(/p/covid/a/\d+)"', page).group(1)
    response = client.post(action, data={"csrf_token": csrf_token(page), "q_claims__0__relevance": "irrelevant",
                                         "q_claims__1__relevance": "relevant", "q_claims__1__stance": "1",
                                         "q_claims__1__premise": "1", "q_claims__2__relevance": "irrelevant"})
    assert response.status_code == 302
    db.session.remove()
    vote = db.session.scalars(select(Assignment).join(User, User.id == Assignment.user_id)
                              .where(User.username == "ann", Assignment.status == SUBMITTED)).one()
    assert vote.answer == {"claims": {"masks": {"relevance": "irrelevant"},
                                      "quarantine": {"relevance": "relevant", "stance": "1", "premise": "1"},
                                      "vaccines": {"relevance": "irrelevant"}}}
    assert db.session.scalar(select(Label.value).where(Label.assignment_id == vote.id, Label.unit == "quarantine",
                                                       Label.field == "stance")) == "1"


def test_the_stance_stages_page_makes_a_declared_premise_stage(login, make_user):
    assert _upload_declared(login, make_user, stage="stance").status_code == 302
    project = _project("covid")
    voters = [make_user("v1"), make_user("v2")]
    labels = _file_labels()
    for text_id in ("17024", "17037"):   # 17024: quarantine relevant; 17037: masks and quarantine
        for user in voters:
            _vote(project, user, text_id, {"claims": {c: {"stance": codes["stance"]}
                                                      for c, codes in labels[text_id].items()}})
    client = login("boss")
    url = "/admin/projects/covid/premise-stage"
    assert f'href="{url}"' in client.get("/admin/projects/covid").get_data(as_text=True)
    page = client.get(url).get_data(as_text=True)
    assert '<dd id="relevant">2</dd>' in page and '<dd id="to-add">2</dd>' in page
    response = client.post(url, data={"csrf_token": csrf_token(page), "slug": "pr", "k": "3", "agree": "2"})
    assert response.status_code == 302 and response.headers["Location"] == "/admin/projects/pr"
    premise = _project("pr")
    assert (premise.task_type, premise.definition["name"]) == ("custom",
                                                               "Premise per relevant claim (RuArg-2022, second stage)")
    rows = db.session.execute(select(Item.external_id, Item.payload).where(Item.project_id == premise.id)).all()
    assert {i: p["claims"] for i, p in rows} == {"17024": ["quarantine"], "17037": ["masks", "quarantine"]}
    shown = html.unescape(client.get("/admin/projects/pr").get_data(as_text=True))
    assert "Added 2 sentences to project 'pr' (k=3)" in shown


def test_a_sentence_the_votes_leave_undecided_is_adjudicated_on_the_review_pages(login, make_user):
    assert _upload_declared(login, make_user).status_code == 302
    project = _project("covid")
    irrelevant = {"stance": -1, "premise": -1}
    for user, code in ((make_user("v1"), 2), (make_user("v2"), 0)):   # 17024: two stances of quarantine
        _vote(project, user, "17024", {"claims": {"masks": irrelevant, "quarantine": {"stance": code, "premise": 1},
                                                  "vaccines": irrelevant}})
    client = login("boss")
    assert 'href="/admin/projects/covid/review/17024"' in client.get("/admin/projects/covid/review/").get_data(
        as_text=True)
    page = client.get("/admin/projects/covid/review/17024")
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    response = client.post("/admin/projects/covid/review/17024", data={
        "csrf_token": csrf_token(text), "q_claims__0__relevance": "irrelevant", "q_claims__1__relevance": "relevant",
        "q_claims__1__stance": "0", "q_claims__1__premise": "1", "q_claims__2__relevance": "irrelevant"})
    assert response.status_code == 302
    db.session.remove()
    assert db.session.scalar(select(Adjudication.answer)) == {
        "claims": {"masks": {"relevance": "irrelevant"},
                   "quarantine": {"relevance": "relevant", "stance": "0", "premise": "1"},
                   "vaccines": {"relevance": "irrelevant"}}}
    exported = client.get("/admin/projects/covid/export.zip")
    with zipfile.ZipFile(io.BytesIO(exported.data)) as archive:
        rows = archive.read("train_excerpt.tsv").decode("utf-8").split("\r\n")
    assert rows[1].split("\t")[:1] + rows[1].split("\t")[2:] == ["17024", "-1", "-1", "0", "1", "-1", "-1"]
