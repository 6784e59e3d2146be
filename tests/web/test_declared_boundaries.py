"""A span question with `boundaries: true` through the Flask test client (examples/span_boundaries.yaml): the HIT
page draws the cuts between words and says the keys, a posted form and the JSON API store the tags (read back in a
fresh session) and refuse a wrong sequence naming it, a control item is scored by the words selected, and
`flask export` writes the tags to votes.csv and the dataset beside the unchanged gold."""
from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import Assignment, Label, Project
from annotator.declared.controls import control_score
from annotator.declared.definition_reader import definition_from_file
from annotator.declared.words import value_words
from annotator.engine import assignment as engine
from tests.support.declared_projects import make_declared_project, read_jsonl
from tests.web.conftest import csrf_token, open_hit_page, submitted_by

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
DEFINITION = EXAMPLES / "span_boundaries.yaml"
ITEMS = read_jsonl(EXAMPLES / "span_boundaries_items.jsonl")
# The first item, Q_0: "Life is defined more by its risks than by its samenesses ." (12 words)
TWO_SPANS = ["O"] * 6 + ["B", "B", "I"] + ["O"] * 3     # [risks] [than by]


@pytest.fixture
def phrases(app) -> Project:  # type: ignore[no-untyped-def]
    return make_declared_project("phrases", DEFINITION, items=ITEMS)


def _rows(assignment: Assignment, field: str) -> dict[str, str]:
    return {label.unit: label.value for label in db.session.scalars(
        select(Label).where(Label.assignment_id == assignment.id, Label.field == field))}


# --- the HIT page -------------------------------------------------------------------------------------------------

def test_the_page_draws_a_cut_before_every_word_but_the_first_and_says_the_keys(login, make_user, phrases):
    make_user("ann")
    html = open_hit_page(login("ann"), "phrases").get_data(as_text=True)
    assert len(re.findall(r'<button type="button" class="gap" data-gap="\d+" disabled', html)) == 11
    assert 'aria-label="Split the span before “is”"' in html and "before “Life”" not in html
    assert "<kbd>S</kbd> or <kbd>|</kbd> on a word splits the span" in html
    assert 'data-boundaries-of="phrases"' in html and "js/declared_boundaries.js" in html


def test_a_page_without_boundaries_has_no_cut_nor_its_script(login, make_user, app):
    text = DEFINITION.read_text(encoding="utf-8").replace("    boundaries: true\n", "")
    make_declared_project("plain", text, items=ITEMS)
    make_user("ann")
    html = open_hit_page(login("ann"), "plain").get_data(as_text=True)
    assert 'class="gap"' not in html and "declared_boundaries.js" not in html and "<kbd>S</kbd>" not in html


def test_a_posted_form_stores_the_tags_and_both_kinds_of_rows(login, make_user, phrases):
    make_user("ann")
    client = login("ann")
    html = open_hit_page(client, "phrases").get_data(as_text=True)
    action = re.search(r'action="(/p/phrases/a/\d+)"', html).group(1)
    response = client.post(action, data={"csrf_token": csrf_token(html), "q_phrases": json.dumps(TWO_SPANS)})
    assert response.status_code == 302
    [assignment] = submitted_by("ann")
    assert assignment.answer == {"phrases": TWO_SPANS}
    assert _rows(assignment, "phrases.bio") == {str(n): tag for n, tag in enumerate(TWO_SPANS)}
    assert _rows(assignment, "phrases") == {str(n): "0" if tag == "O" else "1" for n, tag in enumerate(TWO_SPANS)}


def test_a_refused_form_names_the_word_and_keeps_the_page(login, make_user, phrases):
    make_user("ann")
    client = login("ann")
    html = open_hit_page(client, "phrases").get_data(as_text=True)
    action = re.search(r'action="(/p/phrases/a/\d+)"', html).group(1)
    wrong = ["O", "I"] + ["O"] * 10
    response = client.post(action, data={"csrf_token": csrf_token(html), "q_phrases": json.dumps(wrong)})
    page = response.get_data(as_text=True)
    assert response.status_code == 400
    assert '<p class="error" role="alert" id="dq-phrases-error">Word 2 is &#34;I&#34; but no span is open before it' \
        in page, page
    assert 'value="[&#34;O&#34;, &#34;I&#34;' in page   # the script puts the posted tags back
    assert submitted_by("ann") == []


# --- the JSON API -------------------------------------------------------------------------------------------------

def test_the_api_describes_the_tags_and_stores_them(api_client, phrases):
    api = api_client("bot")
    assignment = api.post("/api/v1/projects/phrases/next").get_json()["assignment"]
    [question] = assignment["questions"]
    assert question["kind"] == "span" and question["boundaries"] is True and question["tags"] == ["B", "I", "O"]
    assert question["words"][6] == "risks"
    response = api.post(f"/api/v1/assignments/{assignment['id']}/submit", json={"answer": {"phrases": TWO_SPANS}})
    assert response.status_code == 201, response.get_json()
    [kept] = submitted_by("bot")
    assert kept.answer == {"phrases": TWO_SPANS}


def test_the_api_takes_positions_as_one_span_per_run_of_neighbours(api_client, phrases):
    api = api_client("bot")
    assignment = api.post("/api/v1/projects/phrases/next").get_json()["assignment"]
    response = api.post(f"/api/v1/assignments/{assignment['id']}/submit", json={"answer": {"phrases": [6, 7, 8]}})
    assert response.status_code == 201, response.get_json()
    [kept] = submitted_by("bot")
    assert kept.answer == {"phrases": ["O"] * 6 + ["B", "I", "I"] + ["O"] * 3}


@pytest.mark.parametrize("tags, said", [
    (["O"] * 13, "phrases: has 13 tags but the text has 12 words"),
    (["I"] + ["O"] * 11, 'phrases: word 1 is "I" but no span is open before it'),
    (["B", "X"] + ["O"] * 10, "phrases: tag 'X' of word 2 is not \"B\", \"I\" or \"O\""),
    ({"tags": ["O"] * 12}, 'phrases: must be a list of "B", "I" or "O", one per word of text (12 words)'),
    ([3, 12], "phrases: word 12 is not in the text (12 words, 0 to 11)"),
])
def test_the_api_refuses_a_wrong_answer_with_a_422_naming_it(api_client, phrases, tags, said):
    api = api_client("bot")
    assignment = api.post("/api/v1/projects/phrases/next").get_json()["assignment"]
    response = api.post(f"/api/v1/assignments/{assignment['id']}/submit", json={"answer": {"phrases": tags}})
    assert response.status_code == 422
    assert said in response.get_json()["error"]
    assert submitted_by("bot") == []


# --- controls and words ---------------------------------------------------------------------------------------------

def test_a_control_is_scored_by_the_words_selected_whatever_the_split():
    definition = definition_from_file(DEFINITION)
    known = {"phrases": [6, 7, 8]}
    assert control_score(definition, ITEMS[0], {"phrases": TWO_SPANS}, known) == 1.0
    assert control_score(definition, ITEMS[0], {"phrases": ["O"] * 6 + ["B"] + ["O"] * 5}, known) == \
        pytest.approx(1 / 3)


def test_the_tag_rows_are_said_in_words_on_the_admin_pages():
    definition = definition_from_file(DEFINITION)
    assert [value_words(definition, "phrases.bio", tag) for tag in "BIO"] == \
        ["B (starts a span)", "I (continues it)", "O (not selected)"]
    assert value_words(definition, "phrases", "1") == "selected"


# --- flask export ---------------------------------------------------------------------------------------------------

def test_flask_export_writes_the_tags_beside_the_unchanged_gold(app, make_user, tmp_path):
    phrases = make_declared_project("phrases", DEFINITION, items=ITEMS, k=3)   # three votes complete an item
    spans = {0: TWO_SPANS, 1: ["O"] * 6 + ["B", "I", "I"] + ["O"] * 3, 2: ["O"] * 12}
    for n in range(3):
        user = make_user(f"ann{n}")
        while (lease := engine.next_for(user, phrases)) is not None:
            count = len(str(lease.item.payload["text"]).split())
            engine.submit(lease.id, user, {"phrases": spans[n] if lease.item.external_id == "Q_0" else ["O"] * count})
    out = tmp_path / "out"
    result = app.test_cli_runner().invoke(args=["export", "custom", "--project", "phrases", "--out", str(out)])
    assert result.exit_code == 0, result.output

    votes = list(csv.DictReader(io.StringIO((out / "votes.csv").read_text(encoding="utf-8"))))
    mine = next(v for v in votes if v["item"] == "Q_0" and v["annotator"] == "ann0")
    assert json.loads(mine["phrases"]) == TWO_SPANS

    gold = {(g["item"], g["unit"]): g for g in csv.DictReader(io.StringIO((out / "gold.csv").read_text("utf-8")))}
    assert {g["question"] for g in gold.values()} == {"phrases"}        # the tags add no gold of their own
    assert float(gold[("Q_0", "6")]["gold"]) == pytest.approx(2 / 3)   # risks: ann0 and ann1
    assert float(gold[("Q_0", "8")]["gold"]) == pytest.approx(2 / 3)   # by: ann0 (I) and ann1 (I)
    assert float(gold[("Q_0", "0")]["gold"]) == 0.0

    table = pq.read_table(out / "dataset" / "votes.parquet").to_pylist()
    assert next(r for r in table if r["item"] == "Q_0" and r["phrases"] == TWO_SPANS)
    card = (out / "dataset" / "README.md").read_text(encoding="utf-8")
    assert "each tagged B / I / O" in card and "phrases.bio" in card
