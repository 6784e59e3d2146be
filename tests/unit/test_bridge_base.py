"""The bridges' shared base (annotator/declared/bridge_base.py) and how a shared task names its bridges.

The KPA-2021 bridges stand for every type's: the proofs on kept data are in tests/web/test_bridge_kpa2021.py; here
only what the base itself promises: the presentation of a type that draws none, the pair (answer, presentation) a
bridge gives, label rows that compare with the kept files' lists, and a reference that names no bridge refused in
words.
"""
from __future__ import annotations

import json

import pytest

from annotator.declared.bridge_base import Bridge, LabelRow, bridges_of, no_presentation
from annotator.plugins.shared_task import SharedTask
from annotator.shared_tasks.kpa2021.bridge import MATCH_CHECK, SET_COMPARE
from annotator.tasks.base import AnswerError

ITEM = {"id": "t1con:alpha:beta", "topic": "We should abandon the use of school uniform", "stance": -1,
        "systems": ["alpha", "beta"],
        "summaries": {"alpha": [["Uniforms save money", 0.5]], "beta": [["Uniforms reduce bullying", 0.4]]}}
CHECK_ITEM = {"id": "arg_4_0~6c879c6c85", "key_point": {"id": "6c879c6c85", "text": "Uniforms save money"}}


def test_a_label_row_equals_the_kept_files_list_made_a_tuple() -> None:
    row = LabelRow("pair", "verdict", "yes")
    assert row == tuple(["pair", "verdict", "yes"]) and (row.unit, row.field, row.value) == ("pair", "verdict", "yes")


def test_a_type_that_draws_nothing_has_no_declared_presentation() -> None:
    assert no_presentation({"a": "alpha", "b": "beta"}, ITEM) is None
    assert MATCH_CHECK.declared_answer({"verdict": "faulty"}, CHECK_ITEM) == ({"verdict": "faulty"}, None)


def test_a_bridge_gives_the_answer_with_the_presentation_it_is_read_with() -> None:
    """Beta was shown as A: the answer stays in the annotator's terms (side A's stance is beta's), and the
    presentation says both comparisons were drawn swapped, so the declared rows name the right systems."""
    answer, presentation = SET_COMPARE.declared_answer(
        {"stance_a": "most_contest", "stance_b": "all_contest", "less_redundant": "A", "more_central": "equal"},
        ITEM, {"a": "beta", "b": "alpha"})
    assert presentation == {"swapped": ["less_redundant", "more_central"]}
    assert answer == {"less_redundant": "A", "more_central": "equal",
                      "each_summary": {"A": {"stance": "most_contest"}, "B": {"stance": "all_contest"}}}


def test_without_a_built_in_presentation_the_set_comparison_reads_the_items_order() -> None:
    answer, presentation = SET_COMPARE.declared_answer(
        {"stance_a": "all_support", "stance_b": "all_contest", "less_redundant": "B", "more_central": "A"}, ITEM)
    assert presentation == {"swapped": []}
    assert answer["each_summary"] == {"A": {"stance": "all_support"}, "B": {"stance": "all_contest"}}


def test_a_set_comparisons_rows_in_system_names_map_to_the_items_sides_under_the_players_pair() -> None:
    rows = [LabelRow("pair", "less_redundant", "beta"), LabelRow("pair", "more_central", "equal"),
            LabelRow("stance alpha", "stance", "all_contest"), LabelRow("stance beta", "stance", "most_contest")]
    pair = json.dumps(["alpha", "beta"])
    # each set's stance under its system's name; and the right-stance comparison derived from them: the topic is
    # contested (stance -1), so the right stance is all_contest, which alpha (the item's A) took and beta did not
    assert SET_COMPARE.labels(rows, ITEM) == [
        LabelRow(pair, "less_redundant", "B"), LabelRow(pair, "more_central", "equal"),
        LabelRow("alpha", "stance", "all_contest"), LabelRow("beta", "stance", "most_contest"),
        LabelRow(pair, "right_stance", "A")]


def test_a_presentation_of_other_systems_than_the_items_is_refused_naming_them() -> None:
    with pytest.raises(ValueError, match="'gamma'"):
        SET_COMPARE.declared_answer({"stance_a": "all_support"}, ITEM, {"a": "gamma", "b": "alpha"})


def test_a_shared_task_refuses_a_bridge_reference_that_names_something_else() -> None:
    task = SharedTask(name="kpa2021", title="t", package="annotator.shared_tasks.kpa2021",
                      bridges=("bridge:MATCH_CHECK", "bridge:COMPARED"))
    with pytest.raises(RuntimeError, match=r"kpa2021\.bridge:COMPARED is not a bridge \(tuple\)"):
        bridges_of(task)
    assert isinstance(bridges_of(SharedTask(name="kpa2021", title="t", package="annotator.shared_tasks.kpa2021",
                                 bridges=("bridge:MATCH_CHECK",)))[0], Bridge)


def test_a_lease_drawn_by_the_declared_engine_is_read_when_both_comparisons_show_the_same_side() -> None:
    built_in = {"stance_a": "most_contest", "stance_b": "all_contest", "less_redundant": "A", "more_central": "B"}
    drawn = {"swapped": ["more_central", "less_redundant"]}
    assert SET_COMPARE.declared_answer(built_in, ITEM, drawn) == \
        SET_COMPARE.declared_answer(built_in, ITEM, {"a": "beta", "b": "alpha"})


def test_a_lease_drawn_with_other_sides_per_comparison_refuses_a_built_in_answer_naming_the_comparison() -> None:
    built_in = {"stance_a": "most_contest", "stance_b": "all_contest", "less_redundant": "A", "more_central": "B"}
    with pytest.raises(AnswerError, match="another order for more_central"):
        SET_COMPARE.answer(built_in, ITEM, {"swapped": ["more_central"]})
