"""The key-point HIT page and its form, through the Flask test client."""
from __future__ import annotations

import re

from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import SUBMITTED, Assignment
from tests.web.conftest import csrf_token, open_hit_page


def _open_hit(client):  # type: ignore[no-untyped-def]
    page = open_hit_page(client, "kpa")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    action = re.search(r'action="(/p/kpa/a/\d+)"', html).group(1)
    return html, action


def test_hit_shows_topic_stance_with_its_meaning_argument_and_every_key_point(login, make_user, kpa_project):
    """The stance is the data set's number, its meaning in the label (match.yaml shows it as it is; the built-in
    type wrote it in words)."""
    make_user("ann")
    kpa_project()
    html, _ = _open_hit(login("ann"))
    assert "Social media platforms should be regulated by the government" in html
    assert "Stance of the argument (1 pro, -1 con)" in html and re.search(r">\s*-1\s*<", html)
    assert html.count('name="q_matches"') == 5  # the con key points of topic 1
    assert "None of these key points" in html


def test_submitting_key_points_stores_the_vote_and_shows_the_next_hit(login, make_user, kpa_project):
    make_user("ann")
    kpa_project()
    client = login("ann")
    html, action = _open_hit(client)
    response = client.post(action, data={"csrf_token": csrf_token(html), "q_matches": ["kp_1_0", "kp_1_2"]})
    assert response.status_code == 302
    stored = db.session.scalar(select(Assignment).where(Assignment.status == SUBMITTED))
    assert stored.answer == {"matches": ["kp_1_0", "kp_1_2"]}
    assert "1 / 26 done" in client.get("/p/kpa/").get_data(as_text=True)


def test_none_is_stored_as_an_empty_match_list(login, make_user, kpa_project):
    make_user("ann")
    kpa_project()
    client = login("ann")
    html, action = _open_hit(client)
    client.post(action, data={"csrf_token": csrf_token(html), "q_matches__none": "y"})
    assert db.session.scalar(select(Assignment.answer).where(Assignment.status == "submitted")) == {"matches": []}


def test_form_refuses_none_together_with_a_key_point(login, make_user, kpa_project):
    make_user("ann")
    kpa_project()
    client = login("ann")
    html, action = _open_hit(client)
    response = client.post(action, data={"csrf_token": csrf_token(html), "q_matches__none": "y",
                                         "q_matches": ["kp_1_0"]})
    assert response.status_code == 400
    assert "cannot be combined" in response.get_data(as_text=True)
    assert db.session.scalar(select(Assignment.status)) == "leased"


def test_form_refuses_neither_none_nor_a_key_point(login, make_user, kpa_project):
    make_user("ann")
    kpa_project()
    client = login("ann")
    html, action = _open_hit(client)
    response = client.post(action, data={"csrf_token": csrf_token(html)})
    assert response.status_code == 400
    assert 'Tick every option that applies, or &#34;None of these key points&#34;' in response.get_data(as_text=True)


def test_form_refuses_a_key_point_of_another_item(login, make_user, kpa_project):
    make_user("ann")
    kpa_project()
    client = login("ann")
    html, action = _open_hit(client)
    response = client.post(action, data={"csrf_token": csrf_token(html), "q_matches": ["kp_1_7"]})
    assert response.status_code == 400


def test_hit_form_without_csrf_token_is_refused(login, make_user, kpa_project):
    make_user("ann")
    kpa_project()
    client = login("ann")
    _, action = _open_hit(client)
    assert client.post(action, data={"q_matches__none": "y"}).status_code == 400


def test_another_annotators_hit_cannot_be_submitted(login, make_user, kpa_project):
    make_user("ann"), make_user("bob")
    kpa_project()
    _, action = _open_hit(login("ann"))
    bob = login("bob")
    html = bob.get("/").get_data(as_text=True)
    response = bob.post(action, data={"csrf_token": csrf_token(html), "q_matches__none": "y"})
    assert response.status_code == 403


def test_crowd_text_is_rendered_escaped(login, make_user, app):
    from annotator.campaigns.projects import add_items, get_or_create_project
    from annotator.declared.items import load_definition
    from annotator.shared_tasks.kpa2021.declared_gold import MATCH_DEFINITION
    from annotator.tasks import NewItem
    make_user("ann")
    project, _ = get_or_create_project("kpa", "custom", k=1, definition=load_definition(MATCH_DEFINITION).to_data())
    add_items(project, [NewItem("arg_x", {"id": "arg_x", "topic": "<i>t</i>", "stance": 1,
                                          "argument": "<script>alert(1)</script>",
                                          "key_points": [{"id": "kp_x", "text": "<b>kp</b>", "position": 0}]})])
    db.session.commit()
    html, _ = _open_hit(login("ann"))
    assert "<script>alert(1)</script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<b>kp</b>" not in html and "&lt;b&gt;kp&lt;/b&gt;" in html


def test_guidelines_are_shown_on_the_hit_page(login, make_user, kpa_project):
    make_user("ann")
    project = kpa_project()
    project.guidelines = "Read <carefully>.\n\nSecond paragraph."
    db.session.commit()
    html, _ = _open_hit(login("ann"))
    assert "Read &lt;carefully&gt;." in html and "Second paragraph." in html


def test_done_page_when_nothing_is_left(login, make_user, kpa_project):
    make_user("ann")
    kpa_project(k=1)
    client = login("ann")
    for _ in range(26):
        html, action = _open_hit(client)
        client.post(action, data={"csrf_token": csrf_token(html), "q_matches__none": "y"})
    page = client.get("/p/kpa/").get_data(as_text=True)
    assert "nothing left for you" in page and "26" in page


def test_pages_load_no_outside_assets(login, make_user, kpa_project):
    make_user("ann")
    kpa_project()
    html, _ = _open_hit(login("ann"))
    assert not re.search(r'(src|href)="(https?:)?//', html)


def _assignments() -> int:
    from sqlalchemy import func
    return db.session.scalar(select(func.count()).select_from(Assignment))


def test_opening_the_hit_page_leases_nothing_until_start_is_pressed(login, make_user, kpa_project):
    make_user("ann")
    kpa_project()
    client = login("ann")
    page = client.get("/p/kpa/")
    assert page.status_code == 200 and 'id="start-form"' in page.get_data(as_text=True)
    assert _assignments() == 0
    started = client.post("/p/kpa/next", data={"csrf_token": csrf_token(page.get_data(as_text=True))})
    assert started.status_code == 302 and _assignments() == 1


def test_start_needs_the_csrf_token(login, make_user, kpa_project):
    make_user("ann")
    kpa_project()
    assert login("ann").post("/p/kpa/next").status_code == 400 and _assignments() == 0


def test_a_running_hit_is_shown_again_by_a_plain_get(login, make_user, kpa_project):
    make_user("ann")
    kpa_project()
    client = login("ann")
    _, action = _open_hit(client)
    assert f'action="{action}"' in client.get("/p/kpa/").get_data(as_text=True) and _assignments() == 1


def test_a_submit_leases_the_next_hit_so_the_loop_needs_no_extra_click(login, make_user, kpa_project):
    make_user("ann")
    kpa_project()
    client = login("ann")
    html, action = _open_hit(client)
    client.post(action, data={"csrf_token": csrf_token(html), "q_matches__none": "y"})
    page = client.get("/p/kpa/").get_data(as_text=True)
    assert re.search(r'action="/p/kpa/a/\d+"', page) and f'action="{action}"' not in page
