"""A best-worst question through the Flask test client, on the example (examples/best_worst_sentiment.yaml: twelve
reviews in twelve tuples of four, the best-worst question shown only when the four can be compared): the HIT page
draws the tuple's reviews and two radio groups, a posted form stores the picks and a row per member (read back in a
fresh session), a refused one names the problem beside the question, the JSON API takes the same answer and refuses
the same review as best and worst with a 422 naming it, and the admin's pages of a voted project open with the
scores' split-half reliability."""
from __future__ import annotations

import html
import io
import json
import re
from pathlib import Path

import pytest
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import Assignment, Item, Label
from annotator.declared.definition_reader import definition_from_file
from annotator.declared.items import read_items
from annotator.quality.controls import make_control
from annotator.tasks.custom import DeclaredTask
from annotator.web.hit_preview import render_preview
from tests.support.declared_projects import make_declared_project, project_and_item_counts
from tests.web.conftest import csrf_token, open_hit_page, submitted_by

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
DEFINITION = EXAMPLES / "best_worst_sentiment.yaml"


def tuples() -> list[dict[str, object]]:
    """The example's tuple items as the import makes them."""
    items = read_items(EXAMPLES / "best_worst_sentiment_items.jsonl", definition_from_file(DEFINITION))
    return [{"id": item.external_id, **item.payload} for item in items]


@pytest.fixture
def scaled(app):  # type: ignore[no-untyped-def]
    return make_declared_project("bws", DEFINITION, items=tuples())


def _open(client) -> tuple[str, str, list[str]]:  # type: ignore[no-untyped-def]
    """The page, its form's action and the ids of the tuple it shows, in order."""
    page = open_hit_page(client, "bws")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    ids = re.findall(r'name="q_positive__best" type="radio" value="([^"]+)"', html)
    return html, re.search(r'action="(/p/bws/a/\d+)"', html).group(1), ids


def _labels(assignment: Assignment) -> dict[tuple[str, str], str]:
    return {(label.field, label.unit): label.value for label in db.session.scalars(
        select(Label).where(Label.assignment_id == assignment.id))}


def test_the_page_shows_the_four_reviews_numbered_and_two_radio_groups(login, make_user, scaled):
    make_user("ann")
    html, _, ids = _open(login("ann"))
    first = tuples()[0]
    assert ids == [m["id"] for m in first["tuple"]]
    for n, member in enumerate(first["tuple"], start=1):
        assert f'<p class="label">Review {n}</p>' in html
        assert f'<p class="shown-text">{member["text"]}</p>' in html
    assert 'role="radiogroup" aria-label="Most positive"' in html and 'aria-label="Least positive"' in html
    assert html.count('name="q_positive__worst" type="radio"') == 4
    assert '<span>Review 3</span>' in html
    assert 'data-when="{&#34;comparable&#34;: [&#34;yes&#34;]}"' in html   # shown only when comparable


def test_a_posted_form_stores_the_picks_and_a_row_per_review(login, make_user, scaled):
    make_user("ann")
    client = login("ann")
    html, action, ids = _open(client)
    response = client.post(action, data={"csrf_token": csrf_token(html), "q_comparable": "yes",
                                         "q_positive__best": ids[2], "q_positive__worst": ids[0]})
    assert response.status_code == 302
    [assignment] = submitted_by("ann")
    assert assignment.answer == {"comparable": "yes", "positive": {"best": ids[2], "worst": ids[0]}}
    rows = _labels(assignment)
    assert [rows["positive", i] for i in ids] == ["-1", "0", "1", "0"]


def test_the_best_worst_question_is_not_asked_when_the_reviews_cannot_be_compared(login, make_user, scaled):
    make_user("ann")
    client = login("ann")
    html, action, _ = _open(client)
    response = client.post(action, data={"csrf_token": csrf_token(html), "q_comparable": "no"})
    assert response.status_code == 302
    [assignment] = submitted_by("ann")
    assert assignment.answer == {"comparable": "no"}
    assert not any(field == "positive" for field, _ in _labels(assignment))


@pytest.mark.parametrize("picks, said", [
    ((0, 0), "The same item is chosen as “Most positive” and “Least positive”; choose two different items."),
    ((0, None), "Choose one item as “Least positive” too."),
    ((None, None), "Please answer this question."),
])
def test_a_refused_form_names_the_problem_beside_the_question_and_stores_nothing(login, make_user, scaled, picks,
                                                                                 said):
    make_user("ann")
    client = login("ann")
    html, action, ids = _open(client)
    data = {"csrf_token": csrf_token(html), "q_comparable": "yes"}
    for key, pick in zip(("q_positive__best", "q_positive__worst"), picks):
        if pick is not None:
            data[key] = ids[pick]
    response = client.post(action, data=data)
    page = response.get_data(as_text=True)
    assert response.status_code == 400
    assert f'<p class="error" role="alert" id="dq-positive-error">{said}</p>' in page
    if picks[0] is not None:   # the pick is kept
        assert re.search(rf'checked id="q_positive__best-0" name="q_positive__best" type="radio" value="{ids[0]}"',
                         page)
    assert submitted_by("ann") == []


def test_the_api_describes_the_tuple_and_stores_an_answer(api_client, scaled):
    api = api_client("bot")
    assignment = api.post("/api/v1/projects/bws/next").get_json()["assignment"]
    members = assignment["item"]["tuple"]
    ids = [m["id"] for m in members]
    assert set(members[0]) == {"id", "text"} and len(ids) == 4
    positive = assignment["questions"][1]
    assert (positive["kind"], positive["items"], positive["best"], positive["worst"]) == \
        ("best_worst", ids, "Most positive", "Least positive")
    response = api.post(f"/api/v1/assignments/{assignment['id']}/submit",
                        json={"answer": {"comparable": "yes", "positive": {"best": ids[1], "worst": ids[3]}}})
    assert response.status_code == 201, response.get_json()
    [kept] = submitted_by("bot")
    assert kept.answer["positive"] == {"best": ids[1], "worst": ids[3]}
    assert _labels(kept)["positive", ids[3]] == "-1"


@pytest.mark.parametrize("answer, said", [
    (lambda ids: {"best": ids[0], "worst": ids[0]}, "positive: '{0}' is chosen as both best and worst; choose two "
                                                    "different items"),
    (lambda ids: {"best": ids[0], "worst": "r99"}, "positive.worst: 'r99' is not in this tuple"),
    (lambda ids: [ids[0], ids[1]], 'positive: must be {"best": <id>, "worst": <id>}'),
    (lambda ids: {"best": ids[0]}, 'positive: must be {"best": <id>, "worst": <id>}'),
])
def test_the_api_refuses_an_answer_that_is_not_two_different_members_with_a_422(api_client, scaled, answer, said):
    api = api_client("bot")
    assignment = api.post("/api/v1/projects/bws/next").get_json()["assignment"]
    ids = [m["id"] for m in assignment["item"]["tuple"]]
    response = api.post(f"/api/v1/assignments/{assignment['id']}/submit",
                        json={"answer": {"comparable": "yes", "positive": answer(ids)}})
    assert response.status_code == 422
    assert said.replace("{0}", ids[0]) in response.get_json()["error"]
    assert submitted_by("bot") == []


def _voted(api_client) -> None:  # type: ignore[no-untyped-def]
    """Three annotators answer every tuple: the lower the review's number, the more positive (r01 best)."""
    for name in ("a1", "a2", "a3"):
        api = api_client(name)
        while (found := (api.post("/api/v1/projects/bws/next").get_json() or {}).get("assignment")) is not None:
            ids = sorted(m["id"] for m in found["item"]["tuple"])
            answer = {"comparable": "yes", "positive": {"best": ids[0], "worst": ids[-1]}}
            assert api.post(f"/api/v1/assignments/{found['id']}/submit", json={"answer": answer}).status_code == 201


@pytest.mark.parametrize("path", ["", "/dashboard", "/stats", "/items/?order=position"])
def test_the_admins_pages_of_a_voted_best_worst_project_open(login, make_user, api_client, scaled, path):
    _voted(api_client)
    make_user("boss", role="admin")
    page = login("boss").get(f"/admin/projects/bws{path}")
    html = page.get_data(as_text=True)
    assert page.status_code == 200, html[:1000]
    if path == "":
        assert "positive: best and worst decided" in html
        assert "Split-half reliability of the scores</dt><dd>1.000 (Spearman-Brown corrected" in html
    if path == "/items/?order=position":
        assert "Most positive: Review" in html   # a vote's picks in words


def test_the_admins_preview_draws_the_first_tuple_and_stores_nothing(app):
    definition = definition_from_file(DEFINITION)
    payload = tuples()[0]
    with app.test_request_context("/admin/projects/declared/new", method="POST"):
        html = render_preview(DeclaredTask(definition), definition, payload)
    assert 'id="preview-note"' in html and 'data-best-worst-of="positive"' in html
    assert '<p class="label">Review 4</p>' in html
    assert db.session.scalars(select(Assignment)).first() is None
    assert db.session.scalars(select(Item)).first() is None


def test_a_voted_tuple_becomes_a_control_item_with_its_decided_best_and_worst(api_client, scaled):
    """After the three annotators' votes (lowest id best, highest worst) the first tuple's gold is decided; made a
    control item, its known answer is those two picks, read back in a fresh session."""
    _voted(api_client)
    item = db.session.scalars(select(Item).where(Item.external_id == "t01")).one()
    make_control(item, item.project)
    db.session.commit()
    db.session.remove()
    kept = db.session.scalars(select(Item).where(Item.external_id == "t01")).one()
    ids = sorted(m["id"] for m in kept.payload["tuple"])
    assert kept.is_control and kept.reference == {"comparable": "yes",
                                                  "positive": {"best": ids[0], "worst": ids[-1]}}


def _upload(client, items: bytes, action: str = "preview"):  # type: ignore[no-untyped-def]
    """The admin's new declared project form, with the example's definition and `items`."""
    url = "/admin/projects/declared/new"
    page = client.get(url).get_data(as_text=True)
    return client.post(url, content_type="multipart/form-data", data={
        "csrf_token": csrf_token(page), "slug": "bws-new", "name": "", "k": "", "lease_minutes": "30",
        "definition": (io.BytesIO(DEFINITION.read_bytes()), DEFINITION.name),
        "items": (io.BytesIO(items), "reviews.jsonl"), "action": action})


def test_the_upload_page_previews_the_first_tuple_and_creates_the_twelve(login, make_user):
    make_user("boss", role="admin")
    admin = login("boss")
    items = (EXAMPLES / "best_worst_sentiment_items.jsonl").read_bytes()
    page = _upload(admin, items).get_data(as_text=True)
    assert "12 items (tuples the best-worst design built of the file's items: docs/declared-best-worst.md); 3 " \
        "questions. The HIT of the first item (t01)" in html.unescape(" ".join(page.split()))
    preview = html.unescape(page[page.index('srcdoc="') + 8:page.index('"', page.index('srcdoc="') + 8)])
    assert "Review 4" in preview and 'data-best-worst-of="positive"' in preview
    assert project_and_item_counts() == (0, 0)
    assert _upload(admin, items, action="create").status_code == 302
    assert project_and_item_counts() == (1, 12)
    db.session.remove()
    kept = db.session.scalars(select(Item).order_by(Item.position)).all()
    assert [len(i.payload["tuple"]) for i in kept] == [4] * 12 and kept[0].external_id == "t01"


def test_an_items_file_too_short_for_a_tuple_is_refused_in_words_and_stores_nothing(login, make_user):
    make_user("boss", role="admin")
    lines = (EXAMPLES / "best_worst_sentiment_items.jsonl").read_bytes().splitlines(keepends=True)
    response = _upload(login("boss"), b"".join(lines[:3]), action="create")
    page = html.unescape(response.get_data(as_text=True))
    assert response.status_code == 400
    assert "<dt>File</dt><dd>reviews.jsonl</dd>" in page
    assert "3 items cannot fill a tuple of 4: give at least 4 (questions: positive: size 4, appearances 4)" in page
    assert project_and_item_counts() == (0, 0)


def _expected_scores() -> list[list[object]]:
    """Worked out from the tuples alone: each of the three annotators picks the lowest id best and the highest worst
    (`_voted`), so a review's counts are three times its tuples, its best picks and its worst picks."""
    texts: dict[str, object] = {}
    shown: dict[str, int] = {}
    best: dict[str, int] = {}
    worst: dict[str, int] = {}
    for item in tuples():
        ids = sorted(str(m["id"]) for m in item["tuple"])  # type: ignore[attr-defined]
        for member in item["tuple"]:  # type: ignore[attr-defined]
            texts[str(member["id"])] = member["text"]
        for rid in ids:
            shown[rid] = shown.get(rid, 0) + 3
        best[ids[0]] = best.get(ids[0], 0) + 3
        worst[ids[-1]] = worst.get(ids[-1], 0) + 3
    score = {rid: (best.get(rid, 0) - worst.get(rid, 0)) / shown[rid] for rid in shown}
    order = sorted(shown, key=lambda rid: (-score[rid], rid))
    return [[rid, texts[rid], shown[rid], best.get(rid, 0), worst.get(rid, 0), score[rid],
             1 + sum(other > score[rid] for other in score.values())] for rid in order]


def test_flask_rank_lists_every_review_by_its_score_highest_first(app, api_client, scaled):
    _voted(api_client)
    result = app.test_cli_runner().invoke(args=["rank", "--project", "bws", "--json"])
    assert result.exit_code == 0, result.output
    [table] = json.loads(result.output)["tables"]
    assert table["name"] == "scores"
    columns = ["item", "text", "appearances", "best", "worst", "score", "rank"]
    got = [[row[c] for c in columns] for row in table["rows"]]
    assert [row[:5] + [pytest.approx(row[5]), row[6]] for row in got] == _expected_scores()


def test_the_ranking_page_is_linked_from_the_project_and_shows_the_scores(login, make_user, api_client, scaled):
    _voted(api_client)
    make_user("boss", role="admin")
    admin = login("boss")
    assert "/admin/projects/bws/ranking" in admin.get("/admin/projects/bws").get_data(as_text=True)
    page = admin.get("/admin/projects/bws/ranking")
    text = page.get_data(as_text=True)
    assert page.status_code == 200
    first = _expected_scores()[0]
    assert re.search(rf"<tr><td class=\"\">{first[0]}</td><td class=\"\">{re.escape(html.escape(str(first[1])))}</td>",
                     text), text[:2000]


def test_a_declared_project_without_a_best_worst_question_ranks_nothing(app, login, make_user):
    make_declared_project("plain", EXAMPLES / "claim_stance_likert.yaml")
    make_user("boss", role="admin")
    admin = login("boss")
    assert "/admin/projects/plain/ranking" not in admin.get("/admin/projects/plain").get_data(as_text=True)
    assert admin.get("/admin/projects/plain/ranking").status_code == 404
    result = app.test_cli_runner().invoke(args=["rank", "--project", "plain"])
    assert result.exit_code != 0 and "has nothing to rank" in result.output
