"""Part 2: control items: served at the project's rate, like any item, once per annotator, never in gold."""
from __future__ import annotations

import re

import pytest
from sqlalchemy import func, select

from annotator.analysis.results import labels_frame, project_progress
from annotator.core.extensions import db
from annotator.core.models import ControlAnswer, Item, Project
from annotator.engine import assignment as engine
from tests.conftest import stored
from tests.quality.conftest import answer_next, make_controls, right_answer, set_quality, vote_on, wrong_answer
from tests.web.conftest import csrf_token, open_hit_page

NONE = {"matches": []}


def test_rate_zero_never_serves_a_control(kpa_project, make_user):
    project = kpa_project(k=1)
    make_controls(project, "arg_1_0", "arg_1_1")
    set_quality(project, control_rate=0.0)
    ann = make_user("ann")
    served = []
    while (lease := engine.next_for(ann, project)) is not None:
        served.append(lease.item.is_control)
        engine.submit(lease.id, ann, NONE)
    assert len(served) == 24 and not any(served)


def test_rate_one_serves_each_control_once_then_ordinary_items(kpa_project, make_user):
    project = kpa_project(k=1)
    controls = make_controls(project, "arg_1_0", "arg_1_1")
    set_quality(project, control_rate=1.0)
    ann = make_user("ann")
    first = [answer_next(ann, project, right_answer).assignment.item_id for _ in range(3)]
    assert set(first[:2]) == {c.id for c in controls} and first[2] not in first[:2]


def test_a_control_item_has_no_k_every_annotator_may_get_it_once(kpa_project, make_user):
    project = kpa_project(k=1)
    control, = make_controls(project, "arg_1_0")
    set_quality(project, control_rate=1.0)
    for name in ("ann", "bob", "cy"):
        assert engine.next_for(make_user(name), project).item_id == control.id


def test_controls_are_served_only_while_ordinary_work_is_left(kpa_project, make_user):
    project = kpa_project(k=1)
    make_controls(project, "arg_1_0")
    set_quality(project, control_rate=0.0)
    ann = make_user("ann")
    while answer_next(ann, project, NONE) is not None:
        pass
    set_quality(project, control_rate=1.0)
    assert engine.next_for(make_user("bob"), project) is None


def test_control_votes_are_not_in_the_label_frame_nor_the_progress(kpa_project, make_user):
    project = kpa_project(k=1)
    make_controls(project, "arg_1_0")
    vote_on(make_user("ann"), project, "arg_1_0", NONE)
    vote_on(make_user("ann2"), project, "arg_1_1", NONE)
    assert set(labels_frame(project)["item"]) == {"arg_1_1"}
    progress = project_progress(project)
    assert (progress.items, progress.complete, progress.votes) == (25, 1, 1)


def test_a_right_answer_scores_one_and_a_wrong_one_less(kpa_project, make_user):
    project = kpa_project(k=1)
    control, = make_controls(project, "arg_1_0")
    right = vote_on(make_user("ann"), project, "arg_1_0", right_answer(control))
    wrong = vote_on(make_user("bob"), project, "arg_1_0", wrong_answer(control))
    assert stored(ControlAnswer, assignment_id=right.assignment.id).score == 1.0
    assert stored(ControlAnswer, assignment_id=wrong.assignment.id).score < 1.0
    assert right.control.correct and not wrong.control.correct


def test_an_ordinary_answer_stores_no_control_score(kpa_project, make_user):
    project = kpa_project(k=1)
    vote_on(make_user("ann"), project, "arg_1_0", NONE)
    assert db.session.scalar(select(func.count()).select_from(ControlAnswer)) == 0


def test_the_api_shows_a_control_item_exactly_like_an_ordinary_one(kpa_project, api_client):
    project = kpa_project(k=1)
    make_controls(project, "arg_1_0")
    set_quality(project, control_rate=1.0)
    answers = []
    for name in ("ann", "bob"):
        client = api_client(name)
        if name == "bob":
            set_quality(db.session.get(Project, project.id), control_rate=0.0)
        answers.append(client.post("/api/v1/projects/kpa/next").get_json()["assignment"])
    control, ordinary = answers
    control_id = db.session.scalar(select(Item.id).where(Item.external_id == control["item"]["id"]))
    assert db.session.get(Item, control_id).is_control
    assert set(control) == set(ordinary) and set(control["item"]) == set(ordinary["item"])
    assert "reference" not in str(control)


def test_the_hit_page_of_a_control_is_the_page_of_any_item(login, kpa_project, make_user):
    project = kpa_project(k=1)
    make_controls(project, "arg_1_0")
    set_quality(project, control_rate=1.0)
    make_user("ann")
    html = open_hit_page(login("ann"), "kpa").get_data(as_text=True)
    assert "control" not in html.lower() and html.count('name="q_matches"') == 5


def _submit_hit(client):  # type: ignore[no-untyped-def]
    html = open_hit_page(client, "kpa").get_data(as_text=True)
    action = re.search(r'action="(/p/kpa/a/\d+)"', html).group(1)
    client.post(action, data={"csrf_token": csrf_token(html), "q_matches__none": "y"})
    return client.get("/p/kpa/")  # the flash is shown on the next page


@pytest.mark.parametrize("feedback", [True, False])
def test_feedback_after_a_control_answer_only_when_the_project_asks(login, kpa_project, make_user, feedback):
    project = kpa_project(k=1)
    make_controls(project, "arg_1_0")
    set_quality(project, control_rate=1.0, control_feedback=feedback)
    make_user("ann")
    page = _submit_hit(login("ann")).get_data(as_text=True)
    assert ("The known answer" in page) is feedback


def test_an_admin_makes_an_item_a_control_from_its_current_gold(login, make_user, app):
    from tests.conftest import DATA, load_project
    project = load_project("emphasis2020", DATA / "emphasis2020" / "dev_excerpt.txt", "emph", with_votes=True)
    item = db.session.scalar(select(Item).where(Item.project_id == project.id).order_by(Item.position))
    assert item.reference is None
    make_user("boss", role="admin")
    client = login("boss")
    page = client.get("/admin/projects/emph/items/?order=position").get_data(as_text=True)
    response = client.post(f"/admin/projects/emph/items/{item.id}/control",
                           data={"csrf_token": csrf_token(page), "control": "on"})
    assert response.status_code == 302
    marked = stored(Item, id=item.id)
    # an emphasis project is a declared project of selection.yaml: the known answer of its span question is every
    # word's probability, the share of the file's nine annotators who put it in a span
    from annotator.shared_tasks.emphasis2020.files import read_file
    first = read_file(DATA / "emphasis2020" / "dev_excerpt.txt")[0]
    expected = {t.word_id: sum(tag != "O" for tag in t.tags) / len(t.tags) for t in first.tokens}
    assert marked.is_control and marked.reference == {"emphasis": pytest.approx(expected)}


def test_a_type_that_cannot_score_refuses_to_make_controls(kpa_project, monkeypatch):
    import annotator.quality.controls as controls
    from annotator.tasks import base

    class Plain(base.TaskType):  # the base class's control_score: a type that cannot have controls
        name, title, default_k = "plain", "Plain", 1
    project = kpa_project(k=1)
    item = db.session.scalar(select(Item).where(Item.external_id == "arg_1_0"))
    monkeypatch.setattr(controls, "project_task", lambda project: Plain())
    with pytest.raises(controls.ControlRefused, match="cannot be control items"):
        controls.make_control(item, project)


def test_the_admin_saves_the_quality_settings_and_refuses_bad_ones(login, make_user, kpa_project):
    kpa_project(k=2)
    make_user("boss", role="admin")
    client = login("boss")
    page = client.get("/admin/projects/kpa").get_data(as_text=True)
    assert 'id="quality"' in page
    form = {"csrf_token": csrf_token(page), "control_rate": "0.2", "quiz_items": "3", "quiz_pass_mark": "0.9",
            "block_min_controls": "5", "block_accuracy": "0.5", "block_min_median_seconds": "0",
            "blocked_votes": "exclude", "kappa_min_units": "10", "gold_min_kappa": "", "max_k": "4",
            "confidence": "0.9", "default_accuracy": "0.7"}
    assert client.post("/admin/projects/kpa/quality", data=form).status_code == 302
    saved = stored(Project, slug="kpa").quality
    assert (saved["control_rate"], saved["quiz_items"], saved["blocked_votes"], saved["max_k"]) == (
        0.2, 3, "exclude", 4)
    client.post("/admin/projects/kpa/quality", data={**form, "max_k": "1", "quiz_items": "7"})  # max_k below k
    assert stored(Project, slug="kpa").quality["quiz_items"] == 3
