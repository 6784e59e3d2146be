"""A ranking question: the definition's keys, the answer's check and label rows, gold by mean rank and by Borda
count with their tie-breaking, agreement (Krippendorff's alpha on the ranks, Kendall's W against textbook figures)
and control items, each against a hand computation."""
from __future__ import annotations

import itertools
import math
import random
from pathlib import Path

import krippendorff
import numpy as np
import pandas as pd
import pytest
from scipy.stats import spearmanr

from annotator.analysis.agreement import field_agreement
from annotator.analysis.concordance import concordance, kendall_w
from annotator.core.errors import FormatError
from annotator.core.hit_values import AnswerError
from annotator.declared.answers import check_answer
from annotator.declared.definition import NOT_ASKED, DefinitionError
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
from tests.support.declared_labels import labels_of

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "ranking_responses.yaml"


def define(rule: str = "mean_rank", options: str = "[a, b, c]", extra: str = "") -> object:
    return definition_from_text(f"""name: rank
show: [text]
questions:
  - id: order
    kind: ranking
    options: {options}
    gold: {rule}
{extra}""")


def test_the_example_validates_and_ranks_its_shown_fields():
    definition = definition_from_file(EXAMPLE)
    quality = definition.question("quality")
    assert (quality.kind, quality.ranked, quality.gold.rule, quality.agreement) == \
        ("ranking", ("response_a", "response_b", "response_c"), "mean_rank", "ordinal")
    assert [o.label for o in quality.options] == ["Response A", "Response B", "Response C"]   # the shown labels
    assert definition.question("which_unsafe").when == (("unsafe", ("yes",)),)


@pytest.mark.parametrize("question, path, said", [
    ("{id: r, kind: ranking, options: [a, b], fields: [text, other]}", "questions[0]", "one of the two"),
    ("{id: r, kind: ranking}", "questions[0]", "give the options to rank"),
    ("{id: r, kind: ranking, fields: [text, nowhere]}", "questions[0].fields[1]",
     "'nowhere' must be one of the shown fields (text, other)"),
    ("{id: r, kind: ranking, fields: [text, text]}", "questions[0].fields[1]", "'text' is listed twice"),
    ("{id: r, kind: ranking, fields: [text]}", "questions[0].fields", "must list 2 to 20 shown fields, not 1"),
    ("{id: r, kind: ranking, options: [a, b], gold: majority}", "questions[0].gold.rule",
     "'majority' does not apply to a ranking question; use one of mean_rank, borda"),
    ("{id: r, kind: ranking, options: [a, b], gold: {rule: borda, ties: a}}", "questions[0].gold.ties",
     "the borda rule of a ranking question has no 'ties'"),
    ("{id: r, kind: ranking, options: [a, b], of: text}", "questions[0].of",
     "is a key of span, spans, extractive and relations questions"),
])
def test_a_bad_ranking_question_is_refused_at_its_key(question, path, said):
    with pytest.raises(DefinitionError) as error:
        definition_from_text(f"name: x\nshow: [text, other]\nquestions:\n  - {question}\n")
    assert error.value.path == path
    assert said in error.value.message


def test_a_ranking_cannot_decide_whether_another_question_is_shown():
    with pytest.raises(DefinitionError) as error:
        define(extra="  - {id: why, kind: text, when: {order: a}}")
    assert error.value.path == "questions[1].when.order"
    assert "a ranking question cannot decide whether another is shown" in error.value.message


def test_an_answer_is_the_options_in_order_and_gives_one_rank_row_per_option():
    stored, rows = check_answer(define(), {}, {"order": ["c", "a", "b"]})
    assert stored == {"order": ["c", "a", "b"]}
    assert [(r.unit, r.field, r.value) for r in rows] == [("c", "order", "1"), ("a", "order", "2"),
                                                          ("b", "order", "3")]


@pytest.mark.parametrize("answer, said", [
    (["a", "b", "a"], "order: 'a' is ranked twice (again at place 3); a ranking lists each option once"),
    (["a", "b"], "order: 'c' is not ranked; a ranking lists every option ('a', 'b', 'c')"),
    (["a"], "order: 'b', 'c' are not ranked"),
    (["a", "b", "d"], "order: 'd' is not an option (options: 'a', 'b', 'c')"),
    ({"a": 1, "b": 2, "c": 3}, "order: must be a list of the option values in order, best first ('a', 'b', 'c')"),
    ([1, 2, 3], "order: must be a list of the option values in order"),
])
def test_an_answer_that_is_not_a_permutation_is_refused_naming_why(answer, said):
    with pytest.raises(AnswerError) as error:
        check_answer(define(), {}, {"order": answer})
    assert said in str(error.value)


# Three annotators on item i1: b a c, a b c, b c a. Ranks: a 2, 1, 3 (mean 2); b 1, 2, 1 (mean 4/3); c 3, 3, 2 (mean
# 8/3). Borda points (n - rank): a 1 + 2 + 0 = 3, b 2 + 1 + 2 = 5, c 0 + 0 + 1 = 1. Consensus: b, a, c.
VOTES = {"i1": [{"order": ["b", "a", "c"]}, {"order": ["a", "b", "c"]}, {"order": ["b", "c", "a"]}]}


def _gold(definition, votes) -> dict[str, tuple[str, float, int, str]]:  # type: ignore[no-untyped-def]
    gold = declared_gold(definition, labels_of(definition, votes))
    return {row.unit: (row.gold, row.score, row.n, row.votes) for row in gold.itertuples() if row.question == "order"}


def test_mean_rank_gold_is_each_option_s_place_by_its_mean_rank():
    found = _gold(define("mean_rank"), VOTES)
    assert {unit: gold for unit, (gold, *_rest) in found.items()} == {"b": "1", "a": "2", "c": "3"}
    assert found["a"][1] == pytest.approx(2) and found["b"][1] == pytest.approx(4 / 3)
    assert found["c"][1] == pytest.approx(8 / 3)
    assert found["a"][2] == 3 and found["a"][3] == "1: 1, 2: 1, 3: 1" and found["c"][3] == "2: 1, 3: 2"


def test_borda_gold_is_each_option_s_place_by_its_points():
    found = _gold(define("borda"), VOTES)
    assert {unit: (gold, score) for unit, (gold, score, *_rest) in found.items()} == \
        {"b": ("1", 5.0), "a": ("2", 3.0), "c": ("3", 1.0)}


# Four annotators: a b c, a b c, c b a, c b a. Every option's rank sum is 8 (a tie of all three by either rule);
# a and c have two first places each, b none, so b is last; a and c tie on every place, so the one declared first
# wins.
TIED = {"i1": [{"order": ["a", "b", "c"]}] * 2 + [{"order": ["c", "b", "a"]}] * 2}


@pytest.mark.parametrize("rule", ["mean_rank", "borda"])
def test_ties_go_to_more_first_places_then_to_the_option_declared_first(rule):
    found = _gold(define(rule), TIED)
    assert {unit: gold for unit, (gold, *_rest) in found.items()} == {"a": "1", "c": "2", "b": "3"}
    reordered = _gold(define(rule, options="[c, b, a]"), TIED)
    assert {unit: gold for unit, (gold, *_rest) in reordered.items()} == {"c": "1", "a": "2", "b": "3"}


def test_the_order_of_the_votes_does_not_change_the_gold():
    shuffled = {"i1": list(reversed(VOTES["i1"]))}
    assert _gold(define(), shuffled) == {unit: (g, s, n, v) for unit, (g, s, n, v) in _gold(define(), VOTES).items()}


WHEN = """name: rank
show: [text]
questions:
  - {id: any, kind: choice, options: ["no", "yes"]}
  - {id: order, kind: ranking, options: [a, b, c], when: {any: "yes"}}
"""


def test_a_ranking_not_asked_by_the_gold_of_its_condition_is_n_a_on_every_option():
    definition = definition_from_text(WHEN)
    votes = {"i1": [{"any": "no"}, {"any": "no"}, {"any": "yes", "order": ["a", "b", "c"]}],
             "i2": [{"any": "no"}, {"any": "no"}]}
    found = declared_gold(definition, labels_of(definition, votes))
    rows = {(r.item, r.unit): r.gold for r in found.itertuples() if r.question == "order"}
    assert rows == {("i1", "a"): NOT_ASKED, ("i1", "b"): NOT_ASKED, ("i1", "c"): NOT_ASKED,
                    ("i2", "a"): NOT_ASKED, ("i2", "b"): NOT_ASKED, ("i2", "c"): NOT_ASKED}
    assert gold_counts(definition, found)["order: n/a"] == 2


def test_the_gold_summary_counts_the_items_each_option_is_first_on():
    definition = define()
    votes = {**VOTES, "i2": [{"order": ["c", "a", "b"]}] * 2}
    counts = gold_counts(definition, declared_gold(definition, labels_of(definition, votes)))
    assert (counts["order: a first"], counts["order: b first"], counts["order: c first"]) == (0, 1, 1)


# --- agreement --------------------------------------------------------------------------------------------------

def test_agreement_is_on_the_ranks_ordinal_with_the_item_as_block():
    definition = define()
    [frame] = agreement_units(definition, labels_of(definition, VOTES)).values()
    assert frame.attrs["level"] == "ordinal" and frame.attrs["order"] == ["1", "2", "3"]
    assert sorted(zip(frame["unit"], frame["coder"], frame["value"]))[:3] == \
        [("i1 / a", 1, "2"), ("i1 / a", 2, "1"), ("i1 / a", 3, "3")]
    assert set(frame["block"]) == {"i1"}


def test_alpha_is_krippendorff_s_ordinal_alpha_of_the_ranks():
    definition = define()
    votes = {**VOTES, "i2": [{"order": ["c", "a", "b"]}, {"order": ["c", "b", "a"]}, {"order": ["a", "c", "b"]}]}
    [frame] = agreement_units(definition, labels_of(definition, votes)).values()
    # The same ranks as a coders x units matrix (units i1/a, i1/b, i1/c, i2/a, i2/b, i2/c), the package's other input.
    ranks = [[2, 1, 3, 2, 3, 1], [1, 2, 3, 3, 2, 1], [3, 1, 2, 1, 3, 2]]
    expected = krippendorff.alpha(reliability_data=np.array(ranks, dtype=float), level_of_measurement="ordinal")
    assert field_agreement("order", frame).krippendorff_alpha.value == pytest.approx(expected)


def test_kendall_w_of_proofwiki_s_example_is_one_sixteenth():
    """ProofWiki, "Kendall's Coefficient of Concordance/Examples/Arbitrary Example 1": judges A to D rank X, Y, Z
    as (1, 3, 2), (1, 2, 3), (2, 3, 1), (3, 1, 2); S = 2 and W = 1/16."""
    assert kendall_w([[1, 3, 2], [1, 2, 3], [2, 3, 1], [3, 1, 2]]) == pytest.approx(1 / 16)


def test_kendall_w_of_four_judges_ranking_ten_projects():
    """A textbook worked example (four judges A to D rank ten projects; sum of D^2 = 1048 with N = 10, m = 4):
    W = 12 * 1048 / (4^2 * 10 * (10^2 - 1)) = 0.7939."""
    columns = {"A": [1, 3, 4, 5, 2, 8, 6, 7, 10, 9], "B": [2, 1, 4, 5, 6, 3, 8, 7, 10, 9],
               "C": [3, 2, 1, 5, 7, 4, 6, 8, 9, 10], "D": [4, 2, 3, 1, 6, 7, 5, 9, 8, 10]}
    assert kendall_w(list(columns.values())) == pytest.approx(12 * 1048 / (16 * 10 * 99))
    assert round(kendall_w(list(columns.values())), 4) == 0.7939


def test_kendall_w_agrees_with_the_mean_spearman_correlation():
    """For m complete rankings, mean pairwise Spearman rho = (m W - 1) / (m - 1) (Kendall's identity)."""
    rng = random.Random(7)
    rankings = [rng.sample(range(1, 7), 6) for _ in range(5)]
    rhos = [spearmanr(a, b).statistic for a, b in itertools.combinations(rankings, 2)]
    w = kendall_w(rankings)
    assert sum(rhos) / len(rhos) == pytest.approx((5 * w - 1) / 4)


def test_the_campaign_s_w_is_the_mean_over_items_with_the_summed_chi_square():
    definition = define()
    # i1: W = 12 * S / (9 * 24), rank sums a 6, b 4, c 8 around 6: S = 8, W = 4/9; i2: all three alike, W = 1.
    votes = {**VOTES, "i2": [{"order": ["c", "a", "b"]}] * 3, "i3": [{"order": ["a", "b", "c"]}]}
    result = field_agreement("order", agreement_units(definition, labels_of(definition, votes))["order"]).kendall_w
    assert result.items == 2 and result.value == pytest.approx((4 / 9 + 1) / 2)
    assert result.chi_square == pytest.approx(3 * 2 * 4 / 9 + 3 * 2 * 1) and result.df == 4
    assert result.p_value == pytest.approx(math.exp(-result.chi_square / 2) * (1 + result.chi_square / 2))
    assert "kendall_w" not in field_agreement("x", pd.DataFrame({"unit": ["u"], "coder": [1], "value": ["a"]})
                                              ).to_dict()


def test_w_is_undefined_in_words_with_one_annotator_per_item():
    frame = pd.DataFrame({"unit": ["i / a", "i / b"], "coder": [1, 1], "value": ["1", "2"], "block": ["i", "i"]})
    assert concordance(frame).text() == "undefined: no item was ranked by two or more annotators"


# --- control items --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("given, score", [(["a", "b", "c"], 1.0), (["c", "b", "a"], 0.0), (["b", "a", "c"], 2 / 3),
                                          (["a", "c", "b"], 2 / 3), (["c", "a", "b"], 1 / 3)])
def test_a_control_answer_scores_the_share_of_pairs_in_the_known_order(given, score):
    assert control_score(define(), {}, {"order": given}, {"order": ["a", "b", "c"]}) == pytest.approx(score)


def test_the_gold_ranking_is_a_control_item_s_known_answer_in_words():
    definition = definition_from_text("""name: rank
show: [text]
questions:
  - id: order
    kind: ranking
    options: [{value: a, label: Alpha}, {value: b, label: Beta}, {value: c, label: Gamma}]
""")
    gold = declared_gold(definition, labels_of(definition, VOTES))
    known = control_reference(definition, "i1", gold)
    assert known == {"order": ["b", "a", "c"]}
    assert show_reference(definition, {}, known) == "order Beta > Alpha > Gamma"


def test_an_items_file_gives_a_control_item_its_known_ranking_checked_like_an_answer(tmp_path):
    definition = define()
    path = tmp_path / "items.csv"
    path.write_text('id,text,known.order\ni1,first,"[""c"", ""a"", ""b""]"\n', encoding="utf-8")
    assert [item.reference for item in iter_items(path, definition)] == [{"order": ["c", "a", "b"]}]
    path.write_text('id,text,known.order\ni1,first,"[""c"", ""a"", ""c""]"\n', encoding="utf-8")
    with pytest.raises(FormatError) as caught:
        list(iter_items(path, definition))
    assert "items.csv, line 2" in str(caught.value)
    assert "order: 'c' is ranked twice (again at place 3)" in str(caught.value)
