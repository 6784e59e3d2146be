"""The web import of a ReCAM file with "Serve a new project from the task's definition" ticked (as it is by default):
the project is a declared project of cloze_selection.yaml whose rule takes the selection settings of the form, its
admin pages and export zip answer, and an annotator's HIT is the declared page (the passage's words, the options,
the two evidence questions, the difficulty), whose posted answer is stored as the definition's answer with the
definition's rows (read back in a fresh session)."""
from __future__ import annotations

import csv
import io
import json
import re
import zipfile

from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import SUBMITTED, Assignment, Label, Project, User
from annotator.shared_tasks.recam2021.files import read_file
from tests.conftest import DATA
from tests.web.conftest import csrf_token, open_hit_page

DEV = DATA / "recam2021" / "Task_1_dev_excerpt.jsonl"   # item 0: options end, free, secret, normal, concentration
RULES_ON = {"min_accuracy": "0.4", "require_spans": "y", "easy_must_be_right": "y", "keep_share": "0.5",
            "majority_share": "0.5"}   # the form's defaults; a box left out is false


def _upload_declared(login, make_user, **fields):  # type: ignore[no-untyped-def]
    make_user("boss", role="admin")
    client = login("boss")
    url = "/admin/projects/new/recam2021"
    page = client.get(url).get_data(as_text=True)
    assert '<input checked id="declared" name="declared" type="checkbox" value="y">' in page   # ticked by default
    data = {"csrf_token": csrf_token(page), "name": "ReCAM dev", "slug": "recam", "k": "3", "lease_minutes": "20",
            "guidelines": "", "files": [(io.BytesIO(DEV.read_bytes()), DEV.name)], "declared": "y", **fields}
    return client.post(url, content_type="multipart/form-data", data=data)


def _project() -> Project:
    db.session.remove()
    return db.session.scalars(select(Project).where(Project.slug == "recam")).one()


def _option_gold(project: Project) -> dict:  # type: ignore[type-arg]
    return next(q for q in (project.definition or {})["questions"] if q["id"] == "option")["gold"]


def test_the_upload_with_the_box_ticked_makes_a_declared_project_of_the_whole_campaign(login, make_user):
    response = _upload_declared(login, make_user, **RULES_ON)
    assert response.status_code == 302, response.get_data(as_text=True)
    project = _project()
    assert (project.task_type, project.definition["name"]) == \
        ("custom", "Cloze validation with ReCAM's selection rules (SemEval-2021 Task 4)")
    assert _option_gold(project) == {"rule": "recam_selection", "difficulty": "difficulty",
                                     "passage_span": "passage_span", "question_span": "question_span"}
    assert [item.reference for item in project.items] == [{"option": str(q.label)} for q in read_file(DEV).questions]


def test_the_forms_selection_settings_become_the_rules_parameters(login, make_user):
    rules_off = {**RULES_ON, "min_accuracy": "0.3"}
    del rules_off["require_spans"], rules_off["easy_must_be_right"]
    assert _upload_declared(login, make_user, **rules_off).status_code == 302
    gold = _option_gold(_project())
    assert (gold["min_accuracy"], gold["require_spans"], gold["easy_must_be_right"]) == (0.3, False, False)


def test_the_admin_pages_show_the_declared_project_and_its_zip_holds_the_formats_files(login, make_user):
    assert _upload_declared(login, make_user, **RULES_ON).status_code == 302
    client = login("boss")
    assert client.get("/admin/projects/recam").status_code == 200
    assert client.get("/admin/projects/recam/items/").status_code == 200
    response = client.get("/admin/projects/recam/export.zip")
    assert response.status_code == 200
    with zipfile.ZipFile(io.BytesIO(response.data)) as archive:
        names = set(archive.namelist())
        assert {"Task_1_dev_excerpt.jsonl", "questions.csv", "dropped.csv", "annotators.csv", "evidence.csv",
                "agreement.json"} <= names
        questions = list(csv.DictReader(io.StringIO(archive.read("questions.csv").decode("utf-8"))))
    assert [(q["id"], q["reason"]) for q in questions] == [(q.id, "no vote yet") for q in read_file(DEV).questions]


def test_an_annotator_gets_the_declared_page_and_a_posted_answer_is_stored_as_the_definitions(login, make_user):
    assert _upload_declared(login, make_user, **RULES_ON).status_code == 302
    make_user("ann")
    client = login("ann")
    html = open_hit_page(client, "recam").get_data(as_text=True)
    article = read_file(DEV).questions[0].article
    assert 'name="q_option"' in html and ">secret<" in html and 'name="q_passage_span"' in html
    assert article.split()[0] in html and "@placeholder" not in html   # the question's blank drawn as a gap
    action = re.search(r'action="(/p/recam/a/\d+)"', html).group(1)
    mark = [{"start": 0, "end": 12, "label": "evidence"}]   # "12 June 2017", the passage's first three words
    response = client.post(action, data={"csrf_token": csrf_token(html), "q_option": "2", "q_difficulty": "easy",
                                         "q_passage_span": json.dumps(mark), "q_question_span": "[]"})
    assert response.status_code == 302, response.get_data(as_text=True)
    db.session.remove()
    vote = db.session.scalars(select(Assignment).join(User, User.id == Assignment.user_id)
                              .where(User.username == "ann", Assignment.status == SUBMITTED)).one()
    assert vote.answer == {"option": "2", "difficulty": "easy", "passage_span": mark, "question_span": []}
    rows = set(db.session.execute(select(Label.unit, Label.field, Label.value)
                                  .where(Label.assignment_id == vote.id, Label.value != "O")).all())
    assert {("option", "option", "2"), ("difficulty", "difficulty", "easy"), ("0:12:evidence", "passage_span", "1")} \
        <= rows
