"""A graded pairwise question (`grades`): the definition's keys, the answer's values and their two label rows (the
side and the signed grade, in the item's terms whatever side the page showed), today's ungraded answers unchanged,
gold by Bradley-Terry over the collapsed sides and by the mean grade, the graded Bradley-Terry strengths against a
direct maximisation of their likelihood, ordinal agreement on the grades against the krippendorff package, control
items and the export's item terms, each against a hand computation."""
from __future__ import annotations

from pathlib import Path

import krippendorff
import numpy as np
import pytest
import yaml
from scipy.optimize import minimize

from annotator.analysis.agreement import field_agreement
from annotator.core.hit_values import AnswerError
from annotator.declared.answers import check_answer, public_questions
from annotator.declared.definition import DefinitionError
from annotator.declared.definition_reader import definition_from_data, definition_from_file, definition_from_text
from annotator.declared.gold import agreement_units, control_score, declared_gold, strengths
from annotator.declared.words import value_words
from annotator.shared_tasks.custom.exchange import in_item_terms
from tests.support.declared_labels import labels_of

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
EXAMPLE = EXAMPLES / "graded_pairwise_responses.yaml"
SEVEN = "[A much better, A better, A slightly better, About the same, B slightly better, B better, B much better]"


def define(grades: str = SEVEN, gold: str = "bradley_terry", players: bool = True, extra: str = "") -> object:
    return definition_from_text(f"""name: graded
show: [left, right]
questions:
  - id: pref
    kind: pairwise
    a: left
    b: right
{"    players: [a_id, b_id]" if players else ""}
    grades: {grades}
    gold: {gold}
{extra}""")


PLAIN = """name: plain
show: [left, right]
questions:
  - {id: pref, kind: pairwise, a: left, b: right}
"""


def test_the_example_validates_with_seven_grades_and_a_three_grade_tie_in_its_own_words():
    definition = definition_from_file(EXAMPLE)
    preference, correctness = definition.question("preference"), definition.question("correctness")
    assert len(preference.grades) == 7 and preference.grades[3] == "About the same" and preference.allow_equal
    assert correctness.grades == ("A is more correct", "Both equally correct", "B is more correct")
    assert correctness.gold.rule == "mean_grade"


@pytest.mark.parametrize("question, path, said", [
    ("{id: p, kind: pairwise, a: left, b: right, grades: [A, B]}", "questions[0].grades",
     "lists 2 grades; give 3 to 11"),
    ("{id: p, kind: pairwise, a: left, b: right, grades: [A, A, B]}", "questions[0].grades[1]", "'A' is listed twice"),
    ("{id: p, kind: pairwise, a: left, b: right, grades: [A, ' ', B]}", "questions[0].grades[1]",
     "a grade's words must not be blank"),
    ("{id: p, kind: pairwise, a: left, b: right, grades: [A, true, B]}", "questions[0].grades[1]",
     "must be the words of a grade, not true"),
    ("{id: p, kind: pairwise, a: left, b: right, grades: [A, Same, B], allow_equal: false}",
     "questions[0].allow_equal", "a graded question's grades say whether there is a tie"),
    ("{id: p, kind: pairwise, a: left, b: right, gold: mean_grade}", "questions[0].gold.rule",
     "mean_grade needs graded answers (grades: [...])"),
])
def test_a_bad_graded_question_is_refused_at_its_key(question, path, said):
    with pytest.raises(DefinitionError) as error:
        definition_from_text(f"name: x\nshow: [left, right]\nquestions:\n  - {question}\n")
    assert error.value.path == path
    assert said in error.value.message


def test_a_derived_comparison_with_grades_is_refused_at_its_grades():
    data = yaml.safe_load((EXAMPLES / "reply_pairs.yaml").read_text(encoding="utf-8"))
    data["questions"][3]["grades"] = ["A safer", "As safe", "B safer"]   # `safer`: derived from each side's answer
    with pytest.raises(DefinitionError) as error:
        definition_from_data(data)
    assert error.value.path == "questions[3].grades"
    assert "a derived question is answered by no one, so it has no grades" in error.value.message


def test_a_graded_question_cannot_decide_whether_another_is_shown():
    with pytest.raises(DefinitionError) as error:
        define(extra="  - {id: why, kind: text, when: {pref: A}}")
    assert error.value.path == "questions[1].when.pref"
    assert "a graded pairwise question cannot decide whether another is shown" in error.value.message


def test_an_odd_number_of_grades_has_the_tie_in_the_middle_and_an_even_one_none():
    assert public_questions(define(), {})[0]["answers"] == ["A3", "A2", "A1", "equal", "B1", "B2", "B3"]
    even = define("[A much better, A better, B better, B much better]")
    assert public_questions(even, {})[0]["answers"] == ["A2", "A1", "B1", "B2"]
    assert not even.question("pref").allow_equal


def test_the_api_gives_each_grade_s_value_with_its_words():
    grades = public_questions(define(), {})[0]["grades"]
    assert grades[0] == {"value": "A3", "label": "A much better"}
    assert grades[3] == {"value": "equal", "label": "About the same"}


PAYLOAD = {"left": "x", "right": "y", "a_id": "atlas", "b_id": "birch"}


def test_a_graded_answer_gives_the_side_and_the_signed_grade():
    stored, rows = check_answer(define(), PAYLOAD, {"pref": "A2"})
    assert stored == {"pref": "A2"}
    assert [(r.unit, r.field, r.value) for r in rows] == [('["atlas", "birch"]', "pref", "A"),
                                                          ('["atlas", "birch"]', "pref.grade", "-2")]


def test_a_graded_answer_on_swapped_sides_is_kept_as_shown_and_labelled_in_the_item_s_terms():
    stored, rows = check_answer(define(), PAYLOAD, {"pref": "A3"}, {"swapped": ["pref"]})
    assert stored == {"pref": "A3"}
    assert [(r.field, r.value) for r in rows] == [("pref", "B"), ("pref.grade", "3")]


def test_the_tie_is_grade_zero_and_side_equal():
    _, rows = check_answer(define(), PAYLOAD, {"pref": "equal"}, {"swapped": ["pref"]})
    assert [(r.field, r.value) for r in rows] == [("pref", "equal"), ("pref.grade", "0")]


@pytest.mark.parametrize("answer", ["A", "B4", "equal ", 2, ["A1"]])
def test_a_value_that_is_no_grade_is_refused_listing_the_grades(answer):
    with pytest.raises(AnswerError) as error:
        check_answer(define(), PAYLOAD, {"pref": answer})
    assert "pref: must be 'A3', 'A2', 'A1', 'equal', 'B1', 'B2', 'B3'" in str(error.value)


def test_an_ungraded_question_s_answers_and_rows_are_today_s():
    definition = definition_from_text(PLAIN)
    stored, rows = check_answer(definition, {"left": "x", "right": "y"}, {"pref": "A"}, {"swapped": ["pref"]})
    assert stored == {"pref": "A"} and [(r.unit, r.field, r.value) for r in rows] == [("pref", "pref", "B")]
    assert public_questions(definition, {})[0]["answers"] == ["A", "B", "equal"]
    with pytest.raises(AnswerError, match="pref: must be 'A', 'B', 'equal'"):
        check_answer(definition, {}, {"pref": "A2"})


def test_a_grade_reads_in_the_definition_s_words():
    definition = define()
    assert value_words(definition, "pref.grade", "-3") == "A much better"
    assert value_words(definition, "pref.grade", "0") == "About the same"


# --- gold -----------------------------------------------------------------------------------------------------

def _payloads(pairs: dict[str, tuple[str, str]]) -> dict[str, dict[str, str]]:
    return {item: {"left": "x", "right": "y", "a_id": a, "b_id": b} for item, (a, b) in pairs.items()}


# Three annotators on one pair: A2, A1, B3 -> sides A, A, B (majority A); grades -2, -1, 3 (mean 0).
def test_bradley_terry_gold_is_the_majority_of_the_collapsed_sides():
    definition = define()
    votes = {"i1": [{"pref": "A2"}, {"pref": "A1"}, {"pref": "B3"}]}
    [row] = declared_gold(definition, labels_of(definition, votes, _payloads({"i1": ("atlas", "birch")}))).itertuples()
    assert (row.gold, row.n, row.votes) == ("A", 3, "A: 2, B: 1")


def test_mean_grade_gold_is_the_mean_signed_grade_and_its_side():
    definition = define(gold="mean_grade")
    votes = {"i1": [{"pref": "A2"}, {"pref": "A1"}, {"pref": "B3"}],
             "i2": [{"pref": "A3"}, {"pref": "A1"}, {"pref": "equal"}]}
    gold = declared_gold(definition, labels_of(definition, votes, _payloads({"i1": ("atlas", "birch"),
                                                                            "i2": ("birch", "cedar")})))
    found = {row.item: (row.gold, row.score, row.n, row.votes) for row in gold.itertuples()}
    assert found["i1"] == ("equal", pytest.approx(0.0), 3, "A2: 1, A1: 1, B3: 1")
    assert found["i2"] == ("A", pytest.approx(-4 / 3), 3, "A3: 1, A1: 1, equal: 1")


# Grades on three models (A player, B player, signed grade), every pair both ways, on a 7-point scale.
ANSWERS = [("atlas", "birch", -3), ("atlas", "birch", -1), ("birch", "atlas", 2), ("birch", "cedar", -2),
           ("cedar", "birch", 1), ("birch", "cedar", 0), ("cedar", "atlas", -1), ("atlas", "cedar", 1),
           ("atlas", "cedar", -2)]
GRADE_VALUE = {-3: "A3", -2: "A2", -1: "A1", 0: "equal", 1: "B1", 2: "B2", 3: "B3"}


def _strength_table() -> object:
    definition = define()
    votes = {f"i{n}": [{"pref": GRADE_VALUE[grade]}] for n, (_, _, grade) in enumerate(ANSWERS)}
    payloads = _payloads({f"i{n}": (a, b) for n, (a, b, _) in enumerate(ANSWERS)})
    return strengths(definition, labels_of(definition, votes, payloads))["pref"]


def test_the_graded_strengths_maximise_the_fractional_win_likelihood():
    """Each answer is (3 - grade) / 6 of a win for A; the strengths (100 exp(b) / sum) maximise
    sum w log sigma(b_A - b_B) + (1 - w) log sigma(b_B - b_A), maximised here directly with scipy (cedar at b = 0)."""
    table = _strength_table()
    players = ["atlas", "birch", "cedar"]

    def negative_log_likelihood(free: np.ndarray) -> float:
        beta = dict(zip(players, np.append(free, 0.0)))
        total = 0.0
        for a, b, grade in ANSWERS:
            w = (3 - grade) / 6
            d = beta[a] - beta[b]
            total += w * np.logaddexp(0, -d) + (1 - w) * np.logaddexp(0, d)   # -log sigma(d), -log sigma(-d)
        return float(total)

    fitted = minimize(negative_log_likelihood, np.zeros(2), method="BFGS", options={"gtol": 1e-10})
    exp_b = np.exp(np.append(fitted.x, 0.0))
    expected = {p: float(100 * e / exp_b.sum()) for p, e in zip(players, exp_b)}
    got = dict(zip(table["player"], table["graded_strength"]))
    assert got == pytest.approx(expected, rel=1e-5)


def test_the_collapsed_strengths_count_a_graded_win_as_a_whole_one():
    table = _strength_table()
    record = {r.player: (r.wins, r.losses, r.ties) for r in table.itertuples()}
    # atlas wins -3 and -1 against birch and birch's B2, loses cedar's A1 and its own B1, wins its own A2: 4 wins,
    # 2 losses; birch loses those three, wins A2 and B1 against cedar and ties once; cedar the rest.
    assert record["atlas"] == (4, 2, 0) and record["birch"] == (2, 3, 1) and record["cedar"] == (2, 3, 1)


def test_an_ungraded_question_s_strengths_have_no_graded_column():
    definition = definition_from_text(PLAIN.replace("b: right}", "b: right, players: [a_id, b_id]}"))
    votes = {"i1": [{"pref": "A"}, {"pref": "B"}, {"pref": "equal"}]}
    table = strengths(definition, labels_of(definition, votes, _payloads({"i1": ("atlas", "birch")})))["pref"]
    assert list(table.columns) == ["player", "strength", "rank", "wins", "losses", "ties"]


# --- agreement, control items and exports -----------------------------------------------------------------------

def test_the_grades_are_a_field_of_their_own_at_the_ordinal_level():
    definition = define()
    votes = {"i1": [{"pref": "A2"}, {"pref": "A1"}, {"pref": "B3"}], "i2": [{"pref": "equal"}, {"pref": "B1"}]}
    fields = agreement_units(definition, labels_of(definition, votes, _payloads({"i1": ("atlas", "birch"),
                                                                                "i2": ("birch", "cedar")})))
    assert set(fields) == {"pref", "pref.grade"}
    grade = fields["pref.grade"]
    assert grade.attrs == {"level": "ordinal", "order": ["-3", "-2", "-1", "0", "1", "2", "3"]}
    assert fields["pref"].attrs.get("level", "nominal") == "nominal"
    assert sorted(grade["value"]) == ["-1", "-2", "0", "1", "3"]


def test_ordinal_alpha_of_the_grades_is_the_krippendorff_package_s():
    definition = define()
    rows = [[-2, -1, 3, 0], [-1, -1, 2, 1], [-3, 0, 3, np.nan]]   # coders x items (i0 .. i3)
    votes = {f"i{n}": [{"pref": GRADE_VALUE[int(r[n])]} if not np.isnan(r[n]) else None for r in rows]
             for n in range(4)}
    payloads = _payloads({f"i{n}": ("atlas", "birch") for n in range(4)})
    frame = agreement_units(definition, labels_of(definition, votes, payloads))["pref.grade"]
    # The package's value domain: the grades -3 .. 3 in order (ordinal alpha depends on the values' frequencies).
    expected = krippendorff.alpha(reliability_data=np.array(rows, dtype=float), level_of_measurement="ordinal",
                                  value_domain=list(range(-3, 4)))
    assert field_agreement("pref.grade", frame).krippendorff_alpha.value == pytest.approx(expected)


@pytest.mark.parametrize("given, swapped, score", [("A3", False, 1.0), ("A1", False, 1.0), ("B3", True, 1.0),
                                                   ("equal", False, 0.0), ("B1", False, 0.0)])
def test_a_graded_control_answer_scores_its_side_against_the_known_side(given, swapped, score):
    presentation = {"swapped": ["pref"]} if swapped else None
    assert control_score(define(), PAYLOAD, {"pref": given}, {"pref": "A"}, presentation) == score


def test_the_export_turns_a_grade_shown_swapped_into_the_item_s_terms():
    definition = define()
    assert in_item_terms(definition, {"pref": "A2"}, {"swapped": ["pref"]}) == {"pref": "B2"}
    assert in_item_terms(definition, {"pref": "equal"}, {"swapped": ["pref"]}) == {"pref": "equal"}
    assert in_item_terms(definition_from_text(PLAIN), {"pref": "A"}, {"swapped": ["pref"]}) == {"pref": "B"}
