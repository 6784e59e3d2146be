"""A distribution question (a soft label, a constant sum): the definition's keys, the answer's check and label rows,
gold (the mean distribution and its argmax), agreement (Krippendorff's interval alpha over the shares, against the
package's own reading of a coders x units matrix and against a direct computation from the definition of alpha),
control items and the exports' typing, each against a hand computation."""
from __future__ import annotations

import itertools
import math
from pathlib import Path

import krippendorff
import numpy as np
import pyarrow as pa
import pytest

from annotator.analysis.agreement import field_agreement
from annotator.core.errors import FormatError
from annotator.core.hit_values import AnswerError
from annotator.declared.adjudication import ADJUDICATED, adjudicated, undecided
from annotator.declared.answers import check_answer, public_questions
from annotator.declared.definition import NOT_ASKED, UNDECIDED, DefinitionError
from annotator.declared.definition_reader import definition_from_file, definition_from_text
from annotator.declared.gold import (
    agreement_units,
    control_reference,
    control_score,
    declared_gold,
    gold_counts,
    show_reference,
)
from annotator.declared.items import iter_items
from annotator.shared_tasks.custom.dataset import answer_type, gold_table, votes_table
from tests.support.declared_labels import labels_of

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "soft_labels_sentiment.yaml"


def define(extra_keys: str = "", extra: str = "") -> object:
    return definition_from_text(f"""name: soft
show: [text]
questions:
  - id: tone
    kind: distribution
    options: [{{value: pos, label: Positive}}, neu, neg]
{extra_keys}{extra}""")


def test_the_example_validates_with_its_totals_and_condition():
    definition = definition_from_file(EXAMPLE)
    sentiment, meant = definition.question("sentiment"), definition.question("meant")
    assert (sentiment.kind, sentiment.total, sentiment.gold.rule, sentiment.agreement) == \
        ("distribution", 100, "mean", "interval")
    assert (meant.total, meant.when) == (10, (("sarcastic", ("yes",)),))
    assert [o.description for o in meant.options] == ["the product is good", "the product is bad"]


@pytest.mark.parametrize("question, path, said", [
    ("{id: d, kind: distribution}", "questions[0].options", "is required: the options the total is shared among"),
    ("{id: d, kind: distribution, options: [a]}", "questions[0].options", "must list at least two options, not 1"),
    (f"{{id: d, kind: distribution, options: [{', '.join(f'o{n}' for n in range(21))}]}}", "questions[0].options",
     "lists 21 options; a distribution shares its total among at most 20"),
    ("{id: d, kind: distribution, options: [a, d]}", "questions[0].options[1]",
     "'d' is the question's id, the unit of its hard label's gold row; name the option otherwise"),
    ("{id: d, kind: distribution, options: [a, b], total: 0}", "questions[0].total",
     "must be between 1 and 1000, not 0"),
    ("{id: d, kind: distribution, options: [a, b], total: 12.5}", "questions[0].total", "must be a whole number"),
    ("{id: d, kind: distribution, options_from: opts}", "questions[0].options_from",
     "is a key of choice and multi questions"),
    ("{id: d, kind: distribution, options: [a, b], gold: majority}", "questions[0].gold.rule",
     "'majority' does not apply to a distribution question; use one of mean"),
    ("{id: d, kind: distribution, options: [a, b], gold: {rule: mean, ties: a}}", "questions[0].gold.ties",
     "the mean rule of a distribution question has no 'ties'"),
])
def test_a_bad_distribution_question_is_refused_at_its_key(question, path, said):
    with pytest.raises(DefinitionError) as error:
        definition_from_text(f"name: x\nshow: [text]\nquestions:\n  - {question}\n")
    assert error.value.path == path
    assert said in error.value.message


def test_a_distribution_cannot_decide_whether_another_question_is_shown():
    with pytest.raises(DefinitionError) as error:
        define(extra="  - {id: why, kind: text, when: {tone: pos}}\n")
    assert error.value.path == "questions[1].when.tone"
    assert "a distribution question cannot decide whether another is shown" in error.value.message


def test_an_answer_is_stored_in_the_options_order_with_one_share_row_per_option():
    stored, rows = check_answer(define(), {}, {"tone": {"neg": 20, "pos": 70, "neu": 10}})
    assert list(stored["tone"].items()) == [("pos", 70), ("neu", 10), ("neg", 20)]
    assert [(r.unit, r.field, r.value) for r in rows] == [("pos", "tone", "70"), ("neu", "tone", "10"),
                                                          ("neg", "tone", "20")]


def test_a_share_written_as_a_whole_float_is_stored_as_a_whole_number():
    stored, _ = check_answer(define(), {}, {"tone": {"pos": 50.0, "neu": 50, "neg": 0}})
    assert stored["tone"] == {"pos": 50, "neu": 50, "neg": 0} and isinstance(stored["tone"]["pos"], int)


@pytest.mark.parametrize("answer, said", [
    ({"pos": 70, "neu": 30}, "tone: 'neg' has no share; give every option one (0 for none)"),
    ({"pos": 70}, "tone: 'neu', 'neg' have no share"),
    ({"pos": 100, "neu": 10, "neg": -10}, "tone: the share of 'neg' is negative (-10); a share is 0 to 100"),
    ({"pos": 110, "neu": 0, "neg": -10}, "tone: the share of 'pos' is more than the total, 100"),
    ({"pos": 70, "neu": 10, "neg": 10}, "tone: the shares add up to 90, not 100 (add 10)"),
    ({"pos": 70, "neu": 30, "neg": 10}, "tone: the shares add up to 110, not 100 (take away 10)"),
    ({"pos": 70, "neu": 20, "neg": 10, "mixed": 0}, "tone: 'mixed' is not an option (options: 'pos', 'neu', 'neg')"),
    ({"pos": 69.5, "neu": 20.5, "neg": 10},
     "tone: the share of 'pos' must be a whole number from 0 to 100, not '69.5'"),
    ({"pos": "70", "neu": 20, "neg": 10}, "tone: the share of 'pos' must be a whole number"),
    ({"pos": True, "neu": 89, "neg": 10}, "tone: the share of 'pos' must be a whole number"),
    ({"pos": float("nan"), "neu": 89, "neg": 10}, "tone: the share of 'pos' must be a whole number"),
    ({"pos": 10 ** 400, "neu": 0, "neg": 0}, "tone: the share of 'pos' is more than the total, 100"),
    ([70, 20, 10], "tone: must be an object {option: share} giving each of 'pos', 'neu', 'neg' a whole number"),
])
def test_a_wrong_distribution_is_refused_naming_what_is_wrong(answer, said):
    with pytest.raises(AnswerError) as error:
        check_answer(define(), {}, {"tone": answer})
    assert said in str(error.value)


def test_a_declared_total_is_what_the_shares_must_add_up_to():
    definition = define("    total: 10\n")
    assert check_answer(definition, {}, {"tone": {"pos": 7, "neu": 2, "neg": 1}})[0]["tone"]["pos"] == 7
    with pytest.raises(AnswerError, match="the shares add up to 20, not 10"):
        check_answer(definition, {}, {"tone": {"pos": 7, "neu": 3, "neg": 10}})


def test_the_api_describes_the_options_the_total_and_the_answer():
    [entry] = public_questions(define("    total: 10\n"), {})
    assert entry["options"][0] == {"value": "pos", "label": "Positive"} and entry["total"] == 10
    assert entry["answer"] == "an object giving every option a whole number from 0 to 10, the numbers adding up to 10"


# --- gold -----------------------------------------------------------------------------------------------------

# Three annotators on i1: (70, 20, 10), (40, 40, 20), (40, 30, 30): means 50, 30, 20 (the hard label pos);
# on i2: (50, 50, 0) and (50, 50, 0): pos and neu tie at 50, so the hard label is undecided.
VOTES = {"i1": [{"tone": {"pos": 70, "neu": 20, "neg": 10}}, {"tone": {"pos": 40, "neu": 40, "neg": 20}},
                {"tone": {"pos": 40, "neu": 30, "neg": 30}}],
         "i2": [{"tone": {"pos": 50, "neu": 50, "neg": 0}}] * 2}


def _gold(definition, votes) -> dict[tuple[str, str], tuple[str, float, int, str]]:  # type: ignore[no-untyped-def]
    gold = declared_gold(definition, labels_of(definition, votes))
    return {(row.item, row.unit): (row.gold, row.score, row.n, row.votes) for row in gold.itertuples()
            if row.question == "tone"}


def test_gold_is_each_option_s_mean_share_with_the_share_of_the_total_as_score():
    found = _gold(define(), VOTES)
    assert [found["i1", o][0] for o in ("pos", "neu", "neg")] == ["50", "30", "20"]
    assert [found["i1", o][1] for o in ("pos", "neu", "neg")] == pytest.approx([0.5, 0.3, 0.2])
    assert found["i1", "pos"][2] == 3 and found["i1", "pos"][3] == "40: 2, 70: 1"


def test_the_hard_label_is_the_option_with_the_largest_mean_share():
    found = _gold(define(), VOTES)
    assert found["i1", "tone"][:3] == ("pos", pytest.approx(0.5), 3)
    assert found["i1", "tone"][3] == "pos: 2, undecided: 1"   # each annotator's own largest (40 / 40 / 20: a tie)


def test_a_tie_for_the_largest_mean_share_leaves_the_hard_label_undecided():
    found = _gold(define(), VOTES)
    assert found["i2", "tone"][0] == UNDECIDED and math.isnan(found["i2", "tone"][1])
    assert (found["i2", "pos"][0], found["i2", "neu"][0]) == ("50", "50")


def test_a_mean_share_that_is_not_whole_is_rounded_to_four_decimals_in_the_gold():
    votes = {"i1": [{"tone": {"pos": 100, "neu": 0, "neg": 0}}, {"tone": {"pos": 0, "neu": 100, "neg": 0}},
                    {"tone": {"pos": 0, "neu": 0, "neg": 100}}]}
    found = _gold(define(), votes)
    assert found["i1", "pos"][0] == "33.3333" and found["i1", "pos"][1] == pytest.approx(1 / 3)


WHEN = """name: soft
show: [text]
questions:
  - {id: mixed, kind: choice, options: ["no", "yes"]}
  - {id: tone, kind: distribution, options: [pos, neg], when: {mixed: "yes"}}
"""


def test_a_distribution_not_asked_by_the_gold_of_its_condition_is_n_a_on_every_row():
    definition = definition_from_text(WHEN)
    votes = {"i1": [{"mixed": "no"}, {"mixed": "no"}, {"mixed": "yes", "tone": {"pos": 60, "neg": 40}}],
             "i2": [{"mixed": "no"}, {"mixed": "no"}],
             "i3": [{"mixed": "yes", "tone": {"pos": 60, "neg": 40}}, {"mixed": "yes", "tone": {"pos": 20, "neg": 80}}]}
    found = declared_gold(definition, labels_of(definition, votes))
    rows = {(r.item, r.unit): r.gold for r in found.itertuples() if r.question == "tone"}
    assert rows == {("i1", "pos"): NOT_ASKED, ("i1", "neg"): NOT_ASKED, ("i1", "tone"): NOT_ASKED,
                    ("i2", "pos"): NOT_ASKED, ("i2", "neg"): NOT_ASKED, ("i2", "tone"): NOT_ASKED,
                    ("i3", "pos"): "40", ("i3", "neg"): "60", ("i3", "tone"): "neg"}
    assert gold_counts(definition, found)["tone: n/a"] == 2


def test_the_gold_summary_counts_the_items_of_each_hard_label():
    definition = define()
    counts = gold_counts(definition, declared_gold(definition, labels_of(definition, VOTES)))
    assert (counts["tone: pos"], counts["tone: neu"], counts["tone: neg"], counts["tone: undecided"]) == (1, 0, 0, 1)


# --- agreement --------------------------------------------------------------------------------------------------

def test_agreement_is_interval_over_the_shares_each_item_and_option_a_unit():
    definition = define()
    [frame] = agreement_units(definition, labels_of(definition, VOTES)).values()
    assert frame.attrs["level"] == "interval" and frame.attrs["order"] == [str(n) for n in range(101)]
    assert sorted(zip(frame["unit"], frame["coder"], frame["value"]))[:3] == \
        [("i1 / neg", 1, "10"), ("i1 / neg", 2, "20"), ("i1 / neg", 3, "30")]


def test_alpha_is_krippendorff_s_interval_alpha_of_the_shares():
    definition = define()
    [frame] = agreement_units(definition, labels_of(definition, VOTES)).values()
    # The same shares as a coders x units matrix (i1 pos, neu, neg; i2 pos, neu, neg), the package's other input.
    shares = [[70, 20, 10, 50, 50, 0], [40, 40, 20, 50, 50, 0], [40, 30, 30, np.nan, np.nan, np.nan]]
    expected = krippendorff.alpha(reliability_data=np.array(shares, dtype=float), level_of_measurement="interval")
    assert field_agreement("tone", frame).krippendorff_alpha.value == pytest.approx(expected)


def test_alpha_agrees_with_its_definition_one_minus_observed_over_expected_disagreement():
    """Krippendorff (2011), "Computing Krippendorff's alpha-reliability": alpha = 1 - D_o / D_e with the interval
    metric (c - k)^2, over the pairable values (units with two or more values), written out here from the pairs."""
    definition = define()
    [frame] = agreement_units(definition, labels_of(definition, VOTES)).values()
    units = [[70, 40, 40], [20, 40, 30], [10, 20, 30], [50, 50], [50, 50], [0, 0]]
    n = sum(len(u) for u in units)
    observed = sum(sum((a - b) ** 2 for a, b in itertools.permutations(u, 2)) / (len(u) - 1) for u in units) / n
    values = [v for u in units for v in u]
    expected = sum((a - b) ** 2 for a, b in itertools.permutations(values, 2)) / (n * (n - 1))
    assert field_agreement("tone", frame).krippendorff_alpha.value == pytest.approx(1 - observed / expected)


def test_the_distributions_distance_is_the_mean_total_variation_distance_of_pairs_per_item_then_over_items():
    """By hand from VOTES: i1's pairs are (70,20,10)-(40,40,20): (30 + 20 + 10) / 2 = 30 points, (70,20,10)-(40,30,30):
    30, (40,40,20)-(40,30,30): 10, so i1's mean is 70 / 3 points of 100; i2's two answers are the same (0); the
    campaign's mean over the two items is (0.2333 + 0) / 2."""
    definition = define()
    [frame] = agreement_units(definition, labels_of(definition, VOTES)).values()
    found = field_agreement("tone", frame).distribution_match
    assert found is not None and (found.items, found.pairs, found.total) == (2, 4, 100)
    assert found.distance == pytest.approx((70 / 3 / 100 + 0) / 2)
    assert found.text().startswith("0.117 of the total apart (total variation distance: 0 the same distribution, "
                                   "1 disjoint; 11.7 of 100 points on other options), mean over 2 items, 4 pairs")


def test_the_distance_counts_a_declared_total_and_leaves_out_an_item_one_annotator_answered():
    definition = define(extra_keys="    total: 10\n")
    votes = {"i1": [{"tone": {"pos": 10, "neu": 0, "neg": 0}}, {"tone": {"pos": 0, "neu": 0, "neg": 10}}],
             "i2": [{"tone": {"pos": 5, "neu": 5, "neg": 0}}]}
    [frame] = agreement_units(definition, labels_of(definition, votes)).values()
    found = field_agreement("tone", frame).distribution_match
    assert found is not None and (found.distance, found.items, found.pairs, found.total) == (1.0, 1, 1, 10)


def test_a_field_of_another_kind_has_no_distributions_distance():
    definition = definition_from_text("name: c\nshow: [text]\nquestions:\n  - {id: c, kind: choice, options: [a, b]}\n")
    [frame] = agreement_units(definition, labels_of(definition, {"i1": [{"c": "a"}, {"c": "b"}]})).values()
    assert field_agreement("c", frame).distribution_match is None


# --- control items and exports --------------------------------------------------------------------------------

@pytest.mark.parametrize("given, score", [({"pos": 50, "neu": 30, "neg": 20}, 1.0),
                                          ({"pos": 0, "neu": 0, "neg": 100}, 0.2),
                                          ({"pos": 60, "neu": 30, "neg": 10}, 0.9)])
def test_a_control_answer_scores_one_minus_the_total_variation_distance(given, score):
    assert control_score(define(), {}, {"tone": given}, {"tone": {"pos": 50, "neu": 30, "neg": 20}}) == \
        pytest.approx(score)


def test_the_mean_distribution_is_a_control_item_s_known_answer_in_words():
    definition = define()
    gold = declared_gold(definition, labels_of(definition, VOTES))
    known = control_reference(definition, "i1", gold)
    assert known == {"tone": {"pos": 50.0, "neu": 30.0, "neg": 20.0}}
    assert show_reference(definition, {}, known) == "tone Positive 50, neu 30, neg 20 (of 100)"


def test_the_votes_table_types_the_answer_as_a_share_per_option():
    definition = define()
    assert answer_type(definition.question("tone")) == pa.struct([("pos", pa.int64()), ("neu", pa.int64()),
                                                                   ("neg", pa.int64())])
    table = votes_table(definition, [{"item": "i1", "user_id": 1, "submitted_at": "2026-11-28T12:00:00",
                                      "answer": {"tone": {"pos": 70, "neu": 20, "neg": 10}}}], {1: "annotator_1"})
    assert table.table.column("tone").to_pylist() == [{"pos": 70, "neu": 20, "neg": 10}]


def test_the_gold_table_holds_the_mean_shares_as_numbers_and_the_hard_label_as_text():
    definition = define()
    gold = declared_gold(definition, labels_of(definition, VOTES))
    table = gold_table(definition, gold.to_dict(orient="records")).table.to_pylist()
    i1 = {row["unit"]: (row["gold"], row["gold_number"]) for row in table if row["item"] == "i1"}
    assert i1 == {"pos": ("50", 50.0), "neu": ("30", 30.0), "neg": ("20", 20.0), "tone": ("pos", None)}


def test_an_items_file_gives_a_control_item_its_known_distribution_checked_like_an_answer(tmp_path):
    definition = define()
    path = tmp_path / "items.jsonl"
    path.write_text('{"id": "i1", "text": "fine", "known.tone": {"pos": 60, "neu": 40, "neg": 0}}\n',
                    encoding="utf-8")
    assert [item.reference for item in iter_items(path, definition)] == [{"tone": {"pos": 60, "neu": 40, "neg": 0}}]
    path.write_text('{"id": "i1", "text": "fine", "known.tone": {"pos": 60, "neu": 30, "neg": 0}}\n',
                    encoding="utf-8")
    with pytest.raises(FormatError) as caught:
        list(iter_items(path, definition))
    assert "items.jsonl, line 1" in str(caught.value)
    assert "tone: the shares add up to 90, not 100 (add 10)" in str(caught.value)


def test_an_adjudicated_tie_takes_the_admin_s_shares_and_their_largest_as_the_hard_label():
    definition = define()
    gold = declared_gold(definition, labels_of(definition, VOTES))
    assert undecided(gold) == ["i2"]                               # pos and neu tie at 50
    decided = labels_of(definition, {"i2": [{"tone": {"pos": 40, "neu": 55, "neg": 5}}]})
    adjudged = adjudicated(definition, gold, decided)
    i2 = {row.unit: (row.gold, row.votes) for row in adjudged.itertuples() if row.item == "i2"}
    assert i2 == {"pos": ("40", ADJUDICATED), "neu": ("55", ADJUDICATED), "neg": ("5", ADJUDICATED),
                  "tone": ("neu", ADJUDICATED)}
    assert undecided(adjudged) == []
