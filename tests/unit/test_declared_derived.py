"""A comparison derived from other answers (`derived:` on a pairwise question, annotator/declared/derived.py): the
definition's checks, the row each vote gives (who won, in the item's terms, whatever side the annotator saw), an
answer that gives it refused, Bradley-Terry strengths fitted from its rows, and control items that leave it out."""
from __future__ import annotations

import json
import textwrap

import pytest

from annotator.declared.answers import check_answer, public_questions
from annotator.declared.controls import control_reference, control_score
from annotator.declared.definition import DefinitionError
from annotator.declared.definition_reader import definition_from_text
from annotator.declared.gold import declared_gold, strengths
from annotator.declared.repeat import answer_keys
from annotator.tasks.base import AnswerError
from tests.support.declared_labels import labels_of

SETS = """\
name: sets
pairwise_order: per_hit
show: [topic, side, set_a, set_b]
questions:
  - repeat: each_set
    sides: better
    questions:
      - {id: stance, kind: choice, options: [all_support, all_contest, mixed]}
  - {id: better, kind: pairwise, a: set_a, b: set_b, players: [system_a, system_b]}
  - id: right_stance
    kind: pairwise
    derived: {from: stance, wins: {field: side, values: {"1": all_support, "-1": all_contest}}}
"""
PRO = {"id": "t1", "topic": "x", "side": 1, "set_a": "p", "set_b": "q", "system_a": "alpha", "system_b": "beta"}
PAIR = json.dumps(["alpha", "beta"])


def refused(text: str) -> DefinitionError:
    with pytest.raises(DefinitionError) as caught:
        definition_from_text(textwrap.dedent(text))
    return caught.value


def answer(a: str, b: str, better: str = "A") -> dict:
    return {"each_set": {"A": {"stance": a}, "B": {"stance": b}}, "better": better}


def derived_rows(text: str, payload: dict, given: dict, swapped: bool = False) -> list[tuple[str, str]]:
    presentation = {"swapped": ["better"] if swapped else []}
    _, rows = check_answer(definition_from_text(text), payload, given, presentation)
    return [(row.unit, row.value) for row in rows if row.field == "right_stance"]


# --- the definition -----------------------------------------------------------------------------------------------

def test_a_derived_question_takes_the_sides_and_players_of_its_sources_comparison():
    question = definition_from_text(SETS).question("right_stance")
    assert (question.a, question.b, question.players) == ("set_a", "set_b", ("system_a", "system_b"))
    assert question.gold is not None and question.gold.rule == "bradley_terry"


def test_a_derived_question_giving_its_own_sides_is_refused():
    error = refused(SETS.replace("    kind: pairwise\n    derived:", "    kind: pairwise\n    a: set_a\n    derived:"))
    assert error.path == "questions[2].a" and error.line == 12
    assert "takes its sides and players from the pairwise question its source is asked of; leave a out" \
        in error.message


def test_a_source_that_is_not_a_groups_choice_question_is_refused_naming_those_there_are():
    error = refused(SETS.replace("derived: {from: stance,", "derived: {from: better,"))
    assert error.path == "questions[2].derived.from"
    assert "'better' is not an earlier choice question of a group (the choice questions of groups before it: " \
           "stance)" in error.message


def test_a_winning_answer_that_is_no_option_of_the_source_is_refused():
    error = refused(SETS.replace('"-1": all_contest', '"-1": contest'))
    assert error.path == "questions[2].derived.wins.values.-1"
    assert "'contest' is not an answer of 'stance' (all_support, all_contest, mixed)" in error.message


def test_a_winning_answer_read_from_a_field_not_shown_is_refused():
    error = refused(SETS.replace("{field: side,", "{field: topic_side,"))
    assert error.path == "questions[2].derived.wins.field"
    assert "'topic_side' must be one of the shown fields (topic, side, set_a, set_b)" in error.message


def test_a_derived_question_without_wins_is_refused():
    error = refused(SETS.replace('derived: {from: stance, wins: {field: side, values: {"1": all_support, '
                                 '"-1": all_contest}}}', "derived: {from: stance}"))
    assert error.path == "questions[2].derived.wins" and "is required" in error.message


def test_a_group_of_sides_naming_no_pairwise_question_is_refused_there_not_at_the_derived_questions_sides():
    error = refused(SETS.replace("sides: better", "sides: worse"))
    assert error.path == "questions[0].sides" and "'worse' is not a pairwise question" in error.message


def test_a_source_asked_per_element_of_a_list_is_refused():
    text = """\
    name: claims
    show: [text]
    questions:
      - repeat: claims
        elements: [{id: masks, text: Masks help.}]
        questions:
          - {id: stance, kind: choice, options: [pro, con]}
      - {id: who, kind: pairwise, derived: {from: stance, wins: pro}}
    """
    error = refused(text)
    assert error.path == "questions[1].derived.from"
    assert "not of each side of a pairwise question: give the group sides: <pairwise question id>" in error.message


# --- answers and rows ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("a, b, swapped, won", [
    ("all_support", "mixed", False, "A"),
    ("all_support", "mixed", True, "B"),      # the first system shown as B was the one found right
    ("mixed", "all_contest", False, "equal"),
    ("all_support", "all_support", False, "equal"),
])
def test_each_vote_gives_who_took_the_right_stance_in_the_items_terms(a, b, swapped, won):
    assert derived_rows(SETS, PRO, answer(a, b), swapped) == [(PAIR, won)]


def test_the_winning_answer_follows_the_items_field():
    con = {**PRO, "side": "-1"}   # as an items file keeps a shown number: its text
    assert derived_rows(SETS, con, answer("all_support", "all_contest")) == [(PAIR, "B")]


def test_an_item_whose_field_value_is_not_mapped_gives_no_row():
    assert derived_rows(SETS, {**PRO, "side": 0}, answer("all_support", "mixed")) == []


def test_an_answer_giving_the_derived_question_is_refused_as_no_question_of_the_hit():
    with pytest.raises(AnswerError, match="'right_stance' is not a question of this HIT"):
        check_answer(definition_from_text(SETS), PRO, {**answer("mixed", "mixed"), "right_stance": "A"})


def test_the_derived_question_is_not_described_to_a_client_nor_a_key_of_the_answer():
    definition = definition_from_text(SETS)
    assert [q["id"] for q in public_questions(definition, PRO)] == ["each_set", "better"]
    assert answer_keys(definition) == ["each_set", "better"]


# --- gold, strengths, control items -------------------------------------------------------------------------------

def test_its_strengths_are_fitted_from_the_derived_rows():
    items = {f"t{n}": {**PRO, "id": f"t{n}", "system_a": a, "system_b": b}
             for n, (a, b) in enumerate([("alpha", "beta"), ("beta", "gamma"), ("alpha", "gamma")])}
    votes = {"t0": [answer("all_support", "mixed"), answer("all_support", "all_support")],
             "t1": [answer("mixed", "all_support"), answer("all_support", "mixed")],
             "t2": [answer("all_support", "mixed"), answer("mixed", "mixed")]}
    frame = strengths(definition_from_text(SETS), labels_of(SETS, votes, items))["right_stance"]
    assert frame.attrs["undefined_because"] is None
    records = {row.player: (row.wins, row.losses, row.ties) for row in frame.itertuples()}
    # t0: alpha right, beta not; both right. t1: gamma right; beta right. t2: alpha right; neither.
    assert records == {"alpha": (2, 0, 2), "beta": (1, 2, 1), "gamma": (1, 2, 1)}
    assert list(frame["player"])[0] == "alpha"   # ranked first: never beaten


def test_a_known_answer_drawn_from_gold_leaves_the_derived_question_out():
    definition = definition_from_text(SETS)
    labels = labels_of(SETS, {"t1": [answer("all_support", "mixed")] * 3}, {"t1": PRO})
    reference = control_reference(definition, "t1", declared_gold(definition, labels), PRO)
    assert reference is not None and "right_stance" not in reference
    assert control_score(definition, PRO, answer("all_support", "mixed"), reference, {"swapped": []}) == 1.0
