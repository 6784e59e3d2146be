"""Reference answers that are not control items: `reference.<question>` in a declared items file
(annotator/declared/items.py, docs/declared-references.md). Stored as the item's reference on an ordinary item,
never on the HIT page nor in the API, its votes counted in gold, shown to admins beside the gold; refused in words
where it is not a valid answer or comes with known answers."""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from annotator.core.errors import FormatError
from annotator.core.extensions import db
from annotator.core.models import Item, Project
from annotator.declared.definition_reader import definition_from_text
from annotator.declared.items import read_items
from annotator.engine import assignment as engine
from annotator.figures.kept_gold import gold_frame
from tests.conftest import load_project
from tests.unit.test_declared_repeat import CLAIMS, define
from tests.web.conftest import open_hit_page

DEFINITION = """\
name: Review sentiment
show: [{field: review, label: Review}]
questions:
  - id: sentiment
    kind: choice
    prompt: What is the sentiment of the review?
    options:
      - {value: positive, label: Glowing praise}
      - {value: negative, label: Harsh criticism}
  - {id: notes, kind: text, prompt: "Anything to add?", required: false}
"""
REVIEWS = [{"id": "r1", "review": "The battery lasts two days and the screen is sharp.",
            "reference.sentiment": "positive"},
           {"id": "r2", "review": "It broke after a week and support never answered."}]


def _write(folder: Path, rows: list[dict[str, Any]]) -> tuple[Path, Path]:
    definition, items = folder / "reviews.yaml", folder / "reviews.jsonl"
    definition.write_text(DEFINITION, encoding="utf-8")
    items.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return definition, items


@pytest.fixture
def reviews(app: Any, tmp_path: Path) -> Project:
    definition, items = _write(tmp_path, REVIEWS)
    project = load_project("custom", items, "reviews", definition=definition, k=3)
    db.session.remove()
    return db.session.get_one(Project, project.id)


def _item(project: Project, external_id: str) -> Item:
    return db.session.scalars(select(Item).where(Item.project_id == project.id,
                                                 Item.external_id == external_id)).one()


def _forget_reference(project: Project, external_id: str) -> None:
    _item(project, external_id).reference = None
    db.session.commit()


def _without_tokens(html: str) -> str:
    return re.sub(r'(name="csrf_token"[^>]*value="|content=")[^"]*"', r'\1"', html)


# --- import --------------------------------------------------------------------------------------------------------

def test_a_reference_answer_is_the_item_s_reference_on_an_ordinary_item(reviews):
    first, second = _item(reviews, "r1"), _item(reviews, "r2")
    assert (first.reference, first.is_control) == ({"sentiment": "positive"}, False)
    assert (second.reference, second.is_control) == (None, False)
    assert "reference.sentiment" not in first.payload and set(first.payload) == {"review"}


def test_a_reference_answer_that_is_not_an_answer_is_refused_naming_its_line_and_column(tmp_path):
    definition, items = _write(tmp_path, [{**REVIEWS[0], "reference.sentiment": "mixed"}])
    with pytest.raises(FormatError) as refused:
        read_items(items, definition_from_text(DEFINITION))
    assert (refused.value.line, refused.value.column) == (1, '"reference.sentiment"')
    assert "not a valid answer" in str(refused.value) and "mixed" in str(refused.value)


def test_an_item_with_known_and_reference_answers_is_refused(tmp_path):
    definition, items = _write(tmp_path, [{**REVIEWS[0], "known.sentiment": "positive"}])
    with pytest.raises(FormatError) as refused:
        read_items(items, definition_from_text(DEFINITION))
    assert refused.value.line == 1
    assert "gives known answers (known.sentiment) and reference answers (reference.sentiment)" in str(refused.value)


def test_a_text_question_has_no_reference_answer(tmp_path):
    definition, items = _write(tmp_path, [{**REVIEWS[1], "reference.notes": "short"}])
    with pytest.raises(FormatError) as refused:
        read_items(items, definition_from_text(DEFINITION))
    assert "notes is a text question: it has no reference answer" in str(refused.value)


def test_a_reference_answer_in_a_csv_cell_is_read_as_a_known_answer_is(tmp_path):
    items = tmp_path / "reviews.csv"
    items.write_text('id,review,reference.sentiment\nr1,"Sharp screen, long battery.",positive\nr2,Broke.,\n',
                     encoding="utf-8")
    first, second = read_items(items, definition_from_text(DEFINITION))
    assert (first.reference, first.control, second.reference, second.control) == \
        ({"sentiment": "positive"}, False, None, False)


def test_a_repeat_group_s_reference_answer_is_per_element_on_an_ordinary_item(tmp_path):
    path = tmp_path / "items.csv"
    path.write_text('id,text,reference.claims\n1,Masks help.,"{""masks"": {""relevance"": ""relevant""}}"\n',
                    encoding="utf-8")
    [item] = read_items(path, define(CLAIMS))
    assert (item.reference, item.control) == ({"claims": {"masks": {"relevance": "relevant"}}}, False)


# --- never shown to annotators -------------------------------------------------------------------------------------

def test_the_hit_page_is_the_same_with_or_without_the_reference(reviews, login, make_user):
    make_user("ann")
    client = login("ann")
    page = open_hit_page(client, "reviews")
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and "two days" in html   # r1, the item with the reference, comes first
    _forget_reference(reviews, "r1")
    assert _without_tokens(open_hit_page(client, "reviews").get_data(as_text=True)) == _without_tokens(html)


def test_the_api_sends_the_same_assignment_with_or_without_the_reference(reviews, api_client):
    client = api_client("bot")
    leased = client.post("/api/v1/projects/reviews/next").get_json()["assignment"]
    assert leased["item"] == {"id": "r1", "review": REVIEWS[0]["review"]}
    assert "reference" not in json.dumps(leased)
    _forget_reference(reviews, "r1")
    assert client.post("/api/v1/projects/reviews/next").get_json()["assignment"] == leased   # the same lease


# --- gold and the admin ------------------------------------------------------------------------------------------

def test_the_votes_on_an_item_with_a_reference_count_in_gold(reviews, make_user):
    for n, said in enumerate(("negative", "negative", "positive")):
        user = make_user(f"ann{n}")
        while (lease := engine.next_for(user, reviews)) is not None:
            engine.submit(lease.id, user, {"sentiment": said})
    db.session.remove()
    gold = gold_frame(db.session.get_one(Project, reviews.id))
    assert {row.item: (row.gold, row.n) for row in gold.itertuples()} == {"r1": ("negative", 3),
                                                                         "r2": ("negative", 3)}


def test_the_admin_items_page_shows_the_reference_in_the_question_s_words(reviews, login, make_user):
    make_user("boss", role="admin")
    page = login("boss").get("/admin/projects/reviews/items/").get_data(as_text=True)
    said = " ".join(page.split())
    assert "Reference answer (never shown to annotators; its votes count in gold): What is the sentiment of the " \
           "review? Glowing praise" in said
    assert said.count("Reference answer") == 1   # r2 has none
