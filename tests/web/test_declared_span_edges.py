"""A spans question with `edges: characters` through the Flask test client (docs/declared-span-edges.md): the HIT
page draws each word's characters with their offsets and says how to move a mark's edges; the JSON API describes
the edges, stores a mark inside a word (read back in a fresh session) and refuses one that splits a letter from its
accent with a 422 naming it; gold, agreement per character and the export keep the exact offsets. The project is
the spelling example (examples/spelling_errors.yaml and its items)."""
from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

from sqlalchemy import select

from annotator.analysis.results import project_agreement
from annotator.core.extensions import db
from annotator.core.models import SUBMITTED, Assignment, Label, Project
from annotator.figures.kept_gold import gold_frame
from tests.support.declared_projects import make_declared_project, read_jsonl
from tests.web.conftest import open_hit_page

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
DEFINITION = EXAMPLES / "spelling_errors.yaml"
ITEMS = read_jsonl(EXAMPLES / "spelling_errors_items.jsonl")
E1 = "We recieved the parcel on Tuesday."
IE = {"start": 6, "end": 8, "label": "spelling"}                 # "ie" of "recieved"


def _kept(assignment_id: int) -> tuple[dict, dict[str, str]]:
    db.session.remove()  # a fresh session: what the request committed
    assignment = db.session.get_one(Assignment, assignment_id)
    rows = {label.unit: label.value for label in db.session.scalars(
        select(Label).where(Label.assignment_id == assignment_id))}
    return assignment.answer, rows


def test_the_page_draws_each_word_s_characters_with_their_offsets(login, make_user, app):
    make_declared_project("spelling", DEFINITION, items=ITEMS[:1])
    make_user("ann")
    html = open_hit_page(login("ann"), "spelling").get_data(as_text=True)
    assert 'data-edges="characters"' in html
    word = re.search(r'<span class="sw" data-index="1" data-start="3" data-end="11"[^>]*>(.*?)</span></span>',
                     html).group(1)
    assert re.findall(r'<span class="sc" data-start="(\d+)" data-end="(\d+)">([^<]*)', word)[:3] == \
        [("3", "4", "r"), ("4", "5", "e"), ("5", "6", "c")]
    assert "the buttons of each mark move its start or its end by one character" in html


def test_the_api_describes_the_edges_and_stores_a_mark_inside_a_word(api_client, app):
    make_declared_project("spelling", DEFINITION, items=ITEMS[:1])
    api = api_client("bot")
    assignment = api.post("/api/v1/projects/spelling/next").get_json()["assignment"]
    [question] = assignment["questions"]
    assert (question["edges"], question["whole_words"]) == ("characters", False)
    response = api.post(f"/api/v1/assignments/{assignment['id']}/submit",
                        json={"answer": {"errors": [{**IE, "text": "ie"}]}})
    assert response.status_code == 201, response.get_json()
    answer, rows = _kept(assignment["id"])
    assert answer == {"errors": [IE]}
    assert (rows["6:8:spelling"], rows["5:6"], rows["6:7"], rows["7:8"]) == ("1", "O", "spelling", "spelling")


def test_the_api_refuses_a_mark_that_splits_a_letter_from_its_accent_with_a_422(api_client, app):
    make_declared_project("spelling", DEFINITION, items=ITEMS[3:])
    text = ITEMS[3]["sentence"]
    accent = text.index("\u0301")
    api = api_client("bot")
    assignment = api.post("/api/v1/projects/spelling/next").get_json()["assignment"]
    response = api.post(f"/api/v1/assignments/{assignment['id']}/submit",
                        json={"answer": {"errors": [{"start": accent - 4, "end": accent, "label": "spelling"}]}})
    assert response.status_code == 422
    assert f"errors: span 1: end {accent} falls inside the character 'e\u0301'" in response.get_json()["error"]
    db.session.remove()
    assert db.session.scalars(select(Assignment).where(Assignment.status == SUBMITTED)).all() == []


def _voted(api_client) -> Project:  # type: ignore[no-untyped-def]
    """e1 marked by three annotators: "ie" twice, the whole word "recieved" once."""
    project = make_declared_project("spelling", DEFINITION, items=ITEMS[:1])
    for name, mark in (("ann", IE), ("bob", IE), ("cy", {"start": 3, "end": 11, "label": "spelling"})):
        api = api_client(name)
        assignment = api.post("/api/v1/projects/spelling/next").get_json()["assignment"]
        assert api.post(f"/api/v1/assignments/{assignment['id']}/submit",
                        json={"answer": {"errors": [mark]}}).status_code == 201
    db.session.remove()
    return db.session.get_one(Project, project.id)


def test_gold_is_the_exact_mark_two_annotators_made(api_client, app):
    gold = gold_frame(_voted(api_client))
    decided = {row.unit: (str(row.gold), row.votes) for row in gold.itertuples()}
    assert decided["6:8:spelling"] == ("1", "1: 2, 0: 1")
    assert decided["3:11:spelling"] == ("0", "1: 1, 0: 2")
    assert (decided["5:6"][0], decided["6:7"][0]) == ("O", "spelling")


def test_agreement_is_per_character(api_client, app):
    [figure] = [f for f in project_agreement(_voted(api_client)) if f.field == "errors"]
    assert figure.units == len(E1.replace(" ", ""))                # every character but the spaces


def test_the_export_keeps_the_offsets(api_client, app, tmp_path):
    _voted(api_client)
    result = app.test_cli_runner().invoke(args=["export", "custom", "--project", "spelling", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    gold = list(csv.DictReader(io.StringIO((tmp_path / "gold.csv").read_text(encoding="utf-8"))))
    assert [(r["unit"], r["gold"]) for r in gold if r["unit"].count(":") == 2] == \
        [("3:11:spelling", "0"), ("6:8:spelling", "1")]
    votes = list(csv.DictReader(io.StringIO((tmp_path / "votes.csv").read_text(encoding="utf-8"))))
    assert [json.loads(row["errors"]) for row in votes] == [[IE], [IE], [{"start": 3, "end": 11, "label": "spelling"}]]


def test_the_data_card_says_the_marks_take_any_character(api_client, app, tmp_path):
    _voted(api_client)
    result = app.test_cli_runner().invoke(args=["export", "custom", "--project", "spelling", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    card = (tmp_path / "dataset" / "README.md").read_text(encoding="utf-8")
    assert "labels: spelling (Spelling), ending (Wrong ending); at most 10; any characters, agreement per " \
           "character; never overlapping" in card
