"""Span boundaries (`boundaries: true`, docs/declared-span-boundaries.md) in the SemEval-2020 emphasis definition.

Seeded annotators vote in a project of annotator/shared_tasks/emphasis2020/selection.yaml (the helpers of
tests/web/test_shared_task_definitions.py): each vote tags the words B, I or O, and some put two selected neighbours
in two spans (B B), so the three-tag figure differs from the selected-or-not one. The tag agreement ("emphasis.bio")
and the selected-or-not one ("emphasis") are Fleiss' kappa and Krippendorff's alpha over the stored tags, and the gold
each word's probability, worked out by hand (they were compared with a built-in emphasis project's "bio" and
"emphasis" figures and gold on the same votes until the built-in type was removed).
"""
from __future__ import annotations

import random
from typing import Any

import pytest
from sqlalchemy import select

from annotator.analysis.results import labels_frame
from annotator.core.extensions import db
from annotator.core.models import Item, Project
from annotator.declared import item_view
from annotator.declared.answers import check_answer, public_questions
from annotator.declared.definition import Definition, DefinitionError
from annotator.declared.definition_reader import definition_from_text
from annotator.declared.items import load_definition
from annotator.tasks.base import AnswerError, HitItem, LabelIn
from tests.conftest import DATA, load_project
from tests.web.test_shared_task_definitions import (
    SHARED_TASKS,
    Annotators,
    Shown,
    _declared_gold,
    _figures,
    emphasis_expected_figures,
    emphasis_expected_gold,
)

DEFINITION = SHARED_TASKS / "emphasis2020" / "selection.yaml"
EXCERPT = DATA / "emphasis2020" / "dev_excerpt.txt"


def _tags(item: str, words: int, annotator: int) -> list[str]:
    """Annotator n's tags of an item: words selected with a per-word chance; a selected word after a selected one
    starts a span of its own a third of the time (B after B or I), else continues it (I)."""
    rng = random.Random(f"{item}/{annotator}/bio")
    chance = random.Random(f"{item}/chance")
    chances = [chance.choice((0.05, 0.3, 0.6, 0.9)) for _ in range(words)]
    tags: list[str] = []
    for n in range(words):
        if rng.random() >= chances[n]:
            tags.append("O")
        else:
            tags.append("B" if not tags or tags[-1] == "O" or rng.random() < 1 / 3 else "I")
    return tags


def _declared_answer(item: HitItem, shown: Shown, annotator: int) -> dict[str, Any]:
    return {"emphasis": _tags(item.payload["id"], len(item.payload["words"]), annotator)}


def _voted(annotators: Annotators) -> Project:
    declared = load_project("emphasis2020", EXCERPT, "emph-declared", k=annotators.k)   # a declared project
    assert annotators.answer_all(declared, _declared_answer) > 0
    return declared


def _first_item(project: Project) -> Item:
    item = db.session.scalars(select(Item).where(Item.project_id == project.id).order_by(Item.position)).first()
    assert item is not None
    return item


def _check(item: Item, answer: Any, definition: Definition | None = None) -> tuple[dict[str, Any], list[LabelIn]]:
    """The stored answer and label rows, as the declared engine makes them (the item as the definition reads it)."""
    definition = definition or load_definition(DEFINITION)
    return check_answer(definition, item_view.viewed(definition, item).payload, answer)


# --- agreement and gold, worked out by hand ---------------------------------------------------------------------

def test_the_tag_agreement_is_the_textbook_figure_over_the_three_tags(app):
    declared = _voted(Annotators(9))
    mine, expected = _figures(declared), emphasis_expected_figures(declared, "emphasis.bio")
    assert mine["emphasis.bio"] == pytest.approx(expected, abs=1e-9)
    assert mine["emphasis.bio"] != mine["emphasis"]   # the boundaries change the figure


def test_the_selected_or_not_agreement_is_the_textbook_figure(app):
    declared = _voted(Annotators(9))
    assert _figures(declared)["emphasis"] == pytest.approx(emphasis_expected_figures(declared, "emphasis"), abs=1e-9)


def test_gold_is_the_probability_word_by_word_with_live_votes(app, make_user):
    declared = _voted(Annotators.live(make_user, 9))
    expected = emphasis_expected_gold(declared)
    assert _declared_gold(declared, "emphasis") == expected
    assert any(0 < p < 1 for p in expected.values())


def test_the_tag_rows_read_back_are_the_tags_each_annotator_gave(app):
    declared = _voted(Annotators(3))
    item = _first_item(declared)
    db.session.expire_all()
    rows = labels_frame(declared)
    rows = rows[(rows["item"] == item.external_id) & (rows["field"] == "emphasis.bio")]
    given = sorted(tuple(_tags(item.payload["id"], len(item.payload["words"]), n)) for n in range(3))
    by_vote = sorted(tuple(group.sort_values("unit", key=lambda u: u.str.rsplit("_", n=1).str[-1].astype(int))
                           ["value"]) for _, group in rows.groupby("user_id"))
    assert by_vote == given


# --- the answer's shapes ------------------------------------------------------------------------------------------

@pytest.fixture
def q0(app) -> Item:
    """Item Q_0 of the dev excerpt (12 words: Life is defined more by its risks than by its samenesses .)."""
    project = load_project("emphasis2020", EXCERPT, "emph-shapes", k=3)
    item = _first_item(project)
    assert item.external_id == "Q_0" and len(item.payload["words"]) == 12
    return item


def test_two_spans_side_by_side_are_stored_as_tags_with_a_tag_row_per_word(q0):
    tags = ["O"] * 6 + ["B", "B", "I", "I", "I", "I"]
    stored, rows = _check(q0, {"emphasis": tags})
    assert stored == {"emphasis": tags}
    assert [(r.unit, r.value) for r in rows if r.field == "emphasis.bio"] == \
        [(f"Q_0_{n}", tag) for n, tag in enumerate(tags)]
    assert [r.value for r in rows if r.field == "emphasis"] == ["0"] * 6 + ["1"] * 6


def test_word_positions_are_accepted_each_run_of_neighbours_one_span(q0):
    stored, _ = _check(q0, {"emphasis": [0, 1, 6, 10]})
    assert stored == {"emphasis": ["B", "I", "O", "O", "O", "O", "B", "O", "O", "O", "B", "O"]}


def test_nothing_selected_is_an_answer_of_all_o(q0):
    stored, _ = _check(q0, {"emphasis": []})
    assert stored == {"emphasis": ["O"] * 12}


@pytest.mark.parametrize("tags, message", [
    (["O"] * 11, "emphasis: has 11 tags but the text has 12 words"),
    (["I"] + ["O"] * 11, 'emphasis: word 1 is "I" but no span is open before it; a span starts with "B"'),
    (["O", "I"] + ["O"] * 10, 'emphasis: word 2 is "I" but no span is open before it; a span starts with "B"'),
    (["b"] + ["O"] * 11, "emphasis: tag 'b' of word 1 is not \"B\", \"I\" or \"O\""),
    ("BIOOOOOOOOOO", 'emphasis: must be a list of "B", "I" or "O", one per word of words (12 words), or a list of '
                     "word positions (0 is the first word)"),
    (["B", 1] + ["O"] * 10, 'emphasis: must be a list of "B", "I" or "O"'),
])
def test_a_wrong_tag_sequence_is_refused_with_what_is_wrong(q0, tags, message):
    with pytest.raises(AnswerError, match="^" + message.replace("(", r"\(").replace(")", r"\)")):
        _check(q0, {"emphasis": tags})


def test_without_the_key_tags_are_refused_and_positions_stay_the_answer(q0):
    plain = definition_from_text(DEFINITION.read_text(encoding="utf-8").replace("    boundaries: true", "    #"))
    assert _check(q0, {"emphasis": [6, 7]}, plain)[0] == {"emphasis": [6, 7]}
    with pytest.raises(AnswerError, match="must be a list of word positions"):
        _check(q0, {"emphasis": ["B", "I"] + ["O"] * 10}, plain)


def test_the_api_question_says_the_answer_is_tags(q0):
    definition = load_definition(DEFINITION)
    described = public_questions(definition, item_view.viewed(definition, q0).payload)
    assert described[0]["boundaries"] is True and described[0]["tags"] == ["B", "I", "O"]


# --- the key in a definition -----------------------------------------------------------------------------------------

def test_a_boundaries_value_that_is_not_true_or_false_is_refused_with_its_path_and_line():
    text = DEFINITION.read_text(encoding="utf-8").replace("    boundaries: true", '    boundaries: "bio"')
    with pytest.raises(DefinitionError) as error:
        definition_from_text(text)
    line = text.splitlines().index(next(x for x in text.splitlines() if x.startswith("    boundaries:"))) + 1
    assert (error.value.path, error.value.line) == ("questions[0].boundaries", line)
    assert "must be true or false" in error.value.message


def test_boundaries_on_a_choice_question_is_refused_as_a_span_key():
    text = """
name: t
show: [{field: text}]
questions:
  - {id: q, kind: choice, options: [a, b], boundaries: true}
"""
    with pytest.raises(DefinitionError) as error:
        definition_from_text(text)
    assert error.value.path == "questions[0].boundaries" and "span questions" in error.value.message
