"""Pairwise sides shared across a HIT (annotator/declared/sides.py): the definition's checks of `pairwise_order`
and of a group's `sides`, the drawn order, an items file whose two players are one, and control items of a sides
group scored in the item's terms whatever side the annotator saw."""
from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pandas as pd
import pytest

from annotator.core.errors import FormatError
from annotator.declared.answers import presentation
from annotator.declared.controls import control_reference, control_score
from annotator.declared.definition import DefinitionError
from annotator.declared.definition_reader import definition_from_text
from annotator.declared.items import load_definition, read_items
from annotator.engine.assignment import presentation_rng

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
REPLIES = EXAMPLES / "reply_pairs.yaml"

PAIRS = """\
name: pairs
pairwise_order: per_hit
show: [request, reply_a, reply_b]
questions:
  - repeat: each_reply
    sides: helpful
    questions:
      - {id: safe, kind: choice, options: [safe, unsafe]}
  - {id: helpful, kind: pairwise, a: reply_a, b: reply_b, players: [model_a, model_b]}
  - {id: polite, kind: pairwise, a: reply_a, b: reply_b, players: [model_a, model_b]}
"""


def refused(text: str) -> DefinitionError:
    with pytest.raises(DefinitionError) as caught:
        definition_from_text(textwrap.dedent(text))
    return caught.value


# --- the definition -----------------------------------------------------------------------------------------------

def test_the_order_is_drawn_per_question_unless_the_definition_says_per_hit():
    assert definition_from_text(PAIRS.replace("pairwise_order: per_hit\n", "")).pairwise_order == "per_question"
    assert definition_from_text(PAIRS).pairwise_order == "per_hit"


def test_an_unknown_order_is_refused_naming_the_two():
    error = refused(PAIRS.replace("per_hit", "per_page"))
    assert error.path == "pairwise_order" and error.line == 2
    assert "'per_page' is not one of per_question, per_hit" in error.message


def test_one_order_for_a_definition_without_a_pairwise_question_is_refused():
    error = refused("name: x\npairwise_order: per_hit\nshow: [text]\nquestions:\n"
                    "  - {id: ok, kind: choice, options: [good, bad]}\n")
    assert error.path == "pairwise_order" and "this definition has none" in error.message


def test_one_order_for_questions_comparing_other_fields_is_refused_at_the_field():
    error = refused(PAIRS.replace("{id: polite, kind: pairwise, a: reply_a, b: reply_b",
                                  "{id: polite, kind: pairwise, a: reply_b, b: reply_a"))
    assert error.path == "questions[2].a" and error.line == 10
    assert "is 'reply_b', and 'helpful' has a 'reply_a': with pairwise_order: per_hit" in error.message


def test_one_order_for_questions_ranking_other_players_is_refused_at_the_players():
    error = refused(PAIRS.replace("{id: helpful, kind: pairwise, a: reply_a, b: reply_b, players: [model_a, model_b]}",
                                  "{id: helpful, kind: pairwise, a: reply_a, b: reply_b}"))
    assert error.path == "questions[2].players"
    assert "is ['model_a', 'model_b'], and 'helpful' has players not given" in error.message


def test_a_group_of_sides_naming_no_pairwise_question_is_refused_listing_them():
    error = refused(PAIRS.replace("sides: helpful", "sides: helpfull"))
    assert error.path == "questions[0].sides" and error.line == 6
    assert "'helpfull' is not a pairwise question of this definition (its pairwise questions: helpful, polite)" \
        in error.message


def test_an_order_that_is_not_text_is_refused_saying_what_it_is():
    error = refused(PAIRS.replace("pairwise_order: per_hit", "pairwise_order: [per_hit]"))
    assert error.path == "pairwise_order" and error.message.startswith("a list is not one of per_question, per_hit")


def test_a_group_of_sides_with_elements_too_is_refused():
    error = refused(PAIRS.replace("sides: helpful", "sides: helpful\n    elements: [{id: a, text: b}]"))
    assert error.path == "questions[0]" and "one of the three" in error.message


def test_a_group_of_sides_asks_of_the_elements_a_and_b_named_by_its_label():
    definition = definition_from_text(PAIRS.replace("sides: helpful", "sides: helpful\n    label: Reply"))
    [group] = definition.repeats
    assert [(e.id, e.text) for e in group.elements] == [("A", "Reply A"), ("B", "Reply B")]
    [unlabelled] = definition_from_text(PAIRS).repeats
    assert [e.text for e in unlabelled.elements] == ["Side A", "Side B"]


# --- the draw -----------------------------------------------------------------------------------------------------

def test_one_order_swaps_every_pairwise_question_or_none():
    definition = definition_from_text(PAIRS)
    drawn = [presentation(definition, presentation_rng("p", "r1", f"ann{n}"))["swapped"] for n in range(40)]
    assert set(map(tuple, drawn)) == {(), ("helpful", "polite")}


def test_the_draw_per_question_may_swap_one_question_and_not_the_other():
    definition = definition_from_text(PAIRS.replace("pairwise_order: per_hit\n", ""))
    drawn = {tuple(presentation(definition, presentation_rng("p", "r1", f"ann{n}"))["swapped"]) for n in range(40)}
    assert ("helpful",) in drawn or ("polite",) in drawn


# --- items --------------------------------------------------------------------------------------------------------

def test_an_item_whose_two_players_are_one_is_refused_naming_line_and_field(tmp_path):
    rows = [{"id": "r1", "request": "q", "reply_a": "x", "reply_b": "y", "model_a": "m1", "model_b": "m2"},
            {"id": "r2", "request": "q", "reply_a": "x", "reply_b": "y", "model_a": "m1", "model_b": "m1"}]
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    with pytest.raises(FormatError) as caught:
        read_items(path, definition_from_text(PAIRS))
    assert (caught.value.line, caught.value.column) == (2, '"model_b"')
    assert "model_a and model_b are both 'm1'" in str(caught.value)


# --- control items ------------------------------------------------------------------------------------------------

ITEM = {"id": "r1", "request": "q", "reply_a": "x", "reply_b": "y", "model_a": "m-small", "model_b": "m-large"}
KNOWN = {"each_reply": {"A": {"safe": "safe"}, "B": {"safe": "unsafe"}}}   # A is reply_a (m-small): item's terms


@pytest.mark.parametrize("swapped, given, score", [
    ([], {"A": {"safe": "safe"}, "B": {"safe": "unsafe"}}, 1.0),
    (["helpful", "polite"], {"A": {"safe": "unsafe"}, "B": {"safe": "safe"}}, 1.0),   # m-large shown as A
    (["helpful", "polite"], {"A": {"safe": "safe"}, "B": {"safe": "unsafe"}}, 0.0),
])
def test_a_known_answer_of_the_sides_is_scored_in_the_items_terms(swapped, given, score):
    definition = definition_from_text(PAIRS)
    answer = {"each_reply": given, "helpful": "A", "polite": "A"}
    assert control_score(definition, ITEM, answer, KNOWN, {"swapped": swapped}) == score


def test_a_known_answer_drawn_from_gold_names_the_sides_in_the_items_terms():
    gold = pd.DataFrame({"item": ["r1", "r1"], "question": ["safe", "safe"], "unit": ["m-large", "m-small"],
                         "gold": ["unsafe", "safe"], "n": [3, 3], "score": [1.0, 1.0], "votes": ["", ""]})
    assert control_reference(definition_from_text(PAIRS), "r1", gold, ITEM) == KNOWN


def test_the_example_reads_its_items():
    assert [item.external_id for item in read_items(EXAMPLES / "reply_pairs_items.jsonl",
                                                    load_definition(REPLIES))] == ["r1", "r2", "r3"]
