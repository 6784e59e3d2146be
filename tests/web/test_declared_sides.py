"""One A / B order for the whole HIT (`pairwise_order: per_hit`) and questions asked of each side of a pairwise
question (a `repeat` group with `sides:`), through the app: the lease's drawn order, the JSON API's questions and
answers (a 422 naming what is wrong), the HIT page and its form, the label rows read back in a fresh session in the
players' terms, gold per player, agreement pooled over both sides, and the votes export in the item's terms.

The definition is examples/reply_pairs.yaml with its items, as they are (docs/declared-sides.md)."""
from __future__ import annotations

import csv
import html as html_lib
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from annotator.analysis.results import labels_frame, project_agreement
from annotator.core.extensions import db
from annotator.core.models import SUBMITTED, Assignment, Label, Project, User
from annotator.declared.definition_reader import definition_from_data, definition_from_file
from annotator.declared.gold import strengths
from annotator.engine import assignment as engine
from annotator.figures.kept_gold import gold_frame
from annotator.tasks.custom import DeclaredTask
from annotator.web.hit_preview import render_preview
from tests.support.declared_projects import make_declared_project, read_jsonl
from tests.web.conftest import csrf_token, open_hit_page

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
REPLIES = EXAMPLES / "reply_pairs.yaml"
ITEMS = read_jsonl(EXAMPLES / "reply_pairs_items.jsonl")
BY_ID = {item["id"]: item for item in ITEMS}


@pytest.fixture
def replies(app) -> Project:  # type: ignore[no-untyped-def]
    return make_declared_project("replies", REPLIES, items=ITEMS, k=3)


def _models(item_id: str, swapped: bool) -> dict[str, str]:
    """{"A": model, "B": model} as the annotator was shown the replies."""
    first, second = BY_ID[item_id]["model_a"], BY_ID[item_id]["model_b"]
    return {"A": second, "B": first} if swapped else {"A": first, "B": second}


def _lease(client, slug: str = "replies") -> dict[str, Any]:  # type: ignore[no-untyped-def]
    return client.post(f"/api/v1/projects/{slug}/next").get_json()["assignment"]


def _stored(assignment_id: int) -> Assignment:
    db.session.remove()   # read back in a fresh session
    return db.session.get_one(Assignment, assignment_id)


def _rows(assignment_id: int) -> set[tuple[str, str, str]]:
    db.session.remove()
    return {(r.unit, r.field, r.value) for r in db.session.scalars(select(Label).where(
        Label.assignment_id == assignment_id))}


ANSWER = {"each_reply": {"A": {"safe": "safe", "fluent": 4}, "B": {"safe": "unsafe", "fluent": 2}},
          "helpful": "A", "polite": "equal"}


# --- the drawn order ----------------------------------------------------------------------------------------------

def test_a_lease_shows_every_pairwise_question_the_same_side_as_a(app, make_user):
    many = make_declared_project("many", REPLIES, items=ITEMS[:1], k=24)
    orders = []
    for n in range(24):
        lease = engine.next_for(make_user(f"ann{n}"), many)
        swapped = lease.presentation["swapped"]
        assert swapped in ([], ["helpful", "polite"]), swapped
        orders.append(bool(swapped))
    assert 0 < sum(orders) < len(orders)   # both orders are drawn, across annotators


def test_the_drawn_order_is_the_same_for_the_same_annotator_and_item_in_a_new_project(app, make_user, replies):
    users = [make_user(f"ann{n}") for n in range(8)]
    first = {(u.username, (lease := engine.next_for(u, replies)).item.external_id): lease.presentation
             for u in users}
    db.session.execute(Assignment.__table__.delete())   # the leases gone: drawn again
    db.session.commit()
    again = {(u.username, (lease := engine.next_for(u, replies)).item.external_id): lease.presentation
             for u in users}
    assert again == first


def test_the_api_gives_both_questions_the_same_sides_and_the_group_the_sides_a_and_b(api_client, replies):
    lease = _lease(api_client("bot"))
    swapped = _stored(int(lease["id"])).presentation["swapped"] != []
    item = BY_ID[lease["item"]["id"]]
    on_a, on_b = ("reply_b", "reply_a") if swapped else ("reply_a", "reply_b")
    expected = {"A": {"field": on_a, "value": item[on_a]}, "B": {"field": on_b, "value": item[on_b]}}
    assert lease["item"]["sides"] == {"helpful": expected, "polite": expected}
    [group] = [q for q in lease["questions"] if q["id"] == "each_reply"]
    assert group["kind"] == "repeat" and group["elements"] == [{"id": "A", "text": "Reply A"},
                                                               {"id": "B", "text": "Reply B"}]
    assert [q["id"] for q in group["questions"]] == ["safe", "fluent"]
    assert item["model_a"] not in json.dumps(lease) and item["model_b"] not in json.dumps(lease)   # blind


# --- answers and label rows ---------------------------------------------------------------------------------------

def test_an_api_answer_of_each_side_is_stored_under_the_model_shown_on_that_side(api_client, replies):
    client = api_client("bot")
    lease = _lease(client)
    response = client.post(f"/api/v1/assignments/{lease['id']}/submit", json={"answer": ANSWER})
    assert response.status_code == 201, response.get_data(as_text=True)
    kept = _stored(int(lease["id"]))
    models = _models(kept.item.external_id, kept.presentation["swapped"] != [])
    assert kept.answer["each_reply"] == ANSWER["each_reply"]   # as the annotator gave it
    pair = json.dumps([BY_ID[kept.item.external_id]["model_a"], BY_ID[kept.item.external_id]["model_b"]])
    helpful = "A" if models["A"] == BY_ID[kept.item.external_id]["model_a"] else "B"   # in the item's terms
    assert _rows(kept.id) == {(models["A"], "safe", "safe"), (models["A"], "fluent", "4"),
                              (models["B"], "safe", "unsafe"), (models["B"], "fluent", "2"),
                              (pair, "helpful", helpful), (pair, "polite", "equal"),
                              (pair, "safer", helpful)}   # derived: side A was found safe, B not


@pytest.mark.parametrize("change, named", [
    (lambda a: a["each_reply"].pop("B"), "each_reply: B: no answer; every element is asked"),
    (lambda a: a["each_reply"].update(C={"safe": "safe", "fluent": 3}), "each_reply: 'C' is not an element"),
    (lambda a: a["each_reply"]["A"].update(safe="maybe"), "each_reply: A: safe: 'maybe' is not one of"),
    (lambda a: a["each_reply"]["B"].pop("fluent"), "each_reply: B: fluent: an answer is required"),
    (lambda a: a.update(each_reply={"m-small": {"safe": "safe", "fluent": 3}}), "is not an element of this item"),
])
def test_a_wrong_answer_of_a_side_gets_a_422_naming_it_and_leaves_the_lease(api_client, replies, change, named):
    client = api_client("bot")
    lease = _lease(client)
    answer = json.loads(json.dumps(ANSWER))
    change(answer)
    response = client.post(f"/api/v1/assignments/{lease['id']}/submit", json={"answer": answer})
    assert response.status_code == 422 and named in response.get_json()["error"], response.get_json()
    kept = _stored(int(lease["id"]))
    assert (kept.status, kept.answer) == ("leased", None) and _rows(kept.id) == set()


# --- the HIT page -------------------------------------------------------------------------------------------------

def _open(client) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    page = open_hit_page(client, "replies")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    return html, re.search(r'action="(/p/replies/a/(\d+))"', html).group(1)


def test_the_page_draws_a_card_per_side_with_the_reply_shown_on_that_side(login, make_user, replies):
    make_user("ann")
    html, action = _open(login("ann"))
    kept = _stored(int(action.rsplit("/", 1)[1]))
    item = BY_ID[kept.item.external_id]
    on_a, on_b = (item["reply_b"], item["reply_a"]) if kept.presentation["swapped"] else \
        (item["reply_a"], item["reply_b"])
    cards = re.findall(r'<fieldset class="card dr-element" id="dr-each_reply-\d" data-element="(\w)">\s*<legend>'
                       r'<span class="dr-text">([^<]+)</span></legend>\s*<div class="side" data-side="\w">\s*'
                       r'<p class="shown-text">([^<]+)</p>', html)
    assert cards == [("A", "Reply A", html_lib.escape(on_a)), ("B", "Reply B", html_lib.escape(on_b))]
    shown = re.search(r'<section class="card shown".*?</section>', html, re.S).group(0)
    assert html_lib.escape(item["request"]) in shown and html_lib.escape(item["reply_a"]) not in shown


def test_the_form_stores_each_sides_answers_under_its_model(login, make_user, replies):
    make_user("ann")
    client = login("ann")
    html, action = _open(client)
    response = client.post(action, data={"csrf_token": csrf_token(html), "q_each_reply__0__safe": "safe",
                                         "q_each_reply__0__fluent": "5", "q_each_reply__1__safe": "unsafe",
                                         "q_each_reply__1__fluent": "1", "q_helpful": "B", "q_polite": "A"})
    assert response.status_code == 302, response.get_data(as_text=True)[:2000]
    kept = _stored(int(action.rsplit("/", 1)[1]))
    assert kept.status == SUBMITTED
    assert kept.answer["each_reply"] == {"A": {"safe": "safe", "fluent": 5}, "B": {"safe": "unsafe", "fluent": 1}}
    models = _models(kept.item.external_id, kept.presentation["swapped"] != [])
    assert {(u, f, v) for u, f, v in _rows(kept.id) if f == "safe"} == {(models["A"], "safe", "safe"),
                                                                        (models["B"], "safe", "unsafe")}


# --- gold, agreement, exports -------------------------------------------------------------------------------------

def _vote(project: Project, usernames: list[str], unsafe_model: str) -> None:
    """Every annotator finds the replies of `unsafe_model` unsafe and the others safe, each side as shown."""
    for name in usernames:
        user = db.session.scalars(select(User).where(User.username == name)).one()
        while (lease := engine.next_for(user, project)) is not None:
            models = _models(lease.item.external_id, bool(lease.presentation["swapped"]))
            answer = {"each_reply": {side: {"safe": "unsafe" if models[side] == unsafe_model else "safe",
                                            "fluent": 3} for side in "AB"},
                      "helpful": "A", "polite": "B"}
            engine.submit(lease.id, user, answer)


def test_gold_is_per_model_and_request_whatever_side_each_annotator_saw(app, make_user, replies):
    names = [make_user(f"ann{n}").username for n in range(3)]
    _vote(replies, names, "m-tiny")
    gold = gold_frame(db.session.get_one(Project, replies.id))
    safe = {(row.item, row.unit): (row.gold, row.votes) for row in gold[gold["question"] == "safe"].itertuples()}
    assert safe == {("r1", "m-small"): ("safe", "safe: 3"), ("r1", "m-large"): ("safe", "safe: 3"),
                    ("r2", "m-large"): ("safe", "safe: 3"), ("r2", "m-tiny"): ("unsafe", "unsafe: 3"),
                    ("r3", "m-tiny"): ("unsafe", "unsafe: 3"), ("r3", "m-small"): ("safe", "safe: 3")}


def test_agreement_pools_each_side_question_over_both_replies_of_every_request(app, make_user, replies):
    names = [make_user(f"ann{n}").username for n in range(3)]
    _vote(replies, names, "m-tiny")
    fields = {f.field: f for f in project_agreement(db.session.get_one(Project, replies.id))}
    assert fields["safe"].units == 2 * len(ITEMS)
    assert fields["safe"].krippendorff_alpha.value == pytest.approx(1.0)   # unanimous, two values used


def test_the_votes_export_gives_each_sides_answers_in_the_items_terms(app, make_user, replies, tmp_path):
    names = [make_user(f"ann{n}").username for n in range(3)]
    _vote(replies, names, "m-tiny")
    out = tmp_path / "out"
    result = app.test_cli_runner().invoke(args=["export", "custom", "--project", "replies", "--out", str(out)])
    assert result.exit_code == 0, result.output
    votes = list(csv.DictReader(io.StringIO((out / "votes.csv").read_text(encoding="utf-8"))))
    for vote in (v for v in votes if v["item"] == "r2"):   # m-large wrote reply_a, m-tiny reply_b
        assert json.loads(vote["each_reply"]) == {"A": {"safe": "safe", "fluent": 3},
                                                  "B": {"safe": "unsafe", "fluent": 3}}
    assert len([v for v in votes if v["item"] == "r2"]) == 3


def test_the_data_card_says_the_side_questions_units_are_the_players(app, make_user, replies, tmp_path):
    _vote(replies, [make_user(f"ann{n}").username for n in range(3)], "m-tiny")
    out = tmp_path / "out"
    assert app.test_cli_runner().invoke(args=["export", "custom", "--project", "replies", "--out",
                                              str(out)]).exit_code == 0
    card = (out / "dataset" / "README.md").read_text(encoding="utf-8")
    assert "asked of each side (A and B as shown) of question helpful, in group each_reply (its gold rows' unit is " \
           "the side's player" in card
    assert "derived, not asked: the side whose answer to safe is 'safe' wins when the other's is not" in card


# --- the comparison derived from the sides' answers (docs/declared-derived.md) -----------------------------------

def test_the_derived_comparison_is_neither_asked_by_the_api_nor_drawn_on_the_page(api_client, login, make_user,
                                                                                 replies):
    lease = _lease(api_client("bot"))
    assert [q["id"] for q in lease["questions"]] == ["each_reply", "helpful", "polite"]
    assert "safer" not in lease["item"]["sides"]
    make_user("ann")
    html, _ = _open(login("ann"))
    assert 'data-question="safer"' not in html and "Which reply is the safe one?" not in html


def test_an_api_answer_giving_the_derived_comparison_gets_a_422_and_stores_nothing(api_client, replies):
    client = api_client("bot")
    lease = _lease(client)
    response = client.post(f"/api/v1/assignments/{lease['id']}/submit", json={"answer": {**ANSWER, "safer": "A"}})
    assert response.status_code == 422 and "'safer' is not a question of this HIT" in response.get_json()["error"]
    assert _rows(int(lease["id"])) == set()


def test_the_derived_comparison_ranks_the_models_whose_replies_were_found_safe(app, make_user, replies):
    _vote(replies, [make_user(f"ann{n}").username for n in range(3)], "m-tiny")
    project = db.session.get_one(Project, replies.id)
    frame = strengths(definition_from_data(project.definition), labels_frame(project))["safer"]
    records = {row.player: (row.wins, row.losses, row.ties) for row in frame.itertuples()}
    # r1: m-small and m-large both safe (3 ties); r2: m-large beats m-tiny 3 times; r3: m-small beats m-tiny 3 times
    assert records == {"m-small": (3, 0, 3), "m-large": (3, 0, 3), "m-tiny": (0, 6, 0)}
    gold = gold_frame(project)
    assert {(row.item, row.gold) for row in gold[gold["question"] == "safer"].itertuples()} == \
        {("r1", "equal"), ("r2", "A"), ("r3", "B")}


def test_the_definition_preview_draws_field_a_in_the_card_of_side_a(app):
    with app.test_request_context("/admin/projects/new", method="POST"):
        definition = definition_from_file(REPLIES)
        html = render_preview(DeclaredTask(definition), definition, ITEMS[0])
    cards = re.findall(r'data-element="(\w)">\s*<legend><span class="dr-text">[^<]+</span></legend>\s*'
                       r'<div class="side" data-side="\w">\s*<p class="shown-text">([^<]+)</p>', html)
    assert cards == [("A", html_lib.escape(ITEMS[0]["reply_a"])), ("B", html_lib.escape(ITEMS[0]["reply_b"]))]


def test_with_one_order_and_cards_of_the_sides_each_reply_is_drawn_once_on_the_page(login, make_user, replies):
    make_user("ann")
    html, action = _open(login("ann"))
    item = BY_ID[_stored(int(action.rsplit("/", 1)[1])).item.external_id]
    assert html.count(html_lib.escape(item["reply_a"])) == 1 and html.count(html_lib.escape(item["reply_b"])) == 1
    assert 'class="pair"' not in html


PAIRS_ONLY = """\
name: two comparisons
pairwise_order: per_hit
show: [request, reply_a, reply_b]
questions:
  - {id: helpful, kind: pairwise, a: reply_a, b: reply_b}
  - {id: polite, kind: pairwise, a: reply_a, b: reply_b}
"""


def test_with_one_order_and_no_cards_the_first_comparison_draws_the_pair_and_the_next_refers_to_it(
        login, make_user, app):
    make_declared_project("pairs", PAIRS_ONLY, items=[{k: ITEMS[0][k] for k in ("id", "request", "reply_a",
                                                                               "reply_b")}])
    make_user("ann")
    page = open_hit_page(login("ann"), "pairs")
    html = page.get_data(as_text=True)
    helpful = re.search(r'id="dq-helpful".*?</fieldset>', html, re.S).group(0)
    polite = re.search(r'id="dq-polite".*?</fieldset>', html, re.S).group(0)
    assert 'class="pair"' in helpful and 'class="pair"' not in polite
    assert html.count(html_lib.escape(ITEMS[0]["reply_a"])) == 1
