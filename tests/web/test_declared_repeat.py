"""Questions repeated per element (`repeat` groups) through the app: the JSON API's questions and answers, the
HIT page's form, what is stored (read back in a fresh session), and the exports.

The two definitions are used as they are: annotator/shared_tasks/ruarg2022/stance_premise.yaml (a fixed list of three
claims) and examples/dialogue_turns.yaml with its items (each dialogue its own list of turns)."""
from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import Assignment, Item, Label, Project
from annotator.declared.definition_reader import definition_from_file
from annotator.engine import assignment as engine
from annotator.tasks.custom import DeclaredTask
from annotator.web.hit_preview import render_preview
from tests.support.declared_projects import make_declared_project, read_jsonl
from tests.web.conftest import csrf_token, open_form, submitted_by

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
DIALOGUES = EXAMPLES / "dialogue_turns.yaml"
DIALOGUE_ITEMS = EXAMPLES / "dialogue_turns.jsonl"
RUARG = Path(__file__).resolve().parents[2] / "annotator" / "shared_tasks" / "ruarg2022" / "stance_premise.yaml"
SENTENCES = [{"id": "17024", "text": "Маски носить надо, это защищает и тебя, и окружающих."},
             {"id": "17031", "text": "Карантин продлили ещё на две недели."}]


@pytest.fixture
def dialogues(app):  # type: ignore[no-untyped-def]
    return make_declared_project("turns", DIALOGUES, items=read_jsonl(DIALOGUE_ITEMS))


@pytest.fixture
def claims(app):  # type: ignore[no-untyped-def]
    return make_declared_project("claims", RUARG, items=SENTENCES)


def _turns(item_id: str) -> list[str]:
    row = next(r for r in read_jsonl(DIALOGUE_ITEMS) if r["id"] == item_id)
    return [t["id"] if isinstance(t, dict) else str(n) for n, t in enumerate(row["turns"], 1)]


def _dialogue_answer(item_id: str) -> dict[str, Any]:
    """Every turn rated 4 and safe, but the last, rated 1 and unsafe with a reason; the dialogue partly solved."""
    turns = _turns(item_id)
    rated = {t: {"helpful": 4, "safe": "safe"} for t in turns[:-1]}
    rated[turns[-1]] = {"helpful": 1, "safe": "unsafe", "why_unsafe": "tells the user to block their card"}
    return {"turns": rated, "solved": "partly"}


def _labels(assignment: Assignment) -> dict[tuple[str, str], str]:
    return {(label.unit, label.field): label.value
            for label in db.session.scalars(select(Label).where(Label.assignment_id == assignment.id))}


# --- the JSON API ------------------------------------------------------------------------------------------

def test_the_api_describes_a_group_with_the_items_own_elements(api_client, dialogues):
    assignment = api_client("bot").post("/api/v1/projects/turns/next").get_json()["assignment"]
    item_id = assignment["item"]["id"]
    [group, solved] = assignment["questions"]
    assert group["id"] == "turns" and group["kind"] == "repeat" and group["label"] == "Reply"
    assert [e["id"] for e in group["elements"]] == _turns(item_id)
    assert [q["id"] for q in group["questions"]] == ["helpful", "safe", "why_unsafe"]
    assert group["questions"][2]["when"] == {"safe": ["unsafe"]}
    assert solved["id"] == "solved"


def test_the_api_stores_the_nested_answer_and_one_label_row_per_element_and_question(api_client, dialogues):
    api = api_client("bot")
    assignment = api.post("/api/v1/projects/turns/next").get_json()["assignment"]
    answer = _dialogue_answer(assignment["item"]["id"])
    response = api.post(f"/api/v1/assignments/{assignment['id']}/submit", json={"answer": answer})
    assert response.status_code == 201, response.get_json()
    [kept] = submitted_by("bot")
    assert kept.answer == answer
    turns = _turns(assignment["item"]["id"])
    expected = {(t, "helpful"): "4" for t in turns[:-1]} | {(t, "safe"): "safe" for t in turns[:-1]}
    expected |= {(turns[-1], "helpful"): "1", (turns[-1], "safe"): "unsafe",
                 (turns[-1], "why_unsafe"): "tells the user to block their card", ("solved", "solved"): "partly"}
    assert _labels(kept) == expected


@pytest.mark.parametrize("change, named", [
    (lambda a, t: a["turns"].pop(t[0]), "turns: {first}: no answer; every element is asked"),
    (lambda a, t: a["turns"].update(t9={"helpful": 3, "safe": "safe"}), "turns: 't9' is not an element of this item"),
    (lambda a, t: a["turns"][t[0]].update(helpful=7), "turns: {first}: helpful: must be a number from 1 to 5"),
    (lambda a, t: a["turns"][t[0]].update(why_unsafe="rude"), "turns: {first}: why_unsafe: not asked for this answer"),
    (lambda a, t: a["turns"][t[0]].update(tone="warm"), "turns: {first}: 'tone' is not a question of this HIT"),
    (lambda a, t: a["turns"][t[0]].pop("safe"), "turns: {first}: safe: an answer is required"),
    (lambda a, t: a.update(turns=[1, 2]), "turns: must be an object {element id: {question id: value}}"),
    (lambda a, t: a.update(helpful=3), "'helpful' is not a question of this HIT (its questions: turns, solved); "
                                       "helpful is asked once per element of group 'turns'"),
], ids=["element-missing", "unknown-element", "off-the-scale", "hidden-by-when", "unknown-question", "required",
        "not-an-object", "group-question-at-the-top"])
def test_the_api_refuses_a_wrong_group_answer_naming_the_element_and_question(api_client, dialogues, change, named):
    api = api_client("bot")
    assignment = api.post("/api/v1/projects/turns/next").get_json()["assignment"]
    answer = _dialogue_answer(assignment["item"]["id"])
    turns = _turns(assignment["item"]["id"])
    change(answer, turns)
    response = api.post(f"/api/v1/assignments/{assignment['id']}/submit", json={"answer": answer})
    assert response.status_code == 422
    assert named.replace("{first}", turns[0]) in response.get_json()["error"]
    assert submitted_by("bot") == []


# --- the HIT page --------------------------------------------------------------------------------------------

def test_the_page_draws_one_fieldset_per_element_with_its_text_above_its_questions(login, make_user, claims):
    make_user("ann")
    html, _ = open_form(login("ann"), "claims")
    elements = re.findall(r'<fieldset class="card dr-element" id="dr-claims-(\d)" data-element="(\w+)">\s*'
                          r'<legend><span class="dr-label">Claim \d:</span> <span class="dr-text">([^<]+)</span>',
                          html)
    assert [(n, e) for n, e, _ in elements] == [("0", "masks"), ("1", "quarantine"), ("2", "vaccines")]
    assert elements[1][2] == "The introduction and observance of quarantine is beneficial for society."
    assert 'data-question="claims.1.stance"' in html
    assert 'data-when="{&#34;claims.1.relevance&#34;: [&#34;relevant&#34;]}"' in html
    assert html.count('name="q_claims__2__premise"') == 3


def test_an_elements_text_from_the_item_is_escaped(login, make_user, app):
    make_declared_project("turns", DIALOGUES, items=[r for r in read_jsonl(DIALOGUE_ITEMS) if r["id"] == "d4"])
    make_user("ann")
    html, _ = open_form(login("ann"), "turns")
    assert "Why does my message show &lt;b&gt;bold&lt;/b&gt; as text?" in html
    assert "<b>bold</b>" not in html
    assert re.findall(r'data-element="([^"]+)"', html) == ["1", "2"]


def test_the_form_stores_the_answer_per_claim(login, make_user, claims):
    make_user("ann")
    client = login("ann")
    html, action = open_form(client, "claims")
    data = {"csrf_token": csrf_token(html), "q_claims__0__relevance": "relevant", "q_claims__0__stance": "2",
            "q_claims__0__premise": "1", "q_claims__1__relevance": "irrelevant",
            "q_claims__1__stance": "0",   # sent by a page without JavaScript: hidden by `when`, so not kept
            "q_claims__2__relevance": "irrelevant"}
    response = client.post(action, data=data)
    assert response.status_code == 302
    [kept] = submitted_by("ann")
    assert kept.answer == {"claims": {"masks": {"relevance": "relevant", "stance": "2", "premise": "1"},
                                      "quarantine": {"relevance": "irrelevant"},
                                      "vaccines": {"relevance": "irrelevant"}}}
    assert _labels(kept) == {("masks", "relevance"): "relevant", ("masks", "stance"): "2", ("masks", "premise"): "1",
                             ("quarantine", "relevance"): "irrelevant", ("vaccines", "relevance"): "irrelevant"}


def test_the_form_says_which_elements_question_is_unanswered_and_stores_nothing(login, make_user, claims):
    make_user("ann")
    client = login("ann")
    html, action = open_form(client, "claims")
    response = client.post(action, data={"csrf_token": csrf_token(html), "q_claims__0__relevance": "relevant",
                                         "q_claims__0__stance": "2", "q_claims__1__relevance": "irrelevant",
                                         "q_claims__2__relevance": "irrelevant"})
    assert response.status_code == 400
    page = response.get_data(as_text=True)
    premise = re.search(r'<fieldset class="dq dq-choice has-error" id="dq-claims-0-premise".*?</fieldset>', page, re.S)
    assert premise and "Please answer this question." in premise.group(0)
    assert 'aria-describedby="dq-claims-0-premise-error"' in page
    stance = re.search(r'id="dq-claims-0-stance".*?</fieldset>', page, re.S).group(0)
    assert re.search(r'checked[^>]*value="2"|value="2"[^>]*checked', stance)   # what was chosen stays chosen
    assert submitted_by("ann") == []


# --- exports ---------------------------------------------------------------------------------------------------

def _vote_all(project, users) -> None:  # type: ignore[no-untyped-def]
    for n, user in enumerate(users):
        while (lease := engine.next_for(user, project)) is not None:
            answer = _dialogue_answer(lease.item.external_id)
            if n == 2:   # the third annotator finds every turn safe and rates them 2
                answer["turns"] = {t: {"helpful": 2, "safe": "safe"} for t in answer["turns"]}
            engine.submit(lease.id, user, answer)


def test_flask_export_shows_the_element_ids_in_votes_gold_and_the_dataset(app, make_user, dialogues, tmp_path):
    _vote_all(dialogues, [make_user(f"ann{n}") for n in range(3)])
    out = tmp_path / "out"
    result = app.test_cli_runner().invoke(args=["export", "custom", "--project", "turns", "--out", str(out)])
    assert result.exit_code == 0, result.output

    votes = list(csv.DictReader(io.StringIO((out / "votes.csv").read_text(encoding="utf-8"))))
    assert list(votes[0])[-2:] == ["turns", "solved"]
    first = next(v for v in votes if v["item"] == "d3" and v["annotator"] == "ann0")
    assert json.loads(first["turns"]) == _dialogue_answer("d3")["turns"]

    gold = list(csv.DictReader(io.StringIO((out / "gold.csv").read_text(encoding="utf-8"))))
    by_unit = {(g["item"], g["question"], g["unit"]): g for g in gold}
    assert by_unit[("d3", "helpful", "t1")]["gold"] == "4" and by_unit[("d3", "helpful", "t3")]["gold"] == "1"
    assert by_unit[("d3", "safe", "t3")]["gold"] == "unsafe" and by_unit[("d3", "safe", "t3")]["votes"] == \
        "safe: 1, unsafe: 2"
    assert ("d3", "why_unsafe", "t3") not in by_unit   # a text question has no gold
    assert by_unit[("d4", "helpful", "2")]["gold"] == "1"   # bare-text turns are numbered

    dataset = out / "dataset"
    table = pq.read_table(dataset / "votes.parquet").to_pylist()
    assert json.loads(next(r for r in table if r["item"] == "d1")["turns"])["t1"]["safe"] == "safe"
    gold_table = pq.read_table(dataset / "gold.parquet").to_pylist()
    assert {r["unit"] for r in gold_table if r["item"] == "d3" and r["question"] == "safe"} == {"t1", "t2", "t3"}
    card = (dataset / "README.md").read_text(encoding="utf-8")
    assert "asked once per element of group turns" in card


# --- the admin's pages -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("url", ["/admin/projects/turns", "/admin/projects/turns/dashboard",
                                 "/admin/projects/turns/dawid-skene", "/admin/projects/turns/stats",
                                 "/admin/projects/turns/items/?order=position"])
def test_the_admins_pages_of_a_project_with_a_group_answer(app, login, make_user, dialogues, url):
    _vote_all(dialogues, [make_user(f"ann{n}") for n in range(3)])
    make_user("boss", role="admin")
    response = login("boss").get(url)
    assert response.status_code == 200, response.get_data(as_text=True)[:2000]


def test_flask_agreement_reports_each_group_question_pooled_over_elements(app, make_user, dialogues):
    _vote_all(dialogues, [make_user(f"ann{n}") for n in range(3)])
    result = app.test_cli_runner().invoke(args=["agreement", "--project", "turns", "--json"])
    assert result.exit_code == 0, result.output
    fields = {f["field"]: f for f in json.loads(result.output)["fields"]}
    assert set(fields) == {"helpful", "safe", "solved"}
    assert fields["helpful"]["units"] == 2 + 1 + 3 + 2   # every turn of the four dialogues


def test_the_definition_preview_draws_the_items_elements(app):
    with app.test_request_context("/admin/projects/new", method="POST"):
        definition = definition_from_file(DIALOGUES)
        html = render_preview(DeclaredTask(definition), definition, read_jsonl(DIALOGUE_ITEMS)[2])
    assert re.findall(r'data-element="([^"]+)"', html) == ["t1", "t2", "t3"]
    assert "Or just stop paying: block the card so that we cannot charge it." in html


# --- flask import ------------------------------------------------------------------------------------------------

def test_flask_import_reads_the_dialogue_examples_items_with_their_own_turns(app):
    result = app.test_cli_runner().invoke(args=["import", "custom", str(DIALOGUE_ITEMS), "--definition",
                                                str(DIALOGUES), "--project", "dialogues"])
    assert result.exit_code == 0, result.output
    db.session.remove()
    items = db.session.scalars(select(Item).join(Project).where(Project.slug == "dialogues")
                               .order_by(Item.position)).all()
    assert [(item.external_id, len(item.payload["turns"])) for item in items] == [("d1", 2), ("d2", 1), ("d3", 3),
                                                                                   ("d4", 2)]


def test_flask_import_refuses_a_dialogue_whose_turn_ids_repeat_and_stores_nothing(app, tmp_path):
    rows = read_jsonl(DIALOGUE_ITEMS)
    rows[1]["turns"] = [{"id": "t1", "text": "Sorry about that."}, {"id": "t1", "text": "It left the depot."}]
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    result = app.test_cli_runner().invoke(args=["import", "custom", str(path), "--definition", str(DIALOGUES),
                                                "--project", "dialogues"])
    assert result.exit_code != 0
    assert 'line 2, column "turns": the element id \'t1\' is given twice (elements 1 and 2)' in result.output
    db.session.remove()
    assert db.session.scalar(select(Project).where(Project.slug == "dialogues")) is None
